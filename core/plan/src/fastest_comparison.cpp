// The recommendation against the fastest other strategy that fits. The decision order names the
// lightest that fits because heavier settings brought no evidence of a speed-up in the reference
// benchmark; where this plan's own prediction says otherwise by more than its error, the reasons say
// so, name the part of the step that differs, and the faster strategy is measured as well.
#include "internal.hpp"

#include <algorithm>
#include <array>

namespace shardwise {

bool predictedFasterBeyondError(const Estimate& other, const Estimate& chosen)
{
    return other.throughput.tokensPerS > chosen.throughput.tokensPerS * (1.0 + kThroughputPredictionError);
}

namespace detail {

namespace {

using A = MessageArg;

A id(Strategy s)
{
    return A::name(std::string(strategyId(s)));
}

A ms(double seconds)
{
    return A::milliseconds(1e3 * seconds, 1);
}

Message msg(std::string key, std::vector<A> args = {})
{
    return Message { std::move(key), std::move(args) };
}

// The part of the step time (ThroughputEstimate's terms) that `faster` spends least on against
// `chosen`, as a clause with both figures.
Message cause(const Estimate& faster, const Estimate& chosen, int world)
{
    const ThroughputEstimate& a = faster.throughput;
    const ThroughputEstimate& b = chosen.throughput;
    enum Part { Optimizer, Communication, Overhead, Compute, OffloadCopies, CpuOptimizer };
    const std::array<std::pair<Part, double>, 6> saved { {
        { Optimizer, b.optimizerS - a.optimizerS },
        { Communication, b.exposedCommS - a.exposedCommS },
        { Overhead, b.overheadS - a.overheadS },
        { Compute, b.computeS - a.computeS },
        { OffloadCopies, b.offloadCopyS - a.offloadCopyS },
        { CpuOptimizer, b.cpuOptimizerS - a.cpuOptimizerS },
    } };
    const auto largest = std::max_element(saved.begin(), saved.end(),
                                          [](const auto& x, const auto& y) { return x.second < y.second; });
    switch (largest->first) {
    case Optimizer:
        if (traits(faster.strategy).shardsOptimizer && !traits(chosen.strategy).shardsOptimizer)
            return msg("plan.cause_shards_optimizer", { A::integer(world), ms(a.optimizerS), ms(b.optimizerS) });
        return msg("plan.cause_optimizer", { ms(a.optimizerS), ms(b.optimizerS) });
    case Communication:
        return msg("plan.cause_communication", { ms(a.exposedCommS), ms(b.exposedCommS) });
    case Overhead:
        return msg("plan.cause_overhead", { ms(a.overheadS), ms(b.overheadS) });
    case Compute:
        return msg("plan.cause_compute", { ms(a.computeS), ms(b.computeS) });
    case OffloadCopies:
        return msg("plan.cause_offload_copies", { ms(a.offloadCopyS), ms(b.offloadCopyS) });
    case CpuOptimizer:
        break;
    }
    return msg("plan.cause_cpu_optimizer", { ms(a.cpuOptimizerS), ms(b.cpuOptimizerS) });
}

} // namespace

void addFastestComparison(Plan& p, const Estimate& chosen, int world, bool sayWhenWithinError)
{
    const Estimate* fastest = nullptr;
    for (const Candidate& c : p.candidates) {
        const Estimate& e = c.estimate;
        if (e.strategy != chosen.strategy && e.fits()
            && (!fastest || e.throughput.tokensPerS > fastest->throughput.tokensPerS))
            fastest = &e;
    }
    if (!fastest)
        return;
    Recommendation& r = p.recommendation;
    const double chosenTps = chosen.throughput.tokensPerS;
    const double fastestTps = fastest->throughput.tokensPerS;
    const A error = A::percent(100.0 * kThroughputPredictionError, 0);
    if (predictedFasterBeyondError(*fastest, chosen)) {
        const char* kept = r.step == DecisionStep::LightestFits ? "plan.kept_lightest" : "plan.kept_decision_order";
        r.reasonMessages.push_back(msg("plan.faster_beyond_error",
                                       { id(fastest->strategy), A::percent(100.0 * (fastestTps / chosenTps - 1.0), 0),
                                         id(chosen.strategy), A::number(fastestTps, 0), A::tokensPerS(chosenTps, 0),
                                         error, A::message(cause(*fastest, chosen, world)), A::message(msg(kept)) }));
        if (std::find(r.alsoMeasure.begin(), r.alsoMeasure.end(), fastest->strategy) == r.alsoMeasure.end())
            r.alsoMeasure.push_back(fastest->strategy);
        return;
    }
    if (!sayWhenWithinError)
        return;
    if (fastestTps <= chosenTps)
        r.reasonMessages.push_back(
            msg("plan.also_fastest",
                { id(chosen.strategy), id(fastest->strategy), A::tokensPerS(fastestTps, 0), A::number(chosenTps, 0) }));
    else
        r.reasonMessages.push_back(
            msg("plan.fastest_within_error",
                { id(fastest->strategy), A::tokensPerS(fastestTps, 0), A::number(chosenTps, 0), id(chosen.strategy),
                  A::percent(100.0 * (fastestTps / chosenTps - 1.0), 0), error }));
}

} // namespace detail

} // namespace shardwise
