#pragma once
// Whether the process recording a 'running' run is still there. A recorder killed with SIGKILL
// cannot finish its run; without this its row would read 'running' until the heartbeat goes stale
// (kStaleHeartbeatSeconds). Only a writer on this host can be checked: its pid and start time.

#include <optional>
#include <string>

struct sqlite3;

namespace shardwise::store::detail {

// The host name recorders store as runs.writer_host.
std::string currentHostName();

// True when the writer is known to be gone: it ran on this host and its pid is no longer a live
// process, or the pid now belongs to a process that started after the run did (the pid was reused).
// False when it is alive or cannot be checked (another host, no pid, no /proc).
bool writerGone(const std::string& writerHost, std::optional<long long> writerPid, double runStartedAt);

// Registers writerGone as the SQL function shardwise_writer_gone(host, pid, started_at) on `db`,
// which the shown-status expression of the run queries calls.
void registerWriterLiveness(sqlite3* db);

} // namespace shardwise::store::detail
