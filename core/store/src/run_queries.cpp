#include "shardwise/store/runs.hpp"

#include "shardwise/store/schema.hpp"
#include "statement.hpp"

#include <sstream>
#include <variant>

namespace shardwise::store {

using detail::Statement;

namespace {

// The status as shown: a 'running' row nobody follows any more is 'detached' when a remote handle
// is kept for it (its follower stopped on purpose, or went silent), else 'interrupted'. Nobody
// follows it once its heartbeat is stale (?1 is the oldest heartbeat that still counts as alive) or,
// at once, when its writer ran on this host and is gone (shardwise_writer_gone, writer_liveness.hpp).
constexpr std::string_view kShownStatus = R"sql(
           CASE WHEN r.status = 'running' AND f.run_id IS NOT NULL AND (f.detached_at IS NOT NULL OR r.heartbeat_at < ?1
                     OR shardwise_writer_gone(r.writer_host, r.writer_pid, r.started_at))
                THEN 'detached'
                WHEN r.status = 'running' AND (r.heartbeat_at < ?1 OR shardwise_writer_gone(r.writer_host, r.writer_pid, r.started_at))
                THEN 'interrupted'
                ELSE r.status END)sql";
// Files at schema 4 or older (kept by tests that rebuild every earlier version) have no remote handles.
constexpr std::string_view kShownStatusWithoutHandles = R"sql(
           CASE WHEN r.status = 'running' AND (r.heartbeat_at < ?1 OR shardwise_writer_gone(r.writer_host, r.writer_pid, r.started_at))
                THEN 'interrupted' ELSE r.status END)sql";
constexpr int kRemoteFollowSchema = 5;

constexpr std::string_view kSummaryColumnsAfterStatus = R"sql(,
           r.note, r.model_id, r.gpu_id, r.gpu_name, r.strategy, r.world_size, r.node_count, r.interconnect,
           r.precision, r.micro_batch, r.seq_len, r.warmup_steps, r.timed_steps, r.launcher, r.started_at,
           r.finished_at, r.heartbeat_at, r.tokens_per_s, r.median_step_s, r.p10_step_s, r.p90_step_s,
           r.peak_allocated, r.peak_reserved, r.alloc_retries, r.nccl_share, r.exposed_comm_share, r.plan_id,
           r.predicted_tokens_per_s, r.predicted_step_s, r.predicted_peak_bytes, r.prediction_json,
           (SELECT group_concat(name, char(10)) FROM (SELECT name FROM run_nodes WHERE run_id = r.id ORDER BY position)),
           r.runner_version, r.libtorch_version, r.cuda_version, r.nccl_version, r.driver_version, r.compiler)sql";
constexpr std::string_view kRunnerBehaviourColumns = ", r.kernels, r.activations, r.offload_staging";
// Files older than kRunnerBehaviourSchema read as runs of a runner that did not report its behaviour.
constexpr std::string_view kRunnerBehaviourUnknown = ", '', '', ''";
constexpr std::string_view kBackendColumns
    = ", r.backend, r.python_version, r.torch_version, r.transformers_version, r.model_impl";
// Files older than kRunBackendSchema hold native runs only.
constexpr std::string_view kBackendUnknown = ", 'native', '', '', '', ''";
constexpr std::string_view kInterNodeColumn = ", r.inter_node_gbps";
constexpr std::string_view kInterNodeUnknown = ", NULL"; // before schema 9 nothing recorded it
constexpr std::string_view kRehearsalColumn = ", r.rehearsed_world";
constexpr std::string_view kRehearsalUnknown = ", NULL"; // before schema 10 every run was a real one

bool keepsRemoteHandles(const Database& db)
{
    return db.schemaVersion() >= kRemoteFollowSchema;
}

