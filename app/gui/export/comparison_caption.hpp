#pragma once
// The caption every exported comparison carries, so a chart pasted into a report still says what
// was measured: model, hardware, software versions, precision and shape, warm-up and timed steps.

#include "export/chart_exporter.hpp"
#include "models/run_prediction.hpp"
#include "workspace/run_record.hpp"

#include <QList>

namespace shardwise::gui {

ExportCaption comparisonCaption(const QList<RunRecord>& runs);

// comparisonCaption plus the calibration behind the predictions of these runs, per GPU preset
// (source, runs used, confidence, in-sample residuals), as the page's calibration line says it.
ExportCaption comparisonCaptionWithCalibration(const QList<RunRecord>& runs, const PredictionSet& predictions);
// The caption of the measured-vs-predicted chart: what it shows, then the above.
ExportCaption predictionChartCaption(const QList<RunRecord>& runs, const PredictionSet& predictions);

} // namespace shardwise::gui
