#pragma once
// The store side of a run session: a RunRecorder whose failures cost the record, never the
// measurement. The first store error is reported once (SessionCallbacks::onStoreProblem) and the
// run goes on unrecorded; a silent stretch between events still refreshes the heartbeat so the run
// does not look interrupted.

#include "shardwise/session/run_session.hpp"

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace shardwise::session::detail {

class RunRecording {
public:
    // Writes the run row when options.db is set. Throws the store's error when that fails and
    // options.requireRecord is set.
    RunRecording(const SessionOptions& options, const RunConfig& config, const SessionCallbacks& callbacks);
    // Continues the stored run `runId` (a re-attach). Throws the store's error when it cannot.
    RunRecording(const SessionOptions& options, std::int64_t runId, const SessionCallbacks& callbacks);

    std::optional<std::int64_t> runId() const;
    bool recording() const { return m_recorder.has_value() && m_problem.empty(); }
    const std::string& problem() const { return m_problem; }
    store::Database* database() const { return m_db; }

    void record(const protocol::Event& event);
    void recordLog(int rank, const std::string& line);
    // Returns the status stored, none when nothing is recorded.
    std::optional<store::RunStatus> finish(store::RunStatus status, const std::string& note);

    // Remote runs: keeps the handle for a re-attach, then writes `offsets` (the follower's, which
    // it advances before delivering each line) with every recorded line.
    void saveRemoteHandle(const dispatch::RemoteRun& handle);
    void keepFollowerOffsets(const dispatch::RemoteRunOffsets& offsets);
    // Following stopped: the offsets reached are kept, the run stays 'running' (shown detached) and
    // `note` says why.
    void detach(const dispatch::RemoteRunOffsets& offsets, const std::string& note);

private:
    template <typename F> void guarded(F&& write);
    void fail(const std::exception& e);

    store::Database* m_db = nullptr;
    const SessionCallbacks& m_callbacks;
    std::optional<store::RunRecorder> m_recorder;
    std::string m_problem;
    std::chrono::steady_clock::time_point m_lastBeat = std::chrono::steady_clock::now();
};

// The launcher's callbacks (local and remote ones have the same shape): every event and log line is
// recorded first, then passed on; `alsoLog` sees each log line too.
template <typename LauncherCallbacks>
LauncherCallbacks recordingCallbacks(RunRecording& recording, const SessionCallbacks& callbacks,
                                     std::function<void(int rank, const std::string& line)> alsoLog = {})
{
    LauncherCallbacks forward;
    forward.onEvent = [&recording, &callbacks](const protocol::Event& event) {
        recording.record(event);
        if (callbacks.onEvent)
            callbacks.onEvent(event);
    };
    forward.onLog = [&recording, &callbacks, alsoLog = std::move(alsoLog)](int rank, const std::string& line) {
        recording.recordLog(rank, line);
        if (alsoLog)
            alsoLog(rank, line);
        if (callbacks.onLog)
            callbacks.onLog(rank, line);
    };
    return forward;
}

} // namespace shardwise::session::detail
