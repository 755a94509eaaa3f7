#pragma once
// The predicted peak per GPU for every strategy as stacked bars of its parts (parameters, gradients,
// optimizer state, activations, ..., CUDA context and NCCL), each bar summing to the peak the table
// and the reasons give, against a dashed line at the usable capacity the fit verdict compares with
// (the GPU's memory less the planner's headroom). The bar series is named "peakPartsSeries", the
// line "usableCapacityLine".

#include "workspace/plan_view.hpp"

#include <QChart>

namespace shardwise::gui {

// A new chart for `plan`; empty (with a hint as title) when the plan has no candidates.
QChart* createMemoryBreakdownChart(const PlanView& plan);

} // namespace shardwise::gui
