#include "shardwise/published/examples.hpp"

#include "shardwise/estimate/estimate.hpp"
#include "shardwise/protocol/events.hpp"
#include "shardwise/published/published_import.hpp"
#include "shardwise/store/run_recorder.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#ifndef SHARDWISE_EXAMPLES_SOURCE_DIR
#error "SHARDWISE_EXAMPLES_SOURCE_DIR must name the source tree's bench/results"
#endif

namespace shardwise::published {

using nlohmann::json;

namespace {

constexpr const char* kManifest = "examples.json";

std::string text(const json& object, const std::string& field, const std::string& where)
{
    const auto it = object.find(field);
    if (it == object.end() || !it->is_string() || it->get<std::string>().empty())
        throw ExampleError(std::string(kManifest) + ": " + where + "." + field + ": expected a non-empty string");
    return it->get<std::string>();
}

struct Replay {
    std::optional<protocol::StartEvent> start;
    std::vector<protocol::Event> events; // every event, in file order
};

// Every example run of an events file by its name there: one line per event, {"file": "<batch>/<event
// file>", "event": {...}}, each run's events in its order. Read once per import.
using ReplaysByFile = std::map<std::string, Replay>;

ReplaysByFile readEventsFile(const std::filesystem::path& path)
{
    std::ifstream in(path);
    if (!in)
        throw ExampleError(path.string() + ": cannot be read");
    ReplaysByFile replays;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        std::string member;
        std::optional<protocol::Event> event;
        try {
            const json wrapped = json::parse(line);
            if (!wrapped.is_object() || !wrapped.contains("file") || !wrapped["file"].is_string()
                || !wrapped.contains("event") || !wrapped["event"].is_object())
                throw std::runtime_error("expected {\"file\": ..., \"event\": {...}}");
            member = wrapped["file"].get<std::string>();
            event = protocol::tryParseEvent(wrapped["event"].dump());
        } catch (const std::exception& e) {
            throw ExampleError(path.string() + ": line " + std::to_string(number) + ": " + e.what());
        }
        if (!event)
            continue;
        Replay& replay = replays[member];
        if (const auto* start = std::get_if<protocol::StartEvent>(&*event); start && !replay.start)
            replay.start = *start;
        replay.events.push_back(std::move(*event));
    }
    return replays;
}

// What the planner predicts today for the configuration the run reported, on the set's GPU preset:
// the same input calibration builds from a stored run (calibrate/from_store.cpp), uncalibrated.
store::RunPrediction predictionFor(const protocol::StartEvent& start, const GpuSpec& gpu,
                                   const std::string& interconnect)
{
    const RunConfig& rc = start.config;
    EstimateInput in;
    in.model = rc.model;
    in.gpu = gpu;
    in.cluster.nodes = 1;
    in.cluster.gpusPerNode = std::max(rc.worldSize, 1);
    in.cluster.intraNode = interconnect == "pcie" ? Interconnect::Pcie : Interconnect::NvLink;
    in.training = rc.training;
    in.training.expandableSegments = start.allocator.expandableSegments || rc.training.expandableSegments;
    in.knobs = rc.knobs;
    applyRunnerBehaviour(in, start.versions);
    applyRunBackend(in, rc);
    // A rehearsal is predicted for the world it stands for, per rank, its memory only.
    if (!applyRehearsal(in, rc))
        return {};
    const Estimate e = estimate(in, rc.strategy);
    store::RunPrediction p;
    if (!rc.rehearsal()) {
        p.tokensPerS = e.throughput.tokensPerS;
        p.stepS = e.throughput.stepTimeS;
    }
    p.peakBytes = static_cast<std::int64_t>(std::llround(e.memory.allocatedPeak()));
    p.document = { { "strategy", strategyId(rc.strategy) },
                   { "fits", e.fits() },
                   { "peak_bytes", e.memory.peakBytes() },
                   { "allocated_peak_bytes", e.memory.allocatedPeak() },
                   { "tokens_per_s", e.throughput.tokensPerS },
                   { "step_s", e.throughput.stepTimeS },
                   { "predicted_by", "the planner at import, uncalibrated presets" } };
    if (rc.rehearsal())
        p.document["world"] = rc.rehearseWorld;
    return p;
}

} // namespace

bool isExampleRun(const std::string& importSource)
{
    return importSource.rfind(kExampleSourcePrefix, 0) == 0;
}

bool isReadOnlyRun(const store::RunSummary& run)
{
    return run.source == store::RunSource::Imported
        && (isExampleRun(run.importSource) || isPublishedRun(run.importSource));
}

std::filesystem::path defaultExamplesDirectory()
{
    // An installed program carries the examples in share/shardwise/examples beside its bin/; a build
    // reads them from the source tree it was built from.
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const std::filesystem::path installed = exe.parent_path().parent_path() / "share" / "shardwise" / "examples";
        if (std::filesystem::is_regular_file(installed / kManifest, ec))
            return installed;
    }
    return SHARDWISE_EXAMPLES_SOURCE_DIR;
}

