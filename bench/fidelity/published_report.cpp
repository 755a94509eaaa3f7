#include "published_report.hpp"

#include "fidelity.hpp"

#include "shardwise/calibrate/fit.hpp"
#include "shardwise/published/published.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>

namespace fidelity {

using namespace shardwise;
namespace pub = shardwise::published;
using nlohmann::json;
using pub::CellInput;
using pub::CellKind;
using pub::CellPrediction;
using pub::kNotStated;
using pub::MemoryFigure;
using pub::PublishedFigures;
using pub::Source;

namespace {

struct Row {
    const Source* source = nullptr;
    const pub::Cell* cell = nullptr;
    CellInput input;
    CellPrediction presets; // the presets, no speed factor
    CellPrediction held;    // the held-out source's prediction with the other sources' framework factor
    CellPrediction fitted;  // ... with the calibration fitted (calibrate::fitCalibration) on the other sources
    double factor = 1.0;
    int factorCells = 0; // cells the factor was fitted on (0: no other source has this framework)
    std::string framework;
};

std::string git(const std::string& args)
{
    const std::string cmd = "git -C '" + std::string(SHARDWISE_SOURCE_DIR) + "' " + args + " 2>/dev/null";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
    if (!pipe)
        return {};
    std::string out;
    std::array<char, 256> buf {};
    while (fgets(buf.data(), buf.size(), pipe.get()))
        out += buf.data();
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r'))
        out.pop_back();
    return out;
}

std::string gib(double bytes)
{
    return formatNumber(bytes / kGiB, "%.1f");
}

std::string setupText(const Row& r)
{
    const EstimateInput& in = r.input.input;
    if (r.cell->kind == CellKind::ModelStates)
        return formatNumber(r.input.params / 1e9, "%.4g") + "B params, W=" + std::to_string(r.input.world) + ", "
            + std::string(strategyId(r.input.strategy)) + ", " + std::string(precisionId(in.training.precision));
    std::string ac = !in.training.activationCheckpointing        ? "no AC"
        : in.training.checkpointPolicy == CheckpointPolicy::Full ? "full AC"
                                                                 : "selective AC";
    return in.model.id + ", " + in.gpu.id + ", W=" + std::to_string(in.cluster.worldSize()) + " ("
        + std::to_string(in.cluster.nodes) + "x" + std::to_string(in.cluster.gpusPerNode) + "), " + r.framework
        + (in.framework.compiled ? "+compile" : "") + " " + std::string(strategyId(r.input.strategy)) + ", "
        + std::to_string(in.training.microBatch) + "x" + std::to_string(in.training.seqLen)
        + (in.training.gradAccumulation > 1 ? "x" + std::to_string(in.training.gradAccumulation) : "") + ", " + ac
        + ", " + std::string(precisionId(in.training.precision));
}

std::string memoryText(const std::optional<MemoryFigure>& m)
{
    if (!m)
        return "-";
    const bool inferred = !m->kindStated && m->kind != kNotStated;
    return formatNumber(m->value, "%.4g") + " " + (m->printedUnit.empty() ? m->unit : m->printedUnit) + " (" + m->kind
        + (inferred ? ", inferred" : "") + ")";
}

std::string joined(const std::vector<std::string>& items)
{
    std::string out;
    for (const auto& s : items)
        out += (out.empty() ? "" : ", ") + s;
    return out.empty() ? "-" : out;
}

json optionalJson(const std::optional<double>& v)
{
    return v ? json(*v) : json();
}

struct Stats {
    int count = 0;
    double medianAbs = 0;
    double worstAbs = 0;
    std::string worst;
};

Stats stats(const std::vector<std::pair<double, std::string>>& errors)
{
    Stats s;
    std::vector<double> abs;
    for (const auto& [e, label] : errors) {
        abs.push_back(std::fabs(e));
        if (std::fabs(e) >= s.worstAbs) {
            s.worstAbs = std::fabs(e);
            s.worst = label;
        }
    }
    s.count = static_cast<int>(abs.size());
    if (!abs.empty()) {
        std::sort(abs.begin(), abs.end());
        const std::size_t n = abs.size();
        s.medianAbs = n % 2 ? abs[n / 2] : 0.5 * (abs[n / 2 - 1] + abs[n / 2]);
    }
    return s;
}

std::string statsText(const Stats& s)
{
    if (!s.count)
        return "- | - | 0";
    return formatNumber(100.0 * s.medianAbs, "%.1f %%") + " | " + formatNumber(100.0 * s.worstAbs, "%.1f %%") + " ("
        + s.worst + ") | " + std::to_string(s.count);
}

json statsJson(const Stats& s)
{
    return { { "cells", s.count },
             { "median_abs", s.count ? json(s.medianAbs) : json() },
             { "worst_abs", s.count ? json(s.worstAbs) : json() },
             { "worst_cell", s.worst } };
}

// exp(mean log(published / predicted)) per framework over the completed cells with a throughput, of
// every source but `heldOut` ("" = all sources).
std::map<std::string, std::pair<double, int>> fitFactors(const std::vector<Row>& rows, const std::string& heldOut)
{
    std::map<std::string, std::pair<double, int>> sum;
    for (const Row& r : rows)
        if (r.presets.ok && r.presets.tokensError && r.source->id != heldOut) {
            auto& [s, n] = sum[r.framework];
            s += std::log(1.0 / (1.0 + *r.presets.tokensError));
            ++n;
        }
    for (auto& [f, v] : sum)
        v.first = std::exp(v.first / v.second);
    return sum;
}

// The other sources' training cells as calibration observations: tokens/s (global) where a throughput
// is published or derived, the peak where its kind is allocated or reserved, OOM verdicts.
std::vector<calibrate::Observation> observations(const std::vector<Row>& rows, const std::string& heldOut)
{
    std::vector<calibrate::Observation> out;
    for (const Row& r : rows) {
        if (r.cell->kind != CellKind::Training || !r.input.ok || r.source->id == heldOut)
            continue;
        // A figure the source leaves unknowable is no evidence to fit on (Cell::unknowable).
        const auto& unknowable = r.cell->unknowable;
        if (unknowable.count("verdict"))
            continue;
        calibrate::Observation o;
        o.input = r.input.input;
        o.strategy = r.input.strategy;
        o.oom = r.cell->published.outcome == "oom";
        o.label = r.source->id + "/" + r.cell->id;
        if (!o.oom) {
            if (r.presets.publishedTokensPerSPerGpu && !unknowable.count("throughput"))
                o.tokensPerS = *r.presets.publishedTokensPerSPerGpu * o.input.cluster.worldSize();
            if (const auto& m = r.cell->published.memory; m && !unknowable.count("memory")) {
                if (m->kind == "allocated" || m->kind == "active")
                    o.peakAllocatedBytes = m->bytes();
                else if (m->kind == "reserved")
                    o.peakReservedBytes = m->bytes();
            }
        }
        out.push_back(std::move(o));
    }
    return out;
}

} // namespace

int runPublished(const PublishedOptions& options)
{
    const std::vector<Source> sources = pub::loadDirectory(options.dir);
    const PresetCatalog& catalog = PresetCatalog::builtin();
    std::vector<Row> rows;
    for (const Source& s : sources)
        for (const pub::Cell& c : s.cells) {
            Row r;
            r.source = &s;
            r.cell = &c;
            r.input = pub::buildInput(c, catalog);
            r.presets = pub::predict(c, r.input, Calibration {});
            r.framework = r.input.ok ? std::string(frameworkId(r.input.input.framework.framework)) : "";
            rows.push_back(std::move(r));
        }
    // Leave one source out: each source's cells get the factor of their framework fitted on the others.
    for (const Source& s : sources) {
        const auto factors = fitFactors(rows, s.id);
        for (Row& r : rows)
            if (r.source == &s && r.cell->kind == CellKind::Training) {
                const auto it = factors.find(r.framework);
                r.factor = it == factors.end() ? 1.0 : it->second.first;
                r.factorCells = it == factors.end() ? 0 : it->second.second;
                r.held = pub::predict(*r.cell, r.input, Calibration {}, r.factor);
            }
    }
    const auto allFactors = fitFactors(rows, "");
    // Leave one source out with the estimate's own coefficients: fit a calibration on the other sources'
    // cells (each coefficient only where those cells inform it) and predict the held-out source with it.
    std::map<std::string, std::vector<std::string>> fittedNames;
    for (const Source& s : sources) {
        const auto obs = observations(rows, s.id);
        const calibrate::CalibrationFit fit = calibrate::fitCalibration(obs);
        fittedNames[s.id] = fit.fitted;
        for (Row& r : rows)
            if (r.source == &s && r.cell->kind == CellKind::Training)
                r.fitted = pub::predict(*r.cell, r.input, fit.calibration);
    }

    std::string commit = options.commit.empty() ? git("rev-parse --short HEAD") : options.commit;
    if (options.commit.empty() && !git("status --porcelain -- core bench/published resources/presets").empty())
        commit += " (with uncommitted changes under core/, bench/published/ or resources/presets/)";

    std::ofstream md(options.markdown);
    json report { { "format", "shardwise-published-report" },
                  { "version", 1 },
                  { "command", options.command },
                  { "commit", commit } };
    md << "# Predicted against published results\n\n"
       << "Every cell of `bench/published/*.json` that Shardwise can express, predicted with the presets (no "
          "calibration) and compared with the figures as published; errors are predicted / published - 1. "
          "Regenerate with:\n\n    "
       << options.command << "\n\nCommit: " << (commit.empty() ? "unknown" : commit)
       << ". The estimate's framework model is still changing: the numbers below are those of this commit.\n\n";

    md << "## Sources\n\n| source | cells | predictable | citation |\n|---|---|---|---|\n";
    json sourcesJson = json::array();
    for (const Source& s : sources) {
        int predictable = 0;
        for (const Row& r : rows)
            predictable += r.source == &s && r.input.ok;
        md << "| `" << s.id << "` | " << s.cells.size() << " | " << predictable << " | " << s.citation.title << ", "
           << s.citation.location << " (" << s.citation.url << ") |\n";
        sourcesJson.push_back({ { "id", s.id },
                                { "title", s.citation.title },
                                { "url", s.citation.url },
                                { "date", s.citation.date },
                                { "version", s.citation.version },
                                { "cells", s.cells.size() },
                                { "predictable", predictable } });
    }
    report["sources"] = sourcesJson;

    md << "\n## Training cells\n\nThroughput is tokens/s per GPU; '(d)' marks a published step time turned into "
          "tokens/s "
          "with the cell's micro-batch x sequence (assumed where the source does not say). Memory is compared with the "
          "published kind: reserved = allocated peak + the allocator's expected cache; 'device total' (kind not "
          "stated, nvidia-smi) adds the CUDA context. The verdict is the planner's fit against the published "
          "outcome.\n\n"
       << "| source | cell | setup | published tok/s/GPU | predicted | error | LOSO factor | LOSO error | LOSO fit "
          "error | "
          "published memory | predicted GiB | error | outcome | predicted | assumed |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    json cellsJson = json::array();
    for (const Row& r : rows) {
        if (r.cell->kind != CellKind::Training || !r.input.ok)
            continue;
        const CellPrediction& p = r.presets;
        const std::string published = p.publishedTokensPerSPerGpu
            ? formatNumber(*p.publishedTokensPerSPerGpu, "%.0f") + (p.throughputDerived ? " (d)" : "")
            : "-";
        md << "| `" << r.source->id << "` | `" << r.cell->id << "` | " << setupText(r) << " | " << published << " | "
           << formatNumber(p.predictedTokensPerSPerGpu, "%.0f") << " | " << formatError(p.tokensError) << " | "
           << (r.factorCells ? formatNumber(r.factor, "%.3f") + " (" + std::to_string(r.factorCells) + ")" : "none")
           << " | " << formatError(r.held.tokensError) << " | " << formatError(r.fitted.tokensError) << " | "
           << memoryText(r.cell->published.memory) << " | " << gib(p.predictedMemoryBytes) << " "
           << p.predictedMemoryKind << " | " << formatError(p.memoryError) << " | " << r.cell->published.outcome
           << " | " << (p.predictedFits ? "fits" : "does not fit")
           << (p.verdictWrong.value_or(false) ? " **wrong**" : "") << " | " << joined(r.input.assumed) << " |\n";
        cellsJson.push_back(
            { { "source", r.source->id },
              { "cell", r.cell->id },
              { "location", r.cell->location },
              { "setup", setupText(r) },
              { "framework", r.framework },
              { "strategy", strategyId(r.input.strategy) },
              { "published_tokens_per_s_per_gpu", optionalJson(p.publishedTokensPerSPerGpu) },
              { "throughput_derived", p.throughputDerived },
              { "predicted_tokens_per_s_per_gpu", p.predictedTokensPerSPerGpu },
              { "tokens_error", optionalJson(p.tokensError) },
              { "published_mfu", optionalJson(r.cell->published.mfu) },
              { "predicted_mfu", p.estimate.throughput.mfu },
              { "loso_factor", r.factor },
              { "loso_factor_cells", r.factorCells },
              { "loso_tokens_error", optionalJson(r.held.tokensError) },
              { "loso_fit_tokens_error", optionalJson(r.fitted.tokensError) },
              { "loso_fit_memory_error", optionalJson(r.fitted.memoryError) },
              { "loso_fit_verdict_wrong", r.fitted.verdictWrong ? json(*r.fitted.verdictWrong) : json() },
              { "published_memory_gib",
                r.cell->published.memory ? json(r.cell->published.memory->bytes() / kGiB) : json() },
              { "published_memory_kind", r.cell->published.memory ? json(r.cell->published.memory->kind) : json() },
              { "predicted_memory_gib", p.predictedMemoryBytes / kGiB },
              { "predicted_memory_kind", p.predictedMemoryKind },
              { "predicted_memory_breakdown_gib", toJson(p.estimate.memory) },
              { "memory_error", optionalJson(p.memoryError) },
              { "published_outcome", r.cell->published.outcome },
              { "predicted_fits", p.predictedFits },
              { "verdict_wrong", p.verdictWrong ? json(*p.verdictWrong) : json() },
              { "assumed", r.input.assumed } });
    }
    report["training_cells"] = cellsJson;

    md << "\n## Model-state cells\n\nPer-device model states (parameters, gradients, optimizer) as the source gives "
          "them, "
          "against the model state of the cell's own framework target (`frameworkModelStateBytes`: the ZeRO paper's "
          "analysis is the native partitioning, DeepSpeed's estimator the DeepSpeed target); the prediction in the "
          "published figure's unit.\n\n| source | cell | setup | published | "
          "predicted | error |\n|---|---|---|---|---|---|\n";
    json statesJson = json::array();
    for (const Row& r : rows) {
        if (r.cell->kind != CellKind::ModelStates || !r.input.ok)
            continue;
        md << "| `" << r.source->id << "` | `" << r.cell->id << "` | " << setupText(r) << " | "
           << memoryText(r.cell->published.deviceMemory) << " | "
           << formatNumber(
                  r.presets.predictedMemoryBytes / (r.cell->published.deviceMemory->unit == "GiB" ? kGiB : 1e9), "%.3g")
           << " " << r.cell->published.deviceMemory->unit << " | " << formatError(r.presets.memoryError) << " |\n";
        statesJson.push_back({ { "source", r.source->id },
                               { "cell", r.cell->id },
                               { "setup", setupText(r) },
                               { "published_gib", r.cell->published.deviceMemory->bytes() / kGiB },
                               { "predicted_gib", r.presets.predictedMemoryBytes / kGiB },
                               { "memory_error", optionalJson(r.presets.memoryError) } });
    }
    report["model_state_cells"] = statesJson;

    md << "\n## Per source\n\nMedian and worst absolute error, cells compared. 'LOSO': each source predicted with the "
          "per-framework speed factor fitted on the other sources' cells (exp of the mean log published/predicted; a "
          "framework no other source has keeps 1). 'LOSO fit': each source predicted with `calibrate::fitCalibration` "
          "fitted on "
          "the other sources' cells (tokens/s, reserved or allocated peaks, OOM verdicts; each coefficient only where "
          "those cells inform it).\n\n| source | tokens/s presets: median | worst | n | tokens/s LOSO factor: median | "
          "worst | n | tokens/s LOSO fit: median | worst | n | memory: median | worst | n | wrong verdicts | LOSO fit: "
          "fitted coefficients |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    json perSource = json::array();
    for (const Source& s : sources) {
        std::vector<std::pair<double, std::string>> tok, loso, lfit, mem;
        int wrong = 0, verdicts = 0;
        for (const Row& r : rows) {
            if (r.source != &s || !r.presets.ok)
                continue;
            if (r.presets.tokensError)
                tok.emplace_back(*r.presets.tokensError, r.cell->id);
            if (r.held.tokensError)
                loso.emplace_back(*r.held.tokensError, r.cell->id);
            if (r.fitted.tokensError)
                lfit.emplace_back(*r.fitted.tokensError, r.cell->id);
            if (r.presets.memoryError)
                mem.emplace_back(*r.presets.memoryError, r.cell->id);
            if (r.presets.verdictWrong) {
                ++verdicts;
                wrong += *r.presets.verdictWrong;
            }
        }
        const Stats t = stats(tok), l = stats(loso), lf = stats(lfit), m = stats(mem);
        md << "| `" << s.id << "` | " << statsText(t) << " | " << statsText(l) << " | " << statsText(lf) << " | "
           << statsText(m) << " | " << wrong << " of " << verdicts << " | "
           << (t.count || verdicts ? joined(fittedNames[s.id]) : "-") << " |\n";
        perSource.push_back({ { "source", s.id },
                              { "tokens_presets", statsJson(t) },
                              { "tokens_loso", statsJson(l) },
                              { "tokens_loso_fit", statsJson(lf) },
                              { "loso_fit_coefficients", fittedNames[s.id] },
                              { "memory", statsJson(m) },
                              { "wrong_verdicts", wrong },
                              { "verdicts", verdicts } });
    }
    report["per_source"] = perSource;

    md << "\nSpeed factors fitted on every source (published / predicted):";
    json factorsJson = json::object();
    for (const auto& [f, v] : allFactors) {
        md << " " << f << " " << formatNumber(v.first, "%.3f") << " (" << v.second << " cells);";
        factorsJson[f] = { { "factor", v.first }, { "cells", v.second } };
    }
    report["factors_all_sources"] = factorsJson;
    md << "\n\n## Figures left unknowable\n\nPredicted and listed above, but their errors are neither computed, "
          "counted (medians, worst, wrong verdicts) nor fitted on: the source does not let anyone predict them "
          "(`unknowable` in the source file).\n\n| source | cell | figure | why |\n|---|---|---|---|\n";
    json unknowableJson = json::array();
    for (const Row& r : rows)
        for (const auto& [what, why] : r.cell->unknowable) {
            md << "| `" << r.source->id << "` | `" << r.cell->id << "` | " << what << " | " << why << " |\n";
            unknowableJson.push_back(
                { { "source", r.source->id }, { "cell", r.cell->id }, { "figure", what }, { "reason", why } });
        }
    report["unknowable"] = unknowableJson;
    md << "\n## Cells not predicted\n\n| source | cell | where | published | why |\n|---|---|---|---|---|\n";
    json skipped = json::array();
    for (const Row& r : rows) {
        if (r.input.ok)
            continue;
        const PublishedFigures& f = r.cell->published;
        std::string figures = f.tokensPerSPerGpu ? formatNumber(*f.tokensPerSPerGpu, "%.0f") + " tok/s/GPU" : "";
        if (f.stepTimeS)
            figures += (figures.empty() ? "" : ", ") + formatNumber(*f.stepTimeS, "%.3g") + " s/step";
        if (f.memory)
            figures += (figures.empty() ? "" : ", ") + memoryText(f.memory);
        if (f.deviceMemory)
            figures += (figures.empty() ? "" : ", ") + memoryText(f.deviceMemory);
        if (f.outcome == "oom" || figures.empty())
            figures += (figures.empty() ? "" : ", ") + (f.outcome.empty() ? std::string("statement") : f.outcome);
        md << "| `" << r.source->id << "` | `" << r.cell->id << "` | " << r.cell->location << " | " << figures << " | "
           << r.input.reason << " |\n";
        skipped.push_back({ { "source", r.source->id }, { "cell", r.cell->id }, { "reason", r.input.reason } });
    }
    report["not_predicted"] = skipped;
    // A cell its file calls predictable that the planner now refuses: the data or the planner changed.
    std::vector<std::string> broken;
    for (const Row& r : rows)
        if (r.cell->predictable && !r.input.ok)
            broken.push_back(r.source->id + "/" + r.cell->id + ": " + r.input.reason);
    report["predictable_but_refused"] = broken;
    if (!broken.empty()) {
        md << "\n## Cells their file calls predictable that the planner refused\n\n";
        for (const auto& b : broken)
            md << "- " << b << "\n";
    }
    std::ofstream(options.json) << report.dump(2) << "\n";
    if (!md || !std::ofstream(options.json, std::ios::app))
        return 1;
    std::fprintf(stderr, "%zu sources, %zu cells; wrote %s and %s\n", sources.size(), rows.size(),
                 options.markdown.c_str(), options.json.c_str());
    for (const auto& b : broken)
        std::fprintf(stderr, "predictable cell refused by the planner: %s\n", b.c_str());
    return broken.empty() ? 0 : 1;
}

} // namespace fidelity
