#include "shardwise/store/location.hpp"

#include "shardwise/store/database.hpp"

#include <cstdlib>

namespace shardwise::store {

namespace {
std::string environment(const char* name)
{
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}
} // namespace

std::filesystem::path defaultDatabasePath()
{
    std::filesystem::path dataHome = environment("XDG_DATA_HOME");
    // The XDG specification says a relative XDG_DATA_HOME is invalid and must be ignored.
    if (dataHome.empty() || dataHome.is_relative()) {
        const std::string home = environment("HOME");
        if (home.empty())
            throw StoreError("cannot locate the run store: neither XDG_DATA_HOME nor HOME is set; pass --db PATH "
                             "or set SHARDWISE_DB");
        dataHome = std::filesystem::path(home) / ".local" / "share";
    }
    return dataHome / "shardwise" / "shardwise.sqlite";
}

std::filesystem::path resolveDatabasePath(const std::string& explicitPath)
{
    if (!explicitPath.empty())
        return explicitPath;
    if (const std::string fromEnv = environment("SHARDWISE_DB"); !fromEnv.empty())
        return fromEnv;
    return defaultDatabasePath();
}

} // namespace shardwise::store
