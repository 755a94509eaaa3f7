#include "shardwise/session/run_session.hpp"

#include "remote_following.hpp"

#include "shardwise/dispatch/shell_quote.hpp"
#include "shardwise/dispatch/ssh_error.hpp"
#include "shardwise/session/remote_run_json.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/store/remote_follow.hpp"
#include "shardwise/store/runs.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

namespace shardwise::session {

namespace {

using Reason = ReattachError::Reason;

std::vector<std::string> linesOf(const std::string& bytes)
{
    std::vector<std::string> lines;
    std::istringstream in(bytes);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

// The bytes of a rank file the store already holds: the first `length` bytes, which end on a line
// boundary because offsets only ever advance past complete lines.
std::string readPrefix(dispatch::SshSession& session, const std::string& runDir, const std::string& file,
                       std::uint64_t length, const std::string& node)
{
    if (length == 0)
        return {};
    dispatch::CommandIo io;
    io.timeout = std::chrono::seconds(120);
    const auto out = session.run(std::vector<std::string> { "sh", "-c",
                                                            "cd " + dispatch::shellQuote(runDir) + " && head -c "
                                                                + std::to_string(length) + " " + file },
                                 io);
    if (!out.succeeded() || out.stdoutData.size() != length)
        throw ReattachError(Reason::RunDirectoryGone,
                            "node '" + node + "': " + runDir + "/" + file + " no longer holds the "
                                + std::to_string(length) + " bytes already recorded (" + out.describe() + ")");
    return out.stdoutData;
}

// Checks every node before anything in the store changes, and reads back what was recorded before
// the detach: the outcome and the diagnosis need the whole run, the store must not get it twice.
detail::EarlierOutput earlierOutput(const dispatch::RemoteRun& handle,
                                    const std::vector<dispatch::SshSession*>& sessions,
                                    const std::vector<std::string>& nodeNames,
                                    const dispatch::RemoteRunOffsets& offsets)
{
    detail::EarlierOutput earlier;
    for (int node = 0; node < handle.nodeCount; ++node) {
        const std::string& name = nodeNames[static_cast<std::size_t>(node)];
        dispatch::SshSession* session = sessions[static_cast<std::size_t>(node)];
        if (!session || !session->usable())
            throw ReattachError(Reason::NodeUnreachable,
                                "node '" + name + "' of run directory " + handle.runDir + " is not connected");
        try {
            dispatch::CommandIo io;
            io.timeout = std::chrono::seconds(60);
            const auto there = session->run(std::vector<std::string> { "test", "-d", handle.runDir }, io);
            if (!there.succeeded())
                throw ReattachError(Reason::RunDirectoryGone,
                                    "node '" + name + "' has no run directory " + handle.runDir + " any more ("
                                        + there.describe() + ")");
            for (const auto& placement : handle.ranks) {
                if (placement.node != node)
                    continue;
                const int rank = placement.rank;
                for (const char* kind : { "out", "log" }) {
                    const std::string file = "rank" + std::to_string(rank) + "." + kind;
                    const auto it = offsets.find(file);
                    const std::string bytes
                        = readPrefix(*session, handle.runDir, file, it == offsets.end() ? 0 : it->second, name);
                    for (const std::string& line : linesOf(bytes)) {
                        if (std::string(kind) == "log") {
                            earlier.logLines[rank].push_back(line);
                            continue;
                        }
                        try {
                            if (auto event = protocol::tryParseEvent(line))
                                earlier.events[rank].push_back(std::move(*event));
                        } catch (const protocol::ProtocolError& e) {
                            earlier.protocolErrors[rank].push_back(std::string(e.what()) + ": " + line.substr(0, 200));
                        }
                    }
                }
            }
        } catch (const dispatch::SshError& e) {
            throw ReattachError(Reason::NodeUnreachable,
                                "cannot reach node '" + name + "': " + e.what()
                                    + "; the run stays detached, try again when it is back");
        }
    }
    return earlier;
}

} // namespace

SessionResult reattachRemote(std::int64_t runId, AttachTarget target, const SessionOptions& options,
                             const SessionCallbacks& callbacks, const std::atomic<bool>* cancel)
{
    if (!options.db)
        throw std::invalid_argument("re-attaching run " + std::to_string(runId) + " needs the store it is recorded in");
    store::Database& db = *options.db;
    const auto summary = store::findRun(db, runId);
    if (!summary)
        throw ReattachError(Reason::UnknownRun,
                            "there is no run " + std::to_string(runId) + " in the store " + db.path().string());
    if (store::isFinal(summary->status))
        throw ReattachError(Reason::Finished,
                            "run " + std::to_string(runId) + " already finished ("
                                + std::string(store::runStatusId(summary->status))
                                + "); there is nothing to re-attach to");
    const auto kept = store::findRemoteFollow(db, runId);
    if (!kept)
        throw ReattachError(Reason::NotRemote,
                            "run " + std::to_string(runId)
                                + " has no remote handle: it was not started on SSH nodes, or its recorder "
                                  "stopped before the ranks started");
    if (summary->status == store::RunStatus::Running)
        throw ReattachError(Reason::Followed,
                            "run " + std::to_string(runId)
                                + " is being followed by another program (its heartbeat is fresh); "
                                  "only a detached run can be re-attached");

    dispatch::RemoteRun handle;
    dispatch::RemoteRunOffsets offsets;
    RunConfig requested;
    try {
        handle = remoteRunFromJson(nlohmann::json::parse(kept->handleJson));
        offsets = remoteRunOffsetsFromJson(nlohmann::json::parse(kept->offsetsJson));
        const auto detail = store::runDetail(db, runId);
        requested = runConfigFromJson(detail->config);
    } catch (const std::exception& e) {
        throw ReattachError(Reason::UnreadableHandle,
                            "run " + std::to_string(runId) + ": the stored handle cannot be read: " + e.what());
    }
    if (static_cast<int>(target.sessions.size()) != handle.nodeCount)
        throw std::invalid_argument("re-attach run " + std::to_string(runId) + ": it ran on "
                                    + std::to_string(handle.nodeCount) + " nodes but "
                                    + std::to_string(target.sessions.size()) + " SSH sessions were given");
    if (target.nodeNames.empty()) {
        if (summary->nodes.size() == target.sessions.size())
            target.nodeNames = summary->nodes;
        else
            for (auto* s : target.sessions)
                target.nodeNames.push_back(s ? s->endpoint().host : std::string("?"));
    }
    const detail::EarlierOutput earlier = earlierOutput(handle, target.sessions, target.nodeNames, offsets);

    // Another follower may have taken the run between the checks above and now; the attach is the
    // moment that decides.
    if (!store::markRemoteAttached(db, runId, kept->savedAt)) {
        const auto now = store::findRun(db, runId);
        if (now && store::isFinal(now->status))
            throw ReattachError(Reason::Finished, "run " + std::to_string(runId) + " finished while re-attaching");
        throw ReattachError(Reason::Followed,
                            "run " + std::to_string(runId)
                                + " was taken up by another program while re-attaching; only one follows it");
    }
    detail::RunRecording recording(options, runId, callbacks);
    SessionResult result;
    result.runId = runId;
    if (callbacks.onRecorded)
        callbacks.onRecorded(runId);
    if (callbacks.onRemoteStarted)
        callbacks.onRemoteStarted(handle);
    const detail::FollowedRun run { requested,
                                    handle,
                                    target.sessions,
                                    target.nodeNames,
                                    target.follow,
                                    handle.masterPort,
                                    std::max(0.0, store::currentUnixTime() - summary->startedAt) };
    detail::followToConclusion(recording, run, offsets, earlier, options, callbacks, cancel, result);
    return result;
}

} // namespace shardwise::session
