#pragma once
// Plans as the planner produced them: the whole plan document as JSON, plus the few fields the
// store indexes so plans can be listed and runs linked to the plan that predicted them.

#include "shardwise/spec/strategy.hpp"
#include "shardwise/store/database.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardwise::store {

struct StoredPlan {
    std::int64_t id = 0; // 0 until stored
    double createdAt = 0;
    std::string title;
    std::string modelId;
    std::string gpuId;
    int worldSize = 1;
    std::optional<Strategy> recommended; // empty when nothing fits
    nlohmann::json document;             // the plan as the planner serialises it
};

// Returns the new id. Throws StoreError naming the field for an empty model or GPU id, a world size
// below 1 or a document that is not a JSON object.
std::int64_t savePlan(Database& db, const StoredPlan& plan);
// Newest first; documents included only when `withDocuments`.
std::vector<StoredPlan> listPlans(const Database& db, bool withDocuments = false);
std::optional<StoredPlan> findPlan(const Database& db, std::int64_t id);
bool removePlan(Database& db, std::int64_t id); // runs keep their numbers and lose the link

} // namespace shardwise::store
