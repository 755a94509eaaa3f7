#pragma once
// The dispatch layer's RemoteRun and RemoteRunOffsets as JSON, the form the run store keeps them in
// (store/remote_follow.hpp) so a run can be re-attached from another process or after a restart.

#include "shardwise/dispatch/remote_launch.hpp"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace shardwise::session {

// A stored handle or offsets that cannot be read; the message names the field.
struct RemoteRunJsonError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

nlohmann::json toJson(const dispatch::RemoteRun& run);
dispatch::RemoteRun remoteRunFromJson(const nlohmann::json& j);

nlohmann::json toJson(const dispatch::RemoteRunOffsets& offsets);
dispatch::RemoteRunOffsets remoteRunOffsetsFromJson(const nlohmann::json& j);

} // namespace shardwise::session
