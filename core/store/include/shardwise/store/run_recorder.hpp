#pragma once
// Records one measured run as it happens. The run row exists from begin() on with status 'running';
// every event is committed in its own short transaction together with a heartbeat; finish() sets
// the final status and the headline numbers in one transaction. A writer that dies leaves a
// 'running' row whose heartbeat goes stale, which listRuns() shows as interrupted: a run is never
// half recorded.

#include "shardwise/protocol/events.hpp"
#include "shardwise/spec/specs.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/runs.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shardwise::store {

struct RunNodeRef {
    RunNodeRef() = default;
    RunNodeRef(std::string nodeName, std::optional<std::int64_t> storedId, std::map<std::string, std::string> nccl = {})
        : name(std::move(nodeName))
        , nodeId(storedId)
        , ncclEnv(std::move(nccl))
    {
    }
    std::string name;                   // node name (or host) as the user knows it
    std::optional<std::int64_t> nodeId; // the stored node, when it is one
    // The node's NCCL setting (Node::ncclEnv): given to its ranks by the session and recorded with the run.
    std::map<std::string, std::string> ncclEnv;
};

// Facts known before the first rank starts.
struct RunOrigin {
    std::vector<RunNodeRef> nodes;       // at least one; "local" for this machine
    std::string launcher;                // "shardwise", "torchrun", "srun", "manual"
    std::string gpuId;                   // preset id, may be empty
    std::string gpuName;                 // filled from the ranks' start events when empty
    std::string interconnect;            // "nvlink" | "pcie" | ""
    std::optional<double> interNodeGBps; // the plan's inter-node GB/s per node per direction, if it had one
    std::optional<std::int64_t> planId;
    // The plan's prediction for this run. For a rehearsal of world N (RunConfig::rehearseWorld) it is
    // world N's per rank; its tokens/s and step time are not stored (a rehearsal's steps have no
    // communication, so nothing measured compares with them).
    std::optional<RunPrediction> predicted;
    // Non-empty: the run is a replay of events measured elsewhere (e.g. the example runs shipped with
    // Shardwise), stored as source 'imported' under this import_source instead of 'measured'.
    std::string importSource;
    // A replay's own start (unix seconds), e.g. its first start event's time: stored as started_at
    // instead of the time of recording, and the run's finished_at is then its latest event's time.
    std::optional<double> startedAt;
};

class RunRecorder {
public:
    // Inserts the run with status 'running'. Throws StoreError (e.g. read-only database) or
    // SpecError (a config that does not validate).
    RunRecorder(Database& db, const RunConfig& config, const RunOrigin& origin);
    // Continues recording a run that is still 'running' (a remote run taken up again after its
    // follower detached or died): what was already recorded counts for statusFromEvents(). Throws
    // StoreError when there is no such run or it has finished.
    RunRecorder(Database& db, std::int64_t runId);
    RunRecorder(const RunRecorder&) = delete;
    RunRecorder& operator=(const RunRecorder&) = delete;
    // A recorder dropped without finish() (an exception unwinding the caller) finishes the run as
    // 'failed' so the row does not pretend to be running; a killed process cannot, hence heartbeats.
    ~RunRecorder();

    std::int64_t runId() const { return m_runId; }

    // Start, step, summary, error and log events of any rank, in arrival order.
    void record(const protocol::Event& event);
    // One line a rank wrote to stderr.
    void recordLog(int rank, const std::string& line);
    // Keeps the run from looking interrupted while nothing else arrives (call every few seconds).
    void heartbeat();

    // A remote run's follower position (the offsets JSON of store/remote_follow.hpp), written in the
    // same transaction as every event and log line recorded from now on: a follower that dies never
    // leaves a line recorded but unaccounted for, so a re-attach records each line exactly once.
    // The run must have a remote handle (saveRemoteFollow) before the first write.
    void keepFollowerOffsets(std::function<std::string()> offsetsJson);
    // The follower detached: the run stays 'running' (shown detached); the destructor leaves it so.
    void leaveRunning() { m_leftRunning = true; }

    // The status the events alone imply: oom if any rank reported an OOM, failed if any reported
    // another error or a rank never sent its summary, completed otherwise. The caller knows better
    // for timeouts, cancellations and lost nodes.
    RunStatus statusFromEvents() const;

    // Sets the final status (not Running or Interrupted) and the headline numbers from what was
    // recorded. A rehearsal (the config's rehearse_world, a start event's config or a summary's
    // rehearsed_world said so) keeps its memory figures but no tokens/s, step times or communication
    // shares, whatever its summaries say: they are not the rehearsed world's. `note` says why the run ended so; empty =
    // the first error's message, if any. A finished run drops its remote handle in the same transaction: there is
    // nothing left to re-attach to.
    void finish(RunStatus status, const std::string& note = {});
    bool finished() const { return m_finished; }

private:
    Database& m_db;
    std::int64_t m_runId = 0;
    int m_worldSize = 1;
    bool m_rehearsal = false; // a rehearsal of one rank of a larger world: no throughput is kept
    std::vector<bool> m_summarised;
    bool m_sawOom = false;
    bool m_sawError = false;
    bool m_finished = false;
    bool m_leftRunning = false;
    // A replay (RunOrigin::startedAt): the latest event time seen, which finish() stores as finished_at.
    std::optional<double> m_replayEnd;
    std::function<std::string()> m_followerOffsets;

    void writeFollowerOffsets(double now);
    // The run is a rehearsal of one rank of world `world`: recorded as such, its predicted tokens/s
    // and step time dropped.
    void markRehearsal(int world);
};

// Refreshes a 'running' run's heartbeat; nothing for a finished run. For a watcher that keeps a run
// alive while its recorder waits (on its own connection: one Database per thread).
void refreshHeartbeat(Database& db, std::int64_t runId);

} // namespace shardwise::store
