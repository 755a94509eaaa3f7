#pragma once
// A hardware probe of one node, the same for every face: start `shardwise-runner --probe` through
// the launch path measured runs use (rank processes on this machine, or detached ranks on an SSH
// node), collect each rank's `probe` event, and store them in the run store's probes table with the
// node's name and GPU preset, where calibrate::calibrationFromStore starts its calibration from.
// Every failure says what failed: the runner missing, the node unreachable, a rank failing, a rank
// ending without its probe event, or the store refusing the result.

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/ssh_session.hpp"
#include "shardwise/protocol/events.hpp"
#include "shardwise/spec/specs.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/probes.hpp"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise::session {

enum class ProbeFailure {
    None,
    RunnerMissing, // no runner at the given path, or not executable (on the node for SSH)
    Unreachable,   // the SSH node could not be used (connection dropped, command refused)
    RanksFailed,   // a rank reported an error, exited non-zero or was killed
    ProbeAbsent,   // a rank ended without a probe event (a runner without --probe, or cut short)
    Cancelled,
    TimedOut,
    StoreRefused, // measured, but the store did not take the probe (nothing of it was stored)
};
std::string_view probeFailureId(ProbeFailure failure); // "runner_missing", "unreachable", ...

struct ProbeRequest {
    std::string node;                    // the node's name in the store, kept with every probe
    DeviceKind device = DeviceKind::Cpu; // cuda: rank r probes GPU r
    // Ranks on the node: one per GPU to measure every GPU and the collectives between them; with
    // one rank there are no collectives to measure.
    int ranks = 1;
    std::optional<std::int64_t> maxBytes;   // the runner's --probe-max-bytes (its default when unset)
    std::optional<int> collectiveTimeoutS;  // the runner's --timeout-s
    std::map<std::string, std::string> env; // extra environment for every rank
    std::chrono::seconds timeout { 0 };     // whole probe, wall clock; 0 = none
    // GPU preset stored with the probes; empty = inferred from the device name the runner reports
    // (gpuPresetForDevice), left empty when no preset matches (a CPU, an unknown GPU).
    std::string gpuId;
};

// The runner's arguments for a probe: --probe --device D [--probe-max-bytes N] [--timeout-s N].
std::vector<std::string> probeRunnerArgs(const ProbeRequest& request);

struct ProbeCallbacks {
    std::function<void(int rank, const std::string& line)> onLog;   // each stderr line of a rank
    std::function<void(const protocol::ProbeEvent& probe)> onProbe; // as each rank reports
};

struct ProbeSessionResult {
    ProbeFailure failure = ProbeFailure::None;
    std::string reason;                       // what failed, naming the node / rank / path; empty on success
    std::vector<protocol::ProbeEvent> events; // one per rank that reported, by rank
    std::vector<store::StoredProbe> stored;   // as stored (ids set); empty when nothing was stored
    // The local log folder (a temporary one, removed once the probe is stored: empty then), or the
    // run folder on the node.
    std::string logLocation;
    double wallSeconds = 0;
    bool ok() const { return failure == ProbeFailure::None; }
};

// Probes this machine: `ranks` runner processes with the torchrun environment. `db` null = measure
// without storing. The store is written only when every rank reported its probe.
ProbeSessionResult probeLocal(const ProbeRequest& request, const std::filesystem::path& runner, store::Database* db,
                              const ProbeCallbacks& callbacks = {}, const std::atomic<bool>* cancel = nullptr);

struct RemoteProbeTarget {
    dispatch::SshSession* session = nullptr;
    std::string runnerPath;                          // absolute path on the node
    std::string runRoot = ".cache/shardwise/probes"; // relative to the remote home unless absolute
    // The rendezvous of the node's ranks; 0: one of kRemotePortLow-kRemotePortHigh that nothing on the
    // node uses (dispatch::pickFreeRemotePort), as remote runs take, not torchrun's 29500 a job there may hold.
    int masterPort = 0;
    std::chrono::milliseconds pollInterval { 500 };
};

// Probes an SSH node through the same detached launch and follower as remote runs; the runner is
// checked first, so a node without it says so instead of failing inside the launch.
ProbeSessionResult probeRemote(const ProbeRequest& request, const RemoteProbeTarget& target, store::Database* db,
                               const ProbeCallbacks& callbacks = {}, const std::atomic<bool>* cancel = nullptr);

// One node of a probe across nodes (probeNetwork).
struct NetworkProbeNode {
    dispatch::SshSession* session = nullptr;
    std::string name;       // the node's name in the store
    std::string runnerPath; // absolute path on the node
    int ranks = 1;          // one per GPU measures what a training run's collectives cross
    // How the other nodes reach this one; only the first node's is used (the rendezvous). Empty = its
    // SSH host, as multi-node runs use.
    std::string address;
    std::map<std::string, std::string> env; // this node's ranks only (NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME)
};

struct NetworkProbeTarget {
    std::vector<NetworkProbeNode> nodes; // at least two; ranks are numbered in this order
    std::string runRoot = ".cache/shardwise/probes";
    int masterPort = 0; // on the first node; 0: a free one there, as RemoteProbeTarget::masterPort
    std::chrono::milliseconds pollInterval { 500 };
};

// The store name of a probe across nodes: the node names joined by '+' ("a+b").
std::string networkProbeName(const std::vector<NetworkProbeNode>& nodes);

// Probes the network between SSH nodes: one world of ranks over every node (rank 0 on the first, whose
// address is the rendezvous), so the collectives the runner measures cross the network. Each node's
// runner is checked first. request.node and request.ranks are set from the nodes; request.gpuId is
// ignored: the probes are stored under networkProbeName() with no GPU preset, so no GPU's calibration
// starts from collectives that crossed the network (calibrate::collectiveBusGBps reads their figure).
ProbeSessionResult probeNetwork(ProbeRequest request, const NetworkProbeTarget& target, store::Database* db,
                                const ProbeCallbacks& callbacks = {}, const std::atomic<bool>* cancel = nullptr);

// Stores a successful network probe's events (probeNetwork) under `name` (networkProbeName) without a
// GPU preset, all ranks or none; for faces that measure on a worker thread and store on the store's.
void storeNetworkProbes(ProbeSessionResult& result, const std::string& name, store::Database& db);

// Stores a successful probe's events (all ranks in one transaction) with the request's GPU preset,
// or the one the device name matches; sets `stored`. A store that refuses them turns the result
// into StoreRefused and keeps nothing of it. Faces that measure on a worker thread call this on the
// thread that owns the store.
void storeProbes(ProbeSessionResult& result, const ProbeRequest& request, store::Database& db);

// The GPU preset a runner's device name stands for ("NVIDIA H200" -> "h200",
// "NVIDIA A100-SXM4-80GB" -> "a100-80gb"); empty when none or several presets fit.
std::string gpuPresetForDevice(std::string_view deviceName, const std::vector<GpuSpec>& presets);

// GPUs the node's stored facts list ("gpus", as discovery wrote them); 0 when none or not known.
int knownGpuCount(const nlohmann::json& nodeFacts);

// The probes as stored for one probing: one per rank, all with the time of the newest rank's event,
// highest rank first so that rank 0 is the node's newest probe (store::latestProbe).
std::vector<store::StoredProbe> probesToStore(const std::string& node, const std::string& gpuId,
                                              const std::vector<protocol::ProbeEvent>& events);

} // namespace shardwise::session
