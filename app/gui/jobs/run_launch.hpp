#pragma once
// The run queue's request as the one launch builder takes it (session::buildLaunch decides the
// launch: runner contract, port, peer grace, CUDA graphs, rank layout), so a run queued here starts
// exactly as `shardwise-cli run` starts the same run.

#include "jobs/run_job.hpp"

#include "shardwise/session/launch_builder.hpp"
#include "shardwise/store/nodes.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace shardwise::gui {

// `node`: the request's stored node (none: this machine without a stored node). An SSH node runs
// `remoteRunner` (its preparation's) with every rank of the config on it, run folders under
// `remoteRunRoot`; this machine runs `localRunner`.
session::LaunchRequest launchRequestFor(const RunRequest& request, const std::optional<store::Node>& node,
                                        const std::filesystem::path& localRunner, const std::string& remoteRunner,
                                        const std::string& remoteRunRoot);

} // namespace shardwise::gui
