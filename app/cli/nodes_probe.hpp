#pragma once
// shardwise-cli nodes probe NAME | --local: measure a node's hardware with `shardwise-runner --probe`
// (through core/session, the launch path runs use), store the probe for calibration, print it.

#include "options.hpp"

#include "shardwise/dispatch/ssh_session.hpp"
#include "shardwise/spec/specs.hpp"

#include <filesystem>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shardwise::cli {

struct ProbeOptions {
    std::string node;
    std::vector<std::string> with; // --with: the other nodes of a probe between nodes
    bool local = false;
    std::optional<DeviceKind> device;
    std::optional<int> ranks;
    std::string gpu;
    std::optional<std::int64_t> maxBytes;
    int timeoutS = 900;
    std::optional<int> collectiveTimeoutS;
    std::map<std::string, std::string> rankEnv;
    std::optional<std::filesystem::path> runner;
    std::string remoteRunner;
    int masterPort = 0; // 0: a free one on the (first) node, as the Nodes page's probes take
    std::string runRoot = ".cache/shardwise/probes";
    dispatch::SshOptions ssh;
    std::string db;
    bool record = true;
    bool json = false;
};

// The probe's options from `nodes probe` arguments parsed by nodesProbeSpec(); UsageError naming
// the flag for a bad value.
ProbeOptions parseProbeOptions(const ParsedArgs& parsed);

int nodesProbe(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace shardwise::cli
