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
// A plain CSV: the header row first, no comment lines, so that pandas' read_csv and spreadsheets
// read it with their defaults. The caption goes to a side file (captionSidecarPath).
QString runsCsv(const QList<RunRecord>& runs, const QHash<qint64, RunPrediction>& predictions);
// Where a CSV export's caption is written: "runs.csv" -> "runs.caption.txt" beside it.
QString captionSidecarPath(const QString& csvPath);
QString captionText(const ExportCaption& caption); // title, a blank line, the description

// The Markdown export: the Compare table as five narrow tables (runs, setup, measured, predicted
// throughput, predicted memory), each beginning with the run, then the caption.
QString runsMarkdown(const QList<RunRecord>& runs, const QHash<qint64, RunPrediction>& predictions,
                     const ExportCaption& caption);

// "fp32 (CPU)" for a run measured on CPU (the runner computes in fp32 there), else the stored precision.
QString precisionAsRun(const RunRecord& run);

// Writes `runs` with their predictions and the comparison caption to `filePath`: .csv as runsCsv with
// the caption in captionSidecarPath (not beside a device, FIFO or standard output), .md as
// runsMarkdown; atomically (written aside, then renamed).
ExportResult exportRunTable(const QList<RunRecord>& runs, const PredictionSet& predictions, const QString& filePath);

} // namespace shardwise::gui
