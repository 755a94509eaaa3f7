#pragma once
// Node facts as the store keeps them (the node row's JSON "facts" column), read back for display.
// The key names follow the discovery script's keys so a stored document reads like its source.

#include "shardwise/dispatch/node.hpp"

#include <nlohmann/json.hpp>

namespace shardwise::gui {

nlohmann::json nodeFactsToJson(const dispatch::NodeFacts& facts);
// Missing keys stay empty; values of the wrong type are ignored (an older or newer document).
dispatch::NodeFacts nodeFactsFromJson(const nlohmann::json& json);

} // namespace shardwise::gui
