#pragma once
// The Compare table as data: one row per run with named columns in SI units (bytes, seconds, tokens
// per second, fractions 0..1), ISO 8601 UTC start times and stable ids for strategy, backend and
// outcome, so a spreadsheet or pandas reads numbers, not display text. Markdown keeps the table as
// the page shows it. A rehearsal of one rank of world N has world_size 1 and rehearsed_world N (empty
// for every other run), as `shardwise-cli compare --format csv` writes them, its peaks and predicted
// peaks (world N's per rank) and no tokens/s, step time or NCCL share.

#include "export/chart_exporter.hpp"
#include "models/run_prediction.hpp"
#include "workspace/run_record.hpp"

namespace shardwise::gui {

QStringList runCsvColumns();
QString runsCsv(const QList<RunRecord>& runs, const QHash<qint64, RunPrediction>& predictions,
                const ExportCaption& caption);

// "fp32 (CPU)" for a run measured on CPU (the runner computes in fp32 there), else the stored precision.
QString precisionAsRun(const RunRecord& run);

// Writes `runs` with their predictions and the comparison caption to `filePath`: .csv as runsCsv,
// .md as the page's table; atomically (written aside, then renamed).
ExportResult exportRunTable(const QList<RunRecord>& runs, const PredictionSet& predictions, const QString& filePath);

} // namespace shardwise::gui
