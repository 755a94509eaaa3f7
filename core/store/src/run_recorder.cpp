#include "shardwise/store/run_recorder.hpp"

#include "shardwise/spec/json.hpp"
#include "shardwise/store/schema.hpp"
#include "statement.hpp"
#include "writer_liveness.hpp"

#include <algorithm>
#include <unistd.h>
#include <variant>

namespace shardwise::store {

using detail::Statement;

namespace {

// The same name the liveness check compares against.
std::string hostName()
{
    return detail::currentHostName();
}

void bindMemory(Statement& s, int first, const protocol::MemorySample& m)
{
    s.bind(first, m.allocated)
        .bind(first + 1, m.reserved)
        .bind(first + 2, m.peakAllocated)
        .bind(first + 3, m.peakReserved)
        .bind(first + 4, m.allocRetries)
        .bind(first + 5, m.deviceFree)
        .bind(first + 6, m.deviceTotal)
        .bind(first + 7, m.hostPeakRss);
}

void touch(sqlite3* db, std::int64_t runId, double now)
{
    Statement s(db, "UPDATE runs SET heartbeat_at = ?1 WHERE id = ?2");
    s.bind(1, now).bind(2, runId).run();
}

} // namespace

RunRecorder::RunRecorder(Database& db, const RunConfig& config, const RunOrigin& origin)
    : m_db(db)
    , m_worldSize(config.worldSize)
    , m_rehearsal(config.rehearsal())
    , m_summarised(static_cast<std::size_t>(std::max(config.worldSize, 1)), false)
{
    validate(config);
    const double now = origin.startedAt.value_or(currentUnixTime());
    if (origin.startedAt)
        m_replayEnd = *origin.startedAt;
    std::vector<RunNodeRef> nodes = origin.nodes;
    if (nodes.empty())
        nodes.push_back({ "local", std::nullopt });

    WriteTransaction tx(db);
    Statement insert(db.handle(), R"sql(
        INSERT INTO runs (plan_id, source, status, model_id, gpu_id, gpu_name, strategy, world_size, node_count,
                          interconnect, precision, micro_batch, seq_len, warmup_steps, timed_steps, config_json,
                          expandable_segments, launcher, started_at, heartbeat_at, writer_host, writer_pid,
                          predicted_tokens_per_s, predicted_step_s, predicted_peak_bytes, prediction_json, import_source)
        VALUES (?1, CASE WHEN ?24 = '' THEN 'measured' ELSE 'imported' END, 'running', ?2, ?3, ?4, ?5, ?6, ?7, ?8,
                ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24))sql");
    insert.bind(1, origin.planId)
        .bind(2, config.model.id)
        .bind(3, origin.gpuId)
        .bind(4, origin.gpuName)
        .bind(5, strategyId(config.strategy))
        .bind(6, config.worldSize)
        .bind(7, static_cast<int>(nodes.size()))
        .bind(8, origin.interconnect)
        .bind(9, precisionId(config.training.precision))
        .bind(10, config.training.microBatch)
        .bind(11, config.training.seqLen)
        .bind(12, config.warmupSteps)
        .bind(13, config.timedSteps)
        .bind(14, toJson(config).dump())
        .bind(15, config.training.expandableSegments)
        .bind(16, origin.launcher)
        .bind(17, now)
        .bind(18, hostName())
        .bind(19, static_cast<std::int64_t>(getpid()))
        .bind(24, origin.importSource);
    if (origin.predicted) {
        // A rehearsal's measured steps have no communication: a predicted tokens/s or step time of the
        // world it stands for would be compared with nothing, so only the memory prediction is kept.
        if (!m_rehearsal)
            insert.bind(20, origin.predicted->tokensPerS).bind(21, origin.predicted->stepS);
        insert.bind(22, origin.predicted->peakBytes);
        if (!origin.predicted->document.is_null())
            insert.bind(23, origin.predicted->document.dump());
    }
    insert.run();
    m_runId = detail::lastInsertId(db.handle());
    // The backend arrived with schema 7; an older file keeps only native runs (see the checkpoint
    // columns below for why older files occur).
    if (db.schemaVersion() >= kRunBackendSchema) {
        Statement backend(db.handle(), "UPDATE runs SET backend = ?2 WHERE id = ?1");
        backend.bind(1, m_runId).bind(2, backendId(config.backend)).run();
    }
    if (m_rehearsal)
        markRehearsal(config.rehearseWorld);
    // The plan's inter-node bandwidth arrived with schema 9.
    if (db.schemaVersion() >= kInterNodeSchema && origin.interNodeGBps) {
        Statement network(db.handle(), "UPDATE runs SET inter_node_gbps = ?2 WHERE id = ?1");
        network.bind(1, m_runId).bind(2, *origin.interNodeGBps).run();
    }

    Statement node(db.handle(), "INSERT INTO run_nodes (run_id, position, node_id, name) VALUES (?1, ?2, ?3, ?4)");
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        node.bind(1, m_runId).bind(2, static_cast<std::int64_t>(i)).bind(3, nodes[i].nodeId).bind(4, nodes[i].name);
        node.run();
        node.reset();
    }
    if (db.schemaVersion() >= kNodeNcclEnvSchema) {
        Statement env(db.handle(), "UPDATE run_nodes SET nccl_env_json = ?3 WHERE run_id = ?1 AND position = ?2");
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            env.bind(1, m_runId).bind(2, static_cast<std::int64_t>(i)).bind(3, nlohmann::json(nodes[i].ncclEnv).dump());
            env.run();
            env.reset();
        }
    }
    tx.commit();
}

