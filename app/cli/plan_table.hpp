#pragma once
// The plan as the text table `shardwise-cli plan` prints: the input, the framework target and network,
// one row per strategy, the recommendation with its reasons and the runs worth validating.

#include "shardwise/plan/plan.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace shardwise::cli {

// `notes`: where the framework target's settings came from ("precision bf16-fp32-master from
// DeepSpeed's defaults").
void printPlanTable(const Plan& plan, const EstimateInput& in, const std::vector<std::string>& notes,
                    std::ostream& out);

} // namespace shardwise::cli
