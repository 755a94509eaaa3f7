#include "shardwise/store/probes.hpp"

#include "statement.hpp"

namespace shardwise::store {

using detail::Statement;

namespace {

constexpr std::string_view kProbeColumns = "SELECT id, node, gpu_id, measured_at, event_json FROM probes";

StoredProbe readProbe(const Statement& s)
{
    StoredProbe p;
    p.id = s.integer(0);
    p.node = s.text(1);
    p.gpuId = s.text(2);
    p.measuredAt = s.real(3);
    // Stored by saveProbe from a parsed event, so it parses back; a hand-edited row that does not
    // keeps its columns and loses its results.
    try {
        const protocol::Event e = protocol::parseEvent(s.text(4));
        if (const auto* probe = std::get_if<protocol::ProbeEvent>(&e))
            p.event = *probe;
    } catch (const protocol::ProtocolError&) {
    }
    return p;
}

} // namespace

namespace {

std::int64_t insertProbe(Database& db, const StoredProbe& probe)
{
    if (probe.event.results.empty())
        throw StoreError("probe.results: a probe without results says nothing to calibrate from");
    Statement s(db.handle(), R"sql(INSERT INTO probes (node, host, device_name, gpu_id, rank, world_size,
                                                       measured_at, event_json)
                                   VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8))sql");
    const double at = probe.measuredAt > 0 ? probe.measuredAt
        : probe.event.time > 0             ? probe.event.time
                                           : currentUnixTime();
    s.bind(1, probe.node)
        .bind(2, probe.event.host)
        .bind(3, probe.event.deviceName)
        .bind(4, probe.gpuId)
        .bind(5, probe.event.rank)
        .bind(6, probe.event.world)
        .bind(7, at)
        .bind(8, protocol::serialize(probe.event))
        .run();
    return detail::lastInsertId(db.handle());
}

} // namespace

std::int64_t saveProbe(Database& db, const StoredProbe& probe)
{
    WriteTransaction tx(db);
    const std::int64_t id = insertProbe(db, probe);
    tx.commit();
    return id;
}

std::vector<std::int64_t> saveProbes(Database& db, const std::vector<StoredProbe>& probes)
{
    WriteTransaction tx(db);
    std::vector<std::int64_t> ids;
    for (const StoredProbe& p : probes)
        ids.push_back(insertProbe(db, p));
    tx.commit();
    return ids;
}

std::vector<StoredProbe> listProbes(const Database& db, const std::optional<std::string>& node)
{
    Statement s(db.handle(),
                std::string(kProbeColumns) + " WHERE ?1 IS NULL OR node = ?1 ORDER BY measured_at DESC, id DESC");
    s.bind(1, node);
    std::vector<StoredProbe> out;
    while (s.step())
        out.push_back(readProbe(s));
    return out;
}

std::optional<StoredProbe> latestProbe(const Database& db, const std::string& node, const std::string& gpuId)
{
    Statement s(db.handle(),
                std::string(kProbeColumns)
                    + " WHERE node = ?1 OR (?1 = '' AND ?2 <> '' AND gpu_id = ?2)"
                      " ORDER BY measured_at DESC, id DESC LIMIT 1");
    s.bind(1, node).bind(2, gpuId);
    if (s.step())
        return readProbe(s);
    return std::nullopt;
}

} // namespace shardwise::store
