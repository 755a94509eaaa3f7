#pragma once
// One measured run from start to stored result, the same for every face: launch the ranks (on this
// machine or on SSH nodes), record every event and log line into the run store as it arrives, set
// the final status, and for a run that did not complete, diagnose the first failure across ranks and
// store the diagnosis beside the run. The CLI, the desktop app's run queue and the tests all go
// through here, so a run looks the same in the store whichever face started it.

#include "shardwise/diagnose/diagnosis.hpp"
#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/remote_launch.hpp"
#include "shardwise/dispatch/run_outcome.hpp"
#include "shardwise/spec/specs.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/run_recorder.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardwise::session {

struct SessionCallbacks {
    // The run row exists (status 'running'); called before the first rank starts.
    std::function<void(std::int64_t runId)> onRecorded;
    // Remote runs only: every rank has started; the handle is what a re-attach needs. When the run is
    // recorded the handle is already in the store (store/remote_follow.hpp) by then.
    std::function<void(const dispatch::RemoteRun& run)> onRemoteStarted;
    std::function<void(const protocol::Event& event)> onEvent;
    std::function<void(int rank, const std::string& line)> onLog;
    // The store stopped taking the run (disk full, locked file, ...): called once; the run goes on
    // unrecorded rather than losing the measurement.
    std::function<void(const std::string& problem)> onStoreProblem;
};

struct SessionOptions {
    // Where to record; null = do not record (the CLI's --no-store).
    store::Database* db = nullptr;
    store::RunOrigin origin;
    // When the run row cannot be written at all, throw (store::StoreError) before any rank starts
    // instead of measuring unrecorded. The desktop app shows only stored runs, so it insists.
    bool requireRecord = false;
    // Diagnose a run that did not complete (and was not cancelled), storing the diagnosis with it.
    bool diagnoseFailures = true;
    // Local runs whose launch names no log folder get one here: <localRunRoot>/run-<stored id>, with
    // the rank logs and the config the runner read, so a diagnosis can be repeated from the files.
    std::filesystem::path localRunRoot;
    // Local runs with neither a log folder nor localRunRoot run in a temporary folder
    // (<tmp>/shardwise-run-XXXXXX), removed once the store holds the run and its logs (an unrecorded
    // run's folder stays: it is the only copy). True keeps it in every case.
    bool keepRunFolder = false;
    // Remote runs only. When set, following stops without touching the ranks (the app closing, the
    // CLI's --detach-on-interrupt): they go on running on their nodes, the run stays 'running' in
    // the store with its handle and the offsets reached (shown as detached), and reattachRemote()
    // records the rest later. Needs db: an unrecorded run cannot be found again.
    const std::atomic<bool>* detach = nullptr;
};

struct SessionResult {
    dispatch::RunOutcome outcome;
    std::optional<std::int64_t> runId;            // none when not recorded
    std::optional<store::RunStatus> storedStatus; // the final status in the store
    std::optional<diagnose::Diagnosis> diagnosis; // a run that did not complete and was not cancelled
    std::optional<std::int64_t> diagnosisId;      // when the diagnosis was stored
    std::string storeProblem;                     // why recording stopped, if it did
    bool lost = false;                            // a rank or node was lost (remote runs)
    // The temporary run folder was removed, its logs being in the store (outcome.logDir is empty).
    bool runFolderRemoved = false;
    // Following stopped, the ranks may go on running, and the run is stored as 'running' with its
    // handle (storedStatus empty, shown as detached); outcome says Cancelled with a reason that says
    // why (following stopped, not the run) and holds no figures. Either SessionOptions::detach asked
    // for it, or (with `lost` set) the connection to a node dropped while its ranks had not finished
    // and the run is recorded with its handle: it can be re-attached when the node answers.
    bool detached = false;
};

// Ranks on this machine. The program is the one requested.backend asks for
// (dispatch::runnerForBackend of launch.runner: the PyTorch harness beside the native runner for a
// torch run). A LaunchError (runner missing, no pipes) is a result with status failed,
// recorded as such when the run row was written. launch.args left empty, or beginning with
// `--config config.json` (the launch builder's contract): the requested config is written to
// config.json in the run's log folder and the runner reads it from there, exactly as on SSH nodes.
SessionResult runLocal(const RunConfig& requested, const dispatch::LocalLaunch& launch, const SessionOptions& options,
                       const SessionCallbacks& callbacks = {}, const std::atomic<bool>* cancel = nullptr);

struct RemoteTarget {
    dispatch::RemoteLaunch launch;               // launch.args come from the config (see below)
    std::vector<dispatch::SshSession*> sessions; // sessions[i] reaches launch.nodes[i]
    std::vector<std::string> nodeNames;          // for diagnoses; empty = the SSH hosts
    dispatch::FollowOptions follow;
};

