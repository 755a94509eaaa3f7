#pragma once
// The Compare page's four charts over a set of runs, one category per run. Runs that did not
// complete keep their category, labelled with their outcome, and show no measured bar. A rehearsal
// (RunRecord::rehearsedWorld) is a memory result: it has a category in the peak-memory chart, beside
// its prediction for world N, and none in the throughput, NCCL share or predicted-vs-measured charts.

#include "models/run_prediction.hpp"
#include "workspace/run_record.hpp"

#include <QChart>
#include <QList>

namespace shardwise::gui {

enum class ComparisonMetric { Throughput, PeakMemory, NcclShare, PredictedVsMeasured };

// "#12 zero3<br>(native)" / "#13 fsdp2_reshard<br>(torch)" / "#14 fsdp2_reshard — out of memory<br>(torch)":
// the run, then its backend on a second line (axis labels are rich text); a rehearsal says so
// ("#15 zero3 — rehearsal of 8<br>(native)").
QString runCategoryLabel(const RunRecord& run);
QChart* createComparisonChart(ComparisonMetric metric, const QList<RunRecord>& runs);

// Measured tokens/s beside the presets' and the calibrated prediction, one category per run; a run
// without a prediction (see RunTableModel) keeps its category with only what was measured; a
// rehearsal has none.
QChart* createCalibrationChart(const QList<RunRecord>& runs, const QHash<qint64, RunPrediction>& predictions);

} // namespace shardwise::gui
