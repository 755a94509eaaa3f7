#pragma once
// The plans row itself, shared by plans.cpp and saved_plans.cpp; private to the store.

#include "shardwise/store/plans.hpp"

namespace shardwise::store::detail {

// Checks `plan` (StoreError naming the field) and inserts it inside the caller's write transaction.
std::int64_t insertPlan(Database& db, const StoredPlan& plan);

} // namespace shardwise::store::detail
