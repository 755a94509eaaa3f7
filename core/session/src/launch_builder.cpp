#include "shardwise/session/launch_builder.hpp"

#include "shardwise/spec/json.hpp"

namespace shardwise::session {

namespace {

// In a series asked at once, an offload strategy's optimizer step runs on the host between the
// step's kernels, so it cannot be captured: it runs eager rather than failing the series. What no
// strategy of the series could capture (device, precision, warm-up) is still refused by validate.
std::string applyCudaGraphRule(RunConfig& config, bool series)
{
    if (!config.training.cudaGraphs || !series)
        return {};
    const StrategyTraits& t = traits(config.strategy);
    if (!t.offloadsOptimizer && !t.offloadsParameters)
        return {};
    config.training.cudaGraphs = false;
    return std::string(strategyId(config.strategy))
        + " runs eager: CUDA graphs cannot capture its host-side optimizer step";
}

} // namespace

Launch buildLaunch(const LaunchRequest& request)
{
    if (request.ranksPerNode < 1)
        throw SpecError("ranks_per_node", "must be at least 1, got " + std::to_string(request.ranksPerNode));
    if (request.remote && request.nodes.empty())
        throw SpecError("nodes", "a launch on SSH nodes needs at least one node");
    if (request.remote)
        for (const LaunchNode& node : request.nodes)
            if (node.runnerPath.empty())
                throw SpecError("nodes", "the node '" + node.ref.name + "' has no runner (prepare it first)");
    if (!request.remote && request.nodes.size() > 1)
        throw SpecError("nodes", "a launch on this machine has one node, got " + std::to_string(request.nodes.size()));

    Launch launch;
    launch.isRemote = request.remote;
    launch.config = request.config;
    const int nodeCount = request.remote ? static_cast<int>(request.nodes.size()) : 1;
    launch.config.worldSize = request.ranksPerNode * nodeCount;
    launch.note = applyCudaGraphRule(launch.config, request.series);
    validate(launch.config);
    if (launch.config.rehearsal() && launch.config.device != DeviceKind::Cuda)
        throw SpecError("device",
                        "a rehearsal of world " + std::to_string(launch.config.rehearseWorld)
                            + " needs a CUDA device: it measures one rank's allocator peaks, and an "
                              "emulated CPU run measures state bytes only, no allocator peaks");

    // The runner contract: the whole run comes from the config the session writes; flags outside
    // RunConfig follow it.
    launch.args = { "--config", "config.json" };
    if (request.collectiveTimeoutS) {
        if (launch.config.backend != RunBackend::Native)
            throw SpecError("collective_timeout_s",
                            "only the native runner takes a collective timeout; the torch harness "
                            "reads its whole run from --config");
        launch.args.insert(launch.args.end(), { "--timeout-s", std::to_string(*request.collectiveTimeoutS) });
    }
    launch.env = request.rankEnv;
    if (request.masterPort && (*request.masterPort < 1 || *request.masterPort > 65535))
        throw SpecError("master_port", "must be in 1-65535, got " + std::to_string(*request.masterPort));
    launch.masterPort = request.masterPort.value_or(0);
    launch.peerGrace = request.peerGrace.value_or(kPeerGrace);

    store::RunOrigin& origin = launch.origin;
    origin.launcher = "shardwise";
    for (const LaunchNode& node : request.nodes)
        origin.nodes.push_back(node.ref);
    if (origin.nodes.empty())
        origin.nodes.push_back({ "local", std::nullopt });
    // A CPU run measures the schedule, not the GPU the plan assumed.
    if (launch.config.device == DeviceKind::Cuda) {
        origin.gpuId = request.gpuId;
        origin.interconnect = request.interconnect;
    }
    if (request.interNodeGBps) {
        if (!(*request.interNodeGBps > 0))
            throw SpecError("inter_node_gbps", "must be positive, got " + std::to_string(*request.interNodeGBps));
        origin.interNodeGBps = request.interNodeGBps;
    }
    origin.planId = request.planId;
    origin.predicted = request.predicted;

    if (!request.remote) {
        dispatch::LocalLaunch& local = launch.local;
        local.runner = request.localRunner;
        local.args = launch.args;
        local.ranks = request.ranksPerNode;
        local.env = launch.env;
        local.masterPort = launch.masterPort;
        local.logDir = request.logDir;
        local.timeout = request.timeout;
        local.peerGrace = launch.peerGrace;
        return launch;
    }
    dispatch::RemoteLaunch& remote = launch.remote;
    remote.args = launch.args;
    remote.env = launch.env;
    remote.masterPort = launch.masterPort;
    remote.runRoot = request.runRoot;
    launch.follow.pollInterval = std::chrono::milliseconds(500);
    launch.follow.timeout = request.timeout;
    launch.follow.peerGrace = launch.peerGrace; // as the local launcher's: the same wait on every face
    for (const LaunchNode& node : request.nodes)
        remote.nodes.push_back({ node.runnerPath, request.ranksPerNode, {}, {} });
    if (remote.nodes.size() == 1) {
        // All ranks of a one-node run meet on the node itself, over its loopback interface, so no
        // network the node happens to have decides where Gloo listens.
        remote.nodes.front().address = "127.0.0.1";
        if (remote.env.count("GLOO_SOCKET_IFNAME") == 0)
            remote.nodes.front().env["GLOO_SOCKET_IFNAME"] = "lo";
    }
    return launch;
}

} // namespace shardwise::session
