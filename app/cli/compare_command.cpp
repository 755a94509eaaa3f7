// shardwise-cli compare: predicted against measured for every finished run in the store, per GPU
// type: the presets' prediction, the prediction with the calibration the store supports (newest
// probe + residuals of the stored runs, in-sample), and the prediction stored when the run was
// planned, each with its error against the measurement. Each run is labelled with its backend (the
// native runner or the PyTorch harness), and where both measured the same setup the two stand side by
// side.
#include "command.hpp"
#include "options.hpp"
#include "shardwise/spec/file_output.hpp"
#include "shardwise/spec/suggest.hpp"

#include "shardwise/calibrate/stored_comparison.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/spec/quote.hpp"
#include "shardwise/store/location.hpp"
#include "shardwise/store/runs.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

namespace shardwise::cli {

namespace {

CommandSpec compareSpec()
{
    return {
        "compare",
        "predicted against measured per stored run (tokens/s, peak memory)",
        "[--db PATH] [--gpu PRESET] [--model ID] [--strategy ID] [--node NAME] [--format table|json|csv] "
        "[--out FILE]",
        "Predicted against measured for every completed or out-of-memory run in the store that has its "
        "configuration: tokens/s and peak allocated memory per GPU, each with its error (predicted - measured) / "
        "measured, and the fit verdict against what happened. Three predictions: presets (uncalibrated); "
        "calibrated from the store (the node's newest probe, then the residuals of the stored runs on that GPU "
        "type: in-sample, so it shows what calibration can explain, not how it predicts new runs: bench/fidelity "
        "measures that); and the prediction stored when the run was planned, if any.",
        {},
        false,
        { { "--db",
            "PATH",
            "the run store (default: $SHARDWISE_DB, else the user's data directory)",
            {},
            Complete::File },
          { "--gpu",
            "PRESET",
            "only runs on this GPU preset (default: every preset the runs name)",
            {},
            Complete::Gpu },
          { "--model", "ID", "only runs of this model", {}, Complete::Model },
          { "--strategy", "ID", "only runs of this strategy", {}, Complete::Strategy },
          { "--node",
            "NAME",
            "calibrate from this node's newest probe (default: the newest probe of any node with the run's GPU)",
            {},
            Complete::Node },
          { "--format", "F", "table, json or csv (default table)", { "table", "json", "csv" } },
          { "--out", "FILE", "write to FILE instead of stdout", {}, Complete::File } },
        "Every run says its backend: native (shardwise-runner) or torch (the PyTorch harness). The table ends each "
        "GPU with \"native vs torch\": the same model, strategy, world size, micro-batch and sequence measured by "
        "both, newest run of each, side by side. A rehearsal (run --rehearse-world N) is compared by its memory "
        "only, against the prediction for world N per rank (world_size 1, rehearsed_world N)."
    };
}

std::vector<CommandSpec> compareSpecs()
{
    return { compareSpec() };
}

using Row = calibrate::StoredRunComparison;
using GpuSection = calibrate::GpuComparison;
// The backend each compared run was measured with, by run id (the store's runs.backend).
using Backends = std::map<std::int64_t, RunBackend>;

RunBackend backendOf(const Backends& backends, const Row& r)
{
    const auto it = backends.find(r.runId);
    return it == backends.end() ? RunBackend::Native : it->second;
}

std::string backendText(const Backends& backends, const Row& r)
{
    return std::string(backendId(backendOf(backends, r)));
}

std::optional<double> errorOf(const std::optional<double>& predicted, const std::optional<double>& measured)
{
    if (!predicted || !measured || *measured <= 0)
        return std::nullopt;
    return calibrate::relativeError(*predicted, *measured);
}

nlohmann::json orNull(const std::optional<double>& x)
{
    return x ? nlohmann::json(*x) : nlohmann::json();
}

std::string fmt(const std::optional<double>& x, const char* format, double scale = 1.0)
{
    if (!x)
        return "-";
    char b[48];
    std::snprintf(b, sizeof b, format, *x * scale);
    return b;
}

std::string status(const Row& r)
{
    return r.observation.oom ? "oom" : "completed";
}

// The ranks that ran: one for a rehearsal, whose prediction is for the world it stands for.
int ranksRun(const calibrate::Observation& o)
{
    return o.rehearsal() ? 1 : o.input.cluster.worldSize();
}

nlohmann::json rehearsedWorldJson(const calibrate::Observation& o)
{
    return o.rehearsal() ? nlohmann::json(o.rehearsedWorld) : nlohmann::json();
}

nlohmann::json sideJson(const calibrate::Comparison& c)
{
    return { { "tokens_per_s", orNull(c.comparableTokensPerS()) },
             { "tokens_error", orNull(c.tokensError) },
             { "peak_allocated_gib", c.predictedPeakBytes / kGiB },
             { "peak_error", orNull(c.peakError) },
             { "fits", c.predictedFits },
             { "verdict_wrong", c.verdictWrong() } };
}

void writeJson(std::ostream& out, const std::vector<GpuSection>& sections, const Backends& backends)
{
    nlohmann::json j { { "gpus", nlohmann::json::array() } };
    for (const GpuSection& s : sections) {
        nlohmann::json g { { "gpu", s.gpu },
                           { "calibration",
                             { { "source", s.calibration.source },
                               { "runs", s.calibration.runs },
                               { "confidence", s.calibration.confidence },
                               { "confidence_label", s.calibration.confidenceLabel },
                               { "fitted", s.calibration.fitted },
                               { "coefficients", toJson(s.calibration.calibration) } } },
                           { "runs", nlohmann::json::array() } };
        for (const Row& r : s.rows) {
            const calibrate::Observation& o = r.observation;
            g["runs"].push_back(
                { { "run", r.runId },
                  { "model", o.input.model.id },
                  { "strategy", strategyId(o.strategy) },
                  { "backend", backendText(backends, r) },
                  { "world_size", ranksRun(o) },
                  { "rehearsed_world", rehearsedWorldJson(o) },
                  { "micro_batch", o.input.training.microBatch },
                  { "seq_len", o.input.training.seqLen },
                  { "status", status(r) },
                  { "measured",
                    { { "tokens_per_s", orNull(r.presets.measuredTokensPerS) },
                      { "peak_allocated_gib",
                        r.presets.measuredPeakBytes ? nlohmann::json(*r.presets.measuredPeakBytes / kGiB)
                                                    : nlohmann::json() } } },
                  { "presets", sideJson(r.presets) },
                  { "calibrated", sideJson(r.calibrated) },
                  { "planned",
                    { { "tokens_per_s", orNull(r.plannedTokensPerS) },
                      { "tokens_error", orNull(errorOf(r.plannedTokensPerS, r.presets.measuredTokensPerS)) },
                      { "peak_allocated_gib",
                        r.plannedPeakBytes ? nlohmann::json(*r.plannedPeakBytes / kGiB) : nlohmann::json() },
                      { "peak_error", orNull(errorOf(r.plannedPeakBytes, r.presets.measuredPeakBytes)) } } } });
        }
        j["gpus"].push_back(g);
    }
    out << j.dump(2) << '\n';
}

// A CSV number: the shortest text that reads back as the same double, '.' as decimal point whatever
// the locale (std::to_chars), empty where there is none.
std::string csvNumber(const std::optional<double>& x)
{
    if (!x || !std::isfinite(*x))
        return {};
    char b[32];
    const auto [end, ec] = std::to_chars(b, b + sizeof b, *x);
    return ec == std::errc() ? std::string(b, end) : std::string();
}

std::string csvBytes(const std::optional<double>& bytes)
{
    return bytes && std::isfinite(*bytes) ? std::to_string(std::llround(*bytes)) : std::string();
}

// Numbers in SI units in named columns: tokens per second, bytes, errors as fractions of the measurement.
void writeCsv(std::ostream& out, const std::vector<GpuSection>& sections, const Backends& backends)
{
    out << "gpu,run,model,strategy,backend,world_size,rehearsed_world,micro_batch,seq_len,status,"
           "measured_tokens_per_second,"
           "presets_tokens_per_second,presets_tokens_error,calibrated_tokens_per_second,calibrated_tokens_error,"
           "planned_tokens_per_second,planned_tokens_error,measured_peak_allocated_bytes,presets_peak_allocated_bytes,"
           "presets_peak_error,calibrated_peak_allocated_bytes,calibrated_peak_error,presets_fits,calibrated_fits,"
           "calibration_source,calibration_confidence\n";
    for (const GpuSection& s : sections)
        for (const Row& r : s.rows) {
            const calibrate::Observation& o = r.observation;
            out << csvText(s.gpu) << ',' << r.runId << ',' << csvText(o.input.model.id) << ',' << strategyId(o.strategy)
                << ',' << backendText(backends, r) << ',' << ranksRun(o) << ','
                << (o.rehearsal() ? std::to_string(o.rehearsedWorld) : std::string()) << ','
                << o.input.training.microBatch << ',' << o.input.training.seqLen << ',' << status(r) << ','
                << csvNumber(r.presets.measuredTokensPerS) << ',' << csvNumber(r.presets.comparableTokensPerS()) << ','
                << csvNumber(r.presets.tokensError) << ',' << csvNumber(r.calibrated.comparableTokensPerS()) << ','
                << csvNumber(r.calibrated.tokensError) << ',' << csvNumber(r.plannedTokensPerS) << ','
                << csvNumber(errorOf(r.plannedTokensPerS, r.presets.measuredTokensPerS)) << ','
                << csvBytes(r.presets.measuredPeakBytes) << ',' << csvBytes(r.presets.predictedPeakBytes) << ','
                << csvNumber(r.presets.peakError) << ',' << csvBytes(r.calibrated.predictedPeakBytes) << ','
                << csvNumber(r.calibrated.peakError) << ',' << (r.presets.predictedFits ? "true" : "false") << ','
                << (r.calibrated.predictedFits ? "true" : "false") << ',' << csvText(s.calibration.source) << ','
                << csvNumber(s.calibration.confidence) << '\n';
        }
}

// Rows of the same setup measured by both backends, newest of each, side by side.
void writeBackendPairs(std::ostream& out, const GpuSection& s, const Backends& backends)
{
    // A rehearsal pairs with a rehearsal of the same world only.
    using Setup = std::tuple<std::string, Strategy, int, int, int, int>;
    std::map<Setup, std::map<RunBackend, const Row*>> setups;
    for (const Row& r : s.rows) {
        const calibrate::Observation& o = r.observation;
        const Setup key {
            o.input.model.id,       o.strategy, ranksRun(o), o.rehearsedWorld, o.input.training.microBatch,
            o.input.training.seqLen
        };
        const Row*& newest = setups[key][backendOf(backends, r)];
        if (!newest || newest->runId < r.runId)
            newest = &r;
    }
    std::vector<std::pair<const Row*, const Row*>> pairs;
    for (const auto& entry : setups)
        if (entry.second.size() == 2)
            pairs.emplace_back(entry.second.at(RunBackend::Native), entry.second.at(RunBackend::Torch));
    if (pairs.empty())
        return;
    const auto g = [](const std::optional<double>& x) { return x ? std::optional<double>(*x / kGiB) : x; };
    char line[512];
    out << "native vs torch (same model, strategy, world, micro-batch, sequence; newest run of each):\n";
    std::snprintf(line, sizeof line, "%-14s %-22s %6s | %-30s | %-30s | %s\n", "model", "strategy", "seq",
                  "native: run, tok/s, peak GiB", "torch: run, tok/s, peak GiB", "torch/native tok/s");
    out << line;
    for (const auto& [native, torch] : pairs) {
        const calibrate::Observation& o = native->observation;
        const auto side = [&](const Row* r) {
            return "#" + std::to_string(r->runId) + ", " + fmt(r->presets.measuredTokensPerS, "%.0f") + ", "
                + fmt(g(r->presets.measuredPeakBytes), "%.2f");
        };
        std::optional<double> ratio;
        if (native->presets.measuredTokensPerS && torch->presets.measuredTokensPerS
            && *native->presets.measuredTokensPerS > 0)
            ratio = *torch->presets.measuredTokensPerS / *native->presets.measuredTokensPerS;
        std::snprintf(line, sizeof line, "%-14s %-22s %6d | %-30s | %-30s | %s\n", o.input.model.id.c_str(),
                      strategyId(o.strategy).data(), o.input.training.seqLen, side(native).c_str(), side(torch).c_str(),
                      fmt(ratio, "%.2fx").c_str());
        out << line;
    }
}

void writeTable(std::ostream& out, const std::vector<GpuSection>& sections, const Backends& backends)
{
    if (sections.empty()) {
        out << "No completed or out-of-memory runs with a stored configuration match.\n";
        return;
    }
    bool rehearsals = false;
    for (const GpuSection& s : sections) {
        out << "GPU " << s.gpu << ": calibration from " << s.calibration.source << ", confidence "
            << s.calibration.confidenceLabel << " (" << fmt(s.calibration.confidence, "%.2f") << ")";
        if (s.calibration.runs > 0)
            out << "; in-sample residuals: tokens/s median " << fmt(s.calibration.tokens.medianAbs, "%.1f %%", 100)
                << ", worst " << fmt(s.calibration.tokens.worstAbs, "%.1f %%", 100) << "; peak median "
                << fmt(s.calibration.peak.medianAbs, "%.1f %%", 100) << ", worst "
                << fmt(s.calibration.peak.worstAbs, "%.1f %%", 100);
        out << "\n";
        char line[512];
        std::snprintf(line, sizeof line,
                      "%6s  %-14s %-30s %6s %-9s | %10s %10s %8s %10s %8s | %8s %8s %8s %8s %8s | %s\n", "run", "model",
                      "strategy", "seq", "status", "tok/s", "presets", "error", "calibr.", "error", "peak GiB",
                      "presets", "error", "calibr.", "error", "verdict (presets/calibrated)");
        out << line;
        for (const Row& r : s.rows) {
            const calibrate::Observation& o = r.observation;
            const auto verdict = [&](const calibrate::Comparison& c) {
                return std::string(c.predictedFits ? "fits" : "no fit") + (c.verdictWrong() ? " (wrong)" : "");
            };
            const auto g = [](const std::optional<double>& x) { return x ? std::optional<double>(*x / kGiB) : x; };
            const std::string label = std::string(strategyId(o.strategy)) + " (" + backendText(backends, r)
                + (o.rehearsal() ? ", rehearsal of " + std::to_string(o.rehearsedWorld) : std::string()) + ")";
            rehearsals = rehearsals || o.rehearsal();
            std::snprintf(line, sizeof line,
                          "%6lld  %-14s %-30s %6d %-9s | %10s %10s %8s %10s %8s | %8s %8s %8s %8s %8s | %s / %s\n",
                          static_cast<long long>(r.runId), o.input.model.id.c_str(), label.c_str(),
                          o.input.training.seqLen, status(r).c_str(), fmt(r.presets.measuredTokensPerS, "%.0f").c_str(),
                          fmt(r.presets.comparableTokensPerS(), "%.0f").c_str(),
                          fmt(r.presets.tokensError, "%+.1f%%", 100).c_str(),
                          fmt(r.calibrated.comparableTokensPerS(), "%.0f").c_str(),
                          fmt(r.calibrated.tokensError, "%+.1f%%", 100).c_str(),
                          fmt(g(r.presets.measuredPeakBytes), "%.2f").c_str(),
                          fmt(r.presets.predictedPeakBytes / kGiB, "%.2f").c_str(),
                          fmt(r.presets.peakError, "%+.1f%%", 100).c_str(),
                          fmt(r.calibrated.predictedPeakBytes / kGiB, "%.2f").c_str(),
                          fmt(r.calibrated.peakError, "%+.1f%%", 100).c_str(), verdict(r.presets).c_str(),
                          verdict(r.calibrated).c_str());
            out << line;
        }
        writeBackendPairs(out, s, backends);
    }
    if (rehearsals)
        out << "A rehearsal of N ran one rank alone as rank 0 of world N: its peak is that rank's, predicted for "
               "world N; its steps held no communication, so it has no tok/s, measured or predicted (-), and it "
               "calibrates the memory coefficients only.\n";
}

int compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::map<std::string, std::string> v;
    try {
        const ParsedArgs parsed = parseArgs(compareSpec(), args);
        if (parsed.help) {
            out << usageText(compareSpec());
            return kExitOk;
        }
        for (const ParsedOption& o : parsed.options)
            v[o.name] = o.value;
        const std::string format = v.count("--format") ? v["--format"] : "table";
        if (format != "table" && format != "json" && format != "csv")
            throw UsageError("--format: expected table, json or csv, got '" + format + "'");
        std::optional<Strategy> strategy;
        if (v.count("--strategy")) {
            strategy = strategyFromId(v["--strategy"]);
            if (!strategy)
                throw UsageError("--strategy: unknown strategy '" + v["--strategy"] + "'"
                                 + strategyDidYouMean(v["--strategy"]) + "; known: " + strategyIdList());
        }
        const PresetCatalog& catalog = PresetCatalog::builtin();
        if (v.count("--gpu") && !catalog.findGpu(v["--gpu"])) {
            std::vector<std::string> ids;
            for (const GpuSpec& g : catalog.gpus())
                ids.push_back(g.id);
            throw UsageError("--gpu: unknown GPU preset '" + v["--gpu"] + "'" + didYouMean(v["--gpu"], ids));
        }

        const store::Database db
            = store::Database::open(store::resolveDatabasePath(v.count("--db") ? v["--db"] : std::string()),
                                    store::OpenOptions { .readOnly = true });
        calibrate::ComparisonFilter filter;
        filter.gpu = v.count("--gpu") ? v["--gpu"] : std::string();
        filter.model = v.count("--model") ? v["--model"] : std::string();
        filter.strategy = strategy;
        filter.node = v.count("--node") ? v["--node"] : std::string();
        const std::vector<GpuSection> sections = calibrate::compareStoredRuns(db, filter);
        Backends backends;
        for (const GpuSection& s : sections)
            for (const Row& r : s.rows)
                if (const auto run = store::findRun(db, r.runId))
                    backends[r.runId] = run->backend;

        std::ostringstream text;
        std::ostream& target = v.count("--out") ? static_cast<std::ostream&>(text) : out;
        if (format == "json")
            writeJson(target, sections, backends);
        else if (format == "csv")
            writeCsv(target, sections, backends);
        else
            writeTable(target, sections, backends);
        if (v.count("--out"))
            if (const std::string why = writeFileSafely(v["--out"], text.str()).error; !why.empty())
                throw UsageError("--out: " + why);
        return kExitOk;
    } catch (const UsageError& e) {
        err << "shardwise-cli compare: " << e.what() << "\n";
        return kExitUsage;
    } catch (const store::StoreError& e) {
        err << "shardwise-cli compare: " << e.what() << "\n";
        return kExitFailed;
    }
}

const CommandRegistration kRegistration("compare", "predicted against measured per stored run (tokens/s, peak memory)",
                                        compare, compareSpecs);

} // namespace

} // namespace shardwise::cli
