#pragma once
// Node facts as the store keeps them (the node row's JSON "facts" column): the one definition of
// that document, written by node management (nodes.hpp) and read back by every face. The key names
// follow the discovery script's keys so a stored document reads like its source; a preparation adds
// "prepared_runner" (prepared_runner.hpp).

#include "shardwise/dispatch/node.hpp"

#include <nlohmann/json.hpp>

namespace shardwise::session {

nlohmann::json nodeFactsToJson(const dispatch::NodeFacts& facts);
// Missing keys stay empty; values of the wrong type are ignored (an older or newer document).
dispatch::NodeFacts nodeFactsFromJson(const nlohmann::json& json);

} // namespace shardwise::session
