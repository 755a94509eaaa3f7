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

const char* id(Strategy s) { return strategyId(s).data(); } // ids are literals: NUL-terminated

double ms(double seconds) { return 1e3 * seconds; }

// The part of the step time (ThroughputEstimate's terms) that `faster` spends least on against
// `chosen`, as a clause with both figures.
std::string cause(const Estimate& faster, const Estimate& chosen, int world, SentenceFormatter f)
{
    const ThroughputEstimate& a = faster.throughput;
    const ThroughputEstimate& b = chosen.throughput;
    enum Part { Optimizer, Communication, Overhead, Compute, OffloadCopies, CpuOptimizer };
    const std::array<std::pair<Part, double>, 6> saved{{
        {Optimizer, b.optimizerS - a.optimizerS},
        {Communication, b.exposedCommS - a.exposedCommS},
        {Overhead, b.overheadS - a.overheadS},
        {Compute, b.computeS - a.computeS},
        {OffloadCopies, b.offloadCopyS - a.offloadCopyS},
        {CpuOptimizer, b.cpuOptimizerS - a.cpuOptimizerS},
    }};
    const auto largest = std::max_element(saved.begin(), saved.end(),
                                          [](const auto& x, const auto& y) { return x.second < y.second; });
    switch (largest->first) {
    case Optimizer:
        if (traits(faster.strategy).shardsOptimizer && !traits(chosen.strategy).shardsOptimizer)
            return sentenceWith(f, "it shards the optimizer step across the %d GPUs, %.1f ms per step against %.1f ms",
                                world, ms(a.optimizerS), ms(b.optimizerS));
        return sentenceWith(f, "its optimizer step takes %.1f ms against %.1f ms", ms(a.optimizerS), ms(b.optimizerS));
    case Communication:
        return sentenceWith(f, "less of its communication is left exposed, %.1f ms per step against %.1f ms",
                            ms(a.exposedCommS), ms(b.exposedCommS));
    case Overhead:
        return sentenceWith(f, "its per-parameter step overhead (flat-buffer copies, casts) is %.1f ms against %.1f ms",
                            ms(a.overheadS), ms(b.overheadS));
    case Compute:
        return sentenceWith(f, "its forward and backward take %.1f ms per step against %.1f ms", ms(a.computeS),
                            ms(b.computeS));
    case OffloadCopies:
        return sentenceWith(f, "its exposed host copies take %.1f ms per step against %.1f ms", ms(a.offloadCopyS),
                            ms(b.offloadCopyS));
    case CpuOptimizer:
        break;
    }
    return sentenceWith(f, "its CPU optimizer step adds %.1f ms to a step against %.1f ms", ms(a.cpuOptimizerS),
                        ms(b.cpuOptimizerS));
}

} // namespace

void addFastestComparison(Plan& p, const Estimate& chosen, int world, bool sayWhenWithinError, SentenceFormatter f)
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
    const double errorPercent = 100.0 * kThroughputPredictionError;
    if (predictedFasterBeyondError(*fastest, chosen)) {
        const char* kept = r.step == DecisionStep::LightestFits
            ? "The decision order keeps the lightest that fits, as heavier sharding brought no evidence of a speed-up "
              "in the reference benchmark; measure both."
            : "The recommendation stays the decision order's; measure both.";
        r.reasons.push_back(sentenceWith(
            f, "%s is predicted %.0f %% faster than %s (%.0f against %.0f tokens/s), beyond the predictions' %.0f %% "
               "error: %s. %s",
            id(fastest->strategy), 100.0 * (fastestTps / chosenTps - 1.0), id(chosen.strategy), fastestTps, chosenTps,
            errorPercent, cause(*fastest, chosen, world, f).c_str(), kept));
        if (std::find(r.alsoMeasure.begin(), r.alsoMeasure.end(), fastest->strategy) == r.alsoMeasure.end())
            r.alsoMeasure.push_back(fastest->strategy);
        return;
    }
    if (!sayWhenWithinError)
        return;
    if (fastestTps <= chosenTps)
        r.reasons.push_back(sentenceWith(f, "%s is also predicted the fastest that fits; next is %s at %.0f tokens/s "
                                            "against %.0f.",
                                         id(chosen.strategy), id(fastest->strategy), fastestTps, chosenTps));
    else
        r.reasons.push_back(sentenceWith(
            f, "The fastest other strategy that fits, %s, is predicted at %.0f tokens/s against %.0f for %s (%.0f %% "
               "faster), within the predictions' %.0f %% error; heavier sharding brought no evidence of a speed-up in "
               "the reference benchmark.",
            id(fastest->strategy), fastestTps, chosenTps, id(chosen.strategy), 100.0 * (fastestTps / chosenTps - 1.0),
            errorPercent));
}

} // namespace detail

} // namespace shardwise
