#pragma once
// Where a node's preparation left the runner, kept in the stored node's facts under
// "prepared_runner" ({"path", "source_sha256", "prepared_at", "torch_runner", "torch_backend_problems"})
// so every face finds it: the Nodes page writes it after Prepare, the run queue and `shardwise-cli run
// --node` read it.

#include "shardwise/dispatch/node_preparation.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace shardwise::session {

// The runner's absolute path on the node; empty when the node was never prepared.
std::string preparedRunnerPath(const nlohmann::json& nodeFacts);

// What the preparation found missing for the torch backend (the harness, python3, torch); a node never
// prepared, or prepared before the torch backend, says that instead. Empty: ready when prepared.
std::vector<std::string> preparedTorchBackendProblems(const nlohmann::json& nodeFacts);

// Adds the prepared runner to the facts (an object; others' keys are kept).
void setPreparedRunner(nlohmann::json& nodeFacts, const dispatch::PreparedRunner& prepared, double preparedAt);

} // namespace shardwise::session
