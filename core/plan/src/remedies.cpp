// What would make something fit when nothing does. Each search changes one thing of the input and
// reports the smallest change that lets any strategy fit, with the lightest strategy that then fits.
#include "internal.hpp"

#include <cstdlib>
#include <utility>

namespace shardwise::detail {

namespace {

// Searches stop here: beyond it the answer is "a bigger GPU", not "more of them".
constexpr int kMaxGpus = 1024;
// Sequences shorter than this rarely train the model the user asked about.
constexpr int kMinSeqLen = 128;

// The lightest strategy that fits a variant of the input, from memory alone (the searches never need
// throughput): straightforwardly, all nine verdicts from scratch...
struct AllVerdicts {
    const Calibration& c;
    std::optional<Strategy> operator()(const EstimateInput& t) const
    {
        const std::array<bool, kStrategyCount> fits = fitsByMemory(t, c);
        for (Strategy s : byLightness())
            if (fits[tableIndex(s)])
                return s;
        return std::nullopt;
    }
};

// ... or with the model's constants computed once, stopping at the first fit.
struct FirstFit {
    FitProbe probe;
    std::optional<Strategy> operator()(const EstimateInput& t) const { return probe.firstFitting(t, byLightness()); }
};

// Memory grows with sequence length and micro-batch and falls with the GPU count, so each search
// first tries the extreme (usually the only check when no remedy exists) and then bisects between a
// value known not to fit and one known to fit. `apply(x)` sets the searched value in `t`.
template <typename Fits, typename Apply>
std::optional<std::pair<int, Strategy>> bisect(EstimateInput& t, const Fits& fitsWith, int failing, int extreme,
                                               Apply apply)
{
    apply(extreme);
    auto best = fitsWith(t);
    if (!best)
        return std::nullopt;
    int fitting = extreme;
    while (std::abs(fitting - failing) > 1) {
        const int mid = failing + (fitting - failing) / 2;
        apply(mid);
        if (auto s = fitsWith(t)) {
            fitting = mid;
            best = s;
        } else {
            failing = mid;
        }
    }
    return std::pair { fitting, *best };
}

int log2Floor(int x)
{
    int k = 0;
    while (x > 1) {
        x /= 2;
        ++k;
    }
    return k;
}

// The smallest GPU count (more nodes of the same shape), the longest sequence and the largest
// micro-batch that fit, each changed alone; sequences and micro-batches by halving.
template <typename Fits>
void searchSizes(EstimateInput& t, const EstimateInput& in, const Fits& fits, std::vector<Remedy>& out)
{
    const bool checkpointing = t.training.activationCheckpointing && !in.training.activationCheckpointing;
    const int gpusPerNode = in.cluster.gpusPerNode;
    const int maxNodes = kMaxGpus / gpusPerNode;
    if (maxNodes > in.cluster.nodes) {
        if (auto r = bisect(t, fits, in.cluster.nodes, maxNodes, [&](int nodes) { t.cluster.nodes = nodes; }))
            out.push_back({ RemedyKind::MoreGpus, r->second, r->first * gpusPerNode, checkpointing });
        t.cluster.nodes = in.cluster.nodes;
    }
    const int seq = in.training.seqLen;
    if (const int halvings = log2Floor(seq / kMinSeqLen); halvings > 0 && seq / 2 >= kMinSeqLen) {
        if (auto r = bisect(t, fits, 0, halvings, [&](int k) { t.training.seqLen = seq >> k; }))
            out.push_back({ RemedyKind::ShorterSequence, r->second, seq >> r->first, checkpointing });
        t.training.seqLen = seq;
    }
    const int mb = in.training.microBatch;
    if (const int halvings = log2Floor(mb); halvings > 0) {
        if (auto r = bisect(t, fits, 0, halvings, [&](int k) { t.training.microBatch = mb >> k; }))
            out.push_back({ RemedyKind::SmallerMicroBatch, r->second, mb >> r->first, checkpointing });
        t.training.microBatch = mb;
    }
}

template <typename Fits> std::vector<Remedy> searchRemedies(const EstimateInput& in, const Fits& fits)
{
    std::vector<Remedy> out;
    EstimateInput t = in;
    searchSizes(t, in, fits, out);
    if (!in.training.activationCheckpointing) {
        t.training.activationCheckpointing = true;
        if (auto s = fits(t))
            out.push_back({ RemedyKind::ActivationCheckpointing, *s, 1, false });
        else
            searchSizes(t, in, fits, out);
    }
    return out;
}

} // namespace

std::vector<Remedy> findRemedies(const EstimateInput& in, const Calibration& c)
{
    return searchRemedies(in, FirstFit { FitProbe(in, c) });
}

std::vector<Remedy> findRemediesStraightforward(const EstimateInput& in, const Calibration& c)
{
    return searchRemedies(in, AllVerdicts { c });
}

Message describe(const Remedy& r, const EstimateInput& in)
{
    MessageArg strategy = MessageArg::name(std::string(strategyId(r.strategy)));
    const bool also = r.withActivationCheckpointing;
    switch (r.kind) {
    case RemedyKind::ActivationCheckpointing:
        return Message { "plan.remedy_checkpointing", { strategy } };
    case RemedyKind::MoreGpus:
        return Message { also ? "plan.remedy_more_gpus_checkpointing" : "plan.remedy_more_gpus",
                         { MessageArg::integer(r.value), MessageArg::integer(r.value / in.cluster.gpusPerNode),
                           MessageArg::integer(in.cluster.gpusPerNode), strategy } };
    case RemedyKind::ShorterSequence:
        return Message { also ? "plan.remedy_shorter_sequence_checkpointing" : "plan.remedy_shorter_sequence",
                         { MessageArg::integer(r.value), strategy } };
    case RemedyKind::SmallerMicroBatch:
        return Message { also ? "plan.remedy_smaller_micro_batch_checkpointing" : "plan.remedy_smaller_micro_batch",
                         { MessageArg::integer(r.value), strategy } };
    }
    return Message { "plan.remedy_more_gpus",
                     { MessageArg::integer(r.value), MessageArg::integer(0), MessageArg::integer(0), strategy } };
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
