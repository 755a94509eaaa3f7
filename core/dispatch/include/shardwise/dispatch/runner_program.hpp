#pragma once
// Which program executes a run: Shardwise's native runner or the PyTorch harness, decided here and
// nowhere else from the run's backend (RunConfig::backend). Both follow the same launch contract
// (torchrun environment, `--config config.json`, JSON Lines events, exit codes; docs/protocol.md),
// so the launchers start either the same way. They are installed side by side: the same bin folder
// of a build or a package, the same build folder of a prepared SSH node.

#include "shardwise/spec/framework.hpp"

#include <filesystem>
#include <string_view>

namespace shardwise::dispatch {

inline constexpr std::string_view kNativeRunnerProgram = "shardwise-runner";
inline constexpr std::string_view kTorchRunnerProgram = "shardwise-torch-runner";

// "shardwise-runner" | "shardwise-torch-runner".
std::string_view runnerProgram(RunBackend backend);

// The program that runs `backend`, given the path of either program (the launch's runner, a node's
// prepared runner): a path named after one program becomes its sibling named after the other when
// the backend asks for that one. A path with any other file name (a wrapper, a test double) is the
// caller's explicit choice and is kept as given.
std::filesystem::path runnerForBackend(RunBackend backend, const std::filesystem::path& runner);

} // namespace shardwise::dispatch
