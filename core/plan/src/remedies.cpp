// What would make something fit when nothing does. Each search changes one thing of the input and
// reports the smallest change that lets any strategy fit, with the lightest strategy that then fits.
#include "internal.hpp"

namespace shardwise::detail {

namespace {

// Searches stop here: beyond it the answer is "a bigger GPU", not "more of them".
constexpr int kMaxGpus = 1024;
// Sequences shorter than this rarely train the model the user asked about.
constexpr int kMinSeqLen = 128;

std::optional<Strategy> fitsWith(const EstimateInput& in, const Calibration& c)
{
    return lightestFitting(estimateAll(in, c));
}

// Smallest node count above the current one (same node shape) at which something fits. Memory per GPU
// falls monotonically with the world size, so doubling then bisecting finds it.
std::optional<Remedy> moreGpus(EstimateInput& t, const Calibration& c)
{
    const int original = t.cluster.nodes;
    const int maxNodes = kMaxGpus / t.cluster.gpusPerNode;
    if (maxNodes <= original)
        return std::nullopt;
    int lo = original; // does not fit
    int hi = 0;        // fits
    std::optional<Strategy> hiStrategy;
    for (int nodes = original * 2; nodes <= maxNodes * 2 && !hiStrategy; nodes *= 2) {
        t.cluster.nodes = nodes < maxNodes ? nodes : maxNodes;
        if (auto s = fitsWith(t, c)) {
            hi = t.cluster.nodes;
            hiStrategy = s;
        } else if (t.cluster.nodes == maxNodes) {
            break;
        } else {
            lo = t.cluster.nodes;
        }
    }
    if (!hiStrategy) {
        t.cluster.nodes = original;
        return std::nullopt;
    }
    while (hi - lo > 1) {
        t.cluster.nodes = lo + (hi - lo) / 2;
        if (auto s = fitsWith(t, c)) {
            hi = t.cluster.nodes;
            hiStrategy = s;
        } else {
            lo = t.cluster.nodes;
        }
    }
    t.cluster.nodes = original;
    return Remedy{RemedyKind::MoreGpus, *hiStrategy, hi * t.cluster.gpusPerNode};
}

} // namespace

namespace {

// The smallest GPU count, the longest sequence and the largest micro-batch that fit, each changed alone.
void searchSizes(EstimateInput& t, const EstimateInput& in, const Calibration& c, std::vector<Remedy>& out)
{
    const bool checkpointing = t.training.activationCheckpointing && !in.training.activationCheckpointing;
    if (auto r = moreGpus(t, c)) {
        r->withActivationCheckpointing = checkpointing;
        out.push_back(*r);
    }
    for (int seq = in.training.seqLen / 2; seq >= kMinSeqLen; seq /= 2) {
        t.training.seqLen = seq;
        if (auto s = fitsWith(t, c)) {
            out.push_back({RemedyKind::ShorterSequence, *s, seq, checkpointing});
            break;
        }
    }
    t.training.seqLen = in.training.seqLen;
    for (int mb = in.training.microBatch / 2; mb >= 1; mb /= 2) {
        t.training.microBatch = mb;
        if (auto s = fitsWith(t, c)) {
            out.push_back({RemedyKind::SmallerMicroBatch, *s, mb, checkpointing});
            break;
        }
    }
    t.training.microBatch = in.training.microBatch;
}

} // namespace

std::vector<Remedy> findRemedies(const EstimateInput& in, const Calibration& c)
{
    std::vector<Remedy> out;
    EstimateInput t = in;
    searchSizes(t, in, c, out);
    if (!in.training.activationCheckpointing) {
        t.training.activationCheckpointing = true;
        if (auto s = fitsWith(t, c))
            out.push_back({RemedyKind::ActivationCheckpointing, *s, 1, false});
        else
            searchSizes(t, in, c, out);
    }
    return out;
}

std::string describe(const Remedy& r, const EstimateInput& in)
{
    const char* strategy = strategyId(r.strategy).data();
    const char* also = r.withActivationCheckpointing ? " and activation checkpointing" : "";
    switch (r.kind) {
    case RemedyKind::ActivationCheckpointing:
        return sentence("With activation checkpointing %s would fit, at about a third more compute per step.",
                        strategy);
    case RemedyKind::MoreGpus:
        return sentence("With %d GPUs (%d nodes of %d)%s %s would fit.", r.value, r.value / in.cluster.gpusPerNode,
                        in.cluster.gpusPerNode, also, strategy);
    case RemedyKind::ShorterSequence:
        return sentence("With sequences of %d tokens%s %s would fit.", r.value, also, strategy);
    case RemedyKind::SmallerMicroBatch:
        return sentence("With micro-batch %d%s %s would fit (raise gradient accumulation to keep the global batch).",
                        r.value, also, strategy);
    }
    return {};
}

} // namespace shardwise::detail

namespace shardwise {

std::string_view remedyId(RemedyKind k)
{
    switch (k) {
    case RemedyKind::ActivationCheckpointing:
        return "activation_checkpointing";
    case RemedyKind::MoreGpus:
        return "more_gpus";
    case RemedyKind::ShorterSequence:
        return "shorter_sequence";
    case RemedyKind::SmallerMicroBatch:
        return "smaller_micro_batch";
    }
    return "more_gpus";
}

} // namespace shardwise
