#pragma once
// The app's one run queue: measured runs, one after another, off the GUI thread, on the node each
// request names: this machine, or an SSH node of the workspace (the runner its preparation built,
// ranks detached on the node and followed over SSH). core/session records each run into the store
// as it happens and stores a diagnosis for one that does not complete. Per-rank progress and log
// lines reach the GUI as queued signals at most every 100 ms; cancel stops the running run on every
// node (SIGTERM, then SIGKILL) or takes a queued one off the queue. A request can also take up a
// detached run on an SSH node again (re-attach) and record the rest of it. When the job ends (the
// app closing) a run on an SSH node is detached, not cancelled: its ranks go on and the run can be
// re-attached later; a local run is cancelled. The Runs page and the Plan page's Validate both
// queue here.

#include "models/run_progress.hpp"

#include "shardwise/dispatch/ssh_session.hpp"
#include "shardwise/spec/specs.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/nodes.hpp"
#include "shardwise/store/runs.hpp"

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <atomic>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace shardwise::gui {

struct RunRequest {
    qint64 ticket = 0; // assigned by RunJob::enqueue; identifies the request until it has a run id
    RunConfig config;
    QString node = QStringLiteral("local");
    std::optional<qint64> rerunOf; // the stored run this one repeats with a change, if any
    // What the plan assumed, kept with the measurement (Validate on the Plan page).
    QString gpuId;        // preset id, for the store's hardware column
    QString interconnect; // "nvlink" | "pcie" | ""
    std::optional<store::RunPrediction> predicted;
    std::optional<qint64> planId;
    std::optional<double> interNodeGBps; // the plan's network between nodes, GB/s per node per direction
    // Follow this detached remote run again instead of starting one; config and node are the run's.
    std::optional<qint64> reattachOf;
    // Give up this detached remote run instead: its ranks are stopped on every node that answers, and
    // it ends as lost (runFinished with status "lost"); abandonReason goes into its note.
    std::optional<qint64> abandonOf;
    QString abandonReason;
};

class RunJob : public QObject {
    Q_OBJECT

public:
    // `databasePath`: the worker opens its own connection, one per thread as the store requires.
    explicit RunJob(QString databasePath, QObject* parent = nullptr);
    ~RunJob() override; // detaches a running remote run (cancels a local one), drops the queue and joins

    // Returns the ticket of the queued request.
    qint64 enqueue(RunRequest request);
    QList<RunRequest> queued() const;
    std::optional<RunRequest> running() const;
    qint64 runningRunId() const { return m_runningRunId.load(); }
    bool busy() const;

    // The runner the job starts on this machine: $SHARDWISE_RUNNER, else beside this program or in
    // the build tree.
    static std::optional<QString> runnerPath();

    // The store later runs are recorded into (the workspace was opened again).
    void setDatabasePath(const QString& path);

    // Known-hosts files and time limits for SSH nodes (KnownHostsFiles::standard() unless set).
    void setSshOptions(const dispatch::SshOptions& options);
    // Where run folders go on SSH nodes, relative to the remote home unless absolute.
    void setRemoteRunRoot(const std::string& root);

public slots:
    // Stops the running request or removes a queued one; unknown tickets are ignored.
    void cancel(qint64 ticket);
    void cancelAll();

signals:
    void queueChanged();
    void runStarted(qint64 ticket, qint64 runId);
    void rankProgressAvailable(qint64 runId, const QList<shardwise::gui::RankProgress>& ranks);
    void logLinesAvailable(qint64 runId, const QList<shardwise::gui::RunLogLine>& lines);
    // The run is stored with its final status ("completed", "failed", ...); `diagnosed` when a
    // diagnosis was stored with it.
    void runFinished(qint64 ticket, qint64 runId, const QString& status, const QString& summary, bool diagnosed);
    // `status` is "detached" when following stopped on purpose: the run goes on on its node.
    // The request could not be run at all (no runner, store error, a run that cannot be re-attached);
    // nothing was measured.
    void runFailed(qint64 ticket, const QString& message);
    void busyChanged(bool busy);

private:
    void ensureWorker();
    void workerLoop();
    void runOne(const RunRequest& request);
    // Reads the stored run a re-attach continues: its config and its nodes' SSH sessions. Returns an
    // error text, empty on success.
    QString prepareReattach(const store::Database& db, qint64 runId, const dispatch::SshOptions& sshOptions,
                            RunConfig& config, std::vector<std::unique_ptr<dispatch::SshSession>>& sessions,
                            std::vector<std::string>& nodeNames);
    // This machine's runner for `backend`; an error text, empty on success.
    static QString findLocalRunner(RunBackend backend, std::filesystem::path& runner);
    // An SSH node's prepared runner and a session to it, checked for the torch backend when the run
    // needs it; an error text, empty on success.
    QString connectForRun(const store::Node& node, RunBackend backend, const dispatch::SshOptions& sshOptions,
                          std::string& runner, std::unique_ptr<dispatch::SshSession>& ssh);
    void post(std::function<void()> fn);
    void fail(qint64 ticket, const QString& message);
    void abandonOne(store::Database& db, const RunRequest& request, const dispatch::SshOptions& sshOptions);

    QString m_databasePath; // guarded by m_mutex
    mutable std::mutex m_mutex;
    std::deque<RunRequest> m_queue;
    std::optional<RunRequest> m_running;
    qint64 m_nextTicket = 1;
    std::thread m_worker;
    bool m_workerActive = false;
    std::atomic<bool> m_cancelRunning { false };
    std::atomic<bool> m_detachRunning { false }; // remote runs only: stop following, leave the ranks running
    std::atomic<bool> m_shuttingDown { false };
    std::atomic<qint64> m_runningRunId { 0 };
    dispatch::SshOptions m_sshOptions;                     // guarded by m_mutex
    std::string m_remoteRunRoot = ".cache/shardwise/runs"; // guarded by m_mutex
};

} // namespace shardwise::gui
