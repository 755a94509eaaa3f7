#include "fidelity.hpp"

#include "shardwise/calibrate/fit.hpp"
#include "shardwise/calibrate/probe.hpp"
#include "shardwise/protocol/statistics.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

namespace fidelity {

using namespace shardwise;
using calibrate::Comparison;
using calibrate::ErrorSummary;

std::string formatError(const std::optional<double>& error)
{
    if (!error)
        return "-";
    char b[32];
    std::snprintf(b, sizeof b, "%+.1f %%", 100.0 * *error);
    return b;
}

std::string formatNumber(double x, const char* format)
{
    char b[64];
    std::snprintf(b, sizeof b, format, x);
    return b;
}

nlohmann::json comparisonJson(const calibrate::Comparison& c)
{
    nlohmann::json j { { "predicted_fits", c.predictedFits },
                       { "predicted_tokens_per_s", c.predictedTokensPerS },
                       { "predicted_peak_allocated_gib", c.predictedPeakBytes / kGiB } };
    j["tokens_error"] = c.tokensError ? nlohmann::json(*c.tokensError) : nlohmann::json();
    j["peak_error"] = c.peakError ? nlohmann::json(*c.peakError) : nlohmann::json();
    return j;
}

namespace {

struct Row {
    const MeasuredCell* cell;
    Comparison presets;    // uncalibrated
    Comparison calibrated; // calibrated on the other models
};

struct Fold {
    std::string heldOut;
    calibrate::CalibrationFit fit;
};

std::string summaryCells(const ErrorSummary& s)
{
    if (s.count == 0)
        return "- | - ";
    return formatNumber(100.0 * s.medianAbs, "%.1f %%") + " | " + formatNumber(100.0 * s.worstAbs, "%.1f %%") + " ("
        + s.worstLabel + ")";
}

nlohmann::json summaryJson(const ErrorSummary& s)
{
    return {
        { "cells", s.count }, { "median_abs", s.medianAbs }, { "worst_abs", s.worstAbs }, { "worst_cell", s.worstLabel }
    };
}

int worseThan(const std::vector<Comparison>& v, std::optional<double> Comparison::*error, double limit)
{
    int n = 0;
    for (const Comparison& c : v)
        if (c.*error && std::fabs(*(c.*error)) > limit)
            ++n;
    return n;
}

// Where each fold's fit starts. The presets' coefficients were fitted to these same runs, the
// held-out model's included, and the fit leaves a coefficient at its start when the other models'
// runs say nothing about it (a launch cost while every one of them is GPU-bound). So the terms that
// add time only in some regime start absent (0), and the efficiencies, which every run informs, are
// fitted afresh: nothing the fold predicts with comes from the held-out model.
Calibration foldStart()
{
    Calibration c;
    c.layerKernelS = 0;
    c.layerLaunchS = 0;
    c.unitCollectiveOverheadS = 0;
    c.unitCollectiveKernelS = 0;
    for (const StrategyTraits& t : allStrategies())
        c.*stepSPerParamMember(t.strategy) = 0;
    return c;
}

// The probe every fit starts from: the first timed batch's. A memory-only batch ran another runner
// binary, whose issue cost is not the timed cells'.
const Batch* probedBatch(const ReportOptions& o)
{
    if (o.probeCall)
        return &*o.probeCall;
    for (const Batch& b : o.batches)
        if (!b.memoryOnly && !b.rehearsals && b.probe)
            return &b;
    return nullptr;
}

// A fit's start with the probe's figures laid over `base`, and the per-layer issue time held fixed
// (ProbeCalibration::heldFixed): the held-out model's CPU-bound cells need it, and the other models'
// GPU-bound runs would trade it against the per-layer kernel time. Without a probe: `base`, nothing
// fixed.
struct FitStart {
    Calibration calibration;
    calibrate::FitOptions options;
    std::vector<std::string> applied; // the coefficients the probe set, held or not
};
FitStart fitStart(const Calibration& base, const ReportOptions& o)
{
    const Batch* probed = probedBatch(o);
    if (!probed)
        return { base, {}, {} };
    // World 1: no collective was probed, so the link does not matter.
    calibrate::ProbeCalibration p
        = calibrate::calibrationFromProbe(probed->probe->results, o.gpu, Interconnect::NvLink, base);
    return { p.calibration, { std::move(p.heldFixed) }, std::move(p.applied) };
}

bool memoryOnly(const MeasuredCell& c, const ReportOptions& o)
{
    return c.batch < o.batches.size() && o.batches[c.batch].memoryOnly;
}

// What a fit may learn from a cell: a memory-only batch's tokens/s come from another runner binary.
calibrate::Observation fitInput(const MeasuredCell& c, const ReportOptions& o)
{
    calibrate::Observation obs = c.observation;
    if (memoryOnly(c, o))
        obs.tokensPerS.reset();
    return obs;
}

// A memory-only cell's comparison keeps its verdict and peak, and drops its tokens/s.
Comparison compareCell(const MeasuredCell& c, const Calibration& cal, const ReportOptions& o)
{
    Comparison r = calibrate::compare(c.observation, cal);
    if (memoryOnly(c, o)) {
        r.measuredTokensPerS.reset();
        r.tokensError.reset();
    }
    return r;
}

// What the batch's report line adds when native cells ran without some of the runner's fused kernels
// ("; the native runner ran the ATen compositions of rotary, SwiGLU and cross-entropy ..."), empty
// when every native cell ran all of them.
std::string atenCompositionsNote(const std::vector<MeasuredCell>& cells, std::size_t batch)
{
    bool rotary = false, swiglu = false, crossEntropy = false;
    for (const MeasuredCell& c : cells) {
        const EstimateInput& in = c.observation.input;
        if (c.batch != batch || in.framework.framework != Framework::Native)
            continue;
        rotary = rotary || !in.fusedKernels.rotary;
        swiglu = swiglu || !in.fusedKernels.swiglu;
        crossEntropy = crossEntropy || !in.fusedKernels.crossEntropy;
    }
    std::vector<std::string> names;
    for (const auto& [missing, name] :
         { std::pair { rotary, protocol::kFusedRotary }, std::pair { swiglu, protocol::kFusedSwiglu },
           std::pair { crossEntropy, protocol::kFusedCrossEntropy } })
        if (missing)
            names.emplace_back(name);
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i)
        list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    return list.empty() ? std::string()
                        : "; the native runner ran the ATen compositions of " + list
            + " (its start events' versions.kernels), predicted as such";
}

std::string batchName(const Batch& b)
{
    return "`" + b.dir.string() + "` (runner " + (b.runnerCommits.empty() ? "commit not recorded" : b.runnerCommits)
        + (b.runnerSha256.empty() ? std::string() : ", binary sha256 " + b.runnerSha256.substr(0, 12)) + ")";
}

// Which coefficients came from the probe, with the figures they were set from.
void writeProbeParagraph(std::ostream& md, const Batch& b, const FitStart& from, bool separate)
{
    const nlohmann::json values = toJson(from.calibration);
    const auto list = [&](const std::vector<std::string>& names) {
        for (std::size_t i = 0; i < names.size(); ++i)
            md << (i ? ", " : "") << names[i] << " = " << formatNumber(values.at(names[i]).get<double>(), "%.4g");
        if (names.empty())
            md << "none";
    };
    md << "Probe: `" << b.probe->file.string() << "` (" << b.probe->deviceName
       << "), taken by `shardwise-runner --probe` "
       << (separate ? "in a call of its own (runner sha256 "
                   + (b.runnerSha256.empty() ? "not recorded" : b.runnerSha256) + ")"
                    : std::string("on the device before the cells"))
       << ". Every fold and the all-models fit start from its calibration (";
    list(from.applied);
    md << ") and hold fixed: ";
    list(from.options.fixed);
    md << ". Measured: ";
    for (std::size_t i = 0; i < b.probe->results.size(); ++i) {
        const protocol::ProbeResult& r = b.probe->results[i];
        md << (i ? "; " : "") << r.kind << (r.bytes ? " @ " + std::to_string(r.bytes) + " B" : std::string()) << " "
           << formatNumber(r.value, "%.4g") << " " << r.unit;
    }
    md << ".\n\n";
}

nlohmann::json probeJson(const Batch& b, const FitStart& from)
{
    nlohmann::json j { { "file", b.probe->file.string() },
                       { "device_name", b.probe->deviceName },
                       { "batch", b.dir.string() },
                       { "runner_sha256", b.runnerSha256 } };
    const nlohmann::json values = toJson(from.calibration);
    j["started_from"] = nlohmann::json::object();
    for (const std::string& name : from.applied)
        j["started_from"][name] = values.at(name);
    j["held_fixed"] = nlohmann::json::object();
    for (const std::string& name : from.options.fixed)
        j["held_fixed"][name] = values.at(name);
    for (const protocol::ProbeResult& r : b.probe->results)
        j["results"].push_back({ { "kind", r.kind },
                                 { "bytes", r.bytes },
                                 { "value", r.value },
                                 { "unit", r.unit },
                                 { "samples", r.samples } });
    return j;
}

// zero0 and zero1 do the same work at world 1 (one rank holds every shard, so ZeRO-1 partitions
// nothing): the spread between their tokens/s at one model and sequence is what two runs of the same
// work differ by on this machine, a floor under any prediction's error there.
struct SameWorkPair {
    std::string model;
    int seq = 0;
    double zero0TokensPerS = 0;
    double zero1TokensPerS = 0;
    double spread() const { return std::fabs(zero0TokensPerS / zero1TokensPerS - 1.0); }
};

std::vector<SameWorkPair> sameWorkPairs(const std::vector<MeasuredCell>& cells, const ReportOptions& o)
{
    const auto timedTokens = [&](const MeasuredCell& c, Strategy s) {
        return !memoryOnly(c, o) && c.completed && c.observation.strategy == s && c.observation.tokensPerS
            && *c.observation.tokensPerS > 0;
    };
    std::vector<SameWorkPair> pairs;
    for (const MeasuredCell& a : cells) {
        if (!timedTokens(a, Strategy::Zero0))
            continue;
        for (const MeasuredCell& b : cells)
            if (timedTokens(b, Strategy::Zero1) && b.modelId == a.modelId && b.seq == a.seq) {
                pairs.push_back({ a.modelId, a.seq, *a.observation.tokensPerS, *b.observation.tokensPerS });
                break;
            }
    }
    return pairs;
}

const SameWorkPair* pairOf(const std::vector<SameWorkPair>& pairs, const MeasuredCell& c)
{
    for (const SameWorkPair& p : pairs)
        if (p.model == c.modelId && p.seq == c.seq)
            return &p;
    return nullptr;
}

int wrongVerdicts(const std::vector<Comparison>& v)
{
    int n = 0;
    for (const Comparison& c : v)
        n += c.verdictWrong() ? 1 : 0;
    return n;
}

} // namespace

