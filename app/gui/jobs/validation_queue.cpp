#include "jobs/validation_queue.hpp"

#include "models/display_format.hpp"

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/run_outcome.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/store/run_recorder.hpp"

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QSaveFile>
#include <QTemporaryDir>
#include <QMetaObject>

#include <chrono>

namespace shardwise::gui {

namespace {

std::string toStd(std::string_view s) { return std::string(s); }

} // namespace

QStringList runnerArguments(const QString& configFile)
{
    // The whole RunConfig as core/spec writes it: model (preset or loaded file), training shape,
    // knobs and step counts reach the runner exactly as planned.
    return {QStringLiteral("--config"), configFile};
}

ValidationQueue::ValidationQueue(QString databasePath, QObject* parent)
    : QObject(parent)
    , m_databasePath(std::move(databasePath))
{
    qRegisterMetaType<shardwise::gui::ValidationProgress>();
}

ValidationQueue::~ValidationQueue()
{
    m_cancel = true;
    if (m_worker.joinable())
        m_worker.join();
}

int ValidationQueue::pending() const
{
    std::lock_guard lock(m_mutex);
    return static_cast<int>(m_queue.size());
}

void ValidationQueue::enqueue(const QList<QueuedRun>& runs)
{
    if (runs.isEmpty())
        return;
    {
        std::lock_guard lock(m_mutex);
        for (const QueuedRun& r : runs)
            m_queue.push_back(r);
        m_batchSize += static_cast<int>(runs.size());
    }
    if (!m_busy)
        startWorker();
}

void ValidationQueue::cancel()
{
    {
        std::lock_guard lock(m_mutex);
        m_queue.clear();
    }
    m_cancel = true;
}

void ValidationQueue::startWorker()
{
    if (m_worker.joinable())
        m_worker.join();
    m_cancel = false;
    m_busy = true;
    emit started();
    m_worker = std::thread([this] { workerLoop(); });
}

void ValidationQueue::workerLoop()
{
    for (;;) {
        QueuedRun next;
        int index = 0;
        int count = 0;
        {
            std::lock_guard lock(m_mutex);
            if (m_queue.empty() || m_cancel)
                break;
            next = m_queue.front();
            m_queue.pop_front();
            index = m_startedInBatch++;
            count = m_batchSize;
        }
        runOne(next, index, count);
    }
    const bool cancelled = m_cancel.load();
    QMetaObject::invokeMethod(this, [this, cancelled] {
        {
            std::lock_guard lock(m_mutex);
            m_startedInBatch = 0;
            m_batchSize = static_cast<int>(m_queue.size());
        }
        m_busy = false;
        emit finished(cancelled);
        // Runs queued while the worker was winding down start a fresh worker.
        if (pending() > 0)
            startWorker();
    }, Qt::QueuedConnection);
}

void ValidationQueue::runOne(const QueuedRun& run, int index, int count)
{
    auto report = [this](auto&& fn) { QMetaObject::invokeMethod(this, std::forward<decltype(fn)>(fn), Qt::QueuedConnection); };

    if (run.node != QLatin1String("local")) {
        const QString message = tr("Validating on the node \"%1\" needs the remote launcher; only the local node can run validations from the Plan page.").arg(run.node);
        report([this, message] { emit failed(message); });
        return;
    }
    const std::optional<std::filesystem::path> runner = dispatch::locateRunner();
    if (!runner) {
        const QString message = tr("shardwise-runner was not found beside this program or in $SHARDWISE_RUNNER.");
        report([this, message] { emit failed(message); });
        m_cancel = true;
        return;
    }

    try {
        store::Database db = store::Database::open(m_databasePath.toStdString());
        store::RunOrigin origin;
        origin.nodes.push_back({run.node.toStdString(), std::nullopt});
        origin.launcher = "shardwise";
        origin.gpuId = run.config.device == DeviceKind::Cuda ? run.gpuId.toStdString() : std::string();
        origin.interconnect = run.config.device == DeviceKind::Cuda ? run.interconnect.toStdString() : std::string();
        origin.predicted = run.predicted;
        store::RunRecorder recorder(db, run.config, origin);

        QTemporaryDir runDir;
        if (!runDir.isValid())
            throw std::runtime_error("cannot create a temporary folder for the run's configuration");
        const QString configFile = runDir.filePath(QStringLiteral("run-config.json"));
        {
            QSaveFile file(configFile);
            if (!file.open(QIODevice::WriteOnly))
                throw std::runtime_error("cannot write " + configFile.toStdString());
            file.write(QByteArray::fromStdString(toJson(run.config).dump(2)));
            if (!file.commit())
                throw std::runtime_error("cannot write " + configFile.toStdString());
        }
        dispatch::LocalLaunch launch;
        launch.runner = *runner;
        for (const QString& a : runnerArguments(configFile))
            launch.args.push_back(a.toStdString());
        launch.ranks = run.config.worldSize;
        if (run.config.training.expandableSegments) {
            launch.env["PYTORCH_ALLOC_CONF"] = "expandable_segments:True";
            launch.env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True";
        }
        launch.timeout = std::chrono::seconds(3600);

        ValidationProgress progress;
        progress.runIndex = index;
        progress.runCount = count;
        progress.strategy = run.config.strategy;
        progress.totalSteps = run.config.warmupSteps + run.config.timedSteps;
        progress.message = tr("Starting %1 ranks of %2…").arg(run.config.worldSize).arg(strategyLabel(run.config.strategy));
        report([this, progress] { emit this->progress(progress); });

        QElapsedTimer sinceReport;
        sinceReport.start();
        dispatch::LaunchCallbacks callbacks;
        callbacks.onEvent = [&](const protocol::Event& event) {
            recorder.record(event);
            if (const auto* step = std::get_if<protocol::StepEvent>(&event); step && step->rank == 0) {
                progress.step = step->step + 1;
                progress.lastStepS = step->stepTimeS;
                progress.message = tr("%1: step %2 of %3, %4 per step")
                                       .arg(strategyLabel(run.config.strategy))
                                       .arg(progress.step)
                                       .arg(progress.totalSteps)
                                       .arg(formatSeconds(step->stepTimeS));
                // The runner can step faster than a person reads; the bar needs ten updates a second.
                if (sinceReport.elapsed() >= 100 || progress.step == progress.totalSteps) {
                    sinceReport.restart();
                    report([this, progress] { emit this->progress(progress); });
                }
            }
        };
        callbacks.onLog = [&](int rank, const std::string& line) { recorder.recordLog(rank, line); };

        const dispatch::LaunchResult result = dispatch::launchLocal(launch, callbacks, &m_cancel);
        const dispatch::RunOutcome outcome = dispatch::summarizeRun(run.config, result);
        recorder.finish(store::statusForOutcome(dispatch::runStatusId(outcome.status)), outcome.reason);

        const qint64 runId = recorder.runId();
        const bool ok = outcome.ok();
        QString summary;
        if (ok)
            summary = tr("%1 completed: %2").arg(strategyLabel(run.config.strategy), formatTokensPerS(outcome.tokensPerS.value_or(0.0)));
        else
            summary = tr("%1 %2: %3").arg(strategyLabel(run.config.strategy), QString::fromStdString(toStd(dispatch::runStatusId(outcome.status))),
                                           QString::fromStdString(outcome.reason));
        report([this, runId, ok, summary] { emit runRecorded(runId, ok, summary); });
    } catch (const std::exception& e) {
        const QString message = tr("%1 could not be run: %2").arg(strategyLabel(run.config.strategy), QString::fromUtf8(e.what()));
        report([this, message] { emit failed(message); });
    }
}

} // namespace shardwise::gui
