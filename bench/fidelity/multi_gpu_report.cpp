// The fidelity report's multi-GPU cells: runs of W > 1 ranks on one node (bench/gpu.sh scale),
// predicted with the presets and with the calibration fitted on the world-1 cells. Those cells are
// never fitted on: the world-1 fit says nothing about collectives, so how well it predicts W > 1 is
// what this section measures.
#include "fidelity.hpp"

#include "shardwise/calibrate/fit.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ostream>

namespace fidelity {

using namespace shardwise;
using calibrate::Comparison;

namespace {

std::string summary(const calibrate::ErrorSummary& s)
{
    if (s.count == 0)
        return "- (no cell)";
    return formatNumber(100.0 * s.medianAbs, "%.1f %%") + " median, " + formatNumber(100.0 * s.worstAbs, "%.1f %%")
        + " worst (" + s.worstLabel + "), " + std::to_string(s.count) + " cells";
}

} // namespace

void writeMultiGpuSection(std::ostream& md, nlohmann::json& report, const std::vector<const MeasuredCell*>& cells,
                          const Calibration& worldOneFit, const ReportOptions& options)
{
    struct Row {
        const MeasuredCell* cell;
        bool memoryOnly;
        Comparison presets;
        Comparison calibrated;
    };
    std::vector<Row> rows;
    std::vector<Comparison> presets;
    std::vector<Comparison> calibrated;
    for (const MeasuredCell* c : cells) {
        Row r { c, c->batch < options.batches.size() && options.batches[c->batch].memoryOnly,
                calibrate::compare(c->observation, Calibration {}), calibrate::compare(c->observation, worldOneFit) };
        // A memory-only batch's tokens/s come from another runner binary.
        if (r.memoryOnly)
            for (Comparison* x : { &r.presets, &r.calibrated }) {
                x->measuredTokensPerS.reset();
                x->tokensError.reset();
            }
        presets.push_back(r.presets);
        calibrated.push_back(r.calibrated);
        rows.push_back(r);
    }

    md << "\n## Multi-GPU cells (one node, W ranks)\n\n"
          "Predicted for one node of W GPUs of the `"
       << options.gpuId
       << "` preset (its NVLink bandwidth): with the presets, and with the calibration fitted on every "
          "world-1 cell above (section \"Calibration fitted on all models\"). These cells are in no fit. "
          "Tokens/s are the whole world's; the measured peak is the largest of any rank.\n\n"
          "- presets: tokens/s "
       << summary(calibrate::summarizeTokens(presets)) << "; peak allocated "
       << summary(calibrate::summarizePeak(presets)) << "\n- calibrated on world 1: tokens/s "
       << summary(calibrate::summarizeTokens(calibrated)) << "; peak allocated "
       << summary(calibrate::summarizePeak(calibrated)) << "\n\n"
       << "| model | strategy | seq | W | measured tokens/s | presets | error | calibrated | error | measured peak GiB "
          "| presets | error | calibrated | error | measured "
          "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const Row& r : rows) {
        const MeasuredCell& c = *r.cell;
        const std::string outcome = c.observation.oom ? std::string("OOM")
            : c.completed                             ? std::string("completed")
                                                      : "failed: " + c.error;
        md << "| " << c.modelId << " | " << strategyId(c.observation.strategy) << " | " << c.seq << " | " << c.world
           << " | " << (r.presets.measuredTokensPerS ? formatNumber(*r.presets.measuredTokensPerS, "%.0f") : "-")
           << " | " << formatNumber(r.presets.predictedTokensPerS, "%.0f") << " | "
           << formatError(r.presets.tokensError) << " | " << formatNumber(r.calibrated.predictedTokensPerS, "%.0f")
           << " | " << formatError(r.calibrated.tokensError) << " | "
           << (r.presets.measuredPeakBytes ? formatNumber(*r.presets.measuredPeakBytes / kGiB, "%.2f") : "-") << " | "
           << formatNumber(r.presets.predictedPeakBytes / kGiB, "%.2f") << " | " << formatError(r.presets.peakError)
           << " | " << formatNumber(r.calibrated.predictedPeakBytes / kGiB, "%.2f") << " | "
           << formatError(r.calibrated.peakError) << " | " << outcome
           << (r.presets.verdictWrong() ? " (presets' verdict wrong)" : "") << " |\n";
    }

    report["multi_gpu_summary"] = { { "presets",
                                      { { "tokens_median_abs", calibrate::summarizeTokens(presets).medianAbs },
                                        { "peak_median_abs", calibrate::summarizePeak(presets).medianAbs } } },
                                    { "calibrated_world1",
                                      { { "tokens_median_abs", calibrate::summarizeTokens(calibrated).medianAbs },
                                        { "peak_median_abs", calibrate::summarizePeak(calibrated).medianAbs } } } };
    for (const Row& r : rows) {
        const MeasuredCell& c = *r.cell;
        const calibrate::Observation& o = c.observation;
        nlohmann::json j { { "model", c.modelId },
                           { "strategy", strategyId(o.strategy) },
                           { "seq", c.seq },
                           { "precision", precisionId(o.input.training.precision) },
                           { "world", c.world },
                           { "ranks_read", c.ranksRead },
                           { "file", c.file.filename().string() },
                           { "batch", c.batch < options.batches.size() ? options.batches[c.batch].dir.string() : "" },
                           { "memory_only", r.memoryOnly },
                           { "oom", o.oom },
                           { "completed", c.completed },
                           { "error", c.error },
                           { "presets", comparisonJson(r.presets) },
                           { "calibrated_world1", comparisonJson(r.calibrated) } };
        j["measured_tokens_per_s"] = o.tokensPerS && !r.memoryOnly ? nlohmann::json(*o.tokensPerS) : nlohmann::json();
        j["measured_peak_allocated_gib"]
            = o.peakAllocatedBytes ? nlohmann::json(*o.peakAllocatedBytes / kGiB) : nlohmann::json();
        report["multi_gpu_cells"].push_back(j);
    }
}

} // namespace fidelity
