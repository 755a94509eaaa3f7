// The run queue's work with nodes: finding the runner a run starts (this machine's, or an SSH node's
// prepared one, connected and checked for the torch backend), and reading back or giving up a
// detached run on SSH nodes.
#include "jobs/run_job.hpp"

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/node_preparation.hpp"
#include "shardwise/dispatch/runner_program.hpp"
#include "shardwise/dispatch/ssh_error.hpp"
#include "shardwise/session/node_management.hpp"
#include "shardwise/session/prepared_runner.hpp"
#include "shardwise/session/run_session.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/store/nodes.hpp"

#include <QStringList>

#include <unistd.h>

namespace shardwise::gui {

namespace {

QString fromStd(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

} // namespace

QString RunJob::findLocalRunner(RunBackend backend, std::filesystem::path& runner)
{
    const std::optional<std::filesystem::path> located = dispatch::locateRunner(backend);
    if (!located && backend == RunBackend::Torch)
        return tr("shardwise-torch-runner (the torch backend) was not found: set SHARDWISE_TORCH_RUNNER or "
                  "install it beside shardwise-runner.");
    if (!located)
        return tr("shardwise-runner was not found: set SHARDWISE_RUNNER or install it beside this program.");
    if (std::error_code ec; !std::filesystem::is_regular_file(*located, ec) || ::access(located->c_str(), X_OK) != 0)
        return tr("The runner %1 is not an executable file (check SHARDWISE_RUNNER).")
            .arg(QString::fromStdString(located->string()));
    runner = *located;
    return {};
}

QString RunJob::connectForRun(const store::Node& node, RunBackend backend, const dispatch::SshOptions& sshOptions,
                              std::string& runner, std::unique_ptr<dispatch::SshSession>& ssh)
{
    const QString name = fromStd(node.name);
    runner = session::preparedRunnerPath(node.facts);
    if (runner.empty())
        return tr("The node \"%1\" has no runner yet: prepare it on the Nodes page first.").arg(name);
    try {
        ssh = session::openNodeSession(node, sshOptions, &m_cancelRunning);
        // A torch run needs the harness beside the prepared runner, python3 and torch there.
        if (backend == RunBackend::Torch) {
            const auto missing = dispatch::checkTorchBackend(
                *ssh, dispatch::runnerForBackend(RunBackend::Torch, runner).string(), &m_cancelRunning);
            if (!missing.empty()) {
                QStringList lines;
                for (const std::string& m : missing)
                    lines << QString::fromStdString(m);
                return tr("The node \"%1\" cannot run the torch backend: %2")
                    .arg(name, lines.join(QStringLiteral("; ")));
            }
        }
    } catch (const dispatch::SshError& e) {
        return tr("Cannot connect to the node \"%1\": %2").arg(name, QString::fromUtf8(e.what()));
    }
    return {};
}

QString RunJob::prepareReattach(const store::Database& db, qint64 runId, const dispatch::SshOptions& sshOptions,
                                RunConfig& config, std::vector<std::unique_ptr<dispatch::SshSession>>& sessions,
                                std::vector<std::string>& nodeNames)
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
            return tr("The node \"%1\" of run %2 is no longer an SSH node of this workspace.")
                .arg(fromStd(name))
                .arg(runId);
        try {
            sessions.push_back(session::openNodeSession(*node, sshOptions, &m_cancelRunning));
        } catch (const dispatch::SshError& e) {
            return tr("Cannot connect to the node \"%1\": %2; run %3 stays detached.")
                .arg(fromStd(name), QString::fromUtf8(e.what()))
                .arg(runId);
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
        said += QLatin1Char(' ')
            + tr("Not reached, so its ranks may still be running: %1.").arg(joined(outcome.notReached));
    const QString statusId = fromStd(store::runStatusId(store::RunStatus::Lost));
    post([this, ticket, runId, statusId, said] { emit runFinished(ticket, runId, statusId, said, false); });
}

} // namespace shardwise::gui
