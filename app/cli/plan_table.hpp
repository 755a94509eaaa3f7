#pragma once
// The plan as the text table `shardwise-cli plan` prints: the input, the framework target and network,
// one row per strategy, the recommendation with its reasons and the runs worth validating.

#include "shardwise/calibrate/network.hpp"
#include "shardwise/plan/plan.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace shardwise::cli {

// `notes`: where the framework target's settings came from ("precision bf16-fp32-master from
// DeepSpeed's defaults"). `network`: the measured network the inter-node figure came from, if any.
void printPlanTable(const Plan& plan, const EstimateInput& in, const std::vector<std::string>& notes, std::ostream& out,
                    const calibrate::MeasuredNetwork* network = nullptr);

} // namespace shardwise::cli
