#include "shardwise/session/run_session.hpp"

#include "shardwise/dispatch/ssh_session.hpp"
#include "shardwise/session/remote_run_json.hpp"
#include "shardwise/store/remote_follow.hpp"
#include "shardwise/store/runs.hpp"

#include <nlohmann/json.hpp>

#include <optional>

namespace shardwise::session {

namespace {

std::string joined(const std::vector<std::string>& parts)
{
    std::string out;
    for (const auto& p : parts)
        out += (out.empty() ? "" : ", ") + p;
    return out;
}

} // namespace

AbandonOutcome abandonRemote(store::Database& db, std::int64_t runId, const AbandonTarget& target,
                             const std::string& reason, std::chrono::seconds grace)
{
    store::requireAbandonable(db, runId); // before any node is touched

    AbandonOutcome outcome;
    std::optional<dispatch::RemoteRun> handle;
    std::string unreadable;
    if (const auto kept = store::findRemoteFollow(db, runId)) {
        try {
            handle = remoteRunFromJson(nlohmann::json::parse(kept->handleJson));
            outcome.runDir = handle->runDir;
        } catch (const std::exception& e) {
            unreadable = std::string("the stored handle cannot be read (") + e.what() + ")";
        }
    } else {
        unreadable = "no handle is kept for it";
    }

    const auto nameOf = [&](std::size_t i) {
        return i < target.nodeNames.size() ? target.nodeNames[i] : "node " + std::to_string(i);
    };
    if (handle) {
        std::vector<dispatch::SshSession*> reachable;
        for (auto* s : target.sessions)
            if (s && s->usable())
                reachable.push_back(s);
        if (!reachable.empty())
            dispatch::cancelRemoteRun(*handle, reachable, grace);
    }
    for (std::size_t i = 0; i < target.sessions.size(); ++i) {
        dispatch::SshSession* s = target.sessions[i];
        if (!handle)
            outcome.notReached.push_back(nameOf(i) + ": " + unreadable);
        else if (s && s->usable())
            outcome.stoppedOn.push_back(nameOf(i));
        else if (!s)
            outcome.notReached.push_back(nameOf(i) + ": "
                                         + (i < target.whyNotConnected.size() && !target.whyNotConnected[i].empty()
                                                ? target.whyNotConnected[i]
                                                : std::string("not connected")));
        else
            outcome.notReached.push_back(nameOf(i) + ": the connection dropped while its ranks were being stopped");
    }

    std::string note = reason.empty() ? std::string("its ranks were never followed to the end") : reason;
    if (!outcome.stoppedOn.empty())
        note += "; ranks still running were stopped on " + joined(outcome.stoppedOn);
    if (!outcome.notReached.empty())
        note += "; not reached, ranks may still run"
            + (outcome.runDir.empty() ? std::string() : " in " + outcome.runDir) + " on " + joined(outcome.notReached);
    store::abandonDetachedRun(db, runId, note);
    outcome.note = note;
    return outcome;
}

} // namespace shardwise::session
