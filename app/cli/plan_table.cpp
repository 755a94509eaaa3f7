// The plan's text table (plan_table.hpp).
#include "plan_table.hpp"
#include "text_columns.hpp"

#include "shardwise/frameworks/network.hpp"
#include "shardwise/spec/message.hpp"

#include <algorithm>
#include <cstdio>

namespace shardwise::cli {

namespace {

std::string format(const char* fmt, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, x);
    return buf;
}

// The framework target, where its settings came from, and the inter-node network.
std::string targetText(const EstimateInput& in)
{
    const FrameworkTarget& t = in.framework;
    std::string s(traits(t.framework).label);
    if (!t.effectiveVersion().empty())
        s += " " + t.effectiveVersion();
    if (t.compiled)
        s += " with torch.compile";
    return s;
}

std::string interNodeText(const ClusterSpec& c, const calibrate::MeasuredNetwork* network)
{
    std::string s = format("%g", c.interNodeGBps) + " GB/s per node per direction";
    if (network)
        s += " (measured between " + network->name + ": " + format("%.2f", network->busGBps)
            + " GB/s bus bandwidth, probe " + std::to_string(network->probeId) + ")";
    else if (const auto preset = frameworks::interNodePresetFor(c.interNodeGBps))
        s += " (" + std::string(preset->id) + ": " + std::string(preset->label) + ")";
    return c.nodes > 1 ? s : s + ", unused with one node";
}

} // namespace

void printPlanTable(const Plan& plan, const EstimateInput& in, const std::vector<std::string>& notes, std::ostream& out,
                    const calibrate::MeasuredNetwork* network)
{
    const ClusterSpec& c = in.cluster;
    out << "Plan: " << in.model.name << " (" << format("%.2f", static_cast<double>(in.model.parameterCount()) / 1e9)
        << " B parameters) on " << c.worldSize() << " x " << in.gpu.name << " (" << countOf(c.nodes, "node") << " x "
        << countOf(c.gpusPerNode, "GPU") << ", " << interconnectId(c.intraNode) << "), micro-batch "
        << in.training.microBatch << ", sequence " << in.training.seqLen << " tokens, "
        << precisionId(in.training.precision) << (in.training.expandableSegments ? ", expandable segments" : "")
        << (in.training.cudaGraphs ? ", CUDA graphs" : "")
        << (in.training.gradAccumulation > 1
                ? ", " + std::to_string(in.training.gradAccumulation) + " accumulation steps"
                : "")
        << (in.training.activationCheckpointing
                ? ", activation checkpointing (" + std::string(checkpointPolicyId(in.training.checkpointPolicy)) + ")"
                : "")
        << "\n";
    const double hostUsable = plan.candidates.empty() ? 0.0 : plan.candidates.front().estimate.hostCapacityBytes;
    const Estimate* first = plan.candidates.empty() ? nullptr : &plan.candidates.front().estimate;
    out << "GPU memory " << format("%.1f", in.gpu.memoryGiB()) << " GiB per GPU";
    if (first)
        out << ", " << format("%.1f", first->usableDeviceBytes() / kGiB) << " GiB usable ("
            << format("%.1f", first->headroomBytes / kGiB) << " GiB headroom kept free)";
    out << "; host RAM " << format("%.0f", c.hostRamGiB) << " GiB per node, " << format("%.1f", hostUsable / kGiB)
        << " GiB usable\n";
    out << "Framework: " << targetText(in);
    for (std::size_t i = 0; i < notes.size(); ++i)
        out << (i == 0 ? " (" : "; ") << notes[i] << (i + 1 == notes.size() ? ")" : "");
    out << "\nInter-node network: " << interNodeText(c, network) << "\n\n";
    // host GiB: what the node's CPU memory holds for the offload strategies (every rank of the node).
    out << padRight("strategy", 25) << padRight("fits", 9) << padLeft("peak GiB", 10) << padLeft("host GiB", 10)
        << padLeft("tokens/s", 12) << padLeft("step s", 9) << padLeft("MFU %", 8) << padLeft("NCCL %", 8) << "\n";
    bool unsupported = false;
    for (const Candidate& cand : plan.candidates) {
        const Estimate& e = cand.estimate;
        const bool offload = traits(cand.strategy).offloadsOptimizer;
        const bool runs = frameworkSupports(in.framework.framework, cand.strategy);
        unsupported = unsupported || !runs;
        out << padRight(std::string(strategyId(cand.strategy)) + (runs ? "" : " *"), 25)
            << padRight(!e.supported   ? "n/a"
                            : e.fits() ? "yes"
                                       : (e.fitsDevice ? "no: host" : "no"),
                        9)
            << padLeft(format("%.1f", e.memory.peakBytes() / kGiB), 10)
            << padLeft(offload ? format("%.1f", e.hostBytesPerNode / kGiB) : std::string("-"), 10)
            << padLeft(format("%.0f", e.throughput.tokensPerS), 12)
            << padLeft(format("%.3f", e.throughput.stepTimeS), 9)
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
        out << "\nRuns worth validating (" << countOf(c.worldSize(), "GPU") << ", micro-batch "
            << in.training.microBatch << ", sequence " << in.training.seqLen << " tokens):";
        for (const RunConfig& rc : runs) {
            std::vector<std::string> settings;
            if (rc.training.expandableSegments)
                settings.push_back("expandable segments");
            if (rc.training.cudaGraphs)
                settings.push_back("CUDA graphs");
            out << " " << strategyId(rc.strategy);
            for (std::size_t i = 0; i < settings.size(); ++i)
                out << (i == 0 ? " (" : ", ") << settings[i] << (i + 1 == settings.size() ? ")" : "");
        }
        out << "\n";
    }
    if (in.training.cudaGraphs)
        out << "\nCUDA graphs apply to the GPU-resident strategies; the offload strategies run their optimizer on "
               "the host and stay eager.\n";
    out << "\npeak GiB = allocated at the step's peak + CUDA context and NCCL buffers; it fits when it is at most the "
           "usable GPU memory. The allocator's unused cache is not counted: PyTorch frees it before it reports out of "
           "memory.\n";
    out << "NCCL % counts communication kernels that overlap compute; it is not time spent waiting.\n";
    if (unsupported)
        out << "* = " << traits(in.framework.framework).label
            << " cannot run this strategy (n/a); its row is for comparison.\n";
    if (std::any_of(plan.candidates.begin(), plan.candidates.end(), [](const Candidate& cand) {
            return cand.estimate.supported && cand.estimate.fitsDevice && !cand.estimate.fitsHost;
        }))
        out << "no: host = fits on the GPU, but its host state exceeds the node's usable RAM (--host-ram-gib).\n";
}

} // namespace shardwise::cli
