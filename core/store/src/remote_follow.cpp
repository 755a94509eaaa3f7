#include "shardwise/store/remote_follow.hpp"

#include "shardwise/store/runs.hpp"
#include "statement.hpp"
#include "writer_liveness.hpp"

#include <unistd.h>

namespace shardwise::store {

using detail::Statement;

void saveRemoteFollow(Database& db, std::int64_t runId, const std::string& handleJson, const std::string& offsetsJson)
{
    WriteTransaction tx(db);
    Statement exists(db.handle(), "SELECT 1 FROM runs WHERE id = ?1");
    exists.bind(1, runId);
    if (!exists.step())
        throw StoreError("cannot keep the remote handle of run " + std::to_string(runId) + ": no such run");
    Statement s(db.handle(),
                R"sql(INSERT OR REPLACE INTO remote_follow (run_id, handle_json, offsets_json, saved_at, detached_at)
                                   VALUES (?1, ?2, ?3, ?4, NULL))sql");
    s.bind(1, runId).bind(2, handleJson).bind(3, offsetsJson).bind(4, currentUnixTime()).run();
    tx.commit();
}

void markRemoteDetached(Database& db, std::int64_t runId, const std::string& offsetsJson, const std::string& note)
{
    WriteTransaction tx(db);
    const double now = currentUnixTime();
    Statement s(db.handle(),
                "UPDATE remote_follow SET offsets_json = ?2, saved_at = ?3, detached_at = ?3 WHERE run_id = ?1");
    s.bind(1, runId).bind(2, offsetsJson).bind(3, now).run();
    if (detail::changes(db.handle()) != 1)
        throw StoreError("run " + std::to_string(runId) + " has no remote handle to detach from");
    if (!note.empty()) {
        Statement why(db.handle(), "UPDATE runs SET note = ?2 WHERE id = ?1 AND status = 'running'");
        why.bind(1, runId).bind(2, note).run();
    }
    tx.commit();
}

bool markRemoteAttached(Database& db, std::int64_t runId, double expectedSavedAt, double now)
{
    WriteTransaction tx(db);
    // Compare and set: only a run still shown as detached (its follower left on purpose, or went
    // silent) whose offsets nobody wrote since the caller read them. Two programs re-attaching at
    // once, or a stalled follower waking up, cannot both follow and record the same lines.
    Statement s(db.handle(), R"sql(UPDATE remote_follow SET detached_at = NULL
                                   WHERE run_id = ?1 AND saved_at = ?2
                                     AND EXISTS (SELECT 1 FROM runs WHERE id = ?1 AND status = 'running'
                                                 AND (remote_follow.detached_at IS NOT NULL OR heartbeat_at < ?3
                                                      OR shardwise_writer_gone(writer_host, writer_pid, started_at))))sql");
    s.bind(1, runId).bind(2, expectedSavedAt).bind(3, now - kStaleHeartbeatSeconds).run();
    if (detail::changes(db.handle()) != 1)
        return false;
    // Followed again: the note of the detach no longer holds, and this process is the writer whose
    // liveness readers check from now on.
    Statement beat(db.handle(),
                   "UPDATE runs SET heartbeat_at = ?2, note = '', writer_host = ?3, writer_pid = ?4 WHERE id = ?1");
    beat.bind(1, runId)
        .bind(2, now)
        .bind(3, detail::currentHostName())
        .bind(4, static_cast<std::int64_t>(::getpid()))
        .run();
    tx.commit();
    return true;
}

std::optional<RemoteFollow> findRemoteFollow(const Database& db, std::int64_t runId)
{
    Statement s(db.handle(),
                "SELECT handle_json, offsets_json, saved_at, detached_at FROM remote_follow WHERE run_id = ?1");
    s.bind(1, runId);
    if (!s.step())
        return std::nullopt;
    RemoteFollow f;
    f.runId = runId;
    f.handleJson = s.text(0);
    f.offsetsJson = s.text(1);
    f.savedAt = s.real(2);
    f.detachedAt = s.optionalReal(3);
    return f;
}

bool removeRemoteFollow(Database& db, std::int64_t runId)
{
    WriteTransaction tx(db);
    Statement s(db.handle(), "DELETE FROM remote_follow WHERE run_id = ?1");
    s.bind(1, runId).run();
    const bool removed = detail::changes(db.handle()) == 1;
    tx.commit();
    return removed;
}

void requireAbandonable(const Database& db, std::int64_t runId, double now)
{
    const std::string run = "run " + std::to_string(runId);
    const auto shown = findRun(db, runId, now);
    if (!shown)
        throw StoreError("cannot abandon " + run + ": no such run");
    if (shown->status != RunStatus::Detached)
        throw StoreError("cannot abandon " + run + ": it is " + std::string(runStatusId(shown->status))
                         + ", not detached; only a detached run can be abandoned");
}

void abandonDetachedRun(Database& db, std::int64_t runId, const std::string& reason, double now)
{
    db.requireWritable();
    WriteTransaction tx(db);
    const std::string run = "run " + std::to_string(runId);
    requireAbandonable(db, runId, now);
    const std::string note = reason.empty() ? "abandoned while detached: its ranks were never followed to the end"
                                            : "abandoned while detached: " + reason;
    Statement end(db.handle(), R"sql(UPDATE runs SET status = 'lost', finished_at = ?2, heartbeat_at = ?2, note = ?3
                                     WHERE id = ?1 AND status = 'running')sql");
    end.bind(1, runId).bind(2, now).bind(3, note).run();
    if (detail::changes(db.handle()) != 1)
        throw StoreError("cannot abandon " + run + ": it ended while being abandoned");
    Statement drop(db.handle(), "DELETE FROM remote_follow WHERE run_id = ?1");
    drop.bind(1, runId).run();
    tx.commit();
}

} // namespace shardwise::store
