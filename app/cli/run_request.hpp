#pragma once
// What `shardwise-cli run` was asked to do: its flags parsed and checked (every strategy's launch
// built and validated as the runner will validate it, errors naming the flag), the program the ranks
// start on this machine, and each strategy's session::LaunchRequest (the one launch builder's input).

#include "options.hpp"

#include "shardwise/dispatch/ssh_session.hpp"
#include "shardwise/session/launch_builder.hpp"
#include "shardwise/spec/specs.hpp"
#include "shardwise/store/nodes.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardwise::cli {

struct RunRequest {
    int ranks = 1;
    DeviceKind device = DeviceKind::Cpu;
    std::string model;
    ModelSpec modelSpec;
    std::vector<Strategy> strategies;
    std::optional<int> steps;
    std::optional<int> warmup;
    std::optional<int> seq;
    std::optional<int> microBatch;
    std::optional<PrecisionPolicy> precision;
    std::string precisionText;
    std::optional<std::uint64_t> seed;
    std::optional<int> collectiveTimeoutS;
    std::optional<std::filesystem::path> runner;
    std::filesystem::path logDir;
    int timeoutS = 0;
    std::optional<int> peerGraceS; // none: session::kPeerGrace
    bool expandableSegments = false;
    bool cudaGraphs = false;
    std::optional<int> rehearseWorld; // --rehearse-world N: one rank as rank 0 of world N
    RunBackend backend = RunBackend::Native;
    bool torchCompile = false;
    bool everyStrategy = false; // --strategy all
    bool json = false;
    std::string db;             // --db; empty = the default location
    bool record = true;         // false with --no-store
    bool keepRunFolder = false; // --keep-run-folder: a temporary run folder stays after a recorded run
    bool detachOnInterrupt = false;
    bool oversubscribe = false; // --local: allow more ranks than this machine's cores / GPUs
    std::map<std::string, std::string> rankEnv;
    // SSH nodes; empty = --local
    std::vector<std::string> nodes;
    std::string remoteRunner;
    std::optional<int> masterPort;       // none: a free port on the first node (session::buildLaunch)
    std::optional<double> interNodeGBps; // the network the run is measured against, recorded with it
    std::string runRoot = ".cache/shardwise/runs";
    dispatch::SshOptions ssh;

    bool remote() const { return !nodes.empty(); }
    int world() const { return ranks * static_cast<int>(remote() ? nodes.size() : 1); }
};

// `shardwise-cli run --help`.
// run's option table (options.hpp) and the --help made from it.
CommandSpec runSpec();
std::vector<CommandSpec> runSpecs();
void printRunUsage(std::ostream& out);
// Throws UsageError naming the flag.
RunRequest parseRequest(const std::vector<std::string>& args);
// Every strategy's configuration checked as the runner will check it, before any rank starts.
void validateRequest(const RunRequest& r);
// The program the ranks run on this machine: the backend's (dispatch::runnerForBackend decides, as
// the session does). Throws UsageError when it is missing or not executable.
std::filesystem::path resolveRunner(const RunRequest& r);
// One strategy's run as the launch builder takes it (run_launch.cpp). `nodes`: the SSH nodes with the
// runner on each (remote), or this machine's stored node, if any (local); `localRunner`: the program
// resolveRunner found (local).
session::LaunchRequest launchRequest(const RunRequest& r, Strategy s, const std::vector<store::Node>& nodes = {},
                                     const std::vector<std::string>& runnerPaths = {},
                                     const std::filesystem::path& localRunner = {});

} // namespace shardwise::cli
