#pragma once
// Measured and imported runs as the faces see them: plain structs with the headline numbers, and the
// queries behind the run list, the run details and the Compare page's charts.

#include "shardwise/protocol/events.hpp"
#include "shardwise/spec/specs.hpp"
#include "shardwise/store/database.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise::store {

// Every stored status is a result: an OOM or a timeout is a row with its numbers, not a missing row.
// Interrupted and Detached are never stored: they are how a 'running' run is shown when nothing
// follows it any more. Interrupted: the writer died. Detached: a remote run whose ranks go on
// running detached on their nodes, with the handle to re-attach kept (store/remote_follow.hpp); its follower
// stopped on purpose or its heartbeat went stale.
enum class RunStatus { Running, Completed, Oom, Failed, Timeout, Lost, Cancelled, Interrupted, Detached };

std::string_view runStatusId(RunStatus s); // "running" | "completed" | "oom" | ... | "interrupted" | "detached"
std::optional<RunStatus> runStatusFromId(std::string_view id);
std::string runStatusIdList();
bool isFinal(RunStatus s); // not Running, Interrupted or Detached
// The final status a launch outcome is stored as, from the launcher's outcome id (dispatch's
// runStatusId: "ok" | "oom" | "comm" | "config" | "failed" | "timeout" | "cancelled"). Taken as the id
// so the store does not depend on the launcher; comm and config failures are stored as failed, their
// kind stays in the recorded error events. Unknown ids are failed.
RunStatus statusForOutcome(std::string_view outcomeId);

enum class RunSource { Measured, Imported };
std::string_view runSourceId(RunSource s); // "measured" | "imported"

// A recorder refreshes its run's heartbeat with every event; a 'running' run whose heartbeat is older
// than this is shown as interrupted. Long enough for one slow step on a large model.
inline constexpr double kStaleHeartbeatSeconds = 300.0;

// Predictions made at plan time, kept beside the measurement they predicted.
struct RunPrediction {
    std::optional<double> tokensPerS;
    std::optional<double> stepS;
    std::optional<std::int64_t> peakBytes; // peak allocated device memory per rank
    nlohmann::json document;               // the planner's full estimate for this candidate, if any
};

struct RunSummary {
    std::int64_t id = 0;
    RunSource source = RunSource::Measured;
    std::string importSource;              // where an imported run was published or measured
    RunStatus status = RunStatus::Running; // as shown: Interrupted / Detached for a 'running' nobody follows
    std::string note;                      // why the run ended as it did (first error, launcher's reason)
    std::string modelId;
    std::string gpuId;   // preset id, may be empty
    std::string gpuName; // what the device reported, e.g. "NVIDIA H200"
    Strategy strategy = Strategy::Zero0;
    int worldSize = 1;
    int nodeCount = 1;
    std::vector<std::string> nodes;
    std::string interconnect; // "nvlink" | "pcie" | ""
    // The inter-node bandwidth the run's plan assumed, GB/s per node per direction
    // (ClusterSpec::interNodeGBps); unset where nothing recorded it (schema 9).
    std::optional<double> interNodeGBps;
    // A rehearsal of one rank of world N (RunConfig::rehearseWorld, shardwise-cli run --rehearse-world):
    // N; unset for a real run (and for runs stored before schema 10). worldSize is then 1, the one
    // process that ran. Its memory figures are one rank's at world N, and it has no tokensPerS,
    // step times or communication shares: its steps ran without communication, so they are not world
    // N's (rank 0's summary keeps its compute-only step times). Its prediction is world N's per rank,
    // without tokens/s or step time.
    std::optional<int> rehearsedWorld;
    std::string precision;
    std::optional<int> microBatch;
    std::optional<int> seqLen;
    std::optional<int> warmupSteps;
    std::optional<int> timedSteps;
    std::string launcher;
    // What executed it: the native runner or the PyTorch harness (runs stored before schema 7: native).
    RunBackend backend = RunBackend::Native;
    // What the runner's start event reported (empty for imported runs that did not say); the runner
    // behaviour fields tell an older runner's measurements apart (see protocol::SoftwareVersions); a
    // torch run's python, torch, transformers and model implementation are here too.
    protocol::SoftwareVersions versions;
    double startedAt = 0; // Unix seconds
    std::optional<double> finishedAt;
    double heartbeatAt = 0;

