#pragma once
// Measures queued runs one after another on the local node with the real runner (launchLocal), off
// the GUI thread, recording each into the run store as it happens. Progress reaches the GUI as
// queued signals, at most every 100 ms; cancel stops the current run (SIGTERM, then SIGKILL) and
// drops the rest of the queue.

#include "shardwise/spec/specs.hpp"
#include "shardwise/store/runs.hpp"

#include <QObject>
#include <QString>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace shardwise::gui {

struct QueuedRun {
    RunConfig config;
    QString node = QStringLiteral("local");
    QString gpuId;                          // preset the plan assumed, for the store's hardware column
    QString interconnect;                   // "nvlink" | "pcie" | ""
    std::optional<store::RunPrediction> predicted;
};

struct ValidationProgress {
    int runIndex = 0;     // 0-based over the runs started since the queue was last idle
    int runCount = 0;
    Strategy strategy = Strategy::Zero0;
    int step = 0;         // steps of rank 0 done, warm-up included
    int totalSteps = 0;
    double lastStepS = 0;
    QString message;
};

class ValidationQueue : public QObject {
    Q_OBJECT

public:
    // `databasePath`: the worker opens its own connection (one per thread, as the store requires).
    explicit ValidationQueue(QString databasePath, QObject* parent = nullptr);
    ~ValidationQueue() override; // cancels and joins

    void enqueue(const QList<QueuedRun>& runs);
    bool busy() const { return m_busy; }
    int pending() const;

public slots:
    void cancel();

signals:
    void started();
    void progress(const shardwise::gui::ValidationProgress& progress);
    void runRecorded(qint64 runId, bool succeeded, const QString& summary);
    void failed(const QString& message); // the queue could not run at all (no runner, store error)
    void finished(bool cancelled);

private:
    void startWorker();
    void workerLoop();
    void runOne(const QueuedRun& run, int index, int count);

    QString m_databasePath;
    mutable std::mutex m_mutex;
    std::deque<QueuedRun> m_queue;
    int m_startedInBatch = 0;
    int m_batchSize = 0;
    std::thread m_worker;
    std::atomic<bool> m_cancel{false};
    bool m_busy = false;
};

// Arguments of shardwise-runner for one run described by a RunConfig JSON file (its usage text:
// shardwise-runner --help).
QStringList runnerArguments(const QString& configFile);

} // namespace shardwise::gui

Q_DECLARE_METATYPE(shardwise::gui::ValidationProgress)