std::string summaryQuery(const Database& db)
{
    std::string sql = "\n    SELECT r.id, r.source, r.import_source,";
    sql += keepsRemoteHandles(db) ? kShownStatus : kShownStatusWithoutHandles;
    sql += kSummaryColumnsAfterStatus;
    sql += db.schemaVersion() >= kRunnerBehaviourSchema ? kRunnerBehaviourColumns : kRunnerBehaviourUnknown;
    sql += db.schemaVersion() >= kRunBackendSchema ? kBackendColumns : kBackendUnknown;
    sql += db.schemaVersion() >= kInterNodeSchema ? kInterNodeColumn : kInterNodeUnknown;
    sql += db.schemaVersion() >= kRehearsalSchema ? kRehearsalColumn : kRehearsalUnknown;
    sql += "\n    FROM runs r";
    if (keepsRemoteHandles(db))
        sql += " LEFT JOIN remote_follow f ON f.run_id = r.id";
    return sql;
}

std::optional<int> optionalInt(const Statement& s, int column)
{
    if (s.isNull(column))
        return std::nullopt;
    return static_cast<int>(s.integer(column));
}

RunSummary readSummary(const Statement& s)
{
    RunSummary r;
    r.id = s.integer(0);
    r.source = s.text(1) == "imported" ? RunSource::Imported : RunSource::Measured;
    r.importSource = s.text(2);
    const std::string status = s.text(3);
    const auto parsedStatus = runStatusFromId(status);
    if (!parsedStatus)
        throw StoreError("run " + std::to_string(r.id) + " has an unknown status '" + status + "'");
    r.status = *parsedStatus;
    r.note = s.text(4);
    r.modelId = s.text(5);
    r.gpuId = s.text(6);
    r.gpuName = s.text(7);
    const std::string strategy = s.text(8);
    const auto parsedStrategy = strategyFromId(strategy);
    if (!parsedStrategy)
        throw StoreError("run " + std::to_string(r.id) + " has an unknown strategy '" + strategy + "'");
    r.strategy = *parsedStrategy;
    r.worldSize = static_cast<int>(s.integer(9));
    r.nodeCount = static_cast<int>(s.integer(10));
    r.interconnect = s.text(11);
    r.precision = s.text(12);
    r.microBatch = optionalInt(s, 13);
    r.seqLen = optionalInt(s, 14);
    r.warmupSteps = optionalInt(s, 15);
    r.timedSteps = optionalInt(s, 16);
    r.launcher = s.text(17);
    r.startedAt = s.real(18);
    r.finishedAt = s.optionalReal(19);
    r.heartbeatAt = s.real(20);
    r.tokensPerS = s.optionalReal(21);
    r.medianStepS = s.optionalReal(22);
    r.p10StepS = s.optionalReal(23);
    r.p90StepS = s.optionalReal(24);
    r.peakAllocated = s.optionalInteger(25);
    r.peakReserved = s.optionalInteger(26);
    r.allocRetries = s.optionalInteger(27);
    r.ncclShare = s.optionalReal(28);
    r.exposedCommShare = s.optionalReal(29);
    r.planId = s.optionalInteger(30);
    r.predicted.tokensPerS = s.optionalReal(31);
    r.predicted.stepS = s.optionalReal(32);
    r.predicted.peakBytes = s.optionalInteger(33);
    if (!s.isNull(34))
        r.predicted.document = nlohmann::json::parse(s.text(34), nullptr, false);
    std::istringstream names(s.text(35));
    for (std::string name; std::getline(names, name);)
        r.nodes.push_back(name);
    r.versions = { s.text(36), s.text(37), s.text(38), s.text(39), s.text(40),
                   s.text(41), s.text(42), s.text(43), s.text(44) };
    const std::string backend = s.text(45);
    const auto parsedBackend = backendFromId(backend);
    if (!parsedBackend)
        throw StoreError("run " + std::to_string(r.id) + " has an unknown backend '" + backend + "'");
    r.backend = *parsedBackend;
    // The versions read as the harness reported them: backend named only for torch runs.
    r.versions.backend = r.backend == RunBackend::Native ? std::string() : backend;
    r.versions.python = s.text(46);
    r.versions.torch = s.text(47);
    r.versions.transformers = s.text(48);
    r.versions.modelImpl = s.text(49);
    r.interNodeGBps = s.optionalReal(50);
    r.rehearsedWorld = optionalInt(s, 51);
    return r;
}