RunRecorder::RunRecorder(Database& db, std::int64_t runId)
    : m_db(db)
    , m_runId(runId)
{
    sqlite3* h = db.handle();
    ReadTransaction snapshot(db);
    Statement run(h, "SELECT status, world_size FROM runs WHERE id = ?1");
    run.bind(1, runId);
    if (!run.step())
        throw StoreError("run " + std::to_string(runId) + " is not in the store " + db.path().string());
    if (run.text(0) != "running")
        throw StoreError("run " + std::to_string(runId) + " already finished (" + run.text(0) + ")");
    m_worldSize = static_cast<int>(run.integer(1));
    if (db.schemaVersion() >= kRehearsalSchema) {
        Statement rehearsal(h, "SELECT rehearsed_world IS NOT NULL FROM runs WHERE id = ?1");
        rehearsal.bind(1, runId);
        m_rehearsal = rehearsal.step() && rehearsal.integer(0) != 0;
    }
    m_summarised.assign(static_cast<std::size_t>(std::max(m_worldSize, 1)), false);
    Statement summaries(h, "SELECT rank FROM rank_summaries WHERE run_id = ?1");
    summaries.bind(1, runId);
    while (summaries.step())
        if (const auto rank = summaries.integer(0); rank >= 0 && rank < m_worldSize)
            m_summarised[static_cast<std::size_t>(rank)] = true;
    Statement errors(h, "SELECT COUNT(*), COALESCE(SUM(kind = 'oom'), 0) FROM rank_errors WHERE run_id = ?1");
    errors.bind(1, runId);
    if (errors.step()) {
        m_sawError = errors.integer(0) > 0;
        m_sawOom = errors.integer(1) > 0;
    }
}

RunRecorder::~RunRecorder()
{
    if (m_finished || m_leftRunning)
        return;
    try {
        finish(RunStatus::Failed, "recording ended without a final status (the recording program stopped early)");
    } catch (...) {
        // The heartbeat goes stale instead; the run will show as interrupted.
    }
}

