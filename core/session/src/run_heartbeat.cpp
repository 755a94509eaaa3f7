#include "run_heartbeat.hpp"

#include "shardwise/store/run_recorder.hpp"

namespace shardwise::session::detail {

RunHeartbeat::RunHeartbeat(const std::filesystem::path& store, std::int64_t runId, std::chrono::seconds interval)
    : m_thread(&RunHeartbeat::beat, this, store, runId, interval)
{
}

RunHeartbeat::~RunHeartbeat()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void RunHeartbeat::beat(std::filesystem::path store, std::int64_t runId, std::chrono::seconds interval)
{
    std::optional<store::Database> db;
    try {
        db.emplace(store::Database::open(store));
    } catch (const std::exception&) {
        return;
    }
    std::unique_lock lock(m_mutex);
    while (!m_wake.wait_for(lock, interval, [this] { return m_stop; })) {
        try {
            store::refreshHeartbeat(*db, runId);
        } catch (const std::exception&) {
            // A busy or failing store is the recorder's to report; the next beat tries again.
        }
    }
}

} // namespace shardwise::session::detail
