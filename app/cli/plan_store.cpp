#include "plan_store.hpp"

#include "shardwise/store/location.hpp"

#include <filesystem>

namespace shardwise::cli {

std::optional<store::Database> existingStore(const std::string& explicitPath)
{
    const auto path = store::resolveDatabasePath(explicitPath);
    if (!std::filesystem::exists(path))
        return std::nullopt;
    store::OpenOptions options;
    options.readOnly = true;
    return store::Database::open(path, options);
}

std::optional<store::MeasuredCheckpointSave> measuredSaveFromStore(const EstimateInput& in, Strategy strategy,
                                                                   const std::string& dbPath)
{
    try {
        const auto db = existingStore(dbPath);
        if (!db)
            return std::nullopt;
        return store::newestCheckpointSave(*db, in.model.id, in.gpu.id, strategy,
                                           in.cluster.gpusPerNode * in.cluster.nodes);
    } catch (const std::exception&) {
        return std::nullopt; // an older or unreadable store: keep the estimate
    }
}

} // namespace shardwise::cli
