#pragma once
// makePlan by its straightforward paths: every probe of the remedy searches estimates all nine
// strategies from scratch (fitsByMemory), and the numbers in the reasons are written by the C library's
// snprintf. It returns the same plans as makePlan, which the tests check over whole grids; it is
// kept as their oracle and as the planner benchmark's reference workload.

#include "shardwise/plan/plan.hpp"

namespace shardwise::reference {

Plan makePlan(const EstimateInput& in, const Calibration& c = {});

} // namespace shardwise::reference
