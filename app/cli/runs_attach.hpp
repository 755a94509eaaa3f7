#pragma once
// `shardwise-cli runs attach ID` and `runs abandon ID`: what becomes of a detached run on SSH nodes.
// runs_command.cpp parses the arguments; these take the run ID and the given --flags (a switch maps
// to ""), and return the exit code (kExitUsage when the run is unknown or cannot be taken up).

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

namespace shardwise::cli {

int attachStoredRun(std::int64_t id, const std::map<std::string, std::string>& flags, std::ostream& out,
                    std::ostream& err);
int abandonStoredRun(std::int64_t id, const std::map<std::string, std::string>& flags, std::ostream& out,
                     std::ostream& err);

} // namespace shardwise::cli
