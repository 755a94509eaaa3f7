#pragma once
// What a re-attach needs of a run whose ranks run detached on SSH nodes: the dispatch layer's handle
// and the bytes of each rank file already recorded, both as JSON text (the store does not know the
// dispatch types; core/session turns them into RemoteRun / RemoteRunOffsets). A run that is still
// 'running' with such a row is shown as detached, not interrupted, when its follower stopped on
// purpose or its heartbeat went stale: its ranks may still be running and can be followed again.

#include "shardwise/store/database.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace shardwise::store {

struct RemoteFollow {
    std::int64_t runId = 0;
    std::string handleJson;
    std::string offsetsJson = "{}";
    double savedAt = 0;               // Unix seconds of the last write of the offsets
    std::optional<double> detachedAt; // set while no follower reads the run on purpose
};

// Stores the handle of a run that just started (offsets empty, attached). Replaces an earlier row.
// Throws StoreError when the run does not exist.
void saveRemoteFollow(Database& db, std::int64_t runId, const std::string& handleJson,
                      const std::string& offsetsJson = "{}");
// The follower stopped: keeps the offsets it reached and marks the run detached; `note`, when given,
// says why on the run (cleared when a follower takes it up again).
void markRemoteDetached(Database& db, std::int64_t runId, const std::string& offsetsJson, const std::string& note = {});
// A follower takes the run up again: no longer detached, heartbeat refreshed, note cleared. Compare and set:
// false, changing nothing, when the run has no handle, is no longer running, is not shown as detached
// at `now` (another follower holds it), or its offsets were written after the caller read them
// (RemoteFollow::savedAt != expectedSavedAt).
bool markRemoteAttached(Database& db, std::int64_t runId, double expectedSavedAt, double now = currentUnixTime());
std::optional<RemoteFollow> findRemoteFollow(const Database& db, std::int64_t runId);
// False when there was no row.
bool removeRemoteFollow(Database& db, std::int64_t runId);

// Throws StoreError naming run `runId` unless it exists and is shown as detached at `now`: what
// abandoning it needs (checked again by abandonDetachedRun; core/session checks before it stops ranks).
void requireAbandonable(const Database& db, std::int64_t runId, double now = currentUnixTime());

// Gives up a detached run whose node or run folder is gone, so it can never finish: the run ends as
// 'lost' with a note saying it was abandoned (after `reason`, when given), and its handle is dropped.
// Throws StoreError naming the run when it does not exist or is not shown as detached at `now`.
void abandonDetachedRun(Database& db, std::int64_t runId, const std::string& reason = {},
                        double now = currentUnixTime());

} // namespace shardwise::store