protocol::MemorySample readMemory(const Statement& s, int first)
{
    protocol::MemorySample m;
    m.allocated = s.integer(first);
    m.reserved = s.integer(first + 1);
    m.peakAllocated = s.integer(first + 2);
    m.peakReserved = s.integer(first + 3);
    m.allocRetries = s.integer(first + 4);
    m.deviceFree = s.integer(first + 5);
    m.deviceTotal = s.integer(first + 6);
    m.hostPeakRss = s.integer(first + 7);
    return m;
}

using Parameter = std::variant<std::int64_t, double, std::string>;

} // namespace

std::vector<RunSummary> listRuns(const Database& db, const RunFilter& filter, double now)
{
    std::string sql = summaryQuery(db);
    std::vector<Parameter> parameters;
    std::string where;
    auto condition = [&](const std::string& clause, Parameter p) {
        parameters.push_back(std::move(p));
        std::string c = clause;
        const std::string marker = "?" + std::to_string(parameters.size() + 1);
        for (auto pos = c.find("?P"); pos != std::string::npos; pos = c.find("?P"))
            c.replace(pos, 2, marker);
        where += (where.empty() ? " WHERE " : " AND ") + c;
    };
    if (filter.model)
        condition("r.model_id = ?P COLLATE NOCASE", *filter.model);
    if (filter.gpu)
        condition("(r.gpu_id = ?P COLLATE NOCASE OR instr(lower(r.gpu_name), lower(?P)) > 0)", *filter.gpu);
    if (filter.strategy)
        condition("r.strategy = ?P", std::string(strategyId(*filter.strategy)));
    if (filter.node)
        condition("EXISTS (SELECT 1 FROM run_nodes n WHERE n.run_id = r.id AND n.name = ?P COLLATE NOCASE)",
                  *filter.node);
    if (filter.status) {
        const std::string shown
            = keepsRemoteHandles(db) ? std::string(kShownStatus) : std::string(kShownStatusWithoutHandles);
        if (*filter.status == RunStatus::Interrupted || *filter.status == RunStatus::Running
            || *filter.status == RunStatus::Detached)
            condition("(" + shown + ") = ?P", std::string(runStatusId(*filter.status)));
        else
            condition("r.status = ?P", std::string(runStatusId(*filter.status)));
    }
    if (filter.source)
        condition("r.source = ?P", std::string(runSourceId(*filter.source)));
    if (filter.startedFrom)
        condition("r.started_at >= ?P", *filter.startedFrom);
    if (filter.startedUntil)
        condition("r.started_at < ?P", *filter.startedUntil);
    if (filter.planId)
        condition("r.plan_id = ?P", *filter.planId);
    if (filter.backend) {
        // Older files hold native runs only.
        if (db.schemaVersion() >= kRunBackendSchema)
            condition("r.backend = ?P", std::string(backendId(*filter.backend)));
        else if (*filter.backend != RunBackend::Native)
            condition("0 = ?P", std::int64_t { 1 });
    }
    sql += where + " ORDER BY r.started_at DESC, r.id DESC";

    Statement s(db.handle(), sql);
    s.bind(1, now - kStaleHeartbeatSeconds);
    for (std::size_t i = 0; i < parameters.size(); ++i)
        std::visit([&](const auto& v) { s.bind(static_cast<int>(i) + 2, v); }, parameters[i]);
    std::vector<RunSummary> runs;
    while (s.step())
        runs.push_back(readSummary(s));
    return runs;
}

std::optional<RunSummary> findRun(const Database& db, std::int64_t id, double now)
{
    Statement s(db.handle(), summaryQuery(db) + " WHERE r.id = ?2");
    s.bind(1, now - kStaleHeartbeatSeconds).bind(2, id);
    if (!s.step())
        return std::nullopt;
    return readSummary(s);
}

