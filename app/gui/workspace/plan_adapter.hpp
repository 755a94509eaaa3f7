#pragma once
// Turns core/plan's Plan into what the Plan page shows: steps with verdicts and reasons, candidates
// with their memory parts in GiB, and the run matrix.

#include "workspace/plan_view.hpp"

#include "shardwise/plan/plan.hpp"

namespace shardwise::gui {

PlanView toPlanView(const Plan& plan, const EstimateInput& input, const std::vector<RunConfig>& runMatrix);

} // namespace shardwise::gui
