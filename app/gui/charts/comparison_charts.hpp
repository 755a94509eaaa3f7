#pragma once
// The Compare page's charts over a set of runs as horizontal bar charts (charts/bar_chart.hpp): one
// row per run with its full label, bars in the colour of the run's strategy, one facet per hardware
// (GPU model, or CPU) with its own value axis and, for memory, its own capacity line. Runs that did
// not complete keep their row, their outcome written where the bar would be. A rehearsal
// (RunRecord::rehearsedWorld) is a memory result: it has a row in the peak-memory chart, beside its
// prediction for world N, and none in the throughput, communication or predicted-vs-measured charts.

#include "charts/bar_chart.hpp"
#include "models/run_prediction.hpp"
#include "workspace/run_record.hpp"

#include <QHash>
#include <QList>

namespace shardwise::gui {

enum class ComparisonMetric { Throughput, PeakMemory, NcclShare, PredictedVsMeasured };
inline constexpr ComparisonMetric kComparisonMetrics[]
    = { ComparisonMetric::Throughput, ComparisonMetric::PeakMemory, ComparisonMetric::NcclShare,
        ComparisonMetric::PredictedVsMeasured };

// "#12 ZeRO-3 · bf16 · seq 2048 · 8 × NVIDIA H200 (NVLink) · torch", with " — out of memory" for a
// run that did not complete and " — rehearsal of 8" for a rehearsal: the strategy as the table names
// it, the precision, the sequence length, the hardware and the backend.
QString runChartLabel(const RunRecord& run);
// The facet a run is charted in: its GPU model ("NVIDIA H200"), or "CPU".
QString runHardwareFacet(const RunRecord& run);

BarChartSpec comparisonChart(ComparisonMetric metric, const QList<RunRecord>& runs);

// Measured tokens/s beside the presets' and the calibrated prediction, one row per run; a run
// without a prediction (see RunTableModel) keeps its row with only what was measured; a rehearsal
// has none.
BarChartSpec calibrationChart(const QList<RunRecord>& runs, const QHash<qint64, RunPrediction>& predictions);

} // namespace shardwise::gui
