// shardwise-cli plan: estimate all eight strategies for one model and cluster and follow the decision
// order to a recommendation (core/plan), printed as a table or as the plan's JSON.
#include "command.hpp"

#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdio>
#include <map>
#include <ostream>
#include <stdexcept>

namespace shardwise::cli {

namespace {

constexpr const char* kUsage = R"(usage: shardwise-cli plan --model PRESET|PATH --gpu PRESET [options]

Estimates memory and throughput of all eight sharding strategies and recommends one by the
decision order (lightest that fits; full shard by interconnect; CPU offload last).

  --model PRESET|PATH        model preset id, a Shardwise model JSON, or a Hugging Face config.json
  --gpu PRESET               GPU preset id (see `shardwise-cli presets`)
  --gpus-per-node N          GPUs per node, 1..64 (default 1)
  --nodes N                  nodes, 1..4096 (default 1)
  --interconnect nvlink|pcie link between the GPUs of a node (default: nvlink if the GPU has it)
  --seq N                    sequence length in tokens (default 2048)
  --micro-batch N            sequences per GPU per micro-step (default 1)
  --precision bf16|bf16-fp32-master
                             pure bf16 state, or bf16 compute with fp32 master and Adam (default bf16)
  --expandable-segments      the CUDA allocator runs with expandable_segments:True
  --activation-checkpointing recompute each layer's activations in backward
  --format table|json        output format (default table)
  --help                     this text

Exit status: 0 planned (also when nothing fits: the plan says what would), 2 bad flag or input.
)";

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Which flag sets which spec field, so a SpecError from validation names the flag the user typed.
const std::map<std::string, std::string>& flagForField()
{
    static const std::map<std::string, std::string> m{
        {"model", "--model"},
        {"gpu", "--gpu"},
        {"cluster.gpus_per_node", "--gpus-per-node"},
        {"cluster.nodes", "--nodes"},
        {"cluster.intra_node", "--interconnect"},
        {"training.seq_len", "--seq"},
        {"training.micro_batch", "--micro-batch"},
        {"training.precision", "--precision"},
    };
    return m;
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

struct PlanArgs {
    std::string model;
    std::string gpu;
    int gpusPerNode = 1;
    int nodes = 1;
    std::string interconnect; // empty = from the GPU
    int seq = 2048;
    int microBatch = 1;
    std::string precision = "bf16";
    bool expandableSegments = false;
    bool checkpointing = false;
    std::string format = "table";
    bool help = false;
};

PlanArgs parseArgs(const std::vector<std::string>& args)
{
    PlanArgs a;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string flag = args[i];
        std::string value;
        bool inlineValue = false;
        if (const auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
            inlineValue = true;
        }
        const auto takeValue = [&]() -> std::string {
            if (inlineValue)
                return value;
            if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0)
                throw UsageError(flag + ": missing value");
            return args[++i];
        };
        const auto noValue = [&] {
            if (inlineValue)
                throw UsageError(flag + ": takes no value, got '" + value + "'");
        };
        if (flag == "--help" || flag == "-h") {
            a.help = true;
        } else if (flag == "--model") {
            a.model = takeValue();
        } else if (flag == "--gpu") {
            a.gpu = takeValue();
        } else if (flag == "--gpus-per-node") {
            a.gpusPerNode = parseInt(flag, takeValue(), 1, 64);
        } else if (flag == "--nodes") {
            a.nodes = parseInt(flag, takeValue(), 1, 4096);
        } else if (flag == "--interconnect") {
            a.interconnect = takeValue();
        } else if (flag == "--seq") {
            a.seq = parseInt(flag, takeValue(), 1, 1 << 20);
        } else if (flag == "--micro-batch") {
            a.microBatch = parseInt(flag, takeValue(), 1, 4096);
        } else if (flag == "--precision") {
            a.precision = takeValue();
        } else if (flag == "--expandable-segments") {
            noValue();
            a.expandableSegments = true;
        } else if (flag == "--activation-checkpointing") {
            noValue();
            a.checkpointing = true;
        } else if (flag == "--format") {
            a.format = takeValue();
            if (a.format != "table" && a.format != "json")
                throw UsageError("--format: expected table or json, got '" + a.format + "'");
        } else {
            throw UsageError(flag + ": unknown option (see shardwise-cli plan --help)");
        }
    }
    if (!a.help && a.model.empty())
        throw UsageError("--model: required (a preset id or a path to a config.json)");
    if (!a.help && a.gpu.empty())
        throw UsageError("--gpu: required (a GPU preset id; see shardwise-cli presets)");
    return a;
}

