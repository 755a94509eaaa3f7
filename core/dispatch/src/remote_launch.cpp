#include "shardwise/dispatch/remote_launch.hpp"

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/shell_quote.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace shardwise::dispatch {

namespace {

std::string rankFile(int rank, const char* kind)
{
    return "rank" + std::to_string(rank) + "." + kind;
}

std::string generatedRunId()
{
    std::random_device rd;
    std::ostringstream id;
    id << "run-"
       << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count()
       << "-" << std::hex << (static_cast<unsigned long long>(rd()) << 32 | rd());
    return id.str();
}

// The per-rank wrapper, run by `sh -c` in the run directory. The runner runs as a background child
// so its pid can be recorded and signalled alone; `wait` then yields 128+N when signal N killed it.
// The exit file is written under a temporary name and renamed, so a reader never sees half of it.
std::string rankWrapper(int rank)
{
    const std::string out = rankFile(rank, "out"), log = rankFile(rank, "log"), pid = rankFile(rank, "pid"),
                      exitFile = rankFile(rank, "exit");
    return "\"$@\" > " + out + " 2> " + log + " < /dev/null & echo $! > " + pid + ".tmp && mv " + pid + ".tmp " + pid
        + "; wait $!; s=$?; if [ $s -gt 128 ]; then r=\"signal $((s - 128))\"; else r=\"exit $s\"; fi; printf '%s\\n' "
          "\"$r\" > "
        + exitFile + ".tmp && mv " + exitFile + ".tmp " + exitFile;
}

std::string signalName(int number)
{
    if (const char* abbrev = ::sigabbrev_np(number))
        return abbrev;
    return std::to_string(number);
}

struct LineBuffer {
    std::string partial;
};

struct RankState {
    RemoteRankOutcome outcome;
    bool exitSeen = false;
    bool finished = false;
    int goneCount = 0; // consecutive polls that found the pid dead without an exit file
    LineBuffer out, log;
};

using detail::Collected;
using detail::parseCollected;

// One round trip per node: new bytes of every unfinished rank's files from their offsets, exit
// statuses, and ranks whose process vanished. Frames: "F <file> <offset> <length>\n<bytes>",
// "X <rank> <status>\n", "D <rank>\n".
std::string collectScript(const std::string& runDir, const std::vector<int>& ranks, const RemoteRunOffsets& offsets)
{
    std::string s = "cd " + shellQuote(runDir)
        + " || exit 3\n"
          "frame() { f=$1; off=$2; [ -f \"$f\" ] || return 0; size=$(wc -c < \"$f\"); "
          "if [ \"$size\" -gt \"$off\" ]; then n=$((size - off)); printf 'F %s %s %s\\n' \"$f\" \"$off\" \"$n\"; "
          "tail -c +$((off + 1)) \"$f\" | head -c \"$n\"; fi; }\n";
    for (int r : ranks) {
        for (const char* kind : { "out", "log" }) {
            const std::string f = rankFile(r, kind);
            const auto it = offsets.find(f);
            s += "frame " + f + " " + std::to_string(it == offsets.end() ? 0 : it->second) + "\n";
        }
        const std::string exitFile = rankFile(r, "exit"), pid = rankFile(r, "pid");
        s += "if [ -f " + exitFile + " ]; then printf 'X %s %s\\n' " + std::to_string(r) + " \"$(cat " + exitFile
            + ")\"; "
              "elif [ -f "
            + pid + " ] && ! kill -0 \"$(cat " + pid + ")\" 2>/dev/null && [ ! -f " + exitFile + " ]; then echo 'D "
            + std::to_string(r) + "'; fi\n";
    }
    return s;
}

class Follower {
public:
    Follower(const RemoteRun& r, const std::vector<SshSession*>& s, RemoteRunOffsets& o, const RemoteRunCallbacks& cb,
             const std::atomic<bool>* c)
        : cancel(c)
        , run(r)
        , sessions(s)
        , offsets(o)
        , callbacks(cb)
    {
        for (const auto& p : run.ranks) {
            RankState st;
            st.outcome.rank = p.rank;
            st.outcome.node = p.node;
            ranks[p.rank] = std::move(st);
        }
    }

    bool allFinished() const
    {
        for (const auto& [rank, st] : ranks)
            if (!st.finished)
                return false;
        return true;
    }

    // Whether some rank has ended with a failure: a non-zero exit, a signal, or lost with its node.
    bool anyFailed() const
    {
        for (const auto& [rank, st] : ranks)
            if (st.finished && (st.outcome.ending != CommandEnding::Exited || st.outcome.exitCode != 0))
                return true;
        return false;
    }

    std::vector<int> unfinishedRanks() const
    {
        std::vector<int> out;
        for (const auto& [rank, st] : ranks)
            if (!st.finished)
                out.push_back(rank);
        return out;
    }

    void poll()
    {
        for (int node = 0; node < run.nodeCount; ++node) {
            if (lostNodes.count(node))
                continue;
            if (watchCancel && cancel && cancel->load())
                return;
            std::vector<int> pending;
            for (const auto& [rank, st] : ranks)
                if (st.outcome.node == node && !st.finished)
                    pending.push_back(rank);
            if (pending.empty())
                continue;
            SshSession& session = *sessions.at(static_cast<std::size_t>(node));
            try {
                CommandIo io;
                io.timeout = std::chrono::seconds(60);
                const auto out
                    = session.run(std::vector<std::string> { "sh", "-c", collectScript(run.runDir, pending, offsets) },
                                  io, watchCancel ? cancel : nullptr);
                // A cancel (Ctrl-C, SIGTERM) ends the wait on a slow or silent node at once; the
                // caller then stops the ranks.
                if (out.ending == CommandEnding::Cancelled)
                    return;
                if (!out.succeeded())
                    throw SshError(SshFailure::Protocol,
                                   "collecting from the run directory failed (" + out.describe()
                                       + "): " + out.stderrData);
                absorb(parseCollected(out.stdoutData));
                failedPolls.erase(node);
            } catch (const std::runtime_error& e) {
                // SshError, or output the collection cannot read (a shell that prints on its own, a
                // file that shrank). A connection that still works gets a few more polls (a
                // momentary failure on the node: a full process table, a refused channel); a dead
                // one, or a failure that persists, loses the node. A wait the cancel interrupted
                // is no failure of the node.
                if (watchCancel && cancel && cancel->load())
                    return;
                if (!session.usable() || ++failedPolls[node] >= kFailedPollsBeforeLost)
                    loseNode(node, e.what());
            }
        }
    }

    // Once the ranks are being stopped (a cancel, the timeout, a failed peer), polls run to the end
    // again to collect the endings the signals produce; each is still bounded by its own timeout.
    void stopWatchingCancel() { watchCancel = false; }

    void loseNode(int node, const std::string& why)
    {
        lostNodes.insert(node);
        for (auto& [rank, st] : ranks) {
            if (st.outcome.node != node || st.finished)
                continue;
            st.outcome.ending = CommandEnding::Lost;
            st.outcome.lostReason = "node " + std::to_string(node) + " lost: " + why;
            st.finished = true;
        }
    }

    // `complete`: the run is over, so a last line without a newline counts; when detaching, partial
    // lines stay unconsumed for the re-attach.
    RemoteRunResult result(bool complete)
    {
        RemoteRunResult r;
        for (auto& [rank, st] : ranks) {
            // A rank on a node that was lost may be in the middle of a line: it stays unconsumed,
            // so a re-attach reads it whole.
            flushPartial(st, complete && !lostNodes.count(st.outcome.node));
            r.ranks.push_back(st.outcome);
        }
        r.merged = merged;
        r.lostNodes.assign(lostNodes.begin(), lostNodes.end());
        return r;
    }

private:
    void absorb(const Collected& c)
    {
        for (const auto& [file, chunk] : c.chunks) {
            const int rank = std::atoi(file.c_str() + 4);
            auto it = ranks.find(rank);
            if (it == ranks.end())
                continue;
            const bool isOut = file.size() > 4 && file.compare(file.size() - 4, 4, ".out") == 0;
            feed(it->second, isOut, file, chunk.first, chunk.second);
        }
        for (auto& [rank, st] : ranks) {
            if (st.finished)
                continue;
            if (const auto e = c.exits.find(rank); e != c.exits.end()) {
                // The output read in the same round trip may predate the exit; finish on the next poll.
                if (st.exitSeen) {
                    setEnding(st, e->second);
                    flushPartial(st, true);
                    st.finished = true;
                }
                st.exitSeen = true;
            } else if (c.gone.count(rank)) {
                if (++st.goneCount >= 2) {
                    st.outcome.ending = CommandEnding::Lost;
                    st.outcome.lostReason = "the rank's process is gone and left no exit status (killed with its "
                                            "wrapper, or the node rebooted)";
                    st.finished = true;
                }
            } else {
                st.goneCount = 0;
            }
        }
    }

    static void setEnding(RankState& st, const std::string& status)
    {
        int value = 0;
        if (std::sscanf(status.c_str(), "exit %d", &value) == 1) {
            st.outcome.ending = CommandEnding::Exited;
            st.outcome.exitCode = value;
        } else if (std::sscanf(status.c_str(), "signal %d", &value) == 1) {
            st.outcome.ending = CommandEnding::Signalled;
            st.outcome.signal = signalName(value);
        } else {
            st.outcome.ending = CommandEnding::Lost;
            st.outcome.lostReason = "unreadable exit status '" + status + "'";
        }
    }

    // Offsets advance only past complete lines, so a re-attach never splits or repeats a line. The
    // collection reads each file from its offset, so the start of an unfinished line kept from an
    // earlier poll arrives again: `bytes`, read from `chunkOffset` on, are new only beyond it.
    void feed(RankState& st, bool isOut, const std::string& file, std::uint64_t chunkOffset, const std::string& bytes)
    {
        LineBuffer& buf = isOut ? st.out : st.log;
        const std::uint64_t seen = offsets[file] + buf.partial.size();
        if (chunkOffset > seen)
            throw std::runtime_error("run collection: " + file + " was read from byte " + std::to_string(chunkOffset)
                                     + " but only " + std::to_string(seen) + " bytes were seen");
        if (chunkOffset + bytes.size() <= seen)
            return;
        buf.partial.append(bytes, static_cast<std::size_t>(seen - chunkOffset), std::string::npos);
        std::size_t nl;
        while ((nl = buf.partial.find('\n')) != std::string::npos) {
            const std::string line = buf.partial.substr(0, nl);
            buf.partial.erase(0, nl + 1);
            offsets[file] += line.size() + 1;
            deliver(st, isOut, line);
        }
    }

    void flushPartial(RankState& st, bool final)
    {
        if (!final)
            return;
        for (bool isOut : { true, false }) {
            LineBuffer& buf = isOut ? st.out : st.log;
            if (buf.partial.empty())
                continue;
            offsets[rankFile(st.outcome.rank, isOut ? "out" : "log")] += buf.partial.size();
            deliver(st, isOut, buf.partial);
            buf.partial.clear();
        }
    }

    void deliver(RankState& st, bool isOut, const std::string& line)
    {
        if (!isOut) {
            st.outcome.logTail += line + "\n";
            if (st.outcome.logTail.size() > 8192)
                st.outcome.logTail.erase(0, st.outcome.logTail.size() - 8192);
            if (callbacks.onLog)
                callbacks.onLog(st.outcome.rank, line);
            return;
        }
        try {
            if (auto ev = protocol::tryParseEvent(line)) {
                st.outcome.events.push_back(*ev);
                merged.push_back(*ev);
                if (callbacks.onEvent)
                    callbacks.onEvent(*ev);
            }
        } catch (const protocol::ProtocolError& e) {
            st.outcome.protocolErrors.push_back(std::string(e.what()) + ": " + line.substr(0, 200));
        }
    }

    const std::atomic<bool>* cancel;
    bool watchCancel = true; // until the ranks are being stopped: then polls collect their endings
    const RemoteRun& run;
    const std::vector<SshSession*>& sessions;
    RemoteRunOffsets& offsets;
    const RemoteRunCallbacks& callbacks;
    std::map<int, RankState> ranks;
    std::vector<protocol::Event> merged;
    std::set<int> lostNodes;
    std::map<int, int> failedPolls; // node -> polls in a row that failed on a working connection
    static constexpr int kFailedPollsBeforeLost = 3;
};

} // namespace

bool RemoteRunResult::success() const
{
    if (cancelled || timedOut || detached || !lostNodes.empty() || ranks.empty())
        return false;
    for (const auto& r : ranks) {
        if (r.ending != CommandEnding::Exited || r.exitCode != 0)
            return false;
        for (const auto& e : r.events)
            if (std::holds_alternative<protocol::ErrorEvent>(e))
                return false;
    }
    return true;
}

int pickFreeRemotePort(SshSession& session, int low, int high)
{
    if (low < 1 || high > 65535 || low > high)
        throw std::invalid_argument("pick a free port: " + std::to_string(low) + ".." + std::to_string(high)
                                    + " is not a port range");
    CommandIo io;
    io.timeout = std::chrono::seconds(30);
    const auto listed = session.run(
        std::vector<std::string> { "sh", "-c", "cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; exit 0" }, io);
    // Lines after each header: "  sl  local_address rem_address st ...", the local address being
    // HEXIP:HEXPORT.
    std::set<int> used;
    std::istringstream lines(listed.stdoutData);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream fields(line);
        std::string slot, local;
        if (!(fields >> slot >> local) || slot.empty() || slot.back() != ':')
            continue;
        const auto colon = local.rfind(':');
        if (colon == std::string::npos)
            continue;
        char* end = nullptr;
        const long port = std::strtol(local.c_str() + colon + 1, &end, 16);
        if (end && *end == '\0')
            used.insert(static_cast<int>(port));
    }
    std::vector<int> free;
    for (int port = low; port <= high; ++port)
        if (!used.count(port))
            free.push_back(port);
    if (free.empty())
        throw std::runtime_error("every port of " + std::to_string(low) + ".." + std::to_string(high) + " is in use on "
                                 + session.endpoint().host);
    std::random_device entropy;
    std::uniform_int_distribution<std::size_t> pick(0, free.size() - 1);
    return free[pick(entropy)];
}