    // Headline numbers; empty when the run did not get far enough to measure them.
    std::optional<double> tokensPerS; // global, all ranks
    std::optional<double> medianStepS;
    std::optional<double> p10StepS;
    std::optional<double> p90StepS;
    std::optional<std::int64_t> peakAllocated; // bytes, the largest over ranks
    std::optional<std::int64_t> peakReserved;
    std::optional<std::int64_t> allocRetries;
    std::optional<double> ncclShare;        // 0..1, mean over ranks
    std::optional<double> exposedCommShare; // 0..1, mean over ranks

    std::optional<std::int64_t> planId;
    RunPrediction predicted;

    bool rehearsal() const { return rehearsedWorld.has_value(); }
    // The world whose rank the memory figures are: the rehearsed world, else the world that ran.
    int effectiveWorld() const { return rehearsedWorld.value_or(worldSize); }
};

struct RankPlacement {
    int rank = 0;
    std::string host;
    int localRank = 0;
    std::string deviceName;
};

struct RankLogLine {
    int rank = 0;
    std::string stream; // "event" (a protocol log event) | "stderr"
    std::string level;  // the event's level; empty for stderr lines
    std::string text;
    double time = 0;
};

struct Diagnosis {
    std::int64_t id = 0;
    std::int64_t runId = 0;
    double createdAt = 0;
    std::string code; // stable identifier of the finding, e.g. "oom-fragmentation"
    std::string title;
    std::string detail;
    std::optional<int> firstFailureRank;
    nlohmann::json document = nlohmann::json::object();
};

struct RunDetail {
    RunSummary summary;
    nlohmann::json config; // the RunConfig as spec JSON; null for imported runs without one
    protocol::SoftwareVersions versions;
    protocol::AllocatorSettings allocator;
    std::vector<RankPlacement> ranks;
    std::vector<protocol::SummaryEvent> rankSummaries;
    std::vector<protocol::ErrorEvent> errors; // in time order: the first is the first failure
    std::vector<Diagnosis> diagnoses;
    // The NCCL setting each node gave its ranks, by node name (nodes without one are left out).
    std::map<std::string, std::map<std::string, std::string>> ncclEnv;
};

// Every set field must match; text matches ignore case. `gpu` matches the preset id exactly or is
// contained in the device name; `node` matches a node name the run used.
struct RunFilter {
    std::optional<std::string> model;
    std::optional<std::string> gpu;
    std::optional<Strategy> strategy;
    std::optional<std::string> node;
    std::optional<RunStatus> status;
    std::optional<RunSource> source;
    std::optional<double> startedFrom;  // Unix seconds, inclusive
    std::optional<double> startedUntil; // Unix seconds, exclusive
    std::optional<std::int64_t> planId;
    std::optional<RunBackend> backend; // native or torch runs only
};

// Newest first. `now` decides which 'running' runs are shown as interrupted.
std::vector<RunSummary> listRuns(const Database& db, const RunFilter& filter = {}, double now = currentUnixTime());
std::optional<RunSummary> findRun(const Database& db, std::int64_t id, double now = currentUnixTime());
std::optional<RunDetail> runDetail(const Database& db, std::int64_t id, double now = currentUnixTime());

// The save cost of the newest measured run of this model, strategy and world size (and GPU preset,
// when given) that wrote checkpoints: the slowest rank's median save, which is what a step waits for.
struct MeasuredCheckpointSave {
    std::int64_t runId = 0;
    double saveS = 0;
};
std::optional<MeasuredCheckpointSave> newestCheckpointSave(const Database& db, const std::string& modelId,
                                                           const std::string& gpuId, Strategy strategy, int worldSize);

// Per-step points for charts, ordered by rank then step; all ranks when `rank` is empty.
std::vector<protocol::StepEvent> stepSeries(const Database& db, std::int64_t runId,
                                            std::optional<int> rank = std::nullopt);
std::vector<RankLogLine> rankLogs(const Database& db, std::int64_t runId, std::optional<int> rank = std::nullopt);

std::vector<Diagnosis> diagnoses(const Database& db, std::int64_t runId);
std::int64_t addDiagnosis(Database& db, const Diagnosis& diagnosis); // returns the new id
void removeDiagnoses(Database& db, std::int64_t runId);

// Removes a run with everything recorded for it; false when there was no such run.
bool removeRun(Database& db, std::int64_t id);

} // namespace shardwise::store