void RunRecorder::record(const protocol::Event& event)
{
    const double now = currentUnixTime();
    if (m_replayEnd)
        std::visit(
            [this](const auto& e) {
                if constexpr (requires { e.time; })
                    m_replayEnd = std::max(*m_replayEnd, e.time);
            },
            event);
    sqlite3* db = m_db.handle();
    WriteTransaction tx(m_db);
    if (const auto* start = std::get_if<protocol::StartEvent>(&event)) {
        Statement s(db, R"sql(INSERT OR REPLACE INTO run_ranks (run_id, rank, host, local_rank, device_name, started_at)
                              VALUES (?1, ?2, ?3, ?4, ?5, ?6))sql");
        s.bind(1, m_runId).bind(2, start->rank).bind(3, start->host).bind(4, start->localRank);
        s.bind(5, start->deviceName).bind(6, start->time > 0 ? start->time : now).run();
        // Versions and allocator settings are the same on every rank of one launch; the first wins.
        Statement u(db, R"sql(
            UPDATE runs SET runner_version = ?2, libtorch_version = ?3, cuda_version = ?4, nccl_version = ?5,
                            driver_version = ?6, compiler = ?7, allocator_conf = ?8, expandable_segments = ?9,
                            launcher = CASE WHEN launcher = '' THEN ?10 ELSE launcher END,
                            gpu_name = CASE WHEN gpu_name = '' THEN ?11 ELSE gpu_name END
            WHERE id = ?1 AND runner_version = '' AND libtorch_version = '')sql");
        const auto& v = start->versions;
        // Before the versions below are written, while the row still reads as not yet started.
        if (m_db.schemaVersion() >= kRunnerBehaviourSchema) {
            Statement b(db, R"sql(UPDATE runs SET kernels = ?2, activations = ?3, offload_staging = ?4
                                  WHERE id = ?1 AND runner_version = '' AND libtorch_version = '')sql");
            b.bind(1, m_runId).bind(2, v.kernels).bind(3, v.activations).bind(4, v.offloadStaging).run();
        }
        if (m_db.schemaVersion() >= kRunBackendSchema) {
            // The program that ran says what it is: a start event naming a backend overrides the
            // config's (a backend this build does not know keeps the config's).
            const auto reported = backendFromId(v.backend);
            Statement f(db, R"sql(UPDATE runs SET python_version = ?2, torch_version = ?3, transformers_version = ?4,
                                         model_impl = ?5, backend = COALESCE(?6, backend)
                                  WHERE id = ?1 AND runner_version = '' AND libtorch_version = '')sql");
            f.bind(1, m_runId).bind(2, v.python).bind(3, v.torch).bind(4, v.transformers).bind(5, v.modelImpl);
            if (reported)
                f.bind(6, backendId(*reported));
            f.run();
        }
        // The program that ran says what it ran: a rehearsal it reports is one, whatever was asked.
        if (start->config.rehearsal())
            markRehearsal(start->config.rehearseWorld);
        u.bind(1, m_runId).bind(2, v.runner).bind(3, v.libtorch).bind(4, v.cuda).bind(5, v.nccl).bind(6, v.driver);
        u.bind(7, v.compiler).bind(8, start->allocator.conf).bind(9, start->allocator.expandableSegments);
        u.bind(10, start->launcher).bind(11, start->deviceName).run();
    } else if (const auto* step = std::get_if<protocol::StepEvent>(&event)) {
        Statement s(db, R"sql(
            INSERT OR REPLACE INTO rank_steps (run_id, rank, step, timed, loss, step_time_s, comm_time_s,
                exposed_comm_s, tokens, allocated, reserved, peak_allocated, peak_reserved, alloc_retries,
                device_free, device_total, host_peak_rss, time)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18))sql");
        s.bind(1, m_runId).bind(2, step->rank).bind(3, step->step).bind(4, step->timed).bind(5, step->loss);
        s.bind(6, step->stepTimeS).bind(7, step->commTimeS).bind(8, step->exposedCommS).bind(9, step->tokens);
        bindMemory(s, 10, step->memory);
        s.bind(18, step->time > 0 ? step->time : now).run();
    } else if (const auto* summary = std::get_if<protocol::SummaryEvent>(&event)) {
        Statement s(db, R"sql(
            INSERT OR REPLACE INTO rank_summaries (run_id, rank, world, warmup_steps, timed_steps, median_step_s,
                p10_step_s, p90_step_s, tokens_per_s, nccl_share, exposed_comm_share, losses_json, allocated,
                reserved, peak_allocated, peak_reserved, alloc_retries, device_free, device_total, host_peak_rss,
                device_params, device_grads, device_optimizer, host_params, host_grads, host_optimizer, time)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,
                    ?21, ?22, ?23, ?24, ?25, ?26, ?27))sql");
        s.bind(1, m_runId).bind(2, summary->rank).bind(3, summary->world).bind(4, summary->warmupSteps);
        s.bind(5, summary->timedSteps).bind(6, summary->medianStepS).bind(7, summary->p10StepS);
        s.bind(8, summary->p90StepS).bind(9, summary->tokensPerS).bind(10, summary->ncclShare);
        s.bind(11, summary->exposedCommShare).bind(12, nlohmann::json(summary->losses).dump());
        bindMemory(s, 13, summary->memory);
        const auto& st = summary->state;
        s.bind(21, st.deviceParams).bind(22, st.deviceGrads).bind(23, st.deviceOptimizer);
        s.bind(24, st.hostParams).bind(25, st.hostGrads).bind(26, st.hostOptimizer);
        s.bind(27, summary->time > 0 ? summary->time : now).run();
        // Checkpoint columns arrived with schema 4; a file kept at an older version (tests that
        // rebuild every earlier version) has none to fill.
        if (m_db.schemaVersion() >= 4) {
            Statement c(db, R"sql(UPDATE rank_summaries SET checkpoint_save_s = ?3, checkpoints_written = ?4,
                                     resumed_from_step = ?5 WHERE run_id = ?1 AND rank = ?2)sql");
            c.bind(1, m_runId).bind(2, summary->rank).bind(3, summary->checkpointSaveS);
            c.bind(4, summary->checkpointsWritten).bind(5, summary->resumedFromStep).run();
        }
        if (summary->rehearsedWorld > 0)
            markRehearsal(summary->rehearsedWorld);
        if (summary->rank >= 0 && summary->rank < static_cast<int>(m_summarised.size()))
            m_summarised[static_cast<std::size_t>(summary->rank)] = true;
    } else if (const auto* error = std::get_if<protocol::ErrorEvent>(&event)) {
        Statement s(db, R"sql(
            INSERT INTO rank_errors (run_id, rank, kind, message, step, allocated, reserved, peak_allocated,
                peak_reserved, alloc_retries, device_free, device_total, host_peak_rss, reserved_unallocated, time)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15))sql");
        s.bind(1, m_runId).bind(2, error->rank).bind(3, protocol::errorKindId(error->kind));
        s.bind(4, error->message).bind(5, error->step);
        if (error->memory)
            bindMemory(s, 6, *error->memory);
        s.bind(14, error->reservedUnallocated).bind(15, error->time > 0 ? error->time : now).run();
        m_sawError = true;
        m_sawOom = m_sawOom || error->kind == protocol::ErrorKind::Oom;
    } else if (const auto* log = std::get_if<protocol::LogEvent>(&event)) {
        Statement s(db, R"sql(INSERT INTO rank_logs (run_id, rank, stream, level, text, time)
                              VALUES (?1, ?2, 'event', ?3, ?4, ?5))sql");
        s.bind(1, m_runId).bind(2, log->rank).bind(3, log->level).bind(4, log->message);
        s.bind(5, log->time > 0 ? log->time : now).run();
    }
    touch(db, m_runId, now);
    writeFollowerOffsets(now);
    tx.commit();
}

