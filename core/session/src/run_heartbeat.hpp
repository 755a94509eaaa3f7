#pragma once
// Keeps a followed run's heartbeat fresh while its follower waits between lines (a large model's
// step can take minutes, a re-attached run may have nothing new for a while), so the run shows as
// running and a second follower is refused. On its own connection: one Database per thread.

#include "shardwise/store/database.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

namespace shardwise::session::detail {

class RunHeartbeat {
public:
    // Beats every `interval` until destroyed. Opening the store fails quietly: the recorder's own
    // writes still refresh the heartbeat whenever a line arrives.
    RunHeartbeat(const std::filesystem::path& store, std::int64_t runId,
                 std::chrono::seconds interval = std::chrono::seconds(30));
    ~RunHeartbeat();
    RunHeartbeat(const RunHeartbeat&) = delete;
    RunHeartbeat& operator=(const RunHeartbeat&) = delete;

private:
    void beat(std::filesystem::path store, std::int64_t runId, std::chrono::seconds interval);

    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::thread m_thread;
};

} // namespace shardwise::session::detail