RemoteRun startRemoteRun(const RemoteLaunch& launch, const std::vector<SshSession*>& sessions)
{
    if (launch.nodes.empty())
        throw std::invalid_argument("remote launch: no nodes");
    if (sessions.size() != launch.nodes.size())
        throw std::invalid_argument("remote launch: " + std::to_string(launch.nodes.size()) + " nodes but "
                                    + std::to_string(sessions.size()) + " SSH sessions");
    if (launch.masterPort <= 0 || launch.masterPort > 65535)
        throw std::invalid_argument("remote launch: masterPort " + std::to_string(launch.masterPort)
                                    + " is not in 1..65535");
    RemoteRun run;
    run.runId = launch.runId.empty() ? generatedRunId() : launch.runId;
    if (run.runId.find('/') != std::string::npos || run.runId == "." || run.runId == "..")
        throw std::invalid_argument("remote launch: run id '" + run.runId + "' must be a plain name");
    run.runDir = launch.runRoot + "/" + run.runId;
    run.nodeCount = static_cast<int>(launch.nodes.size());
    run.masterPort = launch.masterPort;
    for (std::size_t n = 0; n < launch.nodes.size(); ++n) {
        if (launch.nodes[n].ranks <= 0)
            throw std::invalid_argument("remote launch: node " + std::to_string(n) + " has no ranks");
        if (launch.nodes[n].runnerPath.empty())
            throw std::invalid_argument("remote launch: node " + std::to_string(n) + " has no runner path");
        for (int l = 0; l < launch.nodes[n].ranks; ++l)
            run.ranks.push_back({ run.world++, static_cast<int>(n), l });
    }
    const std::string masterAddr
        = launch.nodes[0].address.empty() ? sessions[0]->endpoint().host : launch.nodes[0].address;
    for (std::size_t n = 0; n < launch.nodes.size(); ++n) {
        const RemoteNode& node = launch.nodes[n];
        std::string script = "mkdir -p " + shellQuote(run.runDir) + " && cd " + shellQuote(run.runDir) + " || exit 3\n";
        for (const auto& p : run.ranks) {
            if (p.node != static_cast<int>(n))
                continue;
            std::vector<std::string> command { "env" };
            std::map<std::string, std::string> env = launch.env;
            for (const auto& [k, v] : node.env)
                env[k] = v;
            env["RANK"] = std::to_string(p.rank);
            env["WORLD_SIZE"] = std::to_string(run.world);
            env["LOCAL_RANK"] = std::to_string(p.localRank);
            env["LOCAL_WORLD_SIZE"] = std::to_string(node.ranks);
            env["MASTER_ADDR"] = masterAddr;
            env["MASTER_PORT"] = std::to_string(launch.masterPort);
            // One node's ranks meet through a file in the run directory (their working directory),
            // as local ranks do (local_launch.hpp); several nodes keep the TCP rendezvous.
            if (launch.nodes.size() == 1)
                env[kRendezvousFileEnv] = kRendezvousFileName;
            else
                env.erase(kRendezvousFileEnv);
            for (const auto& [k, v] : env)
                command.push_back(k + "=" + v);
            command.insert(command.end(),
                           { "setsid", "nohup", "sh", "-c", rankWrapper(p.rank), "sh", node.runnerPath });
            command.insert(command.end(), launch.args.begin(), launch.args.end());
            // Detached from the SSH channel: no descriptor of the session stays open in the rank.
            script += shellCommand(command) + " < /dev/null > /dev/null 2>&1 &\n";
        }
        script += "for i in $(seq 1 50); do n=0; for f in rank*.pid; do [ -f \"$f\" ] && n=$((n + 1)); done; "
                  "[ \"$n\" -ge "
            + std::to_string(node.ranks) + " ] && exit 0; sleep 0.1; done; echo 'ranks did not start' >&2; exit 4\n";
        CommandIo io;
        io.timeout = std::chrono::seconds(30);
        const auto out = sessions[n]->run(std::vector<std::string> { "sh", "-c", script }, io);
        if (!out.succeeded())
            throw SshError(SshFailure::Protocol,
                           "starting ranks on " + sessions[n]->endpoint().host + " failed (" + out.describe()
                               + "): " + out.stderrData);
    }
    return run;
}

