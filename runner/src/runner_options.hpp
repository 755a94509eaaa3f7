#pragma once
// The runner's command line and torchrun-style environment. Every mistake is a ConfigError naming the
// flag, field or variable (exit code 2).

#include "shardwise/spec/specs.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardwise::runner {

class ConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct RunnerOptions {
    RunConfig config;
    std::string dumpParams; // empty = no dump
    // Same format as dumpParams, written before the first step: the weights a run starts from, which the
    // torch backend's --init-params loads so both backends train from identical parameters.
    std::string dumpInitialParams;
    int collectiveTimeoutS = 120;
    bool help = false;
    bool version = false; // --version: print the runner's and LibTorch's versions and exit
    // --probe: measure the hardware (docs/protocol.md, "probe") instead of training.
    bool probe = false;
    std::int64_t probeMaxBytes = 256LL << 20;
    // --profile-kernels N: record the last N timed steps with the Kineto profiler and log the GPU
    // kernels that took the most time (CUDA builds whose LibTorch has the profiler).
    int profileKernelSteps = 0;
    // Sharded checkpoints (checkpoint.hpp): every N steps into checkpointDir; --resume starts from the
    // newest complete one there.
    int checkpointEvery = 0;
    std::string checkpointDir;
    bool resume = false;
};

struct LaunchEnvironment {
    int rank = 0;
    int world = 1;
    int localRank = 0;
    int localWorld = 1;
    std::string masterAddr;
    int masterPort = 0;
    std::string launcher; // "shardwise" | "torchrun" | "srun" | "manual" | whatever SHARDWISE_LAUNCHER says
};

std::string usageText();

RunnerOptions parseOptions(const std::vector<std::string>& args);

// Reads RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT.
LaunchEnvironment readLaunchEnvironment();

// The rank to put in an error event before the environment could be read: RANK if it parses, else 0.
int bestEffortRank();

// Cross-checks between the options and the environment; fills config.worldSize.
void reconcile(RunnerOptions& options, const LaunchEnvironment& env);

} // namespace shardwise::runner
