#include "remote_following.hpp"

#include "run_heartbeat.hpp"
#include "session_outcome.hpp"

#include <chrono>
#include <memory>

namespace shardwise::session::detail {

namespace {

std::string describeLost(const dispatch::RemoteRunResult& remote)
{
    for (const auto& r : remote.ranks)
        if (r.ending == dispatch::CommandEnding::Lost)
            return "rank " + std::to_string(r.rank) + " lost: " + r.lostReason;
    return "a node was lost";
}

// Keeps each rank's log for the diagnosis; a rank that writes without end keeps its newest lines,
// where a failure is reported.
class RankLogs {
public:
    void add(int rank, const std::string& line)
    {
        auto& lines = m_lines[rank];
        lines.push_back(line);
        if (lines.size() > kMaxLines)
            lines.erase(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(kMaxLines / 2));
    }
    const std::map<int, std::vector<std::string>>& lines() const { return m_lines; }

private:
    static constexpr std::size_t kMaxLines = 20000;
    std::map<int, std::vector<std::string>> m_lines;
};

// The earlier output goes in front of what this follower read, so the outcome and the diagnosis see
// the whole run.
void prependEarlier(dispatch::RemoteRunResult& remote, const EarlierOutput& earlier)
{
    std::vector<protocol::Event> merged;
    for (auto& rank : remote.ranks) {
        if (const auto e = earlier.events.find(rank.rank); e != earlier.events.end()) {
            rank.events.insert(rank.events.begin(), e->second.begin(), e->second.end());
            merged.insert(merged.end(), e->second.begin(), e->second.end());
        }
        if (const auto p = earlier.protocolErrors.find(rank.rank); p != earlier.protocolErrors.end())
            rank.protocolErrors.insert(rank.protocolErrors.begin(), p->second.begin(), p->second.end());
        if (const auto l = earlier.logLines.find(rank.rank); l != earlier.logLines.end()) {
            std::string tail;
            for (const auto& line : l->second)
                tail += line + "\n";
            rank.logTail = tail + rank.logTail;
            constexpr std::size_t kTailBytes = 8192; // as much as the follower keeps
            if (rank.logTail.size() > kTailBytes)
                rank.logTail.erase(0, rank.logTail.size() - kTailBytes);
        }
    }
    remote.merged.insert(remote.merged.begin(), merged.begin(), merged.end());
}

} // namespace

void followToConclusion(RunRecording& recording, const FollowedRun& run, dispatch::RemoteRunOffsets& offsets,
                        const EarlierOutput& earlier, const SessionOptions& options, const SessionCallbacks& callbacks,
                        const std::atomic<bool>* cancel, SessionResult& result)
{
    RankLogs logs;
    for (const auto& [rank, lines] : earlier.logLines)
        for (const auto& line : lines)
            logs.add(rank, line);
    recording.keepFollowerOffsets(offsets);
    std::unique_ptr<RunHeartbeat> heartbeat;
    if (recording.recording() && result.runId)
        heartbeat = std::make_unique<RunHeartbeat>(recording.database()->path(), *result.runId);

    const auto forward = recordingCallbacks<dispatch::RemoteRunCallbacks>(
        recording, callbacks, [&logs](int rank, const std::string& line) { logs.add(rank, line); });
    dispatch::FollowOptions follow = run.follow;
    // Detaching leaves a run only a store can find again: one whose handle is stored.
    follow.detach = recording.recording() ? options.detach : nullptr;
    const auto started = std::chrono::steady_clock::now();
    dispatch::RemoteRunResult remote
        = dispatch::followRemoteRun(run.handle, run.sessions, offsets, forward, cancel, follow);
    heartbeat.reset();
    const double wall
        = run.earlierWallSeconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    if (remote.detached) {
        recording.detach(offsets, "detached: following stopped on purpose; its ranks go on running on their nodes");
        result.detached = true;
        result.outcome.config = run.requested;
        result.outcome.status = dispatch::RunStatus::Cancelled;
        result.outcome.reason = "detached: the ranks go on running on their nodes";
        result.outcome.logDir = run.handle.runDir;
        result.outcome.wallSeconds = wall;
        result.storeProblem = recording.problem();
        return;
    }
    // A node whose connection dropped while its ranks had not finished: they may well run on (a
    // network blip, a laptop asleep), so concluding would throw the rest of the run away. While the
    // run can be found again it is kept detached instead: re-attach it when the node answers, or
    // abandon it when the node is gone.
    if (!remote.lostNodes.empty() && !remote.cancelled && !remote.timedOut && recording.recording()) {
        std::string nodes;
        for (const int node : remote.lostNodes) {
            const std::string name = node >= 0 && node < static_cast<int>(run.nodeNames.size())
                ? run.nodeNames[static_cast<std::size_t>(node)]
                : "node " + std::to_string(node);
            nodes += (nodes.empty() ? "'" : ", '") + name + "'";
        }
        const std::string reason = "the connection to " + nodes + " was lost (" + describeLost(remote)
            + "); the run is kept detached: re-attach it when the node answers, or abandon it";
        recording.detach(offsets, reason);
        result.detached = true;
        result.lost = true;
        result.outcome.config = run.requested;
        result.outcome.status = dispatch::RunStatus::Cancelled;
        result.outcome.reason = reason;
        result.outcome.logDir = run.handle.runDir;
        result.outcome.wallSeconds = wall;
        result.storeProblem = recording.problem();
        return;
    }
    prependEarlier(remote, earlier);
    result.outcome = dispatch::summarizeRun(run.requested, asLaunchResult(remote, wall, run.masterPort));
    result.outcome.logDir = run.handle.runDir; // on the nodes
    bool anyLost = !remote.lostNodes.empty();
    for (const auto& r : remote.ranks)
        anyLost = anyLost || r.ending == dispatch::CommandEnding::Lost;
    store::RunStatus status = store::statusForOutcome(dispatch::runStatusId(result.outcome.status));
    if (anyLost && !remote.cancelled && !remote.timedOut) {
        result.lost = true;
        result.outcome.status = dispatch::RunStatus::Failed;
        result.outcome.reason = describeLost(remote);
        status = store::RunStatus::Lost;
    }
    concludeRun(recording, options, remoteRankRecords(remote, logs.lines(), run.nodeNames, store::currentUnixTime()),
                status, result);
}

} // namespace shardwise::session::detail