std::optional<MeasuredCheckpointSave> newestCheckpointSave(const Database& db, const std::string& modelId,
                                                           const std::string& gpuId, Strategy strategy, int worldSize)
{
    // A rehearsal's save is one rank's at another world, without the other ranks: not this world's.
    std::string sql = R"sql(
        SELECT r.id, MAX(k.checkpoint_save_s) FROM runs r JOIN rank_summaries k ON k.run_id = r.id
         WHERE r.source = 'measured' AND r.model_id = ?1 AND r.strategy = ?2 AND r.world_size = ?3
           AND (?4 = '' OR r.gpu_id = ?4) AND k.checkpoint_save_s > 0)sql";
    if (db.schemaVersion() >= kRehearsalSchema)
        sql += " AND r.rehearsed_world IS NULL";
    sql += " GROUP BY r.id ORDER BY r.started_at DESC, r.id DESC LIMIT 1";
    Statement s(db.handle(), sql);
    s.bind(1, modelId).bind(2, std::string(strategyId(strategy))).bind(3, worldSize).bind(4, gpuId);
    if (!s.step())
        return std::nullopt;
    return MeasuredCheckpointSave { s.integer(0), s.real(1) };
}

std::optional<RunDetail> runDetail(const Database& db, std::int64_t id, double now)
{
    ReadTransaction snapshot(db);
    auto summary = findRun(db, id, now);
    if (!summary)
        return std::nullopt;
    RunDetail d;
    d.summary = std::move(*summary);
    sqlite3* h = db.handle();
    {
        Statement s(h, "SELECT config_json, allocator_conf, expandable_segments FROM runs WHERE id = ?1");
        s.bind(1, id);
        if (s.step()) {
            if (!s.isNull(0))
                d.config = nlohmann::json::parse(s.text(0), nullptr, false);
            d.allocator = { s.text(1), s.integer(2) != 0 };
        }
    }
    d.versions = d.summary.versions;
    {
        Statement s(h, "SELECT rank, host, local_rank, device_name FROM run_ranks WHERE run_id = ?1 ORDER BY rank");
        s.bind(1, id);
        while (s.step())
            d.ranks.push_back({ static_cast<int>(s.integer(0)), s.text(1), static_cast<int>(s.integer(2)), s.text(3) });
    }
    if (db.schemaVersion() >= kNodeNcclEnvSchema) {
        Statement s(h, "SELECT name, nccl_env_json FROM run_nodes WHERE run_id = ?1 ORDER BY position");
        s.bind(1, id);
        while (s.step()) {
            const nlohmann::json env = nlohmann::json::parse(s.text(1), nullptr, false);
            if (!env.is_object() || env.empty())
                continue;
            for (const auto& [k, v] : env.items())
                if (v.is_string())
                    d.ncclEnv[s.text(0)][k] = v.get<std::string>();
        }
    }
    {
        Statement s(h, R"sql(SELECT rank, world, warmup_steps, timed_steps, median_step_s, p10_step_s, p90_step_s,
                                    tokens_per_s, nccl_share, exposed_comm_share, losses_json, allocated, reserved,
                                    peak_allocated, peak_reserved, alloc_retries, device_free, device_total,
                                    host_peak_rss, device_params, device_grads, device_optimizer, host_params,
                                    host_grads, host_optimizer, time, checkpoint_save_s, checkpoints_written,
                                    resumed_from_step
                             FROM rank_summaries WHERE run_id = ?1 ORDER BY rank)sql");
        s.bind(1, id);
        while (s.step()) {
            protocol::SummaryEvent e;
            e.rank = static_cast<int>(s.integer(0));
            e.world = static_cast<int>(s.integer(1));
            e.warmupSteps = static_cast<int>(s.integer(2));
            e.timedSteps = static_cast<int>(s.integer(3));
            e.medianStepS = s.real(4);
            e.p10StepS = s.real(5);
            e.p90StepS = s.real(6);
            e.tokensPerS = s.real(7);
            e.ncclShare = s.real(8);
            e.exposedCommShare = s.real(9);
            const auto losses = nlohmann::json::parse(s.text(10), nullptr, false);
            if (losses.is_array())
                for (const auto& l : losses)
                    if (l.is_number())
                        e.losses.push_back(l.get<double>());
            e.memory = readMemory(s, 11);
            e.state = { s.integer(19), s.integer(20), s.integer(21), s.integer(22), s.integer(23), s.integer(24) };
            e.time = s.real(25);
            e.checkpointSaveS = s.real(26);
            e.checkpointsWritten = static_cast<int>(s.integer(27));
            e.resumedFromStep = static_cast<int>(s.integer(28));
            d.rankSummaries.push_back(std::move(e));
        }
    }
    {
        Statement s(h, R"sql(SELECT rank, kind, message, step, allocated, reserved, peak_allocated, peak_reserved,
                                    alloc_retries, device_free, device_total, host_peak_rss, reserved_unallocated, time
                             FROM rank_errors WHERE run_id = ?1 ORDER BY time, id)sql");
        s.bind(1, id);
        while (s.step()) {
            protocol::ErrorEvent e;
            e.rank = static_cast<int>(s.integer(0));
            e.kind = protocol::errorKindFromId(s.text(1)).value_or(protocol::ErrorKind::Internal);
            e.message = s.text(2);
            e.step = optionalInt(s, 3);
            if (!s.isNull(4))
                e.memory = readMemory(s, 4);
            e.reservedUnallocated = s.integer(12);
            e.time = s.real(13);
            d.errors.push_back(std::move(e));
        }
    }
    d.diagnoses = diagnoses(db, id);
    return d;
}

