#include "plan_options.hpp"

#include "shardwise/frameworks/network.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace shardwise::cli {

bool ArgumentWalker::next()
{
    if (m_next >= m_parsed.options.size())
        return false;
    m_current = &m_parsed.options[m_next++];
    return true;
}

int parseInt(const std::string& flag, const std::string& value, int lo, int hi)
{
    int x = 0;
    const char* end = value.data() + value.size();
    const auto [ptr, ec] = std::from_chars(value.data(), end, x);
    if (value.empty() || ec != std::errc() || ptr != end)
        throw UsageError(flag + ": expected an integer, got '" + value + "'");
    if (x < lo || x > hi)
        throw UsageError(flag + ": must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + value);
    return x;
}

double parseDouble(const std::string& flag, const std::string& value, double lo, double hi)
{
    char* end = nullptr;
    const double x = value.empty() ? 0.0 : std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(x))
        throw UsageError(flag + ": expected a number, got '" + value + "'");
    if (x < lo || x > hi)
        throw UsageError(flag + ": must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + value);
    return x;
}

bool PlanOptions::take(ArgumentWalker& w)
{
    const std::string& flag = w.flag();
    if (flag == "--framework") {
        framework = w.value();
        if (!frameworkFromId(framework))
            throw UsageError("--framework: expected one of " + frameworkIdList() + ", got '" + framework + "'");
    } else if (flag == "--framework-version") {
        frameworkVersion = w.value();
        if (frameworkVersion.empty())
            throw UsageError("--framework-version: expected a release such as 0.16, got ''");
    } else if (flag == "--compile") {
        w.noValue();
        compile = true;
    } else if (flag == "--checkpointing-policy") {
        checkpointingPolicy = w.value();
        if (checkpointingPolicy != "full" && checkpointingPolicy != "selective" && checkpointingPolicy != "none")
            throw UsageError("--checkpointing-policy: expected full, selective or none, got '" + checkpointingPolicy
                             + "'");
    } else if (flag == "--inter-node-gbps") {
        if (given.count("--inter-node"))
            throw UsageError("--inter-node-gbps: give either --inter-node or --inter-node-gbps");
        interNodeGBps = parseDouble(flag, w.value(), 0.01, 1e5);
    } else if (flag == "--inter-node") {
        if (given.count("--inter-node-gbps"))
            throw UsageError("--inter-node: give either --inter-node or --inter-node-gbps");
        interNode = w.value();
        if (const auto preset = frameworks::interNodePreset(interNode)) {
            interNodeGBps = preset->gbps;
        } else if (!calibrate::networkNodes(interNode).empty()) {
            measuredNetwork = interNode; // its figure is read from the store
            interNode.clear();
        } else {
            throw UsageError("--inter-node: expected one of " + frameworks::interNodePresetIdList()
                             + ", or a measured network (node names joined by '+', as shardwise-cli nodes probe A "
                               "--with B stores it), got '"
                             + interNode + "'");
        }
    } else if (flag == "--model")
        model = w.value();
    else if (flag == "--gpu")
        gpu = w.value();
    else if (flag == "--gpus-per-node")
        gpusPerNode = parseInt(flag, w.value(), 1, 64);
    else if (flag == "--nodes")
        nodes = parseInt(flag, w.value(), 1, 4096);
    else if (flag == "--interconnect")
        interconnect = w.value();
    else if (flag == "--host-ram-gib")
        hostRamGiB = parseDouble(flag, w.value(), 1.0, 1e6);
    else if (flag == "--seq")
        seq = parseInt(flag, w.value(), 1, 1 << 20);
    else if (flag == "--micro-batch")
        microBatch = parseInt(flag, w.value(), 1, 4096);
    else if (flag == "--precision")
        precision = w.value();
    else if (flag == "--expandable-segments") {
        w.noValue();
        expandableSegments = true;
    } else if (flag == "--cuda-graphs") {
        w.noValue();
        cudaGraphs = true;
    } else if (flag == "--activation-checkpointing") {
        w.noValue();
        checkpointing = true;
    } else
        return false;
    given.insert(flag);
    return true;
}

void PlanOptions::requireModelAndGpu() const
{
    if (model.empty())
        throw UsageError("--model: required (a preset id or a path to a config.json)");
    if (gpu.empty())
        throw UsageError("--gpu: required (a GPU preset id; see shardwise-cli presets)");
}

void PlanOptions::useMeasuredNetwork(const store::Database* db, const std::string& dbPath)
{
    if (measuredNetwork.empty())
        return;
    const std::vector<std::string> nodes = calibrate::networkNodes(measuredNetwork);
    std::string probe = "shardwise-cli nodes probe " + nodes.front();
    for (std::size_t i = 1; i < nodes.size(); ++i)
        probe += " --with " + nodes[i];
    if (db)
        for (const calibrate::MeasuredNetwork& n : calibrate::measuredNetworks(*db))
            if (n.name == measuredNetwork) {
                measured = n;
                interNodeGBps = n.interNodeGBps;
                return;
            }
    throw UsageError("--inter-node: the store " + dbPath + " holds no probe of the network " + measuredNetwork
                     + "; measure it with " + probe);
}

EstimateInput PlanOptions::input(const frameworks::ImportedSettings* imported, std::vector<std::string>* notes) const
{
    if (!measuredNetwork.empty() && !measured)
        throw UsageError("--inter-node " + measuredNetwork + ": a measured network is read from the store by "
                         + "shardwise-cli plan; give --inter-node-gbps here");
    EstimateInput in;
    in.model = resolveModel(model, "model");
    in.gpu = resolveGpu(gpu, "gpu");
    in.cluster.gpusPerNode = gpusPerNode;
    in.cluster.nodes = nodes;
    in.cluster.hostRamGiB = hostRamGiB;
    in.cluster.interNodeGBps = interNodeGBps;
    in.cluster.intraNode = interconnect.empty() ? (in.gpu.nvlinkGBps > 0 ? Interconnect::NvLink : Interconnect::Pcie)
                                                : parseInterconnect(interconnect, "cluster.intra_node");
    in.training.seqLen = seq;
    in.training.microBatch = microBatch;
    in.training.expandableSegments = expandableSegments;
    in.training.cudaGraphs = cudaGraphs;
    in.framework.framework = parseFramework(framework, "framework");
    if (imported) {
        // The file's settings, then every flag the user typed over them.
        frameworks::applyImported(*imported, in);
        if (given.count("--nodes"))
            in.cluster.nodes = nodes;
        if (given.count("--gpus-per-node"))
            in.cluster.gpusPerNode = gpusPerNode;
        if (given.count("--seq"))
            in.training.seqLen = seq;
        if (given.count("--micro-batch"))
            in.training.microBatch = microBatch;
        if (given.count("--framework"))
            in.framework.framework = parseFramework(framework, "framework");
    }
    const Framework fw = in.framework.framework;
    const std::string label(traits(fw).label);
    if (given.count("--framework-version") || !imported)
        in.framework.version = frameworkVersion;
    if (given.count("--compile") || !imported || !imported->compiled)
        in.framework.compiled = compile;
    if (in.framework.compiled && fw != Framework::Fsdp2 && fw != Framework::Torchtitan)
        throw SpecError("framework.compiled",
                        "torch.compile is planned for --framework fsdp2 and torchtitan, not " + framework);

    if (!precision.empty())
        in.training.precision = parsePrecision(precision, "training.precision");
    else if (!imported || !imported->precision) {
        in.training.precision = defaultPrecision(fw);
        if (notes && fw != Framework::Native)
            notes->push_back("precision " + std::string(precisionId(in.training.precision)) + " from " + label
                             + "'s defaults");
    }

    const bool checkpointFlag = given.count("--activation-checkpointing") || !checkpointingPolicy.empty();
    if (checkpointFlag) {
        in.training.activationCheckpointing = checkpointingPolicy != "none";
        in.training.checkpointPolicy
            = checkpointingPolicy == "selective" ? CheckpointPolicy::Selective : CheckpointPolicy::Full;
    } else if (!imported || !imported->activationCheckpointing) {
        const auto policy = defaultCheckpointing(fw);
        in.training.activationCheckpointing = policy.has_value();
        in.training.checkpointPolicy = policy.value_or(CheckpointPolicy::Full);
        if (notes && fw != Framework::Native)
            notes->push_back(std::string(policy ? "activation checkpointing " + std::string(checkpointPolicyId(*policy))
                                                : std::string("no activation checkpointing"))
                             + " from " + label + "'s defaults");
    }
    // The planner takes a graphed step for every GPU-resident strategy; under bf16-fp32-master no
    // strategy can be captured, so that plan would predict speed no run reaches.
    if (cudaGraphs && in.training.precision != PrecisionPolicy::PureBf16)
        throw SpecError("training.cuda_graphs",
                        "CUDA graphs need precision bf16 (bf16-fp32-master steps AdamW with "
                        "the host's step count, which a graph cannot replay)");
    return in;
}

std::vector<Option> planOptionTable()
{
    return {
        { "--model",
          "PRESET|PATH",
          "model preset id, a Shardwise model JSON, or a Hugging Face config.json",
          {},
          Complete::Model },
        { "--gpu", "PRESET", "GPU preset id (see `shardwise-cli presets`)", {}, Complete::Gpu },
        { "--gpus-per-node", "N", "GPUs per node, 1..64 (default 1)" },
        { "--nodes", "N", "nodes, 1..4096 (default 1)" },
        { "--interconnect", "nvlink|pcie", "link between the GPUs of a node (default: nvlink if the GPU has it)" },
        { "--host-ram-gib", "X",
          "RAM of each node in GiB (default 512): the CPU-offload strategies keep their optimizer state there, "
          "page-locked; 80 % of it counts as usable" },
        { "--seq", "N", "sequence length in tokens (default 2048)" },
        { "--micro-batch", "N", "sequences per GPU per micro-step (default 1)" },
        { "--framework", "NAME",
          "the framework you train with, one of " + frameworkIdList()
              + ": the plan describes what it allocates and how fast it runs at its defaults (default native, "
                "Shardwise's runner)" },
        { "--framework-version", "V", "the framework's release (default: the one Shardwise models)" },
        { "--compile", "", "torch.compile each decoder layer (fsdp2, torchtitan)" },
        { "--inter-node-gbps", "X", "network bandwidth per node per direction in GB/s (default 12.5)" },
        { "--inter-node", "NAME",
          "a named network instead: ib-8x400 (400 GB/s), ib-8x200 (200), ib-4x200 (100), 400gbe (50), 100gbe (12.5), "
          "or one nodes probe measured, named by its nodes joined by '+' (plan reads it from --db)" },
        { "--precision", "bf16|bf16-fp32-master",
          "pure bf16 state, or bf16 compute with fp32 master and Adam (default: the framework's: bf16 for native, "
          "bf16-fp32-master for the others)" },
        { "--expandable-segments", "", "the CUDA allocator runs with expandable_segments:True" },
        { "--cuda-graphs", "",
          "each step replayed as one CUDA graph launch, so the host no longer issues every kernel (helps small "
          "models and short sequences); applies to the GPU-resident strategies under bf16, the offload strategies "
          "stay eager" },
        { "--activation-checkpointing", "", "recompute each layer's activations in backward" },
        { "--checkpointing-policy", "full|selective|none",
          "what is recomputed (default: the framework's; torchtitan selective)" },
    };
}

const std::map<std::string, std::string>& flagForField()
{
    static const std::map<std::string, std::string> m {
        { "model", "--model" },
        { "gpu", "--gpu" },
        { "cluster.gpus_per_node", "--gpus-per-node" },
        { "cluster.nodes", "--nodes" },
        { "cluster.intra_node", "--interconnect" },
        { "cluster.host_ram_gib", "--host-ram-gib" },
        { "training.seq_len", "--seq" },
        { "training.micro_batch", "--micro-batch" },
        { "training.precision", "--precision" },
        { "training.cuda_graphs", "--cuda-graphs" },
        { "framework", "--framework" },
        { "framework.compiled", "--compile" },
        { "cluster.inter_node_gbps", "--inter-node-gbps" },
    };
    return m;
}

} // namespace shardwise::cli
