#pragma once
// How `shardwise-cli runs list` and `runs show` print runs: the list's table, one run's detail as
// text or as JSON.

#include "options.hpp"

#include "shardwise/store/runs.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <vector>

namespace shardwise::cli {

void printRunTable(std::ostream& out, const std::vector<store::RunSummary>& runs);
void printRunDetail(std::ostream& out, const store::RunDetail& detail);
nlohmann::json runDetailJson(const store::RunDetail& detail);

// The option tables of `runs` and each of its actions ("runs list", ...), in runs_options.cpp.
std::vector<CommandSpec> runsSpecs();

} // namespace shardwise::cli
