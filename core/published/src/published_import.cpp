#include "shardwise/published/published_import.hpp"

#include "shardwise/store/exchange.hpp"
#include "shardwise/store/runs.hpp"

#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

namespace shardwise::published {

using nlohmann::json;

namespace {

std::string formatNumber(double v)
{
    std::ostringstream s;
    s << v;
    return s.str();
}

// What the note of a published run says: where it comes from, the figures as published, and which
// setup fields the prediction had to assume.
std::string noteFor(const Source& source, const Cell& cell, const CellInput& input)
{
    const PublishedFigures& f = cell.published;
    std::string note = "Published: " + source.citation.title + ", " + cell.location + " (" + source.citation.url + ", "
        + source.citation.date + "). As published:";
    if (f.tokensPerSPerGpu)
        note += " " + formatNumber(*f.tokensPerSPerGpu) + " tokens/s per GPU;";
    if (f.stepTimeS)
        note += " " + formatNumber(*f.stepTimeS) + " s per step;";
    if (f.mfu)
        note += " MFU " + formatNumber(*f.mfu * 100.0) + " %;";
    if (f.memory)
        note += " memory " + formatNumber(f.memory->value) + " "
            + (f.memory->printedUnit.empty() ? f.memory->unit : f.memory->printedUnit) + " per GPU (" + f.memory->kind
            + (!f.memory->kindStated && f.memory->kind != kNotStated ? ", inferred" : "") + ");";
    if (f.outcome == "oom")
        note += " out of memory: " + f.statement + ";";
    if (!f.tokensPerSPerGpu && f.stepTimeS)
        note += " tokens/s derived from the step time with the micro-batch, sequence and accumulation below;";
    if (!input.assumed.empty()) {
        note += " assumed (not stated):";
        for (std::size_t i = 0; i < input.assumed.size(); ++i)
            note += (i ? ", " : " ") + input.assumed[i];
        note += ";";
    }
    if (!cell.predictionNote.empty())
        note += " " + cell.predictionNote + ".";
    return note;
}

std::int64_t bytes(double b)
{
    return static_cast<std::int64_t>(std::llround(b));
}

// The publication date as the run's start, when the citation's date begins with YYYY-MM-DD; otherwise
// the import time (the exchange import's default).
std::optional<std::string> isoDate(const std::string& date)
{
    if (date.size() < 10)
        return std::nullopt;
    for (std::size_t i = 0; i < 10; ++i)
        if (i == 4 || i == 7 ? date[i] != '-' : !std::isdigit(static_cast<unsigned char>(date[i])))
            return std::nullopt;
    return date.substr(0, 10);
}

} // namespace

std::string publishedRunKey(const Source& source, const Cell& cell)
{
    return std::string(kPublishedSourcePrefix) + source.id + "/" + cell.id;
}

bool isPublishedRun(const std::string& importSource)
{
    return importSource.rfind(kPublishedSourcePrefix, 0) == 0;
}

json publishedRunsDocument(const std::vector<Source>& sources, const PresetCatalog& catalog,
                           const Calibration& calibration, std::vector<std::string>* skipped)
{
    json runs = json::array();
    const auto skip = [&](const std::string& key, const std::string& why) {
        if (skipped)
            skipped->push_back(key + ": " + why);
    };
    for (const Source& source : sources) {
        for (const Cell& cell : source.cells) {
            const std::string key = publishedRunKey(source, cell);
            if (cell.kind != CellKind::Training) {
                skip(key,
                     cell.kind == CellKind::ModelStates ? "model-state figures are not a run"
                                                        : "a statement without figures");
                continue;
            }
            const CellInput input = buildInput(cell, catalog);
            if (!input.ok) {
                skip(key, input.reason);
                continue;
            }
            const CellPrediction p = predict(cell, input, calibration);
            const EstimateInput& in = input.input;
            const int world = in.cluster.worldSize();
            const PublishedFigures& f = cell.published;
            json run = { { "status", f.outcome },
                         { "import_source", key },
                         { "launcher", kPublishedLauncher },
                         { "note", noteFor(source, cell, input) },
                         { "model", in.model.id },
                         { "gpu_id", in.gpu.id },
                         { "gpu_name", cell.setup.value("gpu", in.gpu.name) },
                         { "strategy", strategyId(input.strategy) },
                         { "world_size", world },
                         { "node_count", in.cluster.nodes },
                         { "interconnect", interconnectId(in.cluster.intraNode) },
                         { "precision", precisionId(in.training.precision) },
                         { "micro_batch", in.training.microBatch },
                         { "seq_len", in.training.seqLen },
                         { "predicted_tokens_per_s", p.estimate.throughput.tokensPerS },
                         { "predicted_step_s", p.estimate.throughput.stepTimeS },
                         { "predicted_peak_bytes", bytes(p.estimate.memory.allocatedPeak()) } };
            // The network between nodes the prediction assumed (the cell's inter_node_gbps).
            if (in.cluster.nodes > 1)
                run["inter_node_gbps"] = in.cluster.interNodeGBps;
            if (const auto day = isoDate(source.citation.date))
                run["started_at"] = *day;
            if (f.outcome == "completed" && p.publishedTokensPerSPerGpu)
                run["tokens_per_s"] = *p.publishedTokensPerSPerGpu * world; // the store keeps the global figure
            if (f.stepTimeS)
                run["median_step_s"] = *f.stepTimeS;
            if (f.memory) {
                // allocated / active peaks are what the store calls allocated; everything else (reserved,
                // nvidia-smi, not stated) is at least the allocator's reservation: the note says which.
                const bool allocated = f.memory->kind == "allocated" || f.memory->kind == "active";
                run[allocated ? "peak_allocated_bytes" : "peak_reserved_bytes"] = bytes(f.memory->bytes());
            }
            runs.push_back(std::move(run));
        }
    }
    return { { "format", "shardwise-runs" }, { "version", 1 }, { "runs", runs } };
}

PublishedImportResult importPublished(store::Database& db, const std::vector<Source>& sources,
                                      const PresetCatalog& catalog, const PublishedImportOptions& options)
{
    db.requireWritable();
    PublishedImportResult result;
    json document = publishedRunsDocument(sources, catalog, options.calibration, &result.skipped);

    std::map<std::string, std::vector<std::int64_t>> stored; // key -> run ids already in the store
    store::RunFilter filter;
    filter.source = store::RunSource::Imported;
    for (const store::RunSummary& run : store::listRuns(db, filter))
        if (isPublishedRun(run.importSource))
            stored[run.importSource].push_back(run.id);

    json fresh = json::array();
    std::vector<std::int64_t> stale;
    for (json& run : document["runs"]) {
        const std::string key = run["import_source"].get<std::string>();
        const auto it = stored.find(key);
        if (it != stored.end() && !options.replace) {
            result.alreadyStored.push_back(key);
            continue;
        }
        if (it != stored.end())
            stale.insert(stale.end(), it->second.begin(), it->second.end());
        fresh.push_back(std::move(run));
    }
    if (!fresh.empty()) {
        document["runs"] = std::move(fresh);
        std::istringstream in(document.dump());
        result.inserted = store::importRunsJson(db, in, "published").runIds;
    }
    // The new rows are stored first: a failed import leaves the old ones in place.
    for (const std::int64_t id : stale)
        if (store::removeRun(db, id))
            result.replaced.push_back(id);
    return result;
}

} // namespace shardwise::published
