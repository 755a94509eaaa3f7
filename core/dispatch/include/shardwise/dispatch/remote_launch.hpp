#pragma once
// Launching the runner on SSH nodes: one rank per GPU (or `ranks` CPU ranks) on each node, torchrun
// environment with the rendezvous on the first node. Ranks are started detached (setsid + nohup) in
// a run directory on each node, with stdout (JSON Lines events), stderr (log), pid and exit-status
// files per rank, so a run survives the app disconnecting; the app follows a run by reading those
// files from byte offsets, and can re-attach later and collect what it missed.

#include "shardwise/dispatch/ssh_session.hpp"
#include "shardwise/protocol/events.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace shardwise::dispatch {

struct RemoteNode {
    std::string runnerPath;                 // absolute path on the node (PreparedRunner::runnerPath)
    int ranks = 1;                          // usually the node's GPU count
    std::string address;                    // how other nodes reach this one; empty = the SSH host
    std::map<std::string, std::string> env; // extra environment for this node's ranks
};

struct RemoteLaunch {
    std::vector<RemoteNode> nodes;                 // same order as the sessions passed along
    std::vector<std::string> args;                 // runner arguments, identical for every rank
    std::map<std::string, std::string> env;        // extra environment for every rank
    int masterPort = 29500;                        // on the first node
    std::string runId;                             // empty = generated; names the run directory
    std::string runRoot = ".cache/shardwise/runs"; // relative to the remote home unless absolute
};

struct RemoteRankPlacement {
    int rank = 0;
    int node = 0; // index into the launch's nodes
    int localRank = 0;
};

// Everything needed to find a run again after a disconnect; plain data the store can keep.
struct RemoteRun {
    std::string runId;
    std::string runDir; // same path on every node (relative to the remote home unless absolute)
    int world = 0;
    std::vector<RemoteRankPlacement> ranks;
    int nodeCount = 0;
    int masterPort = 0; // the rendezvous port the ranks were given; 0 when not known (older handles)
};

// Bytes of each rank file already consumed, keyed "rank<N>.out" / "rank<N>.log". Starts empty;
// pass the same object back on re-attach to get only what was missed. Offsets advance only past
// complete lines, and a line's bytes are counted before its callback runs: inside onEvent / onLog
// the offsets include the line being delivered, so a recorder that stores them together with the
// line never records a line twice after a re-attach.
using RemoteRunOffsets = std::map<std::string, std::uint64_t>;

struct RemoteRankOutcome {
    int rank = 0;
    int node = 0;
    CommandEnding ending = CommandEnding::Lost; // Exited, Signalled or Lost (never finished or unreachable)
    int exitCode = -1;
    std::string signal;     // e.g. "TERM"
    std::string lostReason; // Lost only
    // Still running when a peer failed and FollowOptions::peerGrace passed: the follower stopped it.
    bool stoppedAfterPeerFailure = false;
    std::vector<protocol::Event> events;
    std::vector<std::string> protocolErrors;
    std::string logTail; // last ~8 KiB of stderr
};

struct RemoteRunResult {
    std::vector<RemoteRankOutcome> ranks;
    std::vector<protocol::Event> merged; // arrival order across ranks
    bool cancelled = false;
    bool timedOut = false;
    bool detached = false; // following stopped on request; the ranks keep running on their nodes
    std::vector<int> lostNodes;
    bool peersStopped = false; // a rank failed and the others were stopped after the peer grace
    bool success() const;      // every rank exited 0 and none reported an error event
};

struct RemoteRunCallbacks {
    std::function<void(const protocol::Event&)> onEvent;
    std::function<void(int rank, const std::string& line)> onLog;
};

struct FollowOptions {
    std::chrono::milliseconds pollInterval { 500 };
    std::chrono::seconds timeout { 0 };     // whole-run wall clock from now; 0 = none
    std::chrono::seconds cancelGrace { 5 }; // SIGTERM, then SIGKILL after this
    // After the first rank ends with a failure (a non-zero exit, a signal, its node lost), how long the
    // others get to end on their own (they should report a comm error) before they are stopped as
    // for a cancel, so a failure on one node does not leave the others' ranks waiting on their peers.
    // 0 = they are not stopped (the timeout, if any, still applies).
    std::chrono::seconds peerGrace { 60 };
    // When set, following stops (the app closing) without touching the ranks; re-attach later
    // with the same offsets.
    const std::atomic<bool>* detach = nullptr;
};

// A TCP port in [low, high] that no socket on the node behind `session` uses now (listening,
// connected or in TIME_WAIT, as its /proc/net/tcp and tcp6 list them), taken at random among those
// free, so that programs choosing at the same time for the same node rarely collide. For a
// rendezvous on that node. A node that does not list its sockets (not Linux) gets a random port of
// the range. Throws std::runtime_error when every port of the range is in use, SshError when the
// node cannot be asked.
int pickFreeRemotePort(SshSession& session, int low, int high);

// Starts every rank and returns at once. sessions[i] reaches launch.nodes[i].
RemoteRun startRemoteRun(const RemoteLaunch& launch, const std::vector<SshSession*>& sessions);

// Follows the run until every rank has an exit status or is lost; a set `cancel` (or the timeout)
// stops every rank on every node. Works the same for a fresh run and for a re-attach.
RemoteRunResult followRemoteRun(const RemoteRun& run, const std::vector<SshSession*>& sessions,
                                RemoteRunOffsets& offsets, const RemoteRunCallbacks& callbacks = {},
                                const std::atomic<bool>* cancel = nullptr, const FollowOptions& options = {});

// SIGTERM to every rank still running, SIGKILL after `grace`.
void cancelRemoteRun(const RemoteRun& run, const std::vector<SshSession*>& sessions, std::chrono::seconds grace);

namespace detail {
// What one collection round trip read from a node (frames "F <file> <offset> <length>\n<bytes>",
// "X <rank> <status>\n", "D <rank>\n").
struct Collected {
    std::map<std::string, std::pair<std::uint64_t, std::string>> chunks; // file -> (offset, bytes)
    std::map<int, std::string> exits;                                    // rank -> "exit N" / "signal N"
    std::set<int> gone;                                                  // pid dead, no exit file
};
// Parses a node's reply. A frame whose length runs past the reply (a length near 2^64 included: the
// bounds are compared without adding), a file name that is not rank<N>.out / .log, or a rank outside
// [0, 1 << 20] is a std::runtime_error naming it; every frame advances, so a reply of any content
// is read in one pass.
Collected parseCollected(const std::string& data);
} // namespace detail

} // namespace shardwise::dispatch
