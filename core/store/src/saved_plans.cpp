#include "shardwise/store/saved_plans.hpp"

#include "plan_rows.hpp"
#include "statement.hpp"

namespace shardwise::store {

using detail::Statement;

namespace {

void checkName(const std::string& name)
{
    if (name.empty())
        throw StoreError("saved_plan.name: must not be empty");
    if (name.size() > kMaxSavedPlanName)
        throw StoreError("saved_plan.name: at most " + std::to_string(kMaxSavedPlanName) + " bytes, got "
                         + std::to_string(name.size()));
    for (const char c : name)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            throw StoreError("saved_plan.name: '" + name + "' holds a control character");
}

bool nameTaken(const Database& db, const std::string& name)
{
    Statement s(db.handle(), "SELECT 1 FROM saved_plans WHERE name = ?1");
    s.bind(1, name);
    return s.step();
}

std::optional<SavedPlan> readSaved(const Database& db, const std::string& name)
{
    Statement s(db.handle(), "SELECT plan_id, saved_at, input_json FROM saved_plans WHERE name = ?1");
    s.bind(1, name);
    if (!s.step())
        return std::nullopt;
    SavedPlan saved;
    saved.name = name;
    saved.savedAt = s.real(1);
    saved.input = nlohmann::json::parse(s.text(2), nullptr, false);
    const auto plan = findPlan(db, s.integer(0));
    if (!plan)
        return std::nullopt; // the foreign key keeps this from happening
    saved.plan = *plan;
    return saved;
}

} // namespace

std::int64_t savePlanAs(Database& db, const std::string& name, const StoredPlan& plan, const nlohmann::json& input,
                        bool replace)
{
    checkName(name);
    if (!input.is_object())
        throw StoreError("saved_plan.input: must be a JSON object");
    WriteTransaction tx(db);
    if (!replace && nameTaken(db, name))
        throw StoreError("saved_plan.name: '" + name + "' is taken; choose another name or replace it");
    const std::int64_t id = detail::insertPlan(db, plan);
    Statement s(db.handle(), R"sql(INSERT INTO saved_plans (name, plan_id, input_json, saved_at)
                                   VALUES (?1, ?2, ?3, ?4)
                                   ON CONFLICT (name) DO UPDATE SET plan_id = excluded.plan_id,
                                       input_json = excluded.input_json, saved_at = excluded.saved_at)sql");
    s.bind(1, name).bind(2, id).bind(3, input.dump()).bind(4, currentUnixTime()).run();
    tx.commit();
    return id;
}

std::vector<SavedPlan> listSavedPlans(const Database& db)
{
    std::vector<std::string> names;
    {
        Statement s(db.handle(), "SELECT name FROM saved_plans ORDER BY name");
        while (s.step())
            names.push_back(s.text(0));
    }
    std::vector<SavedPlan> saved;
    for (const std::string& name : names)
        if (auto p = readSaved(db, name))
            saved.push_back(std::move(*p));
    return saved;
}

std::optional<SavedPlan> findSavedPlan(const Database& db, const std::string& name)
{
    return readSaved(db, name);
}

bool removeSavedPlan(Database& db, const std::string& name)
{
    WriteTransaction tx(db);
    Statement s(db.handle(), "DELETE FROM saved_plans WHERE name = ?1");
    s.bind(1, name).run();
    const bool removed = detail::changes(db.handle()) == 1;
    tx.commit();
    return removed;
}

bool renameSavedPlan(Database& db, const std::string& from, const std::string& to)
{
    checkName(to);
    WriteTransaction tx(db);
    if (from != to && nameTaken(db, to))
        throw StoreError("saved_plan.name: '" + to + "' is taken; choose another name or replace it");
    Statement s(db.handle(), "UPDATE saved_plans SET name = ?2 WHERE name = ?1");
    s.bind(1, from).bind(2, to).run();
    const bool renamed = detail::changes(db.handle()) == 1;
    tx.commit();
    return renamed;
}

} // namespace shardwise::store
