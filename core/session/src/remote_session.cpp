#include "shardwise/session/run_session.hpp"

#include "remote_following.hpp"
#include "session_outcome.hpp"

#include "shardwise/dispatch/runner_program.hpp"
#include "shardwise/session/launch_builder.hpp"
#include "shardwise/spec/json.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <random>
#include <sstream>

namespace shardwise::session {

namespace {

// Names the run directory on every node: the store's run id when there is one, so a person on the
// node can tell which stored run a folder belongs to.
std::string remoteRunName(const std::optional<std::int64_t>& storedId)
{
    std::random_device rd;
    std::ostringstream id;
    id << "run-" << (storedId ? std::to_string(*storedId) + "-" : std::string())
       << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count()
       << "-" << std::hex << rd();
    return id.str();
}

} // namespace

SessionResult runRemote(const RunConfig& requested, RemoteTarget target, const SessionOptions& options,
                        const SessionCallbacks& callbacks, const std::atomic<bool>* cancel)
{
    if (target.launch.nodes.empty() || target.sessions.size() != target.launch.nodes.size())
        throw std::invalid_argument("remote run: " + std::to_string(target.launch.nodes.size()) + " nodes but "
                                    + std::to_string(target.sessions.size()) + " SSH sessions");
    if (target.nodeNames.empty())
        for (auto* s : target.sessions)
            target.nodeNames.push_back(s->endpoint().host);

    detail::RunRecording recording(options, requested, callbacks);
    SessionResult result;
    result.runId = recording.runId();
    if (result.runId && callbacks.onRecorded)
        callbacks.onRecorded(*result.runId);

    dispatch::RemoteLaunch& launch = target.launch;
    // The config's backend decides the program on every node: the prepared runner, or the PyTorch
    // harness installed beside it.
    for (dispatch::RemoteNode& node : launch.nodes)
        node.runnerPath = dispatch::runnerForBackend(requested.backend, node.runnerPath).string();
    if (launch.runId.empty())
        launch.runId = remoteRunName(result.runId);
    if (launch.args.empty())
        launch.args = { "--config", "config.json" };
    addAllocatorEnvironment(requested, launch.env);
    // Each node's NCCL setting reaches its own ranks; what the request sets for every rank wins.
    for (std::size_t i = 0; i < launch.nodes.size() && i < options.origin.nodes.size(); ++i)
        for (const auto& [name, value] : options.origin.nodes[i].ncclEnv)
            if (launch.env.count(name) == 0)
                launch.nodes[i].env.try_emplace(name, value);
    dispatch::RemoteRun handle;
    handle.runId = launch.runId;
    handle.runDir = launch.runRoot + "/" + launch.runId;
    handle.nodeCount = static_cast<int>(launch.nodes.size());

    const auto started = std::chrono::steady_clock::now();
    auto failedToStart = [&](const std::string& why) {
        // Ranks already started on earlier nodes would wait for their peers until the rendezvous
        // times out; stop them now.
        dispatch::cancelRemoteRun(handle, target.sessions, std::chrono::seconds(3));
        result.outcome.config = requested;
        result.outcome.status = dispatch::RunStatus::Failed;
        result.outcome.reason = "could not start the ranks: " + why;
        detail::concludeRun(recording, options, {}, store::RunStatus::Failed, result);
        return result;
    };

    try {
        const std::string config = toJson(requested).dump(2) + "\n";
        for (dispatch::SshSession* s : target.sessions) {
            const auto made = s->run(std::vector<std::string> { "mkdir", "-p", handle.runDir }, {}, cancel);
            if (!made.succeeded())
                return failedToStart("cannot create " + handle.runDir + " on " + s->endpoint().host + " ("
                                     + made.describe() + "): " + made.stderrData);
            s->writeFile(handle.runDir + "/config.json", config, cancel);
        }
        // No port named: one that nothing on the first node uses now (another program's rendezvous,
        // the previous run's listener still in TIME_WAIT).
        if (launch.masterPort == 0)
            launch.masterPort = dispatch::pickFreeRemotePort(*target.sessions.front(), kRemotePortLow, kRemotePortHigh);
        handle = dispatch::startRemoteRun(launch, target.sessions);
    } catch (const std::exception& e) {
        return failedToStart(e.what());
    }
    recording.saveRemoteHandle(handle);
    if (callbacks.onRemoteStarted)
        callbacks.onRemoteStarted(handle);

    dispatch::RemoteRunOffsets offsets;
    const detail::FollowedRun run { requested,
                                    handle,
                                    target.sessions,
                                    target.nodeNames,
                                    target.follow,
                                    launch.masterPort,
                                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() };
    detail::followToConclusion(recording, run, offsets, {}, options, callbacks, cancel, result);
    return result;
}

} // namespace shardwise::session
