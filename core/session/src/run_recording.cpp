#include "run_recording.hpp"

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
