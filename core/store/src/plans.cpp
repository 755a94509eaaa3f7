#include "shardwise/store/plans.hpp"

#include "plan_rows.hpp"
#include "statement.hpp"

namespace shardwise::store {

using detail::Statement;

namespace {

StoredPlan readPlan(const Statement& s, bool withDocument)
{
    StoredPlan p;
    p.id = s.integer(0);
    p.createdAt = s.real(1);
    p.title = s.text(2);
    p.modelId = s.text(3);
    p.gpuId = s.text(4);
    p.worldSize = static_cast<int>(s.integer(5));
    if (!s.isNull(6))
        p.recommended = strategyFromId(s.text(6));
    if (withDocument)
        p.document = nlohmann::json::parse(s.text(7), nullptr, false);
    return p;
}

} // namespace

std::int64_t detail::insertPlan(Database& db, const StoredPlan& plan)
{
    if (plan.modelId.empty())
        throw StoreError("plan.model_id: must not be empty");
    if (plan.gpuId.empty())
        throw StoreError("plan.gpu_id: must not be empty");
    if (plan.worldSize < 1)
        throw StoreError("plan.world_size: must be at least 1, got " + std::to_string(plan.worldSize));
    if (!plan.document.is_object())
        throw StoreError("plan.document: must be a JSON object");
    Statement s(db.handle(), R"sql(INSERT INTO plans (created_at, title, model_id, gpu_id, world_size,
                                                      recommended_strategy, document_json)
                                   VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7))sql");
    s.bind(1, plan.createdAt > 0 ? plan.createdAt : currentUnixTime())
        .bind(2, plan.title)
        .bind(3, plan.modelId)
        .bind(4, plan.gpuId)
        .bind(5, plan.worldSize);
    if (plan.recommended)
        s.bind(6, strategyId(*plan.recommended));
    s.bind(7, plan.document.dump()).run();
    return detail::lastInsertId(db.handle());
}

std::int64_t savePlan(Database& db, const StoredPlan& plan)
{
    WriteTransaction tx(db);
    const std::int64_t id = detail::insertPlan(db, plan);
    tx.commit();
    return id;
}

std::vector<StoredPlan> listPlans(const Database& db, bool withDocuments)
{
    Statement s(db.handle(), R"sql(SELECT id, created_at, title, model_id, gpu_id, world_size, recommended_strategy,
                                          CASE WHEN ?1 THEN document_json END
                                   FROM plans ORDER BY created_at DESC, id DESC)sql");
    s.bind(1, withDocuments);
    std::vector<StoredPlan> plans;
    while (s.step())
        plans.push_back(readPlan(s, withDocuments));
    return plans;
}

std::optional<StoredPlan> findPlan(const Database& db, std::int64_t id)
{
    Statement s(db.handle(), R"sql(SELECT id, created_at, title, model_id, gpu_id, world_size, recommended_strategy,
                                          document_json FROM plans WHERE id = ?1)sql");
    s.bind(1, id);
    if (!s.step())
        return std::nullopt;
    return readPlan(s, true);
}

bool removePlan(Database& db, std::int64_t id)
{
    WriteTransaction tx(db);
    Statement s(db.handle(), "DELETE FROM plans WHERE id = ?1");
    s.bind(1, id).run();
    const bool removed = detail::changes(db.handle()) == 1;
    tx.commit();
    return removed;
}

} // namespace shardwise::store
