#pragma once
// One rank's measured run: rendezvous, build, warm-up and timed steps, summary, optional dump.
// Failures propagate as exceptions; main() turns them into error events and exit codes.

#include "runner_options.hpp"

#include <ATen/ATen.h>

#include <optional>
#include <string>

namespace shardwise::runner {

struct RunProgress {
    std::optional<int> step; // the step being run when a failure happened
    std::string commFailure; // set when a collective failed inside autograd
    at::Device device = at::kCPU;
};

void runTraining(const RunnerOptions& options, const LaunchEnvironment& env, RunProgress& progress);

} // namespace shardwise::runner
