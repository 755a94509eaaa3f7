#include "jobs/run_job.hpp"

#include "jobs/run_diagnosis.hpp"
#include "models/display_format.hpp"

#include "shardwise/diagnose/diagnosis.hpp"
#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/run_outcome.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/store/nodes.hpp"
#include "shardwise/store/run_recorder.hpp"

#include <QElapsedTimer>
#include <QMetaObject>

#include <algorithm>
#include <fstream>
#include <map>
#include <unistd.h>

namespace shardwise::gui {

namespace {

QString fromStd(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// Accumulates what the ranks reported between two deliveries to the GUI.
class RankTracker {
public:
    RankTracker(int world, int totalSteps)
    {
        for (int r = 0; r < world; ++r) {
            RankProgress p;
            p.rank = r;
            p.totalSteps = totalSteps;
            m_ranks.append(p);
            m_timedTokens.push_back(0);
            m_timedSeconds.push_back(0);
        }
    }

    void apply(const protocol::Event& event)
    {
        const int rank = protocol::eventRank(event);
        if (rank < 0 || rank >= m_ranks.size())
            return;
        RankProgress& p = m_ranks[rank];
        if (const auto* start = std::get_if<protocol::StartEvent>(&event)) {
            p.deviceName = QString::fromStdString(start->deviceName);
        } else if (const auto* step = std::get_if<protocol::StepEvent>(&event)) {
            p.stepsDone = step->step + 1;
            p.lastStepS = step->stepTimeS;
            p.lastLoss = step->loss;
            p.deviceAllocated = step->memory.allocated;
            p.devicePeakAllocated = std::max(p.devicePeakAllocated, step->memory.peakAllocated);
            p.hostPeakRss = std::max(p.hostPeakRss, step->memory.hostPeakRss);
            if (step->timed) {
                // Tokens per second so far = this rank's timed tokens over its timed step time; the
                // warm-up steps (allocator growth, first-touch) would understate the steady rate.
                ++p.timedStepsDone;
                m_timedTokens[static_cast<std::size_t>(rank)] += static_cast<double>(step->tokens);
                m_timedSeconds[static_cast<std::size_t>(rank)] += step->stepTimeS;
                const double seconds = m_timedSeconds[static_cast<std::size_t>(rank)];
                p.tokensPerS = seconds > 0 ? m_timedTokens[static_cast<std::size_t>(rank)] / seconds : 0.0;
            }
        } else if (const auto* summary = std::get_if<protocol::SummaryEvent>(&event)) {
            p.finished = true;
            p.devicePeakAllocated = std::max(p.devicePeakAllocated, summary->memory.peakAllocated);
            p.hostPeakRss = std::max(p.hostPeakRss, summary->memory.hostPeakRss);
        } else if (const auto* error = std::get_if<protocol::ErrorEvent>(&event)) {
            p.failed = true;
            p.error = QString::fromStdString(error->message);
        }
        m_changed = true;
    }

    bool changed() const { return m_changed; }
    QList<RankProgress> take()
    {
        m_changed = false;
        return m_ranks;
    }

private:
    QList<RankProgress> m_ranks;
    std::vector<double> m_timedTokens;
    std::vector<double> m_timedSeconds;
    bool m_changed = false;
};

} // namespace

RunJob::RunJob(QString databasePath, QObject* parent)
    : QObject(parent)
    , m_databasePath(std::move(databasePath))
{
    qRegisterMetaType<shardwise::gui::RankProgress>();
    qRegisterMetaType<shardwise::gui::RunLogLine>();
    qRegisterMetaType<QList<shardwise::gui::RankProgress>>();
    qRegisterMetaType<QList<shardwise::gui::RunLogLine>>();
}

RunJob::~RunJob()
{
    m_shuttingDown = true;
    {
        std::lock_guard lock(m_mutex);
        m_queue.clear();
    }
    m_cancelRunning = true;
    if (m_worker.joinable())
        m_worker.join();
}

std::optional<QString> RunJob::runnerPath()
{
    if (const auto runner = dispatch::locateRunner())
        return QString::fromStdString(runner->string());
    return std::nullopt;
}

qint64 RunJob::enqueue(RunRequest request)
{
    {
        std::lock_guard lock(m_mutex);
        request.ticket = m_nextTicket++;
        m_queue.push_back(request);
    }
    emit queueChanged();
    ensureWorker();
    return request.ticket;
}

QList<RunRequest> RunJob::queued() const
{
    std::lock_guard lock(m_mutex);
    return QList<RunRequest>(m_queue.begin(), m_queue.end());
}

std::optional<RunRequest> RunJob::running() const
{
    std::lock_guard lock(m_mutex);
    return m_running;
}

bool RunJob::busy() const
{
    std::lock_guard lock(m_mutex);
    return m_workerActive;
}

void RunJob::cancel(qint64 ticket)
{
    bool removed = false;
    {
        std::lock_guard lock(m_mutex);
        if (m_running && m_running->ticket == ticket) {
            m_cancelRunning = true;
            return;
        }
        for (auto it = m_queue.begin(); it != m_queue.end(); ++it) {
            if (it->ticket == ticket) {
                m_queue.erase(it);
                removed = true;
                break;
            }
        }
    }
    if (removed)
        emit queueChanged();
}

void RunJob::cancelAll()
{
    {
        std::lock_guard lock(m_mutex);
        m_queue.clear();
        if (m_running)
            m_cancelRunning = true;
    }
    emit queueChanged();
}

void RunJob::post(std::function<void()> fn)
{
    if (!m_shuttingDown)
        QMetaObject::invokeMethod(this, std::move(fn), Qt::QueuedConnection);
}

void RunJob::ensureWorker()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_workerActive)
            return;
        m_workerActive = true;
    }
    if (m_worker.joinable())
        m_worker.join(); // the previous worker has already left its loop
    emit busyChanged(true);
    m_worker = std::thread([this] { workerLoop(); });
}

