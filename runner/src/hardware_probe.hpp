#pragma once
// `shardwise-runner --probe`: the rates the planner calibrates on, measured on this rank's device and
// host and, at world > 1, over its communicator (docs/protocol.md, "probe").

#include "runner_options.hpp"

namespace shardwise::runner {

// Measures and emits one probe event. Collective: every rank must call it.
void runProbe(const RunnerOptions& options, const LaunchEnvironment& env);

} // namespace shardwise::runner
