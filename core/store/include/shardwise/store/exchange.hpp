#pragma once
// Runs in and out of the store as CSV and JSON: export for spreadsheets and reports, import for runs
// measured elsewhere (another machine, a published table). Both formats carry the same fields under
// the same names, listed by exchangeFields(). Imported rows are marked imported, with their source.

#include "shardwise/store/database.hpp"
#include "shardwise/store/runs.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace shardwise::store {

// Bad import input. what() starts with the location: "line 4, column 'strategy': ..." for CSV,
// "runs[3].strategy: ..." for JSON.
class ImportError : public StoreError {
public:
    ImportError(std::string location, const std::string& message);
    const std::string& location() const { return m_location; }

private:
    std::string m_location;
};

// The "version" of the JSON export document; import refuses a newer one by name.
inline constexpr int kExchangeFormatVersion = 1;

// The CSV header, in order; also the JSON field names of one run.
const std::vector<std::string>& exchangeFields();
// Fields an imported run must have.
const std::vector<std::string>& requiredImportFields();

nlohmann::json toJson(const RunSummary& run);

// RFC 4180 CSV with a header line; empty cells are missing values.
void exportRunsCsv(const std::vector<RunSummary>& runs, std::ostream& out);
// {"format": "shardwise-runs", "version": 1, "runs": [...]}.
void exportRunsJson(const std::vector<RunSummary>& runs, std::ostream& out);

struct ImportResult {
    std::vector<std::int64_t> runIds;
};

// All or nothing: every row is checked before any is stored, so an error stores nothing and leaves
// what was stored before untouched. `source` labels rows that do not name their own import_source
// (e.g. the file name or the publication). Throws ImportError for bad input, StoreError otherwise.
ImportResult importRunsCsv(Database& db, std::istream& in, const std::string& source);
// Accepts the export document or a bare array of run objects.
ImportResult importRunsJson(Database& db, std::istream& in, const std::string& source);

} // namespace shardwise::store
