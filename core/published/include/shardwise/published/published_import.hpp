#pragma once
// The published cells (published.hpp) as read-only runs of the store, beside measured runs on the
// Compare page. Each predictable training cell becomes one run through the store's exchange import
// (store/exchange.hpp): source 'imported', launcher "published", import_source
// "published:<source id>/<cell id>" (the key that keeps a second import from duplicating it), the
// figures as published (tokens/s as the store's global figure: per GPU x GPUs), and the planner's
// prediction at import time as the run's predicted_* fields. No configuration is stored, so the
// calibration from the store (calibrate/from_store.hpp) never fits the runner's coefficients to a
// framework's published numbers.

#include "shardwise/published/published.hpp"
#include "shardwise/store/database.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace shardwise::published {

inline constexpr const char* kPublishedLauncher = "published";
inline constexpr const char* kPublishedSourcePrefix = "published:";

// "published:<source id>/<cell id>": a published run's import_source.
std::string publishedRunKey(const Source& source, const Cell& cell);
bool isPublishedRun(const std::string& importSource);

struct PublishedImportOptions {
    // Runs already stored under a cell's key are replaced (after the new rows are stored) instead of
    // kept: for sources whose files were corrected.
    bool replace = false;
    Calibration calibration; // for the predicted_* fields
};

struct PublishedImportResult {
    std::vector<std::int64_t> inserted;     // new run ids, in file and cell order
    std::vector<std::string> alreadyStored; // keys found and kept (replace off)
    std::vector<std::int64_t> replaced;     // ids removed in favour of new rows (replace on)
    std::vector<std::string> skipped;       // "<key>: <why>" for cells that are not runs
};

// The exchange document ({"format": "shardwise-runs", ...}) of the cells that become runs; cells
// that do not are listed in `skipped` with the reason (model-state or statement cells, cells the
// planner cannot express).
nlohmann::json publishedRunsDocument(const std::vector<Source>& sources, const PresetCatalog& catalog,
                                     const Calibration& calibration, std::vector<std::string>* skipped = nullptr);

// All or nothing per call (one exchange import). Throws store::StoreError (read-only store, ...).
PublishedImportResult importPublished(store::Database& db, const std::vector<Source>& sources,
                                      const PresetCatalog& catalog, const PublishedImportOptions& options = {});

} // namespace shardwise::published
