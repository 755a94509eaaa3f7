#pragma once
// The open run store (an SQLite file, by default in the user's data directory) as the GUI sees it.
// On first start the file is created and filled with the demo content (resources/demo): the local
// node and the example plans, so the app is useful with no GPU and no remote node; the app's own
// workspace also gets the example runs shipped with Shardwise (core/published, examples.hpp), so the
// Compare page shows measured against predicted from the start. The workspace
// owns the app's one run queue, which the Runs page shows and the Plan page's Validate feeds.

#include "workspace/run_record.hpp"

#include "shardwise/store/database.hpp"

#include <QFutureWatcher>
#include <QJsonObject>
#include <QObject>
#include <QStringList>

#include <memory>
#include <optional>

namespace shardwise::gui {

class RunJob;

struct ExamplePlan {
    QString id; // "start" (what the Plan page opens with), "try-it-here", "reference"
    QString title;
    QJsonObject form; // PlanForm::state() shape
};

class Workspace : public QObject {
    Q_OBJECT

public:
    explicit Workspace(QObject* parent = nullptr);
    ~Workspace() override;

    // The store's default location ($SHARDWISE_DB, else the XDG data directory).
    static QString defaultDatabasePath();
    // Opens (and on first start creates and seeds) the store. False + message naming the file.
    bool open(const QString& databasePath, QString* error);
    // Whether a store created by open() also gets the shipped example runs (the app sets it; off by
    // default so a test's scratch store starts empty). `directory` empty: the installed examples.
    void setSeedsExampleRuns(bool seeds, const QString& directory = {});
    // On first start the example runs are stored off the GUI thread: open() returns at once, and
    // exampleRunsImported() (after runsChanged()) says when they are in the store.
    bool importingExampleRuns() const;
    // Blocks until the example runs' import has ended (at once when none is under way), then signals
    // as the end of the import does. For the screenshot mode and for tests.
    void waitForExampleRuns();
    // Why the example runs could not be stored on first start; empty when they were (or were not asked
    // for, or are still being stored).
    QString exampleRunsError() const { return m_exampleRunsError; }
    // Removes one of the user's own runs. False + a message for an example or published run (those
    // are read-only) or a run that is not there.
    bool removeRun(qint64 id, QString* error);
    // Runs measured elsewhere from a CSV or JSON export (`shardwise-cli runs export`), stored as
    // imported; all or nothing. True + "imported N run(s)" or false + the reason naming the file.
    bool importRuns(const QString& filePath, QString* message);
    bool isOpen() const { return m_db != nullptr; }
    bool createdOnOpen() const { return m_createdOnOpen; }
    QString databasePath() const { return m_path; }
    store::Database* database() const { return m_db.get(); }
    // The run queue of this workspace's store, created on first use; every finished run announces
    // itself through runsChanged().
    RunJob* runQueue();
    // The run queue if something has used it; null otherwise (nothing can be running then).
    const RunJob* runQueueIfCreated() const { return m_runQueue; }

    // The demo workspace's example plans, first = the one the Plan page starts with.
    static QList<ExamplePlan> examplePlans();
    // The example plan with this id; an empty plan (no form) when there is none.
    static ExamplePlan examplePlan(const QString& id);

    QList<RunRecord> runs() const; // newest first, every outcome
    std::optional<RunRecord> run(qint64 id) const;
    QStringList nodeNames() const; // "local" first

public slots:
    // Called by whoever recorded or removed runs so every page refreshes.
    void notifyRunsChanged();
    // Called by whoever added, removed or prepared nodes, so node choices elsewhere follow.
    void notifyNodesChanged();

signals:
    void runsChanged();
    void nodesChanged();
    void exampleRunsImported();

private:
    void seedDemoContent();
    void startExampleRunsImport();
    void finishExampleRunsImport();

    QString m_path;
    std::unique_ptr<store::Database> m_db;
    bool m_createdOnOpen = false;
    bool m_seedsExampleRuns = false;
    QString m_exampleRunsDirectory;
    QString m_exampleRunsError;
    QFutureWatcher<QString>* m_exampleImport = nullptr; // the first start's import, while under way
    RunJob* m_runQueue = nullptr;
};

} // namespace shardwise::gui