void RunJob::workerLoop()
{
    for (;;) {
        RunRequest next;
        {
            std::lock_guard lock(m_mutex);
            if (m_queue.empty() || m_shuttingDown) {
                m_workerActive = false;
                m_running.reset();
                break;
            }
            next = m_queue.front();
            m_queue.pop_front();
            m_running = next;
            m_cancelRunning = false;
        }
        post([this] { emit queueChanged(); });
        runOne(next);
        {
            std::lock_guard lock(m_mutex);
            m_running.reset();
        }
        m_runningRunId = 0;
        post([this] { emit queueChanged(); });
    }
    post([this] {
        emit queueChanged();
        if (!busy())
            emit busyChanged(false);
    });
}

void RunJob::runOne(const RunRequest& request)
{
    const qint64 ticket = request.ticket;
    const RunConfig& config = request.config;
    if (request.node != QLatin1String("local")) {
        const QString message = tr("Runs on the node \"%1\" need the remote launcher, which this version does not have yet; "
                                   "only the local node can run.").arg(request.node);
        post([this, ticket, message] { emit runFailed(ticket, message); });
        return;
    }
    const std::optional<std::filesystem::path> runner = dispatch::locateRunner();
    if (!runner) {
        const QString message = tr("shardwise-runner was not found: set SHARDWISE_RUNNER or install it beside this program.");
        post([this, ticket, message] { emit runFailed(ticket, message); });
        return;
    }
    if (std::error_code ec; !std::filesystem::is_regular_file(*runner, ec) || ::access(runner->c_str(), X_OK) != 0) {
        // Checked before the run is recorded: nothing was measured, so no run row is written.
        const QString message = tr("The runner %1 is not an executable file (check SHARDWISE_RUNNER).")
                                    .arg(QString::fromStdString(runner->string()));
        post([this, ticket, message] { emit runFailed(ticket, message); });
        return;
    }

    try {
        store::Database db = store::Database::open(m_databasePath.toStdString());
        store::RunOrigin origin;
        std::optional<std::int64_t> nodeId;
        if (const auto node = store::findNodeByName(db, request.node.toStdString()))
            nodeId = node->id;
        origin.nodes.push_back({request.node.toStdString(), nodeId});
        origin.launcher = "shardwise";
        store::RunRecorder recorder(db, config, origin);
        const qint64 runId = recorder.runId();
        m_runningRunId = runId;
        post([this, ticket, runId] { emit runStarted(ticket, runId); });

        // Logs and the exact config the runner read live beside the store, one folder per run, so
        // a diagnosis can be repeated from the files later.
        const std::filesystem::path logDir = std::filesystem::path(m_databasePath.toStdString()).parent_path() / "logs"
                                             / ("run-" + std::to_string(runId));
        std::filesystem::create_directories(logDir);
        const std::filesystem::path configFile = logDir / "config.json";
        {
            std::ofstream out(configFile);
            out << toJson(config).dump(2) << '\n';
            if (!out)
                throw std::runtime_error("cannot write " + configFile.string());
        }

        dispatch::LocalLaunch launch;
        launch.runner = *runner;
        launch.args = {"--config", configFile.string()};
        launch.ranks = config.worldSize;
        launch.logDir = logDir;
        if (config.training.expandableSegments) {
            // PyTorch 2.x reads PYTORCH_ALLOC_CONF, 1.x and early 2.x PYTORCH_CUDA_ALLOC_CONF.
            launch.env["PYTORCH_ALLOC_CONF"] = "expandable_segments:True";
            launch.env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True";
        }
        // Peers of a failed rank get a short grace: on one machine a dead rank's collective fails
        // within seconds, and the diagnosis needs their own error lines, not a minute's wait.
        launch.peerGrace = std::chrono::seconds(15);

        RankTracker ranks(config.worldSize, config.warmupSteps + config.timedSteps);
        QList<RunLogLine> pendingLines;
        QElapsedTimer sinceDelivery;
        sinceDelivery.start();
        auto deliver = [&](bool force) {
            // The runner can report faster than anyone reads; ten updates a second keep the view live
            // without flooding the event loop.
            if (!force && sinceDelivery.elapsed() < 100)
                return;
            sinceDelivery.restart();
            if (ranks.changed()) {
                const QList<RankProgress> snapshot = ranks.take();
                post([this, runId, snapshot] { emit rankProgressAvailable(runId, snapshot); });
            }
            if (!pendingLines.isEmpty()) {
                QList<RunLogLine> lines;
                lines.swap(pendingLines);
                post([this, runId, lines] { emit logLinesAvailable(runId, lines); });
            }
        };

        dispatch::LaunchCallbacks callbacks;
        callbacks.onEvent = [&](const protocol::Event& event) {
            recorder.record(event);
            ranks.apply(event);
            if (const auto* log = std::get_if<protocol::LogEvent>(&event))
                pendingLines.append({log->rank, QString::fromStdString(log->message), true, false});
            else if (const auto* error = std::get_if<protocol::ErrorEvent>(&event))
                pendingLines.append({error->rank, QString::fromStdString(error->message), true, true});
            deliver(false);
        };
        callbacks.onLog = [&](int rank, const std::string& line) {
            recorder.recordLog(rank, line);
            pendingLines.append({rank, QString::fromStdString(line), false, false});
            deliver(false);
        };

        const dispatch::LaunchResult result = dispatch::launchLocal(launch, callbacks, &m_cancelRunning);
        deliver(true);
        const dispatch::RunOutcome outcome = dispatch::summarizeRun(config, result);
        const store::RunStatus status = store::statusForOutcome(dispatch::runStatusId(outcome.status));
        recorder.finish(status, outcome.reason);

        bool diagnosed = false;
        if (!outcome.ok() && outcome.status != dispatch::RunStatus::Cancelled) {
            const diagnose::Diagnosis diagnosis = diagnose::diagnose(rankRecordsOf(result, request.node.toStdString()));
            storeRunDiagnosis(db, runId, diagnosis);
            diagnosed = true;
        }

        const QString statusId = fromStd(store::runStatusId(status));
        QString summary;
        if (outcome.ok())
            summary = tr("%1 completed: %2").arg(strategyLabel(config.strategy), formatTokensPerS(outcome.tokensPerS.value_or(0.0)));
        else
            summary = tr("%1 ended as %2: %3").arg(strategyLabel(config.strategy), statusId, QString::fromStdString(outcome.reason));
        post([this, ticket, runId, statusId, summary, diagnosed] { emit runFinished(ticket, runId, statusId, summary, diagnosed); });
    } catch (const std::exception& e) {
        const QString message = tr("The run could not be started: %1").arg(QString::fromUtf8(e.what()));
        post([this, ticket, message] { emit runFailed(ticket, message); });
    }
}

} // namespace shardwise::gui
