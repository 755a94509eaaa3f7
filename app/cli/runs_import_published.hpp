#pragma once
// `shardwise-cli runs import-published [DIR]`: the published results of DIR/*.json (default: the
// source tree's bench/published) stored as runs of origin "published" (core/published,
// published_import.hpp). runs_command.cpp parses the arguments and calls this with the folder, if
// given, and the --flags it allowed (--db PATH, the switch --replace mapped to ""); returns the exit
// code: kExitUsage for a folder or file that is not a published source, kExitFailed when the store
// refuses the rows.

#include <map>
#include <optional>
#include <ostream>
#include <string>

namespace shardwise::cli {

int importPublishedRuns(const std::optional<std::string>& dir, const std::map<std::string, std::string>& flags,
                        std::ostream& out, std::ostream& err);

// `shardwise-cli runs import-examples [DIR]`: the example runs listed by DIR/examples.json (default:
// the installed share/shardwise/examples, else the source tree's bench/results) replayed as read-only
// runs (core/published, examples.hpp). kExitUsage for a manifest or event file that cannot be used,
// kExitFailed when the store refuses.
int importExampleRuns(const std::optional<std::string>& dir, const std::map<std::string, std::string>& flags,
                      std::ostream& out, std::ostream& err);

} // namespace shardwise::cli
