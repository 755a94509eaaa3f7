#pragma once
// How `shardwise-cli runs list` and `runs show` print runs: the list's table, one run's detail as
// text or as JSON.

#include "options.hpp"

#include "shardwise/store/runs.hpp"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise::cli {

// Text as a terminal shows it verbatim: C0 and C1 control characters and DEL (ESC of an escape
// sequence, a newline inside a note) as \xNN or \u00NN, everything else (UTF-8 included) unchanged.
std::string terminalText(std::string_view text);

void printRunTable(std::ostream& out, const std::vector<store::RunSummary>& runs);
void printRunDetail(std::ostream& out, const store::RunDetail& detail);
nlohmann::json runDetailJson(const store::RunDetail& detail);
// `runs show --logs`: every stored log line of the run, rank by rank, each through terminalText.
void printRunLogs(std::ostream& out, const std::vector<store::RankLogLine>& lines);

// The option tables of `runs` and each of its actions ("runs list", ...), in runs_options.cpp.
std::vector<CommandSpec> runsSpecs();

} // namespace shardwise::cli
