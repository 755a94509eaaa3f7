#include "session_outcome.hpp"

#include <csignal>
#include <cstring>

namespace shardwise::session::detail {

int signalNumber(const std::string& name)
{
    // sigabbrev_np (glibc 2.32) is the inverse of what the remote follower used to name it.
    for (int n = 1; n < NSIG; ++n)
        if (const char* abbrev = ::sigabbrev_np(n); abbrev && name == abbrev)
            return n;
    if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos)
        return std::stoi(name);
    return 0;
}

dispatch::LaunchResult asLaunchResult(const dispatch::RemoteRunResult& remote, double wallSeconds, int masterPort)
{
    dispatch::LaunchResult launch;
    launch.merged = remote.merged;
    launch.cancelled = remote.cancelled;
    launch.timedOut = remote.timedOut;
    launch.wallSeconds = wallSeconds;
    launch.masterPort = masterPort;
    for (const dispatch::RemoteRankOutcome& r : remote.ranks) {
        dispatch::RankOutcome rank;
        rank.rank = r.rank;
        rank.events = r.events;
        rank.protocolErrors = r.protocolErrors;
        rank.logTail = r.logTail;
        if (r.ending == dispatch::CommandEnding::Exited) {
            rank.exitCode = r.exitCode;
        } else {
            rank.exitCode = -1;
            if (r.ending == dispatch::CommandEnding::Signalled)
                rank.signal = signalNumber(r.signal);
            // Only a cancel, the timeout or a peer's failure makes the launcher signal ranks; other
            // signals came from elsewhere (the OOM killer, an operator).
            rank.killedByLauncher = remote.cancelled || remote.timedOut || r.stoppedAfterPeerFailure;
            rank.timedOut = remote.timedOut;
        }
        launch.ranks.push_back(std::move(rank));
    }
    return launch;
}

std::vector<diagnose::RankRecord> remoteRankRecords(const dispatch::RemoteRunResult& remote,
                                                    const std::map<int, std::vector<std::string>>& logLines,
                                                    const std::vector<std::string>& nodeNames, double lostTime)
{
    std::vector<diagnose::RankRecord> records;
    for (const dispatch::RemoteRankOutcome& r : remote.ranks) {
        diagnose::RankRecord record;
        record.rank = r.rank;
        if (r.node >= 0 && static_cast<std::size_t>(r.node) < nodeNames.size())
            record.node = nodeNames[static_cast<std::size_t>(r.node)];
        record.logName = "rank" + std::to_string(r.rank) + ".log";
        if (const auto it = logLines.find(r.rank); it != logLines.end())
            record.logLines = it->second;
        record.events = r.events;
        record.eventsName = "rank" + std::to_string(r.rank) + ".out";
        switch (r.ending) {
        case dispatch::CommandEnding::Exited:
            record.exitCode = r.exitCode;
            break;
        case dispatch::CommandEnding::Signalled:
            if (const int n = signalNumber(r.signal); n != 0)
                record.signal = n;
            break;
        default:
            record.lost = true;
            record.lostReason = r.lostReason;
            record.lostTime = lostTime;
            break;
        }
        records.push_back(std::move(record));
    }
    return records;
}

} // namespace shardwise::session::detail