EstimateInput inputFrom(const PlanArgs& a)
{
    EstimateInput in;
    in.model = resolveModel(a.model, "model");
    in.gpu = resolveGpu(a.gpu, "gpu");
    in.cluster.gpusPerNode = a.gpusPerNode;
    in.cluster.nodes = a.nodes;
    in.cluster.intraNode = a.interconnect.empty()
        ? (in.gpu.nvlinkGBps > 0 ? Interconnect::NvLink : Interconnect::Pcie)
        : parseInterconnect(a.interconnect, "cluster.intra_node");
    in.training.seqLen = a.seq;
    in.training.microBatch = a.microBatch;
    in.training.precision = parsePrecision(a.precision, "training.precision");
    in.training.expandableSegments = a.expandableSegments;
    in.training.activationCheckpointing = a.checkpointing;
    return in;
}

std::string format(const char* fmt, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, x);
    return buf;
}

std::string padRight(std::string s, std::size_t width) { return s.size() < width ? s + std::string(width - s.size(), ' ') : s + " "; }
std::string padLeft(std::string s, std::size_t width) { return s.size() < width ? std::string(width - s.size(), ' ') + s : " " + s; }

void printTable(const Plan& plan, const EstimateInput& in, std::ostream& out)
{
    const ClusterSpec& c = in.cluster;
    out << "Plan: " << in.model.name << " (" << format("%.2f", static_cast<double>(in.model.parameterCount()) / 1e9)
        << " B parameters) on " << c.worldSize() << " x " << in.gpu.name << " (" << c.nodes << " node(s) x "
        << c.gpusPerNode << " GPU(s), " << interconnectId(c.intraNode) << "), micro-batch " << in.training.microBatch
        << ", sequence " << in.training.seqLen << " tokens, " << precisionId(in.training.precision)
        << (in.training.expandableSegments ? ", expandable segments" : "")
        << (in.training.activationCheckpointing ? ", activation checkpointing" : "") << "\n";
    out << "GPU memory " << format("%.1f", in.gpu.memoryGiB()) << " GiB per GPU\n\n";
    out << padRight("strategy", 23) << padRight("fits", 5) << padLeft("peak GiB", 10) << padLeft("tokens/s", 12)
        << padLeft("step s", 9) << padLeft("MFU %", 8) << padLeft("NCCL %", 8) << "\n";
    for (const Candidate& cand : plan.candidates) {
        const Estimate& e = cand.estimate;
        out << padRight(std::string(strategyId(cand.strategy)), 23) << padRight(e.fits() ? "yes" : "no", 5)
            << padLeft(format("%.1f", e.memory.devicePeak() / kGiB), 10)
            << padLeft(format("%.0f", e.throughput.tokensPerS), 12) << padLeft(format("%.3f", e.throughput.stepTimeS), 9)
            << padLeft(format("%.1f", 100.0 * e.throughput.mfu), 8)
            << padLeft(format("%.1f", 100.0 * e.throughput.ncclShare), 8) << "\n";
    }
    const Recommendation& r = plan.recommendation;
    out << "\nRecommendation: " << (r.strategy ? std::string(strategyId(*r.strategy)) : std::string("none fits"))
        << " (step " << static_cast<int>(r.step) << ": " << decisionStepId(r.step) << ")\n";
    for (const std::string& reason : r.reasons)
        out << "  - " << reason << "\n";
    const std::vector<RunConfig> runs = runMatrix(plan, in);
    if (!runs.empty()) {
        out << "\nRuns worth validating (" << c.worldSize() << " GPU(s), micro-batch " << in.training.microBatch
            << ", sequence " << in.training.seqLen << " tokens):";
        for (const RunConfig& rc : runs)
            out << " " << strategyId(rc.strategy) << (rc.training.expandableSegments ? " (expandable segments)" : "");
        out << "\n";
    }
    out << "\nNCCL % counts communication kernels that overlap compute; it is not time spent waiting.\n";
}

int runPlan(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    PlanArgs a;
    try {
        a = parseArgs(args);
    } catch (const UsageError& e) {
        err << "shardwise-cli plan: " << e.what() << "\n";
        return kExitUsage;
    }
    if (a.help) {
        out << kUsage;
        return kExitOk;
    }
    try {
        const EstimateInput in = inputFrom(a);
        const Plan plan = makePlan(in);
        if (a.format == "json")
            out << toJson(plan).dump(2) << "\n";
        else
            printTable(plan, in, out);
        return kExitOk;
    } catch (const SpecError& e) {
        const auto it = flagForField().find(e.field());
        err << "shardwise-cli plan: ";
        if (it != flagForField().end())
            err << it->second << ": ";
        err << e.what() << "\n";
        return kExitUsage;
    }
}

const CommandRegistration kRegistration{"plan", "estimate all eight strategies and recommend one", runPlan};

} // namespace

} // namespace shardwise::cli
