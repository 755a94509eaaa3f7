#pragma once
// The example runs Shardwise ships: the project's own measurements on an NVIDIA H200, as the runner's
// event files (JSON Lines, docs/protocol.md) listed by bench/results/examples.json and installed to
// share/shardwise/examples. importExamples() replays each file into the run store as one read-only run:
// source 'imported', import_source "example:<set>/<file name>" (the key a second import finds), the
// configuration, versions, steps and summaries the runner reported, and the current planner's
// prediction for that configuration as the run's predicted_* fields. Both faces use it: the CLI's
// `runs import-examples` and the desktop app's first start.

#include "shardwise/spec/presets.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/runs.hpp"

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardwise::published {

// A manifest or event file that cannot be used. what() names the file (and line or field).
class ExampleError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline constexpr const char* kExampleSourcePrefix = "example:";
inline constexpr const char* kExampleLauncher = "example";

// An example run (shipped with Shardwise) or a published one: neither is the user's own measurement,
// so neither may be removed or edited as one.
bool isExampleRun(const std::string& importSource);
bool isReadOnlyRun(const store::RunSummary& run);

struct ExampleFile {
    std::string key;            // "example:<set id>/<file name>"
    std::filesystem::path path; // the events file holding it (examples.json's "events")
    std::string member;         // its name there: "<batch>/<event file>" as examples.json lists it
};

struct ExampleSet {
    std::string id;
    std::string title;
    std::string gpuId;        // GPU preset the runs ran on
    std::string interconnect; // "nvlink" | "pcie"
    std::vector<ExampleFile> files;
};

// The folder with examples.json: <prefix>/share/shardwise/examples for an installed program (beside
// its bin/), else bench/results of the source tree this library was built from.
std::filesystem::path defaultExamplesDirectory();
// Reads <dir>/examples.json. Throws ExampleError naming the file and field.
std::vector<ExampleSet> loadExampleSets(const std::filesystem::path& dir);

struct ExampleImportResult {
    std::vector<std::int64_t> inserted;     // new run ids, in manifest order
    std::vector<std::string> alreadyStored; // keys found in the store and kept
};

// Stores every example run not stored yet. Throws ExampleError for an event file that cannot be read
// (nothing of that file is kept) and store::StoreError for a store that refuses (read-only, ...).
ExampleImportResult importExamples(store::Database& db, const std::vector<ExampleSet>& sets,
                                   const PresetCatalog& catalog = PresetCatalog::builtin());

// Removes a run the user owns. Throws store::StoreError naming the run when it is an example or
// published run (those are read-only); false when there is no such run.
bool removeUserRun(store::Database& db, std::int64_t runId);

} // namespace shardwise::published
