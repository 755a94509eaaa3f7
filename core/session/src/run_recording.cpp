#include "run_recording.hpp"

#include "shardwise/session/remote_run_json.hpp"
#include "shardwise/store/remote_follow.hpp"

namespace shardwise::session::detail {

RunRecording::RunRecording(const SessionOptions& options, const RunConfig& config, const SessionCallbacks& callbacks)
    : m_db(options.db)
    , m_callbacks(callbacks)
{
    if (!m_db)
        return;
    try {
        m_recorder.emplace(*m_db, config, options.origin);
    } catch (const std::exception& e) {
        if (options.requireRecord)
            throw;
        fail(e);
    }
}

RunRecording::RunRecording(const SessionOptions& options, std::int64_t runId, const SessionCallbacks& callbacks)
    : m_db(options.db)
    , m_callbacks(callbacks)
{
    if (!m_db)
        throw std::invalid_argument("continuing run " + std::to_string(runId) + " needs the store it is recorded in");
    m_recorder.emplace(*m_db, runId);
}

std::optional<std::int64_t> RunRecording::runId() const
{
    return m_recorder ? std::optional<std::int64_t>(m_recorder->runId()) : std::nullopt;
}

void RunRecording::fail(const std::exception& e)
{
    m_problem = e.what();
    if (m_callbacks.onStoreProblem)
        m_callbacks.onStoreProblem(m_problem);
}

template <typename F> void RunRecording::guarded(F&& write)
{
    if (!recording())
        return;
    try {
        write();
        // Steps of a large model can be minutes apart; the heartbeat keeps the run from looking
        // interrupted to readers of the store meanwhile.
        const auto now = std::chrono::steady_clock::now();
        if (now - m_lastBeat > std::chrono::seconds(5)) {
            m_recorder->heartbeat();
            m_lastBeat = now;
        }
    } catch (const std::exception& e) {
        fail(e);
    }
}

void RunRecording::record(const protocol::Event& event)
{
    guarded([&] { m_recorder->record(event); });
}

void RunRecording::recordLog(int rank, const std::string& line)
{
    guarded([&] { m_recorder->recordLog(rank, line); });
}

std::optional<store::RunStatus> RunRecording::finish(store::RunStatus status, const std::string& note)
{
    if (!recording())
        return std::nullopt;
    try {
        m_recorder->finish(status, note);
        return status;
    } catch (const std::exception& e) {
        fail(e);
        return std::nullopt;
    }
}

} // namespace shardwise::session::detail

namespace shardwise::session::detail {

void RunRecording::saveRemoteHandle(const dispatch::RemoteRun& handle)
{
    if (!recording())
        return;
    try {
        store::saveRemoteFollow(*m_db, m_recorder->runId(), toJson(handle).dump());
    } catch (const std::exception& e) {
        fail(e);
    }
}

void RunRecording::keepFollowerOffsets(const dispatch::RemoteRunOffsets& offsets)
{
    if (m_recorder)
        m_recorder->keepFollowerOffsets([&offsets] { return toJson(offsets).dump(); });
}

void RunRecording::detach(const dispatch::RemoteRunOffsets& offsets, const std::string& note)
{
    if (!m_recorder)
        return;
    // Whatever happens to the store, the run is not over: its ranks go on running.
    m_recorder->leaveRunning();
    if (!recording())
        return;
    try {
        store::markRemoteDetached(*m_db, m_recorder->runId(), toJson(offsets).dump(), note);
    } catch (const std::exception& e) {
        fail(e);
    }
}

} // namespace shardwise::session::detail
