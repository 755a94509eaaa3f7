#include "shardwise/store/schema.hpp"

namespace shardwise::store {

namespace {

// Version 1: nodes, plans, runs and everything a rank reports while it runs.
constexpr std::string_view kVersion1 = R"sql(
CREATE TABLE nodes (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE CHECK (name <> ''),
    kind TEXT NOT NULL CHECK (kind IN ('local', 'ssh')),
    host TEXT NOT NULL DEFAULT '',
    port INTEGER NOT NULL DEFAULT 22 CHECK (port BETWEEN 1 AND 65535),
    user_name TEXT NOT NULL DEFAULT '',
    auth TEXT NOT NULL DEFAULT 'agent' CHECK (auth IN ('agent', 'key_file')),
    key_file TEXT NOT NULL DEFAULT '',
    facts_json TEXT NOT NULL DEFAULT '{}',
    host_key_fingerprint TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);

CREATE TABLE plans (
    id INTEGER PRIMARY KEY,
    created_at REAL NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    model_id TEXT NOT NULL,
    gpu_id TEXT NOT NULL,
    world_size INTEGER NOT NULL CHECK (world_size >= 1),
    recommended_strategy TEXT,
    document_json TEXT NOT NULL
);
CREATE INDEX plans_by_model_gpu ON plans (model_id, gpu_id);

CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    plan_id INTEGER REFERENCES plans (id) ON DELETE SET NULL,
    source TEXT NOT NULL CHECK (source IN ('measured', 'imported')),
    import_source TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL
        CHECK (status IN ('running', 'completed', 'oom', 'failed', 'timeout', 'lost', 'cancelled')),
    note TEXT NOT NULL DEFAULT '',
    model_id TEXT NOT NULL,
    gpu_id TEXT NOT NULL DEFAULT '',
    gpu_name TEXT NOT NULL DEFAULT '',
    strategy TEXT NOT NULL,
    world_size INTEGER NOT NULL CHECK (world_size >= 1),
    node_count INTEGER NOT NULL DEFAULT 1 CHECK (node_count >= 1),
    interconnect TEXT NOT NULL DEFAULT '',
    precision TEXT NOT NULL DEFAULT '',
    micro_batch INTEGER,
    seq_len INTEGER,
    warmup_steps INTEGER,
    timed_steps INTEGER,
    config_json TEXT,
    runner_version TEXT NOT NULL DEFAULT '',
    libtorch_version TEXT NOT NULL DEFAULT '',
    cuda_version TEXT NOT NULL DEFAULT '',
    nccl_version TEXT NOT NULL DEFAULT '',
    driver_version TEXT NOT NULL DEFAULT '',
    compiler TEXT NOT NULL DEFAULT '',
    allocator_conf TEXT NOT NULL DEFAULT '',
    expandable_segments INTEGER NOT NULL DEFAULT 0,
    launcher TEXT NOT NULL DEFAULT '',
    started_at REAL NOT NULL,
    heartbeat_at REAL NOT NULL,
    finished_at REAL,
    writer_host TEXT NOT NULL DEFAULT '',
    writer_pid INTEGER,
    tokens_per_s REAL,
    median_step_s REAL,
    p10_step_s REAL,
    p90_step_s REAL,
    peak_allocated INTEGER,
    peak_reserved INTEGER,
    alloc_retries INTEGER,
    nccl_share REAL,
    exposed_comm_share REAL,
    predicted_tokens_per_s REAL,
    predicted_step_s REAL,
    predicted_peak_bytes INTEGER,
    prediction_json TEXT,
    CHECK ((status = 'running') = (finished_at IS NULL))
);
CREATE INDEX runs_by_model_strategy ON runs (model_id, strategy);
CREATE INDEX runs_by_gpu ON runs (gpu_id, gpu_name);
CREATE INDEX runs_by_started ON runs (started_at);
CREATE INDEX runs_by_status ON runs (status);
CREATE INDEX runs_by_plan ON runs (plan_id);

CREATE TABLE run_nodes (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    node_id INTEGER REFERENCES nodes (id) ON DELETE SET NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (run_id, position)
);
CREATE INDEX run_nodes_by_name ON run_nodes (name);
CREATE INDEX run_nodes_by_node ON run_nodes (node_id);

CREATE TABLE run_ranks (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    rank INTEGER NOT NULL,
    host TEXT NOT NULL DEFAULT '',
    local_rank INTEGER NOT NULL DEFAULT 0,
    device_name TEXT NOT NULL DEFAULT '',
    started_at REAL NOT NULL,
    PRIMARY KEY (run_id, rank)
);

CREATE TABLE rank_steps (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    rank INTEGER NOT NULL,
    step INTEGER NOT NULL,
    timed INTEGER NOT NULL,
    loss REAL NOT NULL,
    step_time_s REAL NOT NULL,
    comm_time_s REAL NOT NULL,
    exposed_comm_s REAL NOT NULL,
    tokens INTEGER NOT NULL,
    allocated INTEGER NOT NULL,
    reserved INTEGER NOT NULL,
    peak_allocated INTEGER NOT NULL,
    peak_reserved INTEGER NOT NULL,
    alloc_retries INTEGER NOT NULL,
    device_free INTEGER NOT NULL,
    device_total INTEGER NOT NULL,
    host_peak_rss INTEGER NOT NULL,
    time REAL NOT NULL,
    PRIMARY KEY (run_id, rank, step)
) WITHOUT ROWID;

CREATE TABLE rank_summaries (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    rank INTEGER NOT NULL,
    world INTEGER NOT NULL,
    warmup_steps INTEGER NOT NULL,
    timed_steps INTEGER NOT NULL,
    median_step_s REAL NOT NULL,
    p10_step_s REAL NOT NULL,
    p90_step_s REAL NOT NULL,
    tokens_per_s REAL NOT NULL,
    nccl_share REAL NOT NULL,
    exposed_comm_share REAL NOT NULL,
    losses_json TEXT NOT NULL,
    allocated INTEGER NOT NULL,
    reserved INTEGER NOT NULL,
    peak_allocated INTEGER NOT NULL,
    peak_reserved INTEGER NOT NULL,
    alloc_retries INTEGER NOT NULL,
    device_free INTEGER NOT NULL,
    device_total INTEGER NOT NULL,
    host_peak_rss INTEGER NOT NULL,
    device_params INTEGER NOT NULL,
    device_grads INTEGER NOT NULL,
    device_optimizer INTEGER NOT NULL,
    host_params INTEGER NOT NULL,
    host_grads INTEGER NOT NULL,
    host_optimizer INTEGER NOT NULL,
    time REAL NOT NULL,
    PRIMARY KEY (run_id, rank)
);

CREATE TABLE rank_errors (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    rank INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('oom', 'comm', 'config', 'internal')),
    message TEXT NOT NULL,
    step INTEGER,
    allocated INTEGER,
    reserved INTEGER,
    peak_allocated INTEGER,
    peak_reserved INTEGER,
    alloc_retries INTEGER,
    device_free INTEGER,
    device_total INTEGER,
    host_peak_rss INTEGER,
    reserved_unallocated INTEGER NOT NULL DEFAULT 0,
    time REAL NOT NULL
);
CREATE INDEX rank_errors_by_run ON rank_errors (run_id, time);

