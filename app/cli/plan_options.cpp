#include "plan_options.hpp"

#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace shardwise::cli {

bool ArgumentWalker::next()
{
    if (m_next >= m_args.size())
        return false;
    m_flag = m_args[m_next++];
    m_hasInline = false;
    m_inline.clear();
    if (const auto eq = m_flag.find('='); m_flag.rfind("--", 0) == 0 && eq != std::string::npos) {
        m_inline = m_flag.substr(eq + 1);
        m_flag = m_flag.substr(0, eq);
        m_hasInline = true;
    }
    return true;
}

std::string ArgumentWalker::value()
{
    if (m_hasInline)
        return m_inline;
    if (m_next >= m_args.size() || m_args[m_next].rfind("--", 0) == 0)
        throw UsageError(m_flag + ": missing value");
    return m_args[m_next++];
}

void ArgumentWalker::noValue() const
{
    if (m_hasInline)
        throw UsageError(m_flag + ": takes no value, got '" + m_inline + "'");
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
    if (flag == "--model")
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
    return true;
}

void PlanOptions::requireModelAndGpu() const
{
    if (model.empty())
        throw UsageError("--model: required (a preset id or a path to a config.json)");
    if (gpu.empty())
        throw UsageError("--gpu: required (a GPU preset id; see shardwise-cli presets)");
}

EstimateInput PlanOptions::input() const
{
    EstimateInput in;
    in.model = resolveModel(model, "model");
    in.gpu = resolveGpu(gpu, "gpu");
    in.cluster.gpusPerNode = gpusPerNode;
    in.cluster.nodes = nodes;
    in.cluster.hostRamGiB = hostRamGiB;
    in.cluster.intraNode = interconnect.empty() ? (in.gpu.nvlinkGBps > 0 ? Interconnect::NvLink : Interconnect::Pcie)
                                                : parseInterconnect(interconnect, "cluster.intra_node");
    in.training.seqLen = seq;
    in.training.microBatch = microBatch;
    in.training.precision = parsePrecision(precision, "training.precision");
    in.training.expandableSegments = expandableSegments;
    in.training.activationCheckpointing = checkpointing;
    in.training.cudaGraphs = cudaGraphs;
    // The planner takes a graphed step for every GPU-resident strategy; under bf16-fp32-master no
    // strategy can be captured, so that plan would predict speed no run reaches.
    if (cudaGraphs && in.training.precision != PrecisionPolicy::PureBf16)
        throw SpecError("training.cuda_graphs", "CUDA graphs need precision bf16 (bf16-fp32-master steps AdamW with "
                                                "the host's step count, which a graph cannot replay)");
    return in;
}

const char* planOptionsUsage()
{
    return R"(  --model PRESET|PATH        model preset id, a Shardwise model JSON, or a Hugging Face config.json
  --gpu PRESET               GPU preset id (see `shardwise-cli presets`)
  --gpus-per-node N          GPUs per node, 1..64 (default 1)
  --nodes N                  nodes, 1..4096 (default 1)
  --interconnect nvlink|pcie link between the GPUs of a node (default: nvlink if the GPU has it)
  --host-ram-gib X           RAM of each node in GiB (default 512): the CPU-offload strategies keep
                             their optimizer state there, page-locked; 80 % of it counts as usable
  --seq N                    sequence length in tokens (default 2048)
  --micro-batch N            sequences per GPU per micro-step (default 1)
  --precision bf16|bf16-fp32-master
                             pure bf16 state, or bf16 compute with fp32 master and Adam (default bf16)
  --expandable-segments      the CUDA allocator runs with expandable_segments:True
  --cuda-graphs              each step replayed as one CUDA graph launch, so the host no longer issues
                             every kernel (helps small models and short sequences); applies to the
                             GPU-resident strategies under bf16, the offload strategies stay eager
  --activation-checkpointing recompute each layer's activations in backward
)";
}

const std::map<std::string, std::string>& flagForField()
{
    static const std::map<std::string, std::string> m{
        {"model", "--model"},
        {"gpu", "--gpu"},
        {"cluster.gpus_per_node", "--gpus-per-node"},
        {"cluster.nodes", "--nodes"},
        {"cluster.intra_node", "--interconnect"},
        {"cluster.host_ram_gib", "--host-ram-gib"},
        {"training.seq_len", "--seq"},
        {"training.micro_batch", "--micro-batch"},
        {"training.precision", "--precision"},
        {"training.cuda_graphs", "--cuda-graphs"},
    };
    return m;
}

} // namespace shardwise::cli
