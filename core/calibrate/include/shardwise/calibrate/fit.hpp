#pragma once
// Fits a Calibration to measured runs: the coefficients the estimate cannot know from data sheets
// (achieved matmul efficiency and kernel-launch cost, per-unit collective overhead, CPU optimizer
// rate and copy efficiency for offload, activation and logits bytes, allocator fragmentation, the
// CUDA context), each only when the observations say something about it. docs/calibration.md.

#include "shardwise/calibrate/observation.hpp"

#include <string>
#include <vector>

namespace shardwise::calibrate {

struct CalibrationFit {
    Calibration calibration;
    std::vector<std::string> fitted; // JSON names of the coefficients the observations determined
    int throughputSamples = 0;       // completed runs with tokens/s (never a rehearsal)
    int memorySamples = 0;           // completed runs with a device peak (rehearsals included)
    ErrorSummary tokens;             // in-sample residuals after the fit
    ErrorSummary peak;
};

struct FitOptions {
    // JSON names of coefficients that keep their value from `start` and are never fitted: those a
    // probe measured directly (ProbeCalibration::applied). A residual fit would otherwise trade a
    // measured figure against whatever term the runs leave unexplained.
    std::vector<std::string> fixed;
};

// Starts from `start` (presets, or a probe's calibration) and keeps every coefficient the
// observations do not determine, and every coefficient `options.fixed` names. Minimises the sum of
// squared log ratios predicted/measured, one coefficient at a time (coarse grid, then golden
// section), for a few sweeps. Throws std::invalid_argument when `fixed` names no Calibration field.
CalibrationFit fitCalibration(const std::vector<Observation>& observations, const Calibration& start = {},
                              const FitOptions& options = {});

// How far to trust predictions made with a calibration, 0..1: grows with the samples behind it and
// falls with the residual spread it left (docs/calibration.md gives the formula).
double confidence(int samples, double worstAbsResidual);
std::string confidenceLabel(double confidence); // "high" | "medium" | "low"

} // namespace shardwise::calibrate