std::vector<ExampleSet> loadExampleSets(const std::filesystem::path& dir)
{
    const std::filesystem::path file = dir / kManifest;
    std::ifstream in(file);
    if (!in)
        throw ExampleError(file.string() + ": cannot be read");
    json doc;
    try {
        doc = json::parse(in);
    } catch (const json::parse_error& e) {
        throw ExampleError(file.string() + ": not valid JSON: " + e.what());
    }
    if (!doc.is_object() || doc.value("format", std::string()) != "shardwise-examples")
        throw ExampleError(file.string() + ": format: expected \"shardwise-examples\"");
    if (!doc.contains("sets") || !doc["sets"].is_array())
        throw ExampleError(file.string() + ": sets: expected an array");
    const std::filesystem::path events = dir / text(doc, "events", "manifest");
    std::vector<ExampleSet> sets;
    std::set<std::string> keys;
    for (std::size_t i = 0; i < doc["sets"].size(); ++i) {
        const json& s = doc["sets"][i];
        const std::string where = "sets[" + std::to_string(i) + "]";
        if (!s.is_object())
            throw ExampleError(std::string(kManifest) + ": " + where + ": expected an object");
        ExampleSet set;
        set.id = text(s, "id", where);
        set.title = text(s, "title", where);
        set.gpuId = text(s, "gpu", where);
        set.interconnect = text(s, "interconnect", where);
        if (set.interconnect != "nvlink" && set.interconnect != "pcie")
            throw ExampleError(std::string(kManifest) + ": " + where + ".interconnect: expected nvlink or pcie, got '"
                               + set.interconnect + "'");
        if (!s.contains("files") || !s["files"].is_array() || s["files"].empty())
            throw ExampleError(std::string(kManifest) + ": " + where + ".files: expected a non-empty array");
        for (const json& f : s["files"]) {
            if (!f.is_string())
                throw ExampleError(std::string(kManifest) + ": " + where + ".files: expected file names");
            const std::filesystem::path relative = f.get<std::string>();
            ExampleFile example { std::string(kExampleSourcePrefix) + set.id + "/" + relative.filename().string(),
                                  events, relative.generic_string() };
            if (!keys.insert(example.key).second)
                throw ExampleError(std::string(kManifest) + ": " + where + ".files: " + example.key
                                   + " is listed twice");
            set.files.push_back(std::move(example));
        }
        sets.push_back(std::move(set));
    }
    return sets;
}

ExampleImportResult importExamples(store::Database& db, const std::vector<ExampleSet>& sets,
                                   const PresetCatalog& catalog)
{
    db.requireWritable();
    std::set<std::string> stored;
    store::RunFilter filter;
    filter.source = store::RunSource::Imported;
    for (const store::RunSummary& run : store::listRuns(db, filter))
        if (isExampleRun(run.importSource))
            stored.insert(run.importSource);

    ExampleImportResult result;
    std::map<std::filesystem::path, ReplaysByFile> loaded; // read when a run of it is first needed
    for (const ExampleSet& set : sets) {
        const GpuSpec* gpu = catalog.findGpu(set.gpuId);
        if (!gpu)
            throw ExampleError(std::string(kManifest) + ": set " + set.id + ": unknown GPU preset '" + set.gpuId + "'");
        for (const ExampleFile& file : set.files) {
            if (stored.count(file.key)) {
                result.alreadyStored.push_back(file.key);
                continue;
            }
            auto events = loaded.find(file.path);
            if (events == loaded.end())
                events = loaded.emplace(file.path, readEventsFile(file.path)).first;
            const auto found = events->second.find(file.member);
            if (found == events->second.end() || !found->second.start)
                throw ExampleError(file.path.string() + ": " + file.member
                                   + ": no start event, so no configuration to store the run with");
            const Replay& replay = found->second;
            store::RunOrigin origin;
            store::RunNodeRef node;
            node.name = "example";
            origin.nodes = { node };
            origin.launcher = kExampleLauncher;
            origin.gpuId = set.gpuId;
            origin.gpuName = replay.start->deviceName;
            origin.interconnect = set.interconnect;
            origin.importSource = file.key;
            origin.predicted = predictionFor(*replay.start, *gpu, set.interconnect);
            // Stamped with when it ran, not with when it was imported.
            if (replay.start->time > 0)
                origin.startedAt = replay.start->time;
            store::RunRecorder recorder(db, replay.start->config, origin);
            try {
                for (const protocol::Event& event : replay.events)
                    recorder.record(event);
                const store::RunStatus status = recorder.statusFromEvents();
                recorder.finish(status,
                                status == store::RunStatus::Completed
                                    ? "Example run shipped with Shardwise: " + set.title
                                    : std::string());
            } catch (...) {
                const std::int64_t id = recorder.runId();
                recorder.finish(store::RunStatus::Failed);
                store::removeRun(db, id); // a file that cannot be replayed whole leaves nothing behind
                throw;
            }
            result.inserted.push_back(recorder.runId());
        }
    }
    return result;
}

bool removeUserRun(store::Database& db, std::int64_t runId)
{
    const auto run = store::findRun(db, runId);
    if (!run)
        return false;
    if (isReadOnlyRun(*run))
        throw store::StoreError(
            "run " + std::to_string(runId) + " is " + (isExampleRun(run->importSource) ? "an example" : "a published")
            + " run shipped with Shardwise (" + run->importSource + "); it is read-only and cannot be removed");
    return store::removeRun(db, runId);
}

} // namespace shardwise::published
