#pragma once
// What `shardwise-cli plan` reads from the run store: the store itself (read-only, never created),
// a measured checkpoint save for the advice, and a measured network for --inter-node a+b.

#include "plan_options.hpp"

#include "shardwise/estimate/estimate.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/runs.hpp"

#include <optional>
#include <string>

namespace shardwise::cli {

// The store, opened read-only, when it exists; planning never creates one.
std::optional<store::Database> existingStore(const std::string& explicitPath);

// The newest stored measurement of a checkpoint save for this plan, if the store exists and has one.
// Planning never creates a store or fails because of one.
std::optional<store::MeasuredCheckpointSave> measuredSaveFromStore(const EstimateInput& in, Strategy strategy,
                                                                   const std::string& dbPath);

} // namespace shardwise::cli
