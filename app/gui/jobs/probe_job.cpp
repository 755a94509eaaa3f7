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

// The node's SSH session; a failure to open it names the node.
std::unique_ptr<dispatch::SshSession> openSession(const store::Node& node, const dispatch::SshOptions& options,
                                                  const std::atomic<bool>* cancel)
{
    try {
        return session::openNodeSession(node, options, cancel);
    } catch (const dispatch::SshError& e) {
        throw dispatch::SshError(e.failure(), node.name + ": " + e.what(), e.hostKey());
    }
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
    const session::ProbeRequest request = requestFor(node);
    const dispatch::SshOptions options = m_options;
    const std::optional<std::filesystem::path> localRunner = m_localRunner ? m_localRunner : dispatch::locateRunner();
    start(node.id, request,
          [node, options, localRunner](const session::ProbeRequest& asked, const session::ProbeCallbacks& callbacks,
                                       const std::atomic<bool>* cancel) {
              if (node.kind == store::NodeKind::Local) {
                  if (!localRunner)
                      return failed(session::ProbeFailure::RunnerMissing,
                                    "no shardwise-runner beside Shardwise; set SHARDWISE_RUNNER to one");
                  return session::probeLocal(asked, *localRunner, nullptr, callbacks, cancel);
              }
              const std::string runner = session::preparedRunnerPath(node.facts);
              if (runner.empty())
                  return failed(session::ProbeFailure::RunnerMissing,
                                node.name + " has no prepared runner; prepare it first");
              auto ssh = openSession(node, options, cancel);
              session::RemoteProbeTarget target;
              target.session = ssh.get();
              target.runnerPath = runner; // the rendezvous port: a free one on the node (probe_session.hpp)
              return session::probeRemote(asked, target, nullptr, callbacks, cancel);
          });
    return true;
}

bool ProbeJob::probeNetwork(const std::vector<store::Node>& nodes)
{
    if (m_nodeId != 0 || nodes.size() < 2 || nodes.front().id == 0)
        return false;
    for (const store::Node& n : nodes)
        if (n.kind != store::NodeKind::Ssh)
            return false;
    const session::ProbeRequest request = networkRequestFor(nodes);
    const dispatch::SshOptions options = m_options;
    start(nodes.front().id, request,
          [nodes, options](const session::ProbeRequest& asked, const session::ProbeCallbacks& callbacks,
                           const std::atomic<bool>* cancel) {
              std::vector<std::unique_ptr<dispatch::SshSession>> sessions;
              session::NetworkProbeTarget target;
              for (const store::Node& n : nodes) {
                  session::NetworkProbeNode node;
                  node.name = n.name;
                  node.runnerPath = session::preparedRunnerPath(n.facts);
                  if (node.runnerPath.empty())
                      return failed(session::ProbeFailure::RunnerMissing,
                                    n.name + " has no prepared runner; prepare it first");
                  const int gpus = session::knownGpuCount(n.facts);
                  node.ranks = asked.device == DeviceKind::Cuda && gpus > 0 ? gpus : 1;
                  node.env = n.ncclEnv; // the node's NCCL settings, as its runs get them
                  sessions.push_back(openSession(n, options, cancel));
                  node.session = sessions.back().get();
                  target.nodes.push_back(std::move(node));
              }
              return session::probeNetwork(asked, target, nullptr, callbacks, cancel);
          });
    return true;
}

session::ProbeRequest ProbeJob::networkRequestFor(const std::vector<store::Node>& nodes) const
{
    session::ProbeRequest request;
    std::vector<session::NetworkProbeNode> named;
    bool allGpus = !nodes.empty();
    for (const store::Node& n : nodes) {
        named.push_back({ nullptr, n.name, {}, 1, {}, {} });
        allGpus = allGpus && session::knownGpuCount(n.facts) > 0;
    }
    request.node = session::networkProbeName(named);
    request.device = allGpus ? DeviceKind::Cuda : DeviceKind::Cpu;
    request.ranks = 0;
    for (const store::Node& n : nodes)
        request.ranks += allGpus ? session::knownGpuCount(n.facts) : 1;
    request.maxBytes = m_maxBytes;
    request.timeout = std::chrono::seconds(900);
    return request;
}

void ProbeJob::start(qint64 nodeId, const session::ProbeRequest& request, Measure measure)
{
    m_nodeId = nodeId;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    emit busyChanged(true);
    const std::shared_ptr<std::atomic<bool>> cancel = m_cancel;
    m_pool.start([this, nodeId, request, measure = std::move(measure), cancel] {
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
            result = measure(request, callbacks, cancel.get());
        } catch (const dispatch::SshError& e) {
            std::string hint;
            if (e.failure() == dispatch::SshFailure::HostKeyUnknown
                || e.failure() == dispatch::SshFailure::HostKeyChanged)
                hint = " (decide about its host key with Test connection first)";
            result = failed(session::ProbeFailure::Unreachable, "cannot connect to " + std::string(e.what()) + hint);
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
}

} // namespace shardwise::gui
