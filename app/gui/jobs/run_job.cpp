#include "jobs/run_job.hpp"
#include "jobs/run_launch.hpp"

#include "models/display_format.hpp"

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/runner_program.hpp"
#include "shardwise/session/node_management.hpp"
#include "shardwise/session/run_session.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/store/nodes.hpp"

#include <QElapsedTimer>
#include <QMetaObject>
#include <QStringList>

#include <algorithm>

namespace shardwise::gui {

namespace {

QString fromStd(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

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
            if (const QString problem
                = prepareReattach(db, *request.reattachOf, sshOptions, config, attachSessions, attachNodes);
                !problem.isEmpty())
                return fail(ticket, problem);
        }
        const std::optional<store::Node> node = store::findNodeByName(db, request.node.toStdString());
        if (!node && request.node != QLatin1String("local") && !request.reattachOf)
            return fail(ticket, tr("The node \"%1\" is no longer in this workspace.").arg(request.node));
        const bool remote = node && node->kind == store::NodeKind::Ssh;

        // Checked before the run is recorded: when nothing can be measured, no run row is written.
        std::filesystem::path localRunner;
        std::string remoteRunner;
        std::unique_ptr<dispatch::SshSession> ssh;
        if (request.reattachOf) {
            // The ranks already run; nothing to start.
        } else if (remote) {
            if (const QString problem = connectForRun(*node, config.backend, sshOptions, remoteRunner, ssh);
                !problem.isEmpty())
                return fail(ticket, problem);
        } else if (const QString problem = findLocalRunner(config.backend, localRunner); !problem.isEmpty()) {
            return fail(ticket, problem);
        }
        // The one launch builder decides the launch, as for shardwise-cli run; a re-attach starts nothing.
        std::optional<session::Launch> launch;
        if (!request.reattachOf) {
            launch = session::buildLaunch(launchRequestFor(request, node, localRunner, remoteRunner, remoteRunRoot));
            config = launch->config;
        }

        session::SessionOptions options;
        options.db = &db;
        options.requireRecord = true;
        options.detach = &m_detachRunning;
        if (launch)
            options.origin = launch->origin;
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
                    pendingLines.append({ 0,
                                          tr("The steps recorded before the detach could not be read: %1")
                                              .arg(QString::fromUtf8(e.what())),
                                          true, true });
                }
                deliver(true);
            }
        };
        callbacks.onEvent = [&](const protocol::Event& event) {
            ranks.apply(event);
            if (const auto* log = std::get_if<protocol::LogEvent>(&event))
                pendingLines.append({ log->rank, QString::fromStdString(log->message), true, false });
            else if (const auto* error = std::get_if<protocol::ErrorEvent>(&event))
                pendingLines.append({ error->rank, QString::fromStdString(error->message), true, true });
            deliver(false);
        };
        callbacks.onLog = [&](int rank, const std::string& line) {
            pendingLines.append({ rank, QString::fromStdString(line), false, false });
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
                result = session::reattachRemote(*request.reattachOf, std::move(target), options, callbacks,
                                                 &m_cancelRunning);
            } catch (const session::ReattachError& e) {
                return fail(
                    ticket,
                    tr("Run %1 cannot be re-attached: %2").arg(*request.reattachOf).arg(QString::fromUtf8(e.what())));
            }
        } else if (remote) {
            session::RemoteTarget target;
            target.sessions = { ssh.get() };
            target.nodeNames = { node->name };
            target.launch = launch->remote;
            target.follow = launch->follow;
            result = session::runRemote(config, std::move(target), options, callbacks, &m_cancelRunning);
        } else {
            result = session::runLocal(config, launch->local, options, callbacks, &m_cancelRunning);
        }
        deliver(true);
        if (!result.runId)
            return fail(ticket, tr("The run was not recorded: %1").arg(QString::fromStdString(result.storeProblem)));

        if (result.detached) {
            const qint64 detachedId = *result.runId;
            const QString summary = result.lost
                ? tr("%1, run %2: %3.")
                      .arg(strategyLabel(config.strategy))
                      .arg(detachedId)
                      .arg(fromStd(result.outcome.reason))
                : tr("%1 detached: its ranks go on running on the node; re-attach run %2 from the Runs page.")
                      .arg(strategyLabel(config.strategy))
                      .arg(detachedId);
            const QString statusId = fromStd(store::runStatusId(store::RunStatus::Detached));
            post([this, ticket, detachedId, statusId, summary] {
                emit runFinished(ticket, detachedId, statusId, summary, false);
            });
            return;
        }
        const store::RunStatus stored = result.storedStatus.value_or(store::RunStatus::Failed);
        const QString statusId = fromStd(store::runStatusId(stored));
        const dispatch::RunOutcome& outcome = result.outcome;
        QString summary;
        if (outcome.ok() && outcome.rehearsal())
            // A memory result: its steps held no communication, so no tokens/s.
            summary = tr("%1 completed, %2: peak allocated %3 per rank (memory only)")
                          .arg(strategyLabel(config.strategy), rehearsalWorldText(outcome.rehearsedWorld),
                               formatGiB(static_cast<double>(outcome.peakAllocatedBytes.value_or(0))
                                         / (1024.0 * 1024.0 * 1024.0)));
        else if (outcome.ok())
            summary = tr("%1 completed: %2")
                          .arg(strategyLabel(config.strategy), formatTokensPerS(outcome.tokensPerS.value_or(0.0)));
        else
            summary = tr("%1 ended as %2: %3")
                          .arg(strategyLabel(config.strategy), statusId, QString::fromStdString(outcome.reason));
        if (!result.storeProblem.empty())
            summary += QLatin1Char(' ')
                + tr("(The store reported a problem: %1)").arg(QString::fromStdString(result.storeProblem));
        const bool diagnosed = result.diagnosisId.has_value();
        const qint64 finishedId = *result.runId;
        post([this, ticket, finishedId, statusId, summary, diagnosed] {
            emit runFinished(ticket, finishedId, statusId, summary, diagnosed);
        });
    } catch (const std::exception& e) {
        fail(ticket, tr("The run could not be started: %1").arg(QString::fromUtf8(e.what())));
    }
}

} // namespace shardwise::gui