CREATE TABLE rank_logs (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    rank INTEGER NOT NULL,
    stream TEXT NOT NULL CHECK (stream IN ('event', 'stderr')),
    level TEXT NOT NULL DEFAULT '',
    text TEXT NOT NULL,
    time REAL NOT NULL
);
CREATE INDEX rank_logs_by_run ON rank_logs (run_id, rank, id);
)sql";

// Version 2: diagnoses, the explanations attached to a run after it failed (or succeeded oddly).
constexpr std::string_view kVersion2 = R"sql(
CREATE TABLE diagnoses (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    created_at REAL NOT NULL,
    code TEXT NOT NULL CHECK (code <> ''),
    title TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    first_failure_rank INTEGER,
    document_json TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX diagnoses_by_run ON diagnoses (run_id);
)sql";

// Version 3: hardware probe results per node (shardwise-runner --probe), the planner's calibration
// source beside past runs.
constexpr std::string_view kVersion3 = R"sql(
CREATE TABLE probes (
    id INTEGER PRIMARY KEY,
    node TEXT NOT NULL DEFAULT '',
    host TEXT NOT NULL DEFAULT '',
    device_name TEXT NOT NULL DEFAULT '',
    gpu_id TEXT NOT NULL DEFAULT '',
    rank INTEGER NOT NULL DEFAULT 0,
    world_size INTEGER NOT NULL DEFAULT 1 CHECK (world_size >= 1),
    measured_at REAL NOT NULL,
    event_json TEXT NOT NULL
);
CREATE INDEX probes_by_node ON probes (node, measured_at);
CREATE INDEX probes_by_gpu ON probes (gpu_id, measured_at);
)sql";

// Version 4: what checkpointing cost a rank (--checkpoint-every): the planner's measured save cost
// per strategy for the interruption interval.
constexpr std::string_view kVersion4 = R"sql(
ALTER TABLE rank_summaries ADD COLUMN checkpoint_save_s REAL NOT NULL DEFAULT 0;
ALTER TABLE rank_summaries ADD COLUMN checkpoints_written INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rank_summaries ADD COLUMN resumed_from_step INTEGER NOT NULL DEFAULT -1;
)sql";

// Version 5: how to find a remote run's ranks again (the dispatch layer's RemoteRun as JSON) and how
// far its rank files were read, so a run whose follower detached or died can be re-attached and
// recorded to its end. detached_at is set when the follower stopped on purpose; NULL while a
// follower reads it (or died reading it: then the run's heartbeat goes stale).
constexpr std::string_view kVersion5 = R"sql(
CREATE TABLE remote_follow (
    run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    handle_json TEXT NOT NULL,
    offsets_json TEXT NOT NULL DEFAULT '{}',
    saved_at REAL NOT NULL,
    detached_at REAL
);
)sql";