std::vector<protocol::StepEvent> stepSeries(const Database& db, std::int64_t runId, std::optional<int> rank)
{
    Statement s(db.handle(), R"sql(
        SELECT rank, step, timed, loss, step_time_s, comm_time_s, exposed_comm_s, tokens, allocated, reserved,
               peak_allocated, peak_reserved, alloc_retries, device_free, device_total, host_peak_rss, time
        FROM rank_steps WHERE run_id = ?1 AND (?2 IS NULL OR rank = ?2) ORDER BY rank, step)sql");
    s.bind(1, runId).bind(2, rank);
    std::vector<protocol::StepEvent> steps;
    while (s.step()) {
        protocol::StepEvent e;
        e.rank = static_cast<int>(s.integer(0));
        e.step = static_cast<int>(s.integer(1));
        e.timed = s.integer(2) != 0;
        e.loss = s.real(3);
        e.stepTimeS = s.real(4);
        e.commTimeS = s.real(5);
        e.exposedCommS = s.real(6);
        e.tokens = s.integer(7);
        e.memory = readMemory(s, 8);
        e.time = s.real(16);
        steps.push_back(std::move(e));
    }
    return steps;
}

std::vector<RankLogLine> rankLogs(const Database& db, std::int64_t runId, std::optional<int> rank)
{
    Statement s(db.handle(), R"sql(SELECT rank, stream, level, text, time FROM rank_logs
                                   WHERE run_id = ?1 AND (?2 IS NULL OR rank = ?2) ORDER BY rank, id)sql");
    s.bind(1, runId).bind(2, rank);
    std::vector<RankLogLine> lines;
    while (s.step())
        lines.push_back({ static_cast<int>(s.integer(0)), s.text(1), s.text(2), s.text(3), s.real(4) });
    return lines;
}

bool removeRun(Database& db, std::int64_t id)
{
    WriteTransaction tx(db);
    Statement s(db.handle(), "DELETE FROM runs WHERE id = ?1");
    s.bind(1, id).run();
    const bool removed = detail::changes(db.handle()) == 1;
    tx.commit();
    return removed;
}

} // namespace shardwise::store
