#include "jobs/run_launch.hpp"

#include "shardwise/session/node_management.hpp"

namespace shardwise::gui {

session::LaunchRequest launchRequestFor(const RunRequest& request, const std::optional<store::Node>& node,
                                        const std::filesystem::path& localRunner, const std::string& remoteRunner,
                                        const std::string& remoteRunRoot)
{
    session::LaunchRequest q;
    q.config = request.config;
    q.remote = node && node->kind == store::NodeKind::Ssh;
    // The node's NCCL setting goes with it: the session gives it to the node's ranks and records it.
    if (node)
        q.nodes.push_back({ session::runNodeRef(*node), q.remote ? remoteRunner : std::string() });
    else if (request.node != QLatin1String("local"))
        q.nodes.push_back({ { request.node.toStdString(), std::nullopt }, {} });
    // One node: every rank of the config on it.
    q.ranksPerNode = request.config.worldSize;
    q.localRunner = localRunner;
    q.runRoot = remoteRunRoot;
    q.gpuId = request.gpuId.toStdString();
    q.interconnect = request.interconnect.toStdString();
    q.interNodeGBps = request.interNodeGBps;
    q.planId = request.planId;
    q.predicted = request.predicted;
    return q;
}

} // namespace shardwise::gui
