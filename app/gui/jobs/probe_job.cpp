#include "jobs/probe_job.hpp"

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/remote_launch.hpp"
#include "shardwise/session/node_management.hpp"
#include "shardwise/session/prepared_runner.hpp"

#include <QElapsedTimer>
#include <QMetaObject>

namespace shardwise::gui {

namespace {

session::ProbeSessionResult failed(session::ProbeFailure failure, std::string reason)
{
    session::ProbeSessionResult r;
    r.failure = failure;
    r.reason = std::move(reason);
    return r;
}

} // namespace

ProbeJob::ProbeJob(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<shardwise::session::ProbeRequest>();
    qRegisterMetaType<shardwise::session::ProbeSessionResult>();
}

ProbeJob::~ProbeJob()
{
    m_cancel->store(true);
    m_pool.waitForDone();
}

void ProbeJob::cancel()
{
    m_cancel->store(true);
}

session::ProbeRequest ProbeJob::requestFor(const store::Node& node) const
{
    session::ProbeRequest request;
    request.node = node.name;
    const int gpus = session::knownGpuCount(node.facts);
    request.device = gpus > 0 ? DeviceKind::Cuda : DeviceKind::Cpu;
    request.ranks = gpus > 0 ? gpus : 1;
    request.maxBytes = m_maxBytes;
    // A probe that hangs (a rank waiting on a peer that never came) must end on its own.
    request.timeout = std::chrono::seconds(900);
    return request;
}

bool ProbeJob::probe(const store::Node& node)
{
    if (m_nodeId != 0 || node.id == 0)
        return false;
    m_nodeId = node.id;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    emit busyChanged(true);
    const session::ProbeRequest request = requestFor(node);
    const dispatch::SshOptions options = m_options;
    const std::optional<std::filesystem::path> localRunner = m_localRunner ? m_localRunner : dispatch::locateRunner();
    const std::shared_ptr<std::atomic<bool>> cancel = m_cancel;
    const qint64 nodeId = node.id;

    m_pool.start([this, node, nodeId, request, options, localRunner, cancel] {
        QElapsedTimer sinceReport; // invalid until the first line is reported
        session::ProbeCallbacks callbacks;
        callbacks.onLog = [&](int rank, const std::string& line) {
            // A log line is the only sign of life while the ranks measure; a few a second is plenty.
            if (sinceReport.isValid() && sinceReport.elapsed() < 250)
                return;
            sinceReport.start();
            const QString text = tr("rank %1: %2").arg(rank).arg(QString::fromStdString(line));
            QMetaObject::invokeMethod(
                this, [this, nodeId, text] { emit progress(nodeId, text); }, Qt::QueuedConnection);
        };
        session::ProbeSessionResult result;
        try {
            if (node.kind == store::NodeKind::Local) {
                if (!localRunner)
                    result = failed(
                        session::ProbeFailure::RunnerMissing,
                        "no shardwise-runner beside Shardwise or in its build tree; set SHARDWISE_RUNNER to one");
                else
                    result = session::probeLocal(request, *localRunner, nullptr, callbacks, cancel.get());
            } else {
                const std::string runner = session::preparedRunnerPath(node.facts);
                if (runner.empty()) {
                    result = failed(session::ProbeFailure::RunnerMissing,
                                    node.name + " has no prepared runner; prepare it first");
                } else {
                    auto ssh = session::openNodeSession(node, options, cancel.get());
                    session::RemoteProbeTarget target;
                    target.session = ssh.get();
                    target.runnerPath = runner;
                    // Not the default 29500, which a torchrun of the node's user may hold.
                    target.masterPort = dispatch::pickFreeRemotePort(*ssh, 29500, 29999);
                    result = session::probeRemote(request, target, nullptr, callbacks, cancel.get());
                }
            }
        } catch (const dispatch::SshError& e) {
            std::string hint;
            if (e.failure() == dispatch::SshFailure::HostKeyUnknown
                || e.failure() == dispatch::SshFailure::HostKeyChanged)
                hint = " (decide about its host key with Test connection first)";
            result
                = failed(session::ProbeFailure::Unreachable, "cannot connect to " + node.name + ": " + e.what() + hint);
        } catch (const std::exception& e) {
            result = failed(session::ProbeFailure::RanksFailed, e.what());
        }
        QMetaObject::invokeMethod(
            this,
            [this, nodeId, request, result] {
                m_nodeId = 0;
                emit finished(nodeId, request, result);
                emit busyChanged(false);
            },
            Qt::QueuedConnection);
    });
    return true;
}

} // namespace shardwise::gui
