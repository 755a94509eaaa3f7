#pragma once
// Where the run store lives, shared by the CLI and the GUI so both open the same file.

#include <filesystem>
#include <string>

namespace shardwise::store {

// ($XDG_DATA_HOME or ~/.local/share)/shardwise/shardwise.sqlite, following the XDG Base Directory
// specification. Throws StoreError when neither XDG_DATA_HOME nor HOME is set.
std::filesystem::path defaultDatabasePath();

// An explicit path (e.g. the CLI's --db) when not empty, else $SHARDWISE_DB when set and not empty,
// else defaultDatabasePath().
std::filesystem::path resolveDatabasePath(const std::string& explicitPath = {});

} // namespace shardwise::store
