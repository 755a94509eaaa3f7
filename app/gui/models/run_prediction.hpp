#pragma once
// What the planner predicts for a stored run, uncalibrated (presets) and with the calibration the
// run store supports for its GPU, each against the measurement; and which calibration that was.
// Built from core/calibrate's comparison of the stored runs (the same one `shardwise-cli compare`
// prints), converted once so the GUI thread only reads plain values.

#include "shardwise/calibrate/stored_comparison.hpp"

#include <QHash>
#include <QList>
#include <QString>

#include <optional>
#include <vector>

namespace shardwise::gui {

// One prediction side: tokens/s and peak allocated memory per GPU, errors relative to the
// measurement ((predicted - measured) / measured, absent where nothing was measured), and the fit
// verdict with whether it contradicts what happened (an OOM predicted to fit, or the reverse).
struct PredictionSide {
    double tokensPerS = 0;
    std::optional<double> tokensError;
    double peakGiB = 0;
    std::optional<double> peakError;
    bool fits = false;
    bool verdictWrong = false;
};

struct RunPrediction {
    QString gpu; // GPU preset id
    PredictionSide presets;
    PredictionSide calibrated;
};

struct CalibrationSummary {
    QString gpu;             // GPU preset id
    QString source;          // as core/calibrate names it: "presets", "probe of node a + 8 runs", ...
    int runs = 0;            // runs the fit used
    double confidence = 0;   // 0..1
    QString confidenceLabel; // "high" | "medium" | "low"
    int residualRuns = 0;
    double tokensMedianAbs = 0;
    double tokensWorstAbs = 0;
    double peakMedianAbs = 0;
    double peakWorstAbs = 0;
};

struct PredictionSet {
    QHash<qint64, RunPrediction> runs;      // by run id
    QList<CalibrationSummary> calibrations; // one per GPU preset with a compared run
    const CalibrationSummary* calibrationFor(const QString& gpu) const;
};

PredictionSet toPredictionSet(const std::vector<calibrate::GpuComparison>& sections);

// "GPU h200: calibration from probe of node a + 8 runs, confidence medium (0.62); in-sample
// residuals: tokens/s median 1.2 %, worst 3.4 %; peak median 0.8 %, worst 2.1 %", as the CLI says it.
QString describeCalibration(const CalibrationSummary& c);
QString confidenceLabelText(const QString& label);  // translated "high" / "medium" / "low"
QString signedPercent(double fraction);             // 0.123 -> "+12.3 %"
QString fitVerdictText(const PredictionSide& side); // "fits" / "does not fit", "(wrong)" when contradicted

} // namespace shardwise::gui
