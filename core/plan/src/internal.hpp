#pragma once
// Shared by the plan's sources; not part of the public API.

#include "shardwise/plan/plan.hpp"

#include <string>

namespace shardwise::detail {

// printf's "%.Nf" through the C library's snprintf: the reference plan's writer of the numbers in
// its reasons (renderEnglishWith), against which the tests check renderEnglish's std::to_chars.
std::string fixedWithLibc(double value, int decimals);

// Strategies in the table's "lightness" order (sortOrder), lightest first.
const std::array<Strategy, kStrategyCount>& byLightness();

// The lightest strategy whose estimate fits, if any.
std::optional<Strategy> lightestFitting(const std::array<Estimate, kStrategyCount>& estimates);

// The index of a strategy in the table (and in Plan::candidates).
std::size_t tableIndex(Strategy s);

// Remedies for an input where nothing fits; `in` is already validated. findRemedies probes through
// FitProbe (model constants once per input, stopping at the first fitting strategy);
// findRemediesStraightforward runs the same bisections with fitsByMemory, all nine strategies
// from scratch at every probe. Both return the same remedies.
using RemedySearch = std::vector<Remedy> (*)(const EstimateInput& in, const Calibration& c);
std::vector<Remedy> findRemedies(const EstimateInput& in, const Calibration& c);
std::vector<Remedy> findRemediesStraightforward(const EstimateInput& in, const Calibration& c);

// For a recommendation `chosen`: the fastest other fitting strategy, compared in a reason. When it
// is predicted faster beyond kThroughputPredictionError the sentence gives the figure and the part of
// the step that makes the difference, and the strategy joins alsoMeasure; within the error the
// sentence is added only when `sayWhenWithinError` (step 1, whose reasons always compare).
void addFastestComparison(Plan& p, const Estimate& chosen, int world, bool sayWhenWithinError);

// A DeepSpeed target's own reasons (deepspeed_reasons.cpp): where pure bf16 is asked for, the ZeRO
// stages DeepSpeed keeps an fp32 master in; with zero3 recommended, the published range of ZeRO-3's
// speed against FSDP's full shard beside the plan's own ratio. Nothing for the other targets.
void addDeepSpeedReasons(Plan& p, const EstimateInput& in, const Calibration& c);

// One reason per remedy.
Message describe(const Remedy& r, const EstimateInput& in);

// The two interchangeable parts of planning: makePlan uses the fast ones, reference::makePlan the
// straightforward ones.
struct PlanPaths {
    NumberWriter numbers = nullptr; // renderEnglish's own when null
    RemedySearch remedies = findRemedies;
};
Plan makePlanWith(const EstimateInput& in, const Calibration& c, const PlanPaths& paths);

} // namespace shardwise::detail