// Ranks on SSH nodes, each node's program chosen from requested.backend as for runLocal (the
// harness beside the node's prepared runner for a torch run). The requested config is written to config.json in the run
// directory on every node and the runner reads it from there (`--config config.json`), so the node needs no presets or
// model files; launch.args left empty get exactly that. launch.masterPort 0: a port no socket on the first node uses,
// taken from kRemotePortLow-kRemotePortHigh (launch_builder.hpp) when the ranks start. A node that cannot be reached
// when the ranks start is a failed result (recorded), as is a node lost later (recorded as 'lost').
SessionResult runRemote(const RunConfig& requested, RemoteTarget target, const SessionOptions& options,
                        const SessionCallbacks& callbacks = {}, const std::atomic<bool>* cancel = nullptr);

// Why a re-attach was refused before anything was read; nothing in the store changed.
class ReattachError : public std::runtime_error {
public:
    enum class Reason {
        UnknownRun,       // no such run in the store
        Finished,         // the run already has its final status
        NotRemote,        // no handle kept: not started on SSH nodes (or recorded before schema 5)
        Followed,         // another follower is reading it now (fresh heartbeat, not detached)
        NodeUnreachable,  // a node of the run cannot be reached; the handle is kept for a later try
        RunDirectoryGone, // the run directory is not on a node any more
        UnreadableHandle, // the stored handle or offsets cannot be read
    };
    ReattachError(Reason reason, const std::string& message)
        : std::runtime_error(message)
        , m_reason(reason)
    {
    }
    Reason reason() const { return m_reason; }

private:
    Reason m_reason;
};

struct AttachTarget {
    std::vector<dispatch::SshSession*> sessions; // sessions[i] reaches the run's node i (run_nodes order)
    std::vector<std::string> nodeNames;          // for messages and diagnoses; empty = the SSH hosts
    dispatch::FollowOptions follow;              // detach comes from SessionOptions
};

// Follows a detached remote run again from the offsets stored with it and records the rest into the
// same run (options.db is required; options.origin is not used): no event or log line is recorded
// twice, because the offsets were written in the same transaction as each recorded line. Concludes
// the run exactly as runRemote() does (status, lost nodes, diagnosis) and drops its handle; it can
// detach again the same way. Throws ReattachError, before any change to the store, when the run
// cannot be followed (see ReattachError::Reason); std::invalid_argument for a session count that is
// not the run's node count.
SessionResult reattachRemote(std::int64_t runId, AttachTarget target, const SessionOptions& options,
                             const SessionCallbacks& callbacks = {}, const std::atomic<bool>* cancel = nullptr);

// Nodes of a detached run for abandonRemote(): sessions[i] reaches the run's node i, or is null when
// it could not be connected, with the reason in whyNotConnected[i].
struct AbandonTarget {
    std::vector<dispatch::SshSession*> sessions;
    std::vector<std::string> nodeNames;
    std::vector<std::string> whyNotConnected;
};

struct AbandonOutcome {
    std::string runDir;                  // on every node of the run
    std::vector<std::string> stoppedOn;  // nodes whose ranks were sent SIGTERM (SIGKILL after the grace)
    std::vector<std::string> notReached; // "node: why"; ranks there may still be running
    std::string note;                    // what the store keeps with the lost run
};

// Gives up detached run `runId` for good: where a node of the run answers, the ranks still running
// there are stopped (SIGTERM, then SIGKILL after `grace`) so nothing is left holding its GPUs; then
// the run ends as 'lost' with a note saying it was abandoned, why (`reason`, when given) and which
// nodes could not be reached, and its handle is dropped. Refuses (store::StoreError naming the run)
// a run that does not exist or is not detached, before any node is touched.
AbandonOutcome abandonRemote(store::Database& db, std::int64_t runId, const AbandonTarget& target,
                             const std::string& reason, std::chrono::seconds grace = std::chrono::seconds(10));

// What each rank left behind, for core/diagnose: the local launcher's rank logs are read back from
// their files; remote ranks' log lines are those the follower delivered.
std::vector<diagnose::RankRecord> rankRecordsOf(const dispatch::LaunchResult& launch, const std::string& node);

// Stores `diagnosis` for the run (replacing an earlier one) and returns the stored id.
std::int64_t storeRunDiagnosis(store::Database& db, std::int64_t runId, const diagnose::Diagnosis& diagnosis);

// The environment the CUDA caching allocator reads for expandable segments. PyTorch 2.x reads
// PYTORCH_ALLOC_CONF first; 1.x and early 2.x only know PYTORCH_CUDA_ALLOC_CONF, so both are set.
void addAllocatorEnvironment(const RunConfig& config, std::map<std::string, std::string>& env);

} // namespace shardwise::session
