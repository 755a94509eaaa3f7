#include "jobs/run_job.hpp"

#include "models/display_format.hpp"

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/node_preparation.hpp"
#include "shardwise/dispatch/runner_program.hpp"
#include "shardwise/dispatch/ssh_error.hpp"
#include "shardwise/session/node_management.hpp"
#include "shardwise/session/prepared_runner.hpp"
#include "shardwise/session/run_session.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/store/nodes.hpp"

#include <QElapsedTimer>
#include <QMetaObject>
#include <QStringList>

#include <algorithm>
#include <unistd.h>

namespace shardwise::gui {

namespace {

QString fromStd(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

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
    // Checked before cancel by the remote follower: ranks on SSH nodes go on and stay re-attachable;
    // local ranks end with this process, so they are cancelled.
    m_detachRunning = true;
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
            m_detachRunning = false;
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

void RunJob::setDatabasePath(const QString& path)
{
    std::lock_guard lock(m_mutex);
    m_databasePath = path;
}

void RunJob::setSshOptions(const dispatch::SshOptions& options)
{
    std::lock_guard lock(m_mutex);
    m_sshOptions = options;
}

void RunJob::setRemoteRunRoot(const std::string& root)
{
    std::lock_guard lock(m_mutex);
    m_remoteRunRoot = root;
}

void RunJob::fail(qint64 ticket, const QString& message)
{
    post([this, ticket, message] { emit runFailed(ticket, message); });
}

QString RunJob::prepareReattach(const store::Database& db, qint64 runId, const dispatch::SshOptions& sshOptions, RunConfig& config,
                                std::vector<std::unique_ptr<dispatch::SshSession>>& sessions, std::vector<std::string>& nodeNames)
{
    const std::optional<store::RunDetail> detail = store::runDetail(db, runId);
    if (!detail)
        return tr("Run %1 is no longer stored.").arg(runId);
    if (detail->summary.status != store::RunStatus::Detached)
        return tr("Run %1 is not detached (it is \"%2\"); only a detached run on an SSH node can be re-attached.")
            .arg(runId)
            .arg(fromStd(store::runStatusId(detail->summary.status)));
    config = runConfigFromJson(detail->config);
    for (const std::string& name : detail->summary.nodes) {
        const std::optional<store::Node> node = store::findNodeByName(db, name);
        if (!node || node->kind != store::NodeKind::Ssh)
            return tr("The node \"%1\" of run %2 is no longer an SSH node of this workspace.").arg(fromStd(name)).arg(runId);
        try {
            sessions.push_back(session::openNodeSession(*node, sshOptions, &m_cancelRunning));
        } catch (const dispatch::SshError& e) {
            return tr("Cannot connect to the node \"%1\": %2; run %3 stays detached.").arg(fromStd(name), QString::fromUtf8(e.what())).arg(runId);
        }
        nodeNames.push_back(name);
    }
    return {};
}

void RunJob::abandonOne(store::Database& db, const RunRequest& request, const dispatch::SshOptions& sshOptions)
{
    const qint64 ticket = request.ticket;
    const qint64 runId = *request.abandonOf;
    const std::optional<store::RunSummary> summary = store::findRun(db, runId);
    if (!summary)
        return fail(ticket, tr("Run %1 is no longer stored.").arg(runId));
    // Each node on its own: the ones that answer get the ranks still running there stopped.
    session::AbandonTarget target;
    std::vector<std::unique_ptr<dispatch::SshSession>> sessions;
    for (const std::string& name : summary->nodes) {
        target.nodeNames.push_back(name);
        const std::optional<store::Node> node = store::findNodeByName(db, name);
        if (!node || node->kind != store::NodeKind::Ssh) {
            target.sessions.push_back(nullptr);
            target.whyNotConnected.push_back("no longer an SSH node of this workspace");
            continue;
        }
        try {
            sessions.push_back(session::openNodeSession(*node, sshOptions, &m_cancelRunning));
            target.sessions.push_back(sessions.back().get());
            target.whyNotConnected.emplace_back();
        } catch (const dispatch::SshError& e) {
            target.sessions.push_back(nullptr);
            target.whyNotConnected.emplace_back(e.what());
        }
    }
    // Cancelled while connecting (or the app closing): nothing is stopped and the store is untouched.
    if (m_cancelRunning.load())
        return fail(ticket, tr("Abandoning run %1 was cancelled; it stays detached.").arg(runId));
    session::AbandonOutcome outcome;
    try {
        outcome = session::abandonRemote(db, runId, target, request.abandonReason.toStdString());
    } catch (const std::exception& e) {
        return fail(ticket, tr("Run %1 cannot be abandoned: %2").arg(runId).arg(QString::fromUtf8(e.what())));
    }
    const auto joined = [](const std::vector<std::string>& parts) {
        QStringList list;
        for (const auto& p : parts)
            list << fromStd(p);
        return list.join(QStringLiteral("; "));
    };
    QString said = tr("Run %1 abandoned: kept as lost.").arg(runId);
    if (!outcome.stoppedOn.empty())
        said += QLatin1Char(' ') + tr("Ranks still running were stopped on %1.").arg(joined(outcome.stoppedOn));
    if (!outcome.notReached.empty())
        said += QLatin1Char(' ') + tr("Not reached, so its ranks may still be running: %1.").arg(joined(outcome.notReached));
    const QString statusId = fromStd(store::runStatusId(store::RunStatus::Lost));
    post([this, ticket, runId, statusId, said] { emit runFinished(ticket, runId, statusId, said, false); });
}

void RunJob::runOne(const RunRequest& request)
{
    const qint64 ticket = request.ticket;
    RunConfig config = request.config;
    dispatch::SshOptions sshOptions;
    QString databasePath;
    std::string remoteRunRoot;
    {
        std::lock_guard lock(m_mutex);
        sshOptions = m_sshOptions;
        remoteRunRoot = m_remoteRunRoot;
        databasePath = m_databasePath;
    }

    try {
        store::Database db = store::Database::open(databasePath.toStdString());
        if (request.abandonOf)
            return abandonOne(db, request, sshOptions);
        std::vector<std::unique_ptr<dispatch::SshSession>> attachSessions;
        std::vector<std::string> attachNodes;
        if (request.reattachOf) {
            if (const QString problem = prepareReattach(db, *request.reattachOf, sshOptions, config, attachSessions, attachNodes);
                !problem.isEmpty())
                return fail(ticket, problem);
        }
        const std::optional<store::Node> node = store::findNodeByName(db, request.node.toStdString());
        if (!node && request.node != QLatin1String("local") && !request.reattachOf)
            return fail(ticket, tr("The node \"%1\" is no longer in this workspace.").arg(request.node));
        const bool remote = node && node->kind == store::NodeKind::Ssh;

        // Checked before the run is recorded: when nothing can be measured, no run row is written.
        std::optional<std::filesystem::path> localRunner;
        std::string remoteRunner;
        std::unique_ptr<dispatch::SshSession> ssh;
        if (request.reattachOf) {
            // The ranks already run; nothing to start.
        } else if (remote) {
            remoteRunner = session::preparedRunnerPath(node->facts);
            if (remoteRunner.empty())
                return fail(ticket, tr("The node \"%1\" has no runner yet: prepare it on the Nodes page first.").arg(request.node));
            try {
                ssh = session::openNodeSession(*node, sshOptions, &m_cancelRunning);
                // A torch run needs the harness beside the prepared runner, python3 and torch there.
                if (config.backend == RunBackend::Torch) {
                    const auto missing = dispatch::checkTorchBackend(
                        *ssh, dispatch::runnerForBackend(RunBackend::Torch, remoteRunner).string(), &m_cancelRunning);
                    if (!missing.empty()) {
                        QStringList lines;
                        for (const std::string& m : missing)
                            lines << QString::fromStdString(m);
                        return fail(ticket, tr("The node \"%1\" cannot run the torch backend: %2")
                                                .arg(request.node, lines.join(QStringLiteral("; "))));
                    }
                }
            } catch (const dispatch::SshError& e) {
                return fail(ticket, tr("Cannot connect to the node \"%1\": %2").arg(request.node, QString::fromUtf8(e.what())));
            }
        } else {
            localRunner = dispatch::locateRunner(config.backend);
            if (!localRunner && config.backend == RunBackend::Torch)
                return fail(ticket, tr("shardwise-torch-runner (the torch backend) was not found: set SHARDWISE_TORCH_RUNNER or "
                                       "install it beside shardwise-runner."));
            if (!localRunner)
                return fail(ticket, tr("shardwise-runner was not found: set SHARDWISE_RUNNER or install it beside this program."));
            if (std::error_code ec; !std::filesystem::is_regular_file(*localRunner, ec) || ::access(localRunner->c_str(), X_OK) != 0)
                return fail(ticket, tr("The runner %1 is not an executable file (check SHARDWISE_RUNNER).")
                                        .arg(QString::fromStdString(localRunner->string())));
        }

        session::SessionOptions options;
        options.db = &db;
        options.requireRecord = true;
        options.detach = &m_detachRunning;
        // The node's NCCL setting goes with it: the session gives it to the node's ranks and records it.
        options.origin.nodes.push_back(node ? session::runNodeRef(*node)
                                            : store::RunNodeRef { request.node.toStdString(), std::nullopt });
        options.origin.launcher = "shardwise";
        if (config.device == DeviceKind::Cuda) {
            options.origin.gpuId = request.gpuId.toStdString();
            options.origin.interconnect = request.interconnect.toStdString();
        }
        options.origin.predicted = request.predicted;
        if (request.planId)
            options.origin.planId = *request.planId;
        // Logs and the exact config the runner read live beside the store, one folder per run.
        options.localRunRoot = std::filesystem::path(databasePath.toStdString()).parent_path() / "logs";

        // Accumulates what the ranks reported between two deliveries to the GUI.
        RankProgressTracker ranks(config.worldSize, config.warmupSteps + config.timedSteps);
        QList<RunLogLine> pendingLines;
        QElapsedTimer sinceDelivery;
        sinceDelivery.start();
        qint64 runId = 0;
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

        session::SessionCallbacks callbacks;
        callbacks.onRecorded = [&](std::int64_t id) {
            runId = id;
            m_runningRunId = id;
            post([this, ticket, id] { emit runStarted(ticket, id); });
            if (request.reattachOf) {
                // A re-attached run goes on from what was recorded before its detach: the steps
                // (progress, tokens/s so far) and the log lines, not from zero.
                try {
                    if (const auto detail = store::runDetail(db, id))
                        ranks.replayStored(db, *detail);
                    pendingLines = storedLogLines(db, id);
                } catch (const std::exception& e) {
                    // Unreadable history costs the view its earlier steps; following goes on.
                    pendingLines.append({0, tr("The steps recorded before the detach could not be read: %1").arg(QString::fromUtf8(e.what())),
                                         true, true});
                }
                deliver(true);
            }
        };
        callbacks.onEvent = [&](const protocol::Event& event) {
            ranks.apply(event);
            if (const auto* log = std::get_if<protocol::LogEvent>(&event))
                pendingLines.append({log->rank, QString::fromStdString(log->message), true, false});
            else if (const auto* error = std::get_if<protocol::ErrorEvent>(&event))
                pendingLines.append({error->rank, QString::fromStdString(error->message), true, true});
            deliver(false);
        };
        callbacks.onLog = [&](int rank, const std::string& line) {
            pendingLines.append({rank, QString::fromStdString(line), false, false});
            deliver(false);
        };

        session::SessionResult result;
        if (request.reattachOf) {
            session::AttachTarget target;
            for (const auto& attached : attachSessions)
                target.sessions.push_back(attached.get());
            target.nodeNames = attachNodes;
            target.follow.pollInterval = std::chrono::milliseconds(500);
            try {
                result = session::reattachRemote(*request.reattachOf, std::move(target), options, callbacks, &m_cancelRunning);
            } catch (const session::ReattachError& e) {
                return fail(ticket, tr("Run %1 cannot be re-attached: %2").arg(*request.reattachOf).arg(QString::fromUtf8(e.what())));
            }
        } else if (remote) {
            session::RemoteTarget target;
            target.sessions = {ssh.get()};
            target.nodeNames = {node->name};
            // All ranks of a one-node run meet on the node itself, over its loopback interface, so
            // no network the node happens to have decides where Gloo listens.
            target.launch.nodes = {{remoteRunner, config.worldSize, "127.0.0.1", {{"GLOO_SOCKET_IFNAME", "lo"}}}};
            // A port nothing on the node uses now: another program's rendezvous (a second app, a
            // user's torchrun) or the previous run's listener still in TIME_WAIT.
            target.launch.masterPort = dispatch::pickFreeRemotePort(*ssh, 29500, 29999);
            target.launch.runRoot = remoteRunRoot;
            target.follow.pollInterval = std::chrono::milliseconds(500);
            result = session::runRemote(config, std::move(target), options, callbacks, &m_cancelRunning);
        } else {
            dispatch::LocalLaunch launch;
            launch.runner = *localRunner;
            launch.ranks = config.worldSize;
            // Peers of a failed rank get a short grace: on one machine a dead rank's collective fails
            // within seconds, and the diagnosis needs their own error lines, not a minute's wait.
            launch.peerGrace = std::chrono::seconds(15);
            result = session::runLocal(config, launch, options, callbacks, &m_cancelRunning);
        }
        deliver(true);
        if (!result.runId)
            return fail(ticket, tr("The run was not recorded: %1").arg(QString::fromStdString(result.storeProblem)));

        if (result.detached) {
            const qint64 detachedId = *result.runId;
            const QString summary = result.lost
                ? tr("%1, run %2: %3.").arg(strategyLabel(config.strategy)).arg(detachedId).arg(fromStd(result.outcome.reason))
                : tr("%1 detached: its ranks go on running on the node; re-attach run %2 from the Runs page.")
                      .arg(strategyLabel(config.strategy))
                      .arg(detachedId);
            const QString statusId = fromStd(store::runStatusId(store::RunStatus::Detached));
            post([this, ticket, detachedId, statusId, summary] { emit runFinished(ticket, detachedId, statusId, summary, false); });
            return;
        }
        const store::RunStatus stored = result.storedStatus.value_or(store::RunStatus::Failed);
        const QString statusId = fromStd(store::runStatusId(stored));
        const dispatch::RunOutcome& outcome = result.outcome;
        QString summary;
        if (outcome.ok())
            summary = tr("%1 completed: %2").arg(strategyLabel(config.strategy), formatTokensPerS(outcome.tokensPerS.value_or(0.0)));
        else
            summary = tr("%1 ended as %2: %3").arg(strategyLabel(config.strategy), statusId, QString::fromStdString(outcome.reason));
        if (!result.storeProblem.empty())
            summary += QLatin1Char(' ') + tr("(The store reported a problem: %1)").arg(QString::fromStdString(result.storeProblem));
        const bool diagnosed = result.diagnosisId.has_value();
        const qint64 finishedId = *result.runId;
        post([this, ticket, finishedId, statusId, summary, diagnosed] { emit runFinished(ticket, finishedId, statusId, summary, diagnosed); });
    } catch (const std::exception& e) {
        fail(ticket, tr("The run could not be started: %1").arg(QString::fromUtf8(e.what())));
    }
}

} // namespace shardwise::gui
