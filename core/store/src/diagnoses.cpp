#include "shardwise/store/runs.hpp"

#include "statement.hpp"

namespace shardwise::store {

using detail::Statement;

namespace {
// Diagnoses arrived with schema version 2; a database kept at version 1 (only tests do that) has none.
constexpr int kDiagnosesVersion = 2;
} // namespace

std::vector<Diagnosis> diagnoses(const Database& db, std::int64_t runId)
{
    std::vector<Diagnosis> list;
    if (db.schemaVersion() < kDiagnosesVersion)
        return list;
    Statement s(db.handle(), R"sql(SELECT id, run_id, created_at, code, title, detail, first_failure_rank, document_json
                                   FROM diagnoses WHERE run_id = ?1 ORDER BY id)sql");
    s.bind(1, runId);
    while (s.step()) {
        Diagnosis d;
        d.id = s.integer(0);
        d.runId = s.integer(1);
        d.createdAt = s.real(2);
        d.code = s.text(3);
        d.title = s.text(4);
        d.detail = s.text(5);
        if (!s.isNull(6))
            d.firstFailureRank = static_cast<int>(s.integer(6));
        d.document = nlohmann::json::parse(s.text(7), nullptr, false);
        list.push_back(std::move(d));
    }
    return list;
}

std::int64_t addDiagnosis(Database& db, const Diagnosis& diagnosis)
{
    if (diagnosis.code.empty())
        throw StoreError("a diagnosis needs a code");
    WriteTransaction tx(db);
    Statement s(db.handle(), R"sql(INSERT INTO diagnoses (run_id, created_at, code, title, detail, first_failure_rank,
                                                          document_json)
                                   VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7))sql");
    s.bind(1, diagnosis.runId)
        .bind(2, diagnosis.createdAt > 0 ? diagnosis.createdAt : currentUnixTime())
        .bind(3, diagnosis.code)
        .bind(4, diagnosis.title)
        .bind(5, diagnosis.detail)
        .bind(6, diagnosis.firstFailureRank)
        .bind(7, diagnosis.document.is_null() ? std::string("{}") : diagnosis.document.dump());
    try {
        s.run();
    } catch (const StoreError& e) {
        throw StoreError("cannot add a diagnosis to run " + std::to_string(diagnosis.runId) + ": " + e.what());
    }
    const std::int64_t id = detail::lastInsertId(db.handle());
    tx.commit();
    return id;
}

void removeDiagnoses(Database& db, std::int64_t runId)
{
    WriteTransaction tx(db);
    Statement s(db.handle(), "DELETE FROM diagnoses WHERE run_id = ?1");
    s.bind(1, runId).run();
    tx.commit();
}

} // namespace shardwise::store
