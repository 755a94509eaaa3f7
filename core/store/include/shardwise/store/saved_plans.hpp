#pragma once
// Named saved plans: a stored plan (plans.hpp) kept under a name the user chose, with the input that
// reproduces it (the face's own description of its form, e.g. the Plan page's state), so it can be
// listed, opened again and pinned beside another. A name is unique in a store; saving under a name
// that is taken replaces what it pointed to only when asked. Removing a stored plan removes its name.

#include "shardwise/store/database.hpp"
#include "shardwise/store/plans.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardwise::store {

// The longest name a saved plan may have, in bytes.
inline constexpr std::size_t kMaxSavedPlanName = 200;

struct SavedPlan {
    std::string name;
    double savedAt = 0;
    nlohmann::json input; // a JSON object: what reproduces the plan
    StoredPlan plan;      // with its document
};

// Stores `plan` (savePlan's checks) and names it. Throws StoreError naming "saved_plan.name" for an
// empty name, one longer than kMaxSavedPlanName or with a control character, and for a name already
// taken unless `replace` (the name then points to the new plan; the old plan stays stored, unnamed);
// "saved_plan.input" for an input that is not a JSON object. Returns the new plan's id.
std::int64_t savePlanAs(Database& db, const std::string& name, const StoredPlan& plan, const nlohmann::json& input,
                        bool replace = false);
// By name (byte order).
std::vector<SavedPlan> listSavedPlans(const Database& db);
std::optional<SavedPlan> findSavedPlan(const Database& db, const std::string& name);
// False when no plan has that name. The stored plan stays (runs may name it); only the name goes.
bool removeSavedPlan(Database& db, const std::string& name);
// Throws StoreError as savePlanAs for a bad or taken new name; false when `from` names no plan.
bool renameSavedPlan(Database& db, const std::string& from, const std::string& to);

} // namespace shardwise::store
