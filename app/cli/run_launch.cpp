// `shardwise-cli run`'s flags as the launch builder's request (session::buildLaunch decides the
// launch), and every strategy's launch checked before any rank starts, errors naming the flag.
#include "run_request.hpp"

#include "shardwise/session/node_management.hpp"
#include "shardwise/spec/json.hpp"

#include <map>

namespace shardwise::cli {

session::LaunchRequest launchRequest(const RunRequest& r, Strategy s, const std::vector<store::Node>& nodes,
                                     const std::vector<std::string>& runnerPaths,
                                     const std::filesystem::path& localRunner)
{
    session::LaunchRequest q;
    RunConfig& c = q.config;
    c.model = r.modelSpec;
    c.strategy = s;
    c.device = r.device;
    c.training.expandableSegments = r.expandableSegments;
    c.training.cudaGraphs = r.cudaGraphs;
    c.rehearseWorld = r.rehearseWorld.value_or(0);
    c.backend = r.backend;
    c.torchCompile = r.torchCompile;
    // Everything the command line left out takes the runner's defaults, which are RunConfig's.
    if (r.steps)
        c.timedSteps = *r.steps;
    if (r.warmup)
        c.warmupSteps = *r.warmup;
    if (r.seq)
        c.training.seqLen = *r.seq;
    if (r.microBatch)
        c.training.microBatch = *r.microBatch;
    if (r.precision)
        c.training.precision = *r.precision;
    if (r.seed)
        c.seed = *r.seed;
    q.remote = r.remote();
    // Each node's NCCL setting goes with it: the session gives it to that node's ranks and records it.
    for (std::size_t i = 0; i < nodes.size(); ++i)
        q.nodes.push_back({ session::runNodeRef(nodes[i]), i < runnerPaths.size() ? runnerPaths[i] : std::string() });
    q.ranksPerNode = r.ranks;
    q.localRunner = localRunner;
    q.series = r.everyStrategy;
    q.rankEnv = r.rankEnv;
    q.masterPort = r.masterPort;
    if (r.peerGraceS)
        q.peerGrace = std::chrono::seconds(*r.peerGraceS);
    q.collectiveTimeoutS = r.collectiveTimeoutS;
    q.timeout = std::chrono::seconds(r.timeoutS);
    if (!r.logDir.empty())
        q.logDir = r.logDir / std::string(strategyId(s));
    q.runRoot = r.runRoot;
    q.interNodeGBps = r.interNodeGBps;
    return q;
}

namespace {

// Which flag sets the field a SpecError from the launch builder (validate(RunConfig)) names.
std::string flagForRunField(const std::string& field)
{
    static const std::map<std::string, std::string> flags { { "training.cuda_graphs", "--cuda-graphs" },
                                                            { "training.seq_len", "--seq" },
                                                            { "training.micro_batch", "--micro-batch" },
                                                            { "warmup_steps", "--warmup" },
                                                            { "timed_steps", "--steps" },
                                                            { "world_size", "--ranks" },
                                                            { "ranks_per_node", "--ranks" },
                                                            { "strategy", "--strategy" },
                                                            { "torch_compile", "--torch-compile" },
                                                            { "backend", "--backend" },
                                                            { "master_port", "--master-port" },
                                                            { "collective_timeout_s", "--collective-timeout-s" },
                                                            { "inter_node_gbps", "--inter-node-gbps" },
                                                            { "rehearse_world", "--rehearse-world" },
                                                            { "device", "--device" } };
    const auto it = flags.find(field);
    return it == flags.end() ? field : it->second;
}

} // namespace

// Every strategy's launch built as it will be, before any rank starts: a run that cannot start (CUDA
// graphs for an offload strategy named alone, say) is a bad flag, not a failed row. The nodes are not
// connected yet; stand-ins with their names give the launch its layout.
void validateRequest(const RunRequest& r)
{
    std::vector<store::Node> nodes(r.nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        nodes[i].name = r.nodes[i];
        nodes[i].kind = store::NodeKind::Ssh;
    }
    const std::vector<std::string> runners(r.nodes.size(), "shardwise-runner");
    for (const Strategy s : r.strategies) {
        try {
            session::buildLaunch(launchRequest(r, s, nodes, runners));
        } catch (const SpecError& e) {
            std::string message = e.what();
            if (const std::string prefix = e.field() + ": "; message.rfind(prefix, 0) == 0)
                message.erase(0, prefix.size());
            throw UsageError(flagForRunField(e.field()) + ": " + message);
        }
    }
}

} // namespace shardwise::cli