// The strategy, and what else tells cells of one model, strategy and sequence apart in a batch that
// mixes them: the precision when it keeps an fp32 master, the framework target a backend is
// predicted as.
std::string cellSetup(const calibrate::Observation& o)
{
    std::string s(strategyId(o.strategy));
    if (o.input.training.precision != PrecisionPolicy::PureBf16)
        s += " " + std::string(precisionId(o.input.training.precision));
    if (o.input.framework.framework != Framework::Native)
        s += " (" + std::string(frameworkId(o.input.framework.framework)) + ")";
    return s;
}

int writeReport(const std::vector<MeasuredCell>& everyWorld, const std::vector<Cell>& matrix,
                const ReportOptions& options)
{
    // Leave one model out, the fits and the summary are the world-1 cells' (what the presets were
    // fitted to); cells of W > 1 ranks are predicted with the presets and with the fit on every
    // world-1 model, in their own section.
    // Rehearsed ranks of world N (memory only) join every fit's memory samples and the folds: a
    // model's rehearsals are predicted by the fold that left that model out, world-1 runs included.
    std::vector<MeasuredCell> cells;
    std::vector<const MeasuredCell*> multiGpu;
    std::vector<const MeasuredCell*> rehearsed;
    for (const MeasuredCell& c : everyWorld)
        if (c.rehearsedWorld > 0)
            rehearsed.push_back(&c);
        else if (c.world == 1)
            cells.push_back(c);
        else
            multiGpu.push_back(&c);
    std::set<std::string> models;
    for (const MeasuredCell& c : cells)
        models.insert(c.modelId);
    for (const MeasuredCell* c : rehearsed)
        models.insert(c->modelId);

    const FitStart foldFrom = fitStart(foldStart(), options);
    const FitStart allFrom = fitStart(Calibration {}, options);
    std::vector<Fold> folds;
    std::vector<Row> rows;
    for (const std::string& heldOut : models) {
        std::vector<calibrate::Observation> training;
        for (const MeasuredCell& c : cells)
            if (c.modelId != heldOut)
                training.push_back(fitInput(c, options));
        for (const MeasuredCell* c : rehearsed)
            if (c->modelId != heldOut)
                training.push_back(fitInput(*c, options));
        Fold fold { heldOut, calibrate::fitCalibration(training, foldFrom.calibration, foldFrom.options) };
        for (const MeasuredCell& c : cells)
            if (c.modelId == heldOut)
                rows.push_back(
                    { &c, compareCell(c, Calibration {}, options), compareCell(c, fold.fit.calibration, options) });
        folds.push_back(std::move(fold));
    }
    std::vector<calibrate::Observation> all;
    for (const MeasuredCell& c : cells)
        all.push_back(fitInput(c, options));
    for (const MeasuredCell* c : rehearsed)
        all.push_back(fitInput(*c, options));
    const calibrate::CalibrationFit allModels = calibrate::fitCalibration(all, allFrom.calibration, allFrom.options);

    // Every row counts for the targets (a memory-only row has no tokens/s error to count); the
    // summary table splits the timed batches from each memory-only batch.
    std::vector<Comparison> presets;
    std::vector<Comparison> calibrated;
    std::vector<Comparison> timedPresets;
    std::vector<Comparison> timedCalibrated;
    for (const Row& r : rows) {
        presets.push_back(r.presets);
        calibrated.push_back(r.calibrated);
        if (!memoryOnly(*r.cell, options)) {
            timedPresets.push_back(r.presets);
            timedCalibrated.push_back(r.calibrated);
        }
    }
    const bool anyMemoryOnly = timedPresets.size() != presets.size();
    const ErrorSummary presetTokens = calibrate::summarizeTokens(presets);
    const ErrorSummary presetPeak = calibrate::summarizePeak(presets);
    const ErrorSummary calTokens = calibrate::summarizeTokens(calibrated);
    const ErrorSummary calPeak = calibrate::summarizePeak(calibrated);
    const int ooms = static_cast<int>(
        std::count_if(rows.begin(), rows.end(), [](const Row& r) { return r.cell->observation.oom; }));
    const std::vector<SameWorkPair> pairs = sameWorkPairs(cells, options);
    std::vector<double> spreads;
    for (const SameWorkPair& p : pairs)
        spreads.push_back(p.spread());
    const auto widest = std::max_element(pairs.begin(), pairs.end(), [](const SameWorkPair& a, const SameWorkPair& b) {
        return a.spread() < b.spread();
    });
    std::vector<const Cell*> notRun;
    for (const Cell& c : matrix) {
        const bool measured = std::any_of(cells.begin(), cells.end(), [&](const MeasuredCell& m) {
            return m.modelId == c.model && m.observation.strategy == c.strategy && m.seq == c.seq;
        });
        if (!c.predictedFits && !c.run && !measured)
            notRun.push_back(&c);
    }

    // --- Markdown ---
    std::ofstream md(options.markdown);
    md << "# Fidelity: predicted against measured (" << options.gpuId << ", world 1)\n\n";
    md << "Written by `shardwise-bench-fidelity analyze` from the runner's events; every number below is\n"
          "computed from those files. Calibrated predictions are leave-one-model-out: the calibration\n"
          "used for a model's cells was fitted on the other models' runs only.\n\n";
    if (options.presetsFittedOn.empty())
        md << "The presets' coefficients were fitted to these same runs (docs/formulas.md), so the presets'\n"
              "figures are in-sample. ";
    else
        md << "The presets' coefficients were fitted to other runs (" << options.presetsFittedOn
           << "), so the presets' figures here are out of sample. ";
    md << "Each fold's fit starts from the presets with the additive time terms\n"
          "(per-layer kernel and launch time, per-unit collective cost, per-strategy step cost) at 0, so\n"
          "nothing the held-out model's runs determined reaches its fold through the presets.\n\n";
    if (const Batch* probed = probedBatch(options))
        writeProbeParagraph(md, *probed, foldFrom, options.probeCall.has_value());
    if (!options.command.empty())
        md << "Measurements: " << options.command << "\n\n";
    md << "Host RAM per node: " << formatNumber(options.hostRamGiB, "%.1f")
       << " GiB (the measuring machine's), in every verdict: an offload cell fits only if its page-locked host "
          "state fits the usable part of it too.\n\n";
    md << "Batches (folders of runner events):\n\n";
    for (const Batch& b : options.batches)
        md << "- " << batchName(b) << ": "
           << (b.rehearsals
                   ? "rehearsed ranks of world N: memory and verdicts only (section \"Rehearsed ranks of world "
                     "N\")"
                   : b.memoryOnly ? "memory and verdicts only. Measured with another runner binary than the timed "
                                    "batches: its peaks and fit verdicts count, its tokens/s are not compared and not "
                                    "fitted (section \"Memory and verdicts only\")"
                                  : "tokens/s, memory and verdicts")
           << atenCompositionsNote(cells, static_cast<std::size_t>(&b - options.batches.data())) << "\n";
    // Timed batches are meant to be one runner binary: their tokens/s are compared and merged as one.
    std::vector<std::string> timedDigests;
    for (const Batch& b : options.batches)
        if (!b.memoryOnly && !b.runnerSha256.empty()
            && std::find(timedDigests.begin(), timedDigests.end(), b.runnerSha256) == timedDigests.end())
            timedDigests.push_back(b.runnerSha256);
    if (timedDigests.size() > 1) {
        md << "\nThe timed batches recorded " << timedDigests.size() << " different runner binaries (sha256";
        for (const std::string& d : timedDigests)
            md << " " << d;
        md << "): their tokens/s are compared and merged as if one binary measured them. Check that the "
              "builds differ only where no timed step runs, or give the odd batch as --memory-only-results.\n";
    }
    md << "\n| predictions | cells | tokens/s: median abs error | worst (cell) | peak allocated: median abs error | "
          "worst (cell) |\n|---|---|---|---|---|---|\n";
    md << "| presets (uncalibrated)" << (anyMemoryOnly ? ", timed batches" : "") << " | " << timedPresets.size()
       << " | " << summaryCells(calibrate::summarizeTokens(timedPresets)) << " | "
       << summaryCells(calibrate::summarizePeak(timedPresets)) << " |\n";
    md << "| calibrated (other models)" << (anyMemoryOnly ? ", timed batches" : "") << " | " << timedCalibrated.size()
       << " | " << summaryCells(calibrate::summarizeTokens(timedCalibrated)) << " | "
       << summaryCells(calibrate::summarizePeak(timedCalibrated)) << " |\n";
    for (std::size_t b = 0; b < options.batches.size(); ++b) {
        if (!options.batches[b].memoryOnly)
            continue;
        std::vector<Comparison> p, c;
        for (const Row& r : rows)
            if (r.cell->batch == b) {
                p.push_back(r.presets);
                c.push_back(r.calibrated);
            }
        md << "| presets, memory only: `" << options.batches[b].dir.string() << "` | " << p.size()
           << " | not counted | - | " << summaryCells(calibrate::summarizePeak(p)) << " |\n";
        md << "| calibrated, memory only: `" << options.batches[b].dir.string() << "` | " << c.size()
           << " | not counted | - | " << summaryCells(calibrate::summarizePeak(c)) << " |\n";
    }
    if (anyMemoryOnly)
        md << "| presets, every batch (peak only) | " << rows.size() << " | - | - | " << summaryCells(presetPeak)
           << " |\n| calibrated, every batch (peak only) | " << rows.size() << " | - | - | " << summaryCells(calPeak)
           << " |\n";
    md << "\n";
    md << "Targets:\n\n";
    md << "- calibrated tokens/s within 15 % per held-out cell: "
       << worseThan(calibrated, &Comparison::tokensError, 0.15) << " of " << calTokens.count << " cells outside\n";
    md << "- calibrated peak allocated within 10 %: " << worseThan(calibrated, &Comparison::peakError, 0.10) << " of "
       << calPeak.count << " cells outside\n";
    md << "- uncalibrated within 25 %: tokens/s " << worseThan(presets, &Comparison::tokensError, 0.25) << " of "
       << presetTokens.count << " outside, peak allocated " << worseThan(presets, &Comparison::peakError, 0.25)
       << " of " << presetPeak.count << " outside\n";
    md << "- verdicts: runs that ran out of memory: " << ooms
       << "; wrong verdicts (an OOM predicted to fit, or a completed "
          "run predicted not to fit): presets "
       << wrongVerdicts(presets) << ", calibrated " << wrongVerdicts(calibrated) << " of " << rows.size() << "\n";
    md << "- cells the planner predicted not to fit and that were not run: " << notRun.size() << "\n\n";
    if (!pairs.empty()) {
        const std::size_t n = spreads.size();
        const double median = stats::median(spreads);
        md << "Repeatability: zero0 and zero1 do the same work at world 1 (ZeRO-1 has one rank to partition over), so "
              "their tokens/s at one model and sequence differ only by what two runs of the same work differ by on "
              "this machine. Over "
           << n << " such pairs: median " << formatNumber(100.0 * median, "%.1f %%") << ", widest "
           << formatNumber(100.0 * widest->spread(), "%.1f %%") << " (" << widest->model << " seq " << widest->seq
           << "); " << std::count_if(spreads.begin(), spreads.end(), [](double x) { return x > 0.15; })
           << " differ by more than the 15 % target. A tokens/s miss below says the spread of its model and sequence "
              "where one was measured.\n\n";
    }

    md << "## Cells outside the targets\n\n";
    int misses = 0;
    const auto miss = [&](const Row& r, const std::string& what) {
        md << "- " << r.cell->observation.label << (memoryOnly(*r.cell, options) ? " (memory-only batch)" : "") << ": "
           << what << "\n";
        ++misses;
    };
    // A tokens/s miss is read beside how much the cell's own timed steps varied.
    const auto stepSpread = [](const MeasuredCell& c) {
        const auto& t = c.timedStepS;
        if (t.size() < 2)
            return std::string();
        const std::size_t n = t.size();
        const double median = stats::median(t);
        const auto [lowest, highest] = std::minmax_element(t.begin(), t.end());
        std::string steps;
        for (double s : t)
            steps += (steps.empty() ? "" : ", ") + formatNumber(1e3 * s, "%.1f");
        std::string repeats;
        for (double tokens : c.repeatTokensPerS)
            repeats += (repeats.empty() ? "" : ", ") + formatNumber(tokens, "%.0f");
        if (!repeats.empty())
            repeats = "; measured " + std::to_string(c.repeatTokensPerS.size()) + " times: " + repeats
                + " tokens/s, their median compared";
        return " (its " + std::to_string(n) + " timed steps: " + steps + " ms; max - min = "
            + formatNumber(100.0 * (*highest - *lowest) / median, "%.1f %%") + " of their median" + repeats + ")";
    };
    const auto pairSpread = [&](const MeasuredCell& c) {
        const SameWorkPair* p = pairOf(pairs, c);
        return p ? "; zero0 and zero1 here: " + formatNumber(p->zero0TokensPerS, "%.0f") + " and "
                + formatNumber(p->zero1TokensPerS, "%.0f") + " tokens/s, "
                + formatNumber(100.0 * p->spread(), "%.1f %%") + " apart"
                 : std::string();
    };
    for (const Row& r : rows) {
        if (r.calibrated.tokensError && std::fabs(*r.calibrated.tokensError) > 0.15)
            miss(r,
                 "calibrated tokens/s " + formatError(r.calibrated.tokensError) + stepSpread(*r.cell)
                     + pairSpread(*r.cell));
        if (r.calibrated.peakError && std::fabs(*r.calibrated.peakError) > 0.10)
            miss(r, "calibrated peak " + formatError(r.calibrated.peakError));
        if (r.presets.tokensError && std::fabs(*r.presets.tokensError) > 0.25)
            miss(r,
                 "presets tokens/s " + formatError(r.presets.tokensError) + stepSpread(*r.cell) + pairSpread(*r.cell));
        if (r.presets.peakError && std::fabs(*r.presets.peakError) > 0.25)
            miss(r, "presets peak " + formatError(r.presets.peakError));
        if (r.calibrated.verdictWrong() || r.presets.verdictWrong())
            miss(r,
                 std::string("wrong verdict (presets ") + (r.presets.predictedFits ? "fits" : "does not fit")
                     + ", calibrated " + (r.calibrated.predictedFits ? "fits" : "does not fit") + ")");
    }
    if (misses == 0)
        md << "None.\n";
    md << "\n";

    md << "## Calibration fitted on all models (for this GPU)\n\n```json\n"
       << toJson(allModels.calibration).dump(2) << "\n```\n\nFitted: ";
    for (std::size_t i = 0; i < allModels.fitted.size(); ++i)
        md << (i ? ", " : "") << allModels.fitted[i];
    md << ". In-sample: tokens/s median " << formatNumber(100.0 * allModels.tokens.medianAbs, "%.1f %%") << ", worst "
       << formatNumber(100.0 * allModels.tokens.worstAbs, "%.1f %%") << "; peak median "
       << formatNumber(100.0 * allModels.peak.medianAbs, "%.1f %%") << ", worst "
       << formatNumber(100.0 * allModels.peak.worstAbs, "%.1f %%") << ".\n\n";

    md << "## Per cell\n\n| model | strategy | seq | measured tokens/s | presets | error | calibrated | error | "
          "measured peak GiB | presets | error | calibrated | error | measured | verdict presets / calibrated |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    const auto outcome = [](const MeasuredCell& c) {
        return c.observation.oom ? std::string("OOM") : c.completed ? std::string("completed") : "failed: " + c.error;
    };
    for (const Row& r : rows) {
        if (memoryOnly(*r.cell, options))
            continue;
        const calibrate::Observation& o = r.cell->observation;
        const std::string measured = outcome(*r.cell);
        md << "| " << r.cell->modelId << " | " << cellSetup(o) << " | " << r.cell->seq << " | "
           << (r.presets.measuredTokensPerS ? formatNumber(*r.presets.measuredTokensPerS, "%.0f") : "-") << " | "
           << formatNumber(r.presets.predictedTokensPerS, "%.0f") << " | " << formatError(r.presets.tokensError)
           << " | " << formatNumber(r.calibrated.predictedTokensPerS, "%.0f") << " | "
           << formatError(r.calibrated.tokensError) << " | "
           << (r.presets.measuredPeakBytes ? formatNumber(*r.presets.measuredPeakBytes / kGiB, "%.2f") : "-") << " | "
           << formatNumber(r.presets.predictedPeakBytes / kGiB, "%.2f") << " | " << formatError(r.presets.peakError)
           << " | " << formatNumber(r.calibrated.predictedPeakBytes / kGiB, "%.2f") << " | "
           << formatError(r.calibrated.peakError) << " | " << measured << " | "
           << (r.presets.predictedFits ? "fits" : "does not fit") << " / "
           << (r.calibrated.predictedFits ? "fits" : "does not fit") << " |\n";
    }
    for (std::size_t b = 0; b < options.batches.size(); ++b) {
        if (!options.batches[b].memoryOnly)
            continue;
        md << "\n## Memory and verdicts only: " << batchName(options.batches[b])
           << "\n\nAnother runner binary than the timed batches, allocating the same memory: peak allocated and the "
              "fit verdict are compared; its tokens/s are neither compared nor fitted. An OOM is the runner's `oom` "
              "error event.\n\n| model | strategy | seq | measured peak GiB | presets | error | calibrated | error | "
              "measured | verdict presets / calibrated |\n|---|---|---|---|---|---|---|---|---|---|\n";
        for (const Row& r : rows) {
            if (r.cell->batch != b)
                continue;
            md << "| " << r.cell->modelId << " | " << cellSetup(r.cell->observation) << " | " << r.cell->seq << " | "
               << (r.presets.measuredPeakBytes ? formatNumber(*r.presets.measuredPeakBytes / kGiB, "%.2f") : "-")
               << " | " << formatNumber(r.presets.predictedPeakBytes / kGiB, "%.2f") << " | "
               << formatError(r.presets.peakError) << " | "
               << formatNumber(r.calibrated.predictedPeakBytes / kGiB, "%.2f") << " | "
               << formatError(r.calibrated.peakError) << " | " << outcome(*r.cell) << " | "
               << (r.presets.predictedFits ? "fits" : "does not fit") << " / "
               << (r.calibrated.predictedFits ? "fits" : "does not fit")
               << (r.calibrated.verdictWrong() || r.presets.verdictWrong() ? " (wrong)" : "") << " |\n";
        }
    }
    if (!notRun.empty()) {
        md << "\n## Predicted not to fit, not run\n\nThe matrix's verdict decided what ran; the model has changed "
              "since, so the presets' verdict now is listed beside it (unmeasured either way).\n\n"
              "| model | strategy | seq | predicted device peak GiB (matrix) | presets now: required GiB | "
              "host GiB (usable) | presets now |\n|---|---|---|---|---|---|---|\n";
        for (const Cell* c : notRun) {
            const MeasuredCell* sameModel = nullptr;
            for (const MeasuredCell& m : cells)
                if (m.modelId == c->model)
                    sameModel = &m;
            std::string now = "- | - | -";
            if (sameModel) {
                EstimateInput in = sameModel->observation.input;
                in.training.seqLen = c->seq;
                const Estimate e = estimateMemory(in, c->strategy);
                const std::string host = e.hostBytesPerNode > 0 ? formatNumber(e.hostBytesPerNode / kGiB, "%.1f") + " ("
                        + formatNumber(e.hostCapacityBytes / kGiB, "%.1f") + ")"
                                                                : std::string("-");
                now = formatNumber(e.memory.peakBytes() / kGiB, "%.1f") + " | " + host + " | "
                    + (e.fits() ? "fits" : (e.fitsDevice ? "does not fit the host" : "does not fit"));
            }
            md << "| " << c->model << " | " << strategyId(c->strategy) << " | " << c->seq << " | "
               << formatNumber(c->predictedPeakGiB, "%.1f") << " | " << now << " |\n";
        }
    }
    md << "\n## Leave-one-model-out folds\n\n| held out | fitted on (runs with tokens/s, with peak) | calibration |\n"
          "|---|---|---|\n";
    for (const Fold& f : folds)
        md << "| " << f.heldOut << " | " << f.fit.throughputSamples << ", " << f.fit.memorySamples << " | `"
           << toJson(f.fit.calibration).dump() << "` |\n";

    // --- JSON ---
    nlohmann::json j;
    j["gpu"] = options.gpuId;
    j["command"] = options.command;
    j["host_ram_gib"] = options.hostRamGiB;
    for (const Batch& b : options.batches)
        j["batches"].push_back({ { "dir", b.dir.string() },
                                 { "memory_only", b.memoryOnly },
                                 { "runner_commits", b.runnerCommits },
                                 { "runner_sha256", b.runnerSha256 } });
    j["summary"] = { { "presets",
                       { { "tokens", summaryJson(presetTokens) },
                         { "peak", summaryJson(presetPeak) },
                         { "wrong_verdicts", wrongVerdicts(presets) } } },
                     { "calibrated",
                       { { "tokens", summaryJson(calTokens) },
                         { "peak", summaryJson(calPeak) },
                         { "wrong_verdicts", wrongVerdicts(calibrated) } } },
                     { "timed_batches",
                       { { "presets",
                           { { "tokens", summaryJson(calibrate::summarizeTokens(timedPresets)) },
                             { "peak", summaryJson(calibrate::summarizePeak(timedPresets)) } } },
                         { "calibrated",
                           { { "tokens", summaryJson(calibrate::summarizeTokens(timedCalibrated)) },
                             { "peak", summaryJson(calibrate::summarizePeak(timedCalibrated)) } } } } },
                     { "ooms", ooms },
                     { "predicted_oom_not_run", notRun.size() } };
    if (const Batch* probed = probedBatch(options))
        j["probe"] = probeJson(*probed, foldFrom);
    j["repeatability"] = nlohmann::json::array();
    for (const SameWorkPair& p : pairs)
        j["repeatability"].push_back({ { "model", p.model },
                                       { "seq", p.seq },
                                       { "zero0_tokens_per_s", p.zero0TokensPerS },
                                       { "zero1_tokens_per_s", p.zero1TokensPerS },
                                       { "spread", p.spread() } });
    j["calibration_all_models"] = toJson(allModels.calibration);
    for (const Fold& f : folds)
        j["folds"].push_back(
            { { "held_out", f.heldOut }, { "calibration", toJson(f.fit.calibration) }, { "fitted", f.fit.fitted } });
    for (const Row& r : rows) {
        const calibrate::Observation& o = r.cell->observation;
        nlohmann::json c {
            { "model", r.cell->modelId },
            { "strategy", strategyId(o.strategy) },
            { "seq", r.cell->seq },
            { "file", r.cell->file.filename().string() },
            { "batch", r.cell->batch < options.batches.size() ? options.batches[r.cell->batch].dir.string() : "" },
            { "memory_only", memoryOnly(*r.cell, options) },
            { "oom", o.oom },
            { "completed", r.cell->completed },
            { "error", r.cell->error },
            { "presets", comparisonJson(r.presets) },
            { "calibrated", comparisonJson(r.calibrated) }
        };
        // A memory-only batch's tokens/s come from another runner binary: not reported beside the others.
        c["measured_tokens_per_s"]
            = o.tokensPerS && !memoryOnly(*r.cell, options) ? nlohmann::json(*o.tokensPerS) : nlohmann::json();
        c["measured_peak_allocated_gib"]
            = o.peakAllocatedBytes ? nlohmann::json(*o.peakAllocatedBytes / kGiB) : nlohmann::json();
        // Measured by several timed batches: each one's tokens/s (the median is the one compared).
        c["repeat_tokens_per_s"] = r.cell->repeatTokensPerS;
        j["cells"].push_back(c);
    }
    for (const Cell* c : notRun)
        j["predicted_oom_not_run"].push_back({ { "model", c->model },
                                               { "strategy", strategyId(c->strategy) },
                                               { "seq", c->seq },
                                               { "predicted_peak_gib", c->predictedPeakGiB } });
    if (!multiGpu.empty())
        writeMultiGpuSection(md, j, multiGpu, allModels.calibration, options);
    if (!rehearsed.empty()) {
        std::vector<RehearsalPrediction> predicted;
        for (const MeasuredCell* c : rehearsed) {
            const auto fold
                = std::find_if(folds.begin(), folds.end(), [&](const Fold& f) { return f.heldOut == c->modelId; });
            predicted.push_back({ c, fold->fit.calibration });
        }
        writeRehearsalSection(md, j, predicted, options);
    }
    std::ofstream(options.json) << j.dump(2) << '\n';
    std::printf("%zu cells, %zu models; calibrated tokens/s median %.1f %% worst %.1f %%, peak median %.1f %% worst "
                "%.1f %%; wrong verdicts %d\n",
                rows.size(), models.size(), 100 * calTokens.medianAbs, 100 * calTokens.worstAbs,
                100 * calPeak.medianAbs, 100 * calPeak.worstAbs, wrongVerdicts(calibrated));
    return rows.empty() && multiGpu.empty() && rehearsed.empty() ? 1 : 0;
}

} // namespace fidelity
