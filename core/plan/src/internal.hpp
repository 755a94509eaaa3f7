#pragma once
// Shared by the plan's sources; not part of the public API.

#include "shardwise/plan/plan.hpp"

#include <string>

namespace shardwise::detail {

// printf-style formatting into one sentence; planning formats a handful per plan, so this avoids
// iostreams' cost in the planner's hot loop.
std::string sentence(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Strategies in the table's "lightness" order (sortOrder), lightest first.
const std::array<Strategy, kStrategyCount>& byLightness();

// The lightest strategy whose estimate fits, if any.
std::optional<Strategy> lightestFitting(const std::array<Estimate, kStrategyCount>& estimates);

// The index of a strategy in the table (and in Plan::candidates).
std::size_t tableIndex(Strategy s);

// Remedies for an input where nothing fits; `in` is already validated.
std::vector<Remedy> findRemedies(const EstimateInput& in, const Calibration& c);
// One plain sentence per remedy.
std::string describe(const Remedy& r, const EstimateInput& in);

} // namespace shardwise::detail
