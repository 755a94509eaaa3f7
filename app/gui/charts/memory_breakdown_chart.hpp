#pragma once
// Predicted memory per GPU for every strategy as stacked bars (parameters, gradients, optimizer
// state, activations, ...) against a horizontal line at the GPU's capacity.

#include "workspace/plan_view.hpp"

#include <QChart>

namespace shardwise::gui {

// A new chart for `plan`; empty (with a hint as title) when the plan has no candidates.
QChart* createMemoryBreakdownChart(const PlanView& plan);

} // namespace shardwise::gui
