#pragma once
// `shardwise-cli plan --sweep AXIS=V1,V2,...`: the what-if grid (core/plan's runSweep) as a text table,
// JSON or CSV.

#include "options.hpp"

#include "shardwise/plan/sweep.hpp"

#include <nlohmann/json_fwd.hpp>

#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace shardwise::cli {

// One --sweep value; UsageError naming "--sweep" or "--sweep AXIS" and the value for a bad one.
SweepAxisValues parseSweepOption(const std::string& value);
// The axes as a whole (an axis given twice, too many points), and no axis also given as its own flag
// (`given`: the plan flags the user typed). UsageError naming the axis.
void checkSweepOptions(const std::vector<SweepAxisValues>& axes, const std::set<std::string>& given);

// The grid as core/plan's JSON with the model, GPU and framework target it was planned for.
nlohmann::json sweepJson(const SweepResult& sweep, const EstimateInput& in);
void printSweepTable(const SweepResult& sweep, const EstimateInput& in, std::ostream& out);

} // namespace shardwise::cli