// Version 6: the runner behaviour a start event names beside its versions (elementwise kernels, what
// the decoder layers keep for backward, how offload moves gradients), so the calibration predicts an
// older runner's run as that runner behaved. Rows recorded before this version read as empty, which
// the protocol defines as "a runner from before the field".
constexpr std::string_view kVersion6 = R"sql(
ALTER TABLE runs ADD COLUMN kernels TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN activations TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN offload_staging TEXT NOT NULL DEFAULT '';
)sql";

// Version 7: what executed a run (the native runner, or the PyTorch harness with DDP / fully_shard)
// and the framework versions the harness reports in its start event. Rows recorded before this
// version were all native runs. backend is not limited by a CHECK: the store refuses unknown backends
// on every write (recorder, import), and a later backend then needs no table rebuild.
constexpr std::string_view kVersion7 = R"sql(
ALTER TABLE runs ADD COLUMN backend TEXT NOT NULL DEFAULT 'native';
ALTER TABLE runs ADD COLUMN python_version TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN torch_version TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN transformers_version TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN model_impl TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_by_backend ON runs (backend);
)sql";

// Version 8: the NCCL environment variables of a node (the user's setting, e.g. NCCL_NVLS_ENABLE=0
// where NVLink multicast is forbidden; none by default), and the ones each node of a run gave its
// ranks, as a JSON object of name to value.
constexpr std::string_view kVersion8 = R"sql(
ALTER TABLE nodes ADD COLUMN nccl_env_json TEXT NOT NULL DEFAULT '{}';
ALTER TABLE run_nodes ADD COLUMN nccl_env_json TEXT NOT NULL DEFAULT '{}';
)sql";

// Version 9: the inter-node bandwidth the plan assumed (GB/s per node per direction,
// ClusterSpec::interNodeGBps) recorded with the run. NULL: not recorded (runs stored before this
// version, and runs started without a plan that stated one).
constexpr std::string_view kVersion9 = R"sql(
ALTER TABLE runs ADD COLUMN inter_node_gbps REAL CHECK (inter_node_gbps IS NULL OR inter_node_gbps > 0);
)sql";

// Version 10: a rehearsal of one rank of world N (RunConfig::rehearseWorld) records N; NULL is a real
// run. A rehearsal's memory is one rank's at world N; its steps ran without communication, so the
// row keeps no throughput, step time, communication share or predicted throughput (docs/store.md).
// A rehearsal recorded before this version is known by its configuration and gets the same.
constexpr std::string_view kVersion10 = R"sql(
ALTER TABLE runs ADD COLUMN rehearsed_world INTEGER CHECK (rehearsed_world IS NULL OR rehearsed_world >= 1);
UPDATE runs SET rehearsed_world = json_extract(config_json, '$.rehearse_world'), tokens_per_s = NULL,
                median_step_s = NULL, p10_step_s = NULL, p90_step_s = NULL, nccl_share = NULL,
                exposed_comm_share = NULL, predicted_tokens_per_s = NULL, predicted_step_s = NULL
 WHERE json_valid(config_json) AND json_type(config_json, '$.rehearse_world') = 'integer'
   AND json_extract(config_json, '$.rehearse_world') >= 1;
)sql";

// Version 11: named saved plans. A name (unique, not empty) points to one stored plan and keeps the
// input that reproduces it (the face's form as a JSON object); removing the plan removes its name.
constexpr std::string_view kVersion11 = R"sql(
CREATE TABLE saved_plans (
    name TEXT PRIMARY KEY CHECK (name <> ''),
    plan_id INTEGER NOT NULL REFERENCES plans (id) ON DELETE CASCADE,
    input_json TEXT NOT NULL CHECK (json_valid(input_json) AND json_type(input_json) = 'object'),
    saved_at REAL NOT NULL
);
CREATE INDEX saved_plans_by_plan ON saved_plans (plan_id);
)sql";

} // namespace

const std::vector<Migration>& migrations()
{
    static const std::vector<Migration> list {
        { 1, "runs, nodes, plans and per-rank steps, summaries, errors and logs", kVersion1 },
        { 2, "diagnoses of runs", kVersion2 },
        { 3, "hardware probe results per node", kVersion3 },
        { 4, "checkpoint save cost per rank summary", kVersion4 },
        { 5, "re-attachable remote runs: handle and rank file offsets", kVersion5 },
        { 6, "runner behaviour of a run: kernels, activations, offload staging", kVersion6 },
        { 7, "backend of a run (native or torch) and its framework versions", kVersion7 },
        { 8, "NCCL environment of a node and of each node of a run", kVersion8 },
        { 9, "inter-node bandwidth the plan of a run assumed", kVersion9 },
        { 10, "the world a rehearsal of one rank stands for", kVersion10 },
        { 11, "named saved plans with the input that reproduces them", kVersion11 },
    };
    return list;
}

int currentSchemaVersion()
{
    return migrations().back().version;
}

} // namespace shardwise::store
