#pragma once
// One rank's measured run: rendezvous, build, warm-up and timed steps, summary, optional dump.
// Failures propagate as exceptions; main() turns them into error events and exit codes.

#include "runner_options.hpp"

#include <ATen/ATen.h>

#include <memory>
#include <optional>
#include <string>

namespace shardwise::runner {

struct RunProgress {
    std::optional<int> step; // the step being run when a failure happened
    std::string commFailure; // set when a collective failed inside autograd
    at::Device device = at::kCPU;
};

class Communicator;

// The compute device this rank uses (cuda:LOCAL_RANK or cpu), made current, allocator configured.
at::Device prepareDevice(const RunConfig& c, const LaunchEnvironment& env);
// Rendezvous: NCCL on cuda, Gloo on cpu.
std::unique_ptr<Communicator> connectRanks(const RunConfig& c, const LaunchEnvironment& env, int timeoutS);

void runTraining(const RunnerOptions& options, const LaunchEnvironment& env, RunProgress& progress);

} // namespace shardwise::runner