void RunRecorder::markRehearsal(int world)
{
    m_rehearsal = true;
    // Within the caller's transaction. The column arrived with schema 10; an older file (tests that
    // rebuild every earlier version) still keeps no throughput for it (m_rehearsal).
    if (m_db.schemaVersion() < kRehearsalSchema)
        return;
    Statement s(m_db.handle(), R"sql(UPDATE runs SET rehearsed_world = ?2, predicted_tokens_per_s = NULL,
                                            predicted_step_s = NULL WHERE id = ?1)sql");
    s.bind(1, m_runId).bind(2, world).run();
}

void RunRecorder::recordLog(int rank, const std::string& line)
{
    const double now = currentUnixTime();
    WriteTransaction tx(m_db);
    Statement s(m_db.handle(), R"sql(INSERT INTO rank_logs (run_id, rank, stream, level, text, time)
                                     VALUES (?1, ?2, 'stderr', '', ?3, ?4))sql");
    s.bind(1, m_runId).bind(2, rank).bind(3, line).bind(4, now).run();
    touch(m_db.handle(), m_runId, now);
    writeFollowerOffsets(now);
    tx.commit();
}

void RunRecorder::keepFollowerOffsets(std::function<std::string()> offsetsJson)
{
    m_followerOffsets = std::move(offsetsJson);
}

void RunRecorder::writeFollowerOffsets(double now)
{
    if (!m_followerOffsets)
        return;
    Statement s(m_db.handle(), "UPDATE remote_follow SET offsets_json = ?2, saved_at = ?3 WHERE run_id = ?1");
    s.bind(1, m_runId).bind(2, m_followerOffsets()).bind(3, now).run();
    if (detail::changes(m_db.handle()) != 1)
        throw StoreError("run " + std::to_string(m_runId) + " has no remote handle to keep the follower's offsets in");
}

void refreshHeartbeat(Database& db, std::int64_t runId)
{
    WriteTransaction tx(db);
    Statement s(db.handle(), "UPDATE runs SET heartbeat_at = ?1 WHERE id = ?2 AND status = 'running'");
    s.bind(1, currentUnixTime()).bind(2, runId).run();
    tx.commit();
}

void RunRecorder::heartbeat()
{
    WriteTransaction tx(m_db);
    touch(m_db.handle(), m_runId, currentUnixTime());
    tx.commit();
}

RunStatus RunRecorder::statusFromEvents() const
{
    if (m_sawOom)
        return RunStatus::Oom;
    if (m_sawError)
        return RunStatus::Failed;
    return std::all_of(m_summarised.begin(), m_summarised.end(), [](bool b) { return b; }) ? RunStatus::Completed
                                                                                           : RunStatus::Failed;
}

