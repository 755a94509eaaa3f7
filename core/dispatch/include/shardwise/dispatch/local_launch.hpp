#pragma once
// Launching the runner's ranks as local processes, torchrun-style: each rank gets RANK, WORLD_SIZE,
// LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR and MASTER_PORT in its environment. stdout carries the
// JSON Lines protocol (parsed here), stderr the human log (kept per rank in a file and tailed).
// Reports through plain callbacks; knows nothing of Qt.

#include "shardwise/protocol/events.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardwise::dispatch {

// The ranks could not be started at all (runner missing or not executable, no pipes, bad request).
// Failures of started ranks are results (RankOutcome), never exceptions.
class LaunchError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Every rank of a local launch finds in this variable the rendezvous file the launcher created for it
// in the run folder (kRendezvousFileName, mode 0600, removed when the ranks are gone): the torch
// backend's ranks meet through a FileStore there instead of a TCP store listening on every interface.
// The native runner ignores it (its rendezvous listens on MASTER_ADDR only).
inline constexpr const char* kRendezvousFileEnv = "SHARDWISE_RENDEZVOUS_FILE";
inline constexpr const char* kRendezvousFileName = "rendezvous.store";

struct LocalLaunch {
    std::filesystem::path runner;  // the program each rank runs (runner_program.hpp)
    std::vector<std::string> args; // arguments, identical for every rank
    int ranks = 1;
    std::map<std::string, std::string> env; // extra environment for every rank
    std::string masterAddr = "127.0.0.1";
    int masterPort = 0;                 // 0 = pick a free port
    std::filesystem::path logDir;       // per-rank stderr logs (rank<N>.log); empty = a fresh temp dir
    std::chrono::seconds timeout { 0 }; // whole-run wall clock limit; 0 = none
    // After the first rank exits with a failure, how long the others get to exit on their own
    // (they should report a comm error) before they are killed.
    std::chrono::seconds peerGrace { 60 };
    // How long a rank gets between SIGTERM and SIGKILL when the launcher stops it (cancel, timeout,
    // peer failure): long enough for a runner to abort its communicators and say why.
    std::chrono::milliseconds terminateGrace { 3000 };
};

struct RankOutcome {
    int rank = 0;
    int exitCode = -1;     // -1 when killed by a signal
    int signal = 0;        // terminating signal, 0 if none
    bool timedOut = false; // killed by the launcher's timeout
    bool killedByLauncher = false;
    std::vector<protocol::Event> events;
    std::vector<std::string> protocolErrors; // stdout lines that claimed to be events but were malformed
    std::filesystem::path logFile;
    std::string logTail;          // last ~8 KiB of stderr
    std::size_t foreignLines = 0; // stdout lines that were not events (kept in the log as "stdout: ...")

    bool succeeded() const; // exited 0 on its own, no signal, no error event
};

struct LaunchResult {
    std::vector<RankOutcome> ranks;
    std::vector<protocol::Event> merged; // all ranks' events in arrival order
    int masterPort = 0;
    bool cancelled = false;
    bool timedOut = false;
    std::filesystem::path logDir;
    double wallSeconds = 0;
    bool success() const; // every rank exited 0 and none reported an error event
};

struct LaunchCallbacks {
    std::function<void(const protocol::Event&)> onEvent;          // called as events arrive
    std::function<void(int rank, const std::string& line)> onLog; // each stderr line
};

// Blocks until every rank has exited (or been killed on cancel/timeout). `cancel`, when set to
// true from another thread, terminates every rank (SIGTERM, then SIGKILL after a grace period).
LaunchResult launchLocal(const LocalLaunch& launch, const LaunchCallbacks& callbacks = {},
                         const std::atomic<bool>* cancel = nullptr);

// A TCP port on 127.0.0.1 that was free when asked (another process may still take it before the
// ranks bind it; the rendezvous then fails loudly rather than silently).
int findFreePort();

// The program that runs `backend` (runner_program.hpp). Native: $SHARDWISE_RUNNER when set (returned
// even if it does not exist, so the caller can name the misconfiguration); else shardwise-runner
// beside the running executable or in <exe>/../bin; nullopt when neither exists. No build tree is
// searched: tests and tools outside <build>/bin set $SHARDWISE_RUNNER (CTest does). Torch:
// $SHARDWISE_TORCH_RUNNER when set, else shardwise-torch-runner beside $SHARDWISE_RUNNER when that is
// set, else the same places.
std::optional<std::filesystem::path> locateRunner(RunBackend backend = RunBackend::Native);

} // namespace shardwise::dispatch
