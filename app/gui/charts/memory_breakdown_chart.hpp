#pragma once
// The predicted peak per GPU for every strategy as horizontal stacked bars of its parts (parameters, gradients,
// optimizer state, activations, ..., CUDA context and NCCL), each bar summing to the peak the table
// and the reasons give, against a dashed line at the usable capacity the fit verdict compares with
// (the GPU's memory less the planner's headroom). The bar series is named "peakPartsSeries", the
// line "usableCapacityLine". Each bar is labelled with the strategy as the table names it, whole; the
// recommended candidate and the fastest one that fits have a mark after their bar (a star,
// "recommendedMark", and a triangle, "fastestFittingMark") and a legend entry each.

#include "workspace/plan_view.hpp"

#include <QChart>

#include <optional>

namespace shardwise::gui {

// The index of the fastest candidate (predicted tokens/s) that fits and the framework target runs.
std::optional<int> fastestFittingCandidate(const PlanView& plan);
// A new chart for `plan`; empty (with a hint as title) when the plan has no candidates.
QChart* createMemoryBreakdownChart(const PlanView& plan);

} // namespace shardwise::gui
