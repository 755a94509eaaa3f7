#pragma once
// The one launch builder: what every face (shardwise-cli run, the desktop app's run queue) asks for
// (a LaunchRequest) turned into the launch the session starts (a Launch). One rule for each thing a
// face could otherwise decide on its own, stated in docs/runner.md ("One launch for every face"):
//
// - runner contract: every rank gets `--config config.json` (the session writes the requested
//   RunConfig there: the run folder beside the logs locally, the run directory on SSH nodes), plus
//   `--timeout-s N` when a collective timeout is asked for (native runner only);
// - rendezvous port: the request's port when it names one, else 0: a port free on the rendezvous
//   host when the ranks start (locally one the kernel hands out, on SSH nodes one of 29500-29999 that
//   no socket on the first node uses, dispatch::pickFreeRemotePort);
// - peer grace: kPeerGrace after a rank fails (or its node is lost), unless the request names its own;
//   then the other ranks are stopped, on this machine and on SSH nodes alike;
// - CUDA graphs: a run whose step cannot be captured is refused naming why (validate), except that a
//   series of strategies asked at once runs its offload strategies eager and says so in the note;
// - rehearsal (RunConfig::rehearseWorld = N): one rank on one node (validate: world_size 1), on a
//   CUDA device (a CPU run has no allocator peaks to rehearse), without CUDA graphs; its prediction
//   is world N's per rank, and the store keeps no tokens/s for it (store::RunOrigin::predicted);
// - rank layout: ranksPerNode ranks on each node; a run on one SSH node meets on that node's
//   loopback (MASTER_ADDR 127.0.0.1, GLOO_SOCKET_IFNAME=lo unless the request sets it), a run on
//   several nodes at the first node's SSH host.

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/remote_launch.hpp"
#include "shardwise/spec/specs.hpp"
#include "shardwise/store/run_recorder.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shardwise::session {

// After the first rank fails, how long its peers get to exit on their own and say what they saw
// before the launcher stops them. On one machine a dead rank's Gloo peers report within seconds; a
// peer blocked in an NCCL collective would only report at the runner's collective timeout (120 s by
// default) and is stopped instead, which the diagnosis counts as a symptom, not a failure.
inline constexpr std::chrono::seconds kPeerGrace { 15 };

// The range a rendezvous port on an SSH node is taken from when the request names none.
inline constexpr int kRemotePortLow = 29500;
inline constexpr int kRemotePortHigh = 29999;

struct LaunchNode {
    store::RunNodeRef ref;  // name, stored id and NCCL setting, recorded with the run
    std::string runnerPath; // SSH nodes: the native runner there (its preparation's); empty locally
};

struct LaunchRequest {
    RunConfig config;              // what to run; worldSize is set from the layout
    bool remote = false;           // on SSH nodes (nodes[i] each) or on this machine
    std::vector<LaunchNode> nodes; // remote: at least one; local: this machine's stored node, if any
    int ranksPerNode = 1;
    std::filesystem::path localRunner; // local: the native runner (the session picks the backend's program)
    // One of several strategies asked at once (`--strategy all`): the CUDA-graph rule's exception.
    bool series = false;
    std::map<std::string, std::string> rankEnv; // extra environment for every rank
    std::optional<int> masterPort;              // the rendezvous port, when the user names one
    std::optional<std::chrono::seconds> peerGrace;
    std::optional<int> collectiveTimeoutS;         // the native runner's --timeout-s
    std::chrono::seconds timeout { 0 };            // wall clock of the whole run; 0 = none
    std::filesystem::path logDir;                  // local: rank logs here; empty = the session's run folder
    std::string runRoot = ".cache/shardwise/runs"; // remote: run folders, relative to the remote home
    // What the run is measured against, recorded with it.
    std::string gpuId;                   // preset id; kept for CUDA runs only
    std::string interconnect;            // "nvlink" | "pcie" | ""; kept for CUDA runs only
    std::optional<double> interNodeGBps; // the plan's inter-node GB/s per node per direction
    std::optional<std::int64_t> planId;
    // The plan's prediction for this candidate; for a rehearsal, the plan of world N (its per-rank memory).
    std::optional<store::RunPrediction> predicted;
};

struct Launch {
    RunConfig config;                       // as run: world size from the layout, the CUDA-graph rule applied
    std::vector<std::string> args;          // identical for every rank, local or remote
    std::map<std::string, std::string> env; // for every rank
    int masterPort = 0;                     // 0: a free port on the rendezvous host, taken when the ranks start
    std::chrono::seconds peerGrace { kPeerGrace };
    std::string note;               // what the rules changed, for the user (empty: nothing)
    dispatch::LocalLaunch local;    // !remote
    dispatch::RemoteLaunch remote;  // remote
    dispatch::FollowOptions follow; // remote: polled every 500 ms, the request's timeout
    store::RunOrigin origin;        // recorded with the run
    bool isRemote = false;
};

// Throws SpecError naming the field: a config the runner would refuse (validate's checks, CUDA graphs
// included), no SSH node for a remote launch, a node without a runner, fewer than one rank per node.
Launch buildLaunch(const LaunchRequest& request);

} // namespace shardwise::session