void cancelRemoteRun(const RemoteRun& run, const std::vector<SshSession*>& sessions, std::chrono::seconds grace)
{
    const std::string signalAll = "cd " + shellQuote(run.runDir)
        + " || exit 0; for f in rank*.pid; do [ -f \"$f\" ] || continue; "
          "p=$(cat \"$f\"); kill -SIG \"$p\" 2>/dev/null; done; exit 0";
    auto each = [&](const std::string& sig) {
        for (auto* s : sessions) {
            if (!s || !s->usable())
                continue;
            std::string cmd = signalAll;
            cmd.replace(cmd.find("SIG"), 3, sig);
            try {
                s->run(std::vector<std::string> { "sh", "-c", cmd });
            } catch (const SshError&) {
                // A node we cannot reach any more is reported lost by the follower.
            }
        }
    };
    each("TERM");
    const std::string allExited = "cd " + shellQuote(run.runDir)
        + " || exit 0; for f in rank*.pid; do [ -f \"$f\" ] || continue; "
          "kill -0 \"$(cat \"$f\")\" 2>/dev/null && exit 1; done; exit 0";
    const auto until = std::chrono::steady_clock::now() + grace;
    while (std::chrono::steady_clock::now() < until) {
        bool done = true;
        for (auto* s : sessions) {
            if (!s || !s->usable())
                continue;
            try {
                done = done && s->run(std::vector<std::string> { "sh", "-c", allExited }).succeeded();
            } catch (const SshError&) {
            }
        }
        if (done)
            return;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    each("KILL");
}

RemoteRunResult followRemoteRun(const RemoteRun& run, const std::vector<SshSession*>& sessions,
                                RemoteRunOffsets& offsets, const RemoteRunCallbacks& callbacks,
                                const std::atomic<bool>* cancel, const FollowOptions& options)
{
    if (static_cast<int>(sessions.size()) != run.nodeCount)
        throw std::invalid_argument("follow remote run: " + std::to_string(run.nodeCount) + " nodes but "
                                    + std::to_string(sessions.size()) + " SSH sessions");
    Follower follower(run, sessions, offsets, callbacks, cancel);
    const auto deadline = options.timeout.count() > 0 ? std::chrono::steady_clock::now() + options.timeout
                                                      : std::chrono::steady_clock::time_point::max();
    bool cancelled = false, timedOut = false, detached = false;
    auto peerDeadline = std::chrono::steady_clock::time_point::max();
    std::vector<int> stoppedRanks; // still running when the follower stopped them after a peer failed
    while (true) {
        follower.poll();
        if (follower.allFinished())
            break;
        if (options.detach && options.detach->load() && !cancelled && !timedOut) {
            detached = true;
            break;
        }
        const auto now = std::chrono::steady_clock::now();
        const bool wantCancel = cancel && cancel->load();
        const bool pastDeadline = now >= deadline;
        const bool stopping = cancelled || timedOut || !stoppedRanks.empty();
        if ((wantCancel && !cancelled) || (pastDeadline && !timedOut && !cancelled)) {
            cancelled = wantCancel;
            timedOut = !wantCancel;
            follower.stopWatchingCancel();
            cancelRemoteRun(run, sessions, options.cancelGrace);
            continue; // collect the exit statuses the signals produced
        }
        if (!stopping && options.peerGrace.count() > 0) {
            if (peerDeadline == std::chrono::steady_clock::time_point::max() && follower.anyFailed())
                peerDeadline = now + options.peerGrace;
            if (now >= peerDeadline) {
                stoppedRanks = follower.unfinishedRanks();
                follower.stopWatchingCancel();
                cancelRemoteRun(run, sessions, options.cancelGrace);
                continue;
            }
        }
        std::this_thread::sleep_for(options.pollInterval);
    }
    RemoteRunResult result = follower.result(!detached);
    result.detached = detached;
    result.cancelled = cancelled;
    result.timedOut = timedOut;
    result.peersStopped = !stoppedRanks.empty();
    for (RemoteRankOutcome& r : result.ranks)
        r.stoppedAfterPeerFailure = std::find(stoppedRanks.begin(), stoppedRanks.end(), r.rank) != stoppedRanks.end();
    return result;
}

namespace detail {

namespace {
constexpr int kMaxCollectedRank = 1 << 20;

int collectedRank(std::istringstream& header, const std::string& what)
{
    long long rank = -1;
    header >> rank;
    if (!header || rank < 0 || rank > kMaxCollectedRank)
        throw std::runtime_error("run collection: bad rank in " + what + " frame");
    return static_cast<int>(rank);
}
} // namespace

Collected parseCollected(const std::string& data)
{
    Collected c;
    std::size_t pos = 0;
    while (pos < data.size()) {
        const auto nl = data.find('\n', pos);
        if (nl == std::string::npos)
            throw std::runtime_error("run collection: truncated frame header");
        const std::string line = data.substr(pos, nl - pos);
        std::istringstream header(line);
        pos = nl + 1;
        std::string tag;
        header >> tag;
        if (tag == "F") {
            std::string file;
            std::uint64_t offset = 0, length = 0;
            header >> file >> offset >> length;
            // Compared without adding: pos + length wraps for a length near 2^64.
            if (!header || length > data.size() - pos)
                throw std::runtime_error("run collection: bad frame for '" + file.substr(0, 40) + "'");
            const bool named = file.size() > 8 && file.compare(0, 4, "rank") == 0
                && file.find_first_not_of("0123456789", 4) == file.size() - 4
                && (file.compare(file.size() - 4, 4, ".out") == 0 || file.compare(file.size() - 4, 4, ".log") == 0)
                && file.size() <= 4 + 7 + 4;
            if (!named)
                throw std::runtime_error("run collection: unexpected file '" + file.substr(0, 40) + "'");
            c.chunks[file] = { offset, data.substr(pos, static_cast<std::size_t>(length)) };
            pos += static_cast<std::size_t>(length);
        } else if (tag == "X") {
            const int rank = collectedRank(header, "exit");
            std::string status;
            std::getline(header >> std::ws, status);
            c.exits[rank] = status;
        } else if (tag == "D") {
            c.gone.insert(collectedRank(header, "gone"));
        } else {
            throw std::runtime_error("run collection: unexpected line '" + line.substr(0, 40) + "'");
        }
    }
    return c;
}

} // namespace detail

} // namespace shardwise::dispatch