void RunRecorder::finish(RunStatus status, const std::string& note)
{
    if (m_finished)
        throw StoreError("run " + std::to_string(m_runId) + " is already finished");
    if (!isFinal(status))
        throw StoreError("a run cannot finish as '" + std::string(runStatusId(status)) + "'");
    sqlite3* db = m_db.handle();
    const double now = m_replayEnd.value_or(currentUnixTime());
    WriteTransaction tx(m_db);

    std::string why = note;
    if (why.empty()) {
        Statement first(db, "SELECT rank, kind, message FROM rank_errors WHERE run_id = ?1 ORDER BY time, id LIMIT 1");
        first.bind(1, m_runId);
        if (first.step())
            why = "rank " + std::to_string(first.integer(0)) + ": " + first.text(1) + ": " + first.text(2);
    }

    // Throughput figures only mean something when every rank finished its timed steps, and never for
    // a rehearsal (?5: its steps ran without communication); memory peaks are a result on their own
    // (an OOM run's peaks are the point of recording it, a rehearsal's are world N's per rank).
    Statement u(db, R"sql(
        UPDATE runs SET
            status = ?2, finished_at = ?3, heartbeat_at = ?3, note = ?4,
            tokens_per_s = CASE WHEN ?5 = 0 AND s.n = runs.world_size THEN s.tokens_per_s END,
            median_step_s = CASE WHEN ?5 = 0 AND s.n = runs.world_size THEN s.median_step_s END,
            p10_step_s = CASE WHEN ?5 = 0 AND s.n = runs.world_size THEN s.p10_step_s END,
            p90_step_s = CASE WHEN ?5 = 0 AND s.n = runs.world_size THEN s.p90_step_s END,
            nccl_share = CASE WHEN ?5 = 0 AND s.n = runs.world_size THEN s.nccl_share END,
            exposed_comm_share = CASE WHEN ?5 = 0 AND s.n = runs.world_size THEN s.exposed_comm_share END,
            peak_allocated = (SELECT MAX(v) FROM (
                SELECT peak_allocated AS v FROM rank_summaries WHERE run_id = ?1
                UNION ALL SELECT peak_allocated FROM rank_steps WHERE run_id = ?1
                UNION ALL SELECT peak_allocated FROM rank_errors WHERE run_id = ?1)),
            peak_reserved = (SELECT MAX(v) FROM (
                SELECT peak_reserved AS v FROM rank_summaries WHERE run_id = ?1
                UNION ALL SELECT peak_reserved FROM rank_steps WHERE run_id = ?1
                UNION ALL SELECT peak_reserved FROM rank_errors WHERE run_id = ?1)),
            alloc_retries = (SELECT MAX(v) FROM (
                SELECT alloc_retries AS v FROM rank_summaries WHERE run_id = ?1
                UNION ALL SELECT alloc_retries FROM rank_steps WHERE run_id = ?1
                UNION ALL SELECT alloc_retries FROM rank_errors WHERE run_id = ?1))
        FROM (SELECT COUNT(*) AS n,
                     (SELECT tokens_per_s FROM rank_summaries WHERE run_id = ?1 ORDER BY rank LIMIT 1) AS tokens_per_s,
                     (SELECT median_step_s FROM rank_summaries WHERE run_id = ?1 ORDER BY rank LIMIT 1) AS median_step_s,
                     (SELECT p10_step_s FROM rank_summaries WHERE run_id = ?1 ORDER BY rank LIMIT 1) AS p10_step_s,
                     (SELECT p90_step_s FROM rank_summaries WHERE run_id = ?1 ORDER BY rank LIMIT 1) AS p90_step_s,
                     AVG(nccl_share) AS nccl_share, AVG(exposed_comm_share) AS exposed_comm_share
              FROM rank_summaries WHERE run_id = ?1) AS s
        WHERE runs.id = ?1 AND runs.status = 'running')sql");
    u.bind(1, m_runId).bind(2, runStatusId(status)).bind(3, now).bind(4, why).bind(5, m_rehearsal).run();
    if (detail::changes(db) != 1)
        throw StoreError("run " + std::to_string(m_runId) + " is no longer running; it was finished elsewhere");
    // Remote handles arrived with schema 5 (see the checkpoint columns above for why older files occur).
    if (m_db.schemaVersion() >= 5) {
        Statement drop(db, "DELETE FROM remote_follow WHERE run_id = ?1");
        drop.bind(1, m_runId).run();
    }
    tx.commit();
    m_finished = true;
}

} // namespace shardwise::store
