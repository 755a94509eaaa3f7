#pragma once
// shardwise-cli nodes probe NAME | --local: measure a node's hardware with `shardwise-runner --probe`
// (through core/session, the launch path runs use), store the probe for calibration, print it.

#include <iosfwd>
#include <string>
#include <vector>

namespace shardwise::cli {

int nodesProbe(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace shardwise::cli
