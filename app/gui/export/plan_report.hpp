#pragma once
// "Export report": one folder a reader can hand in. It holds the plan's reasoning (reasoning.md: the
// inputs, the three decision steps with their verdicts and reasons, the candidates, the runs worth
// validating), the memory chart (memory.svg and memory.png, legend and capacity line included) and
// the candidates as numbers (candidates.csv: bytes, seconds, tokens per second, fractions). Every file
// is written aside and renamed, so a failed write keeps the previous one.

#include "export/chart_exporter.hpp"
#include "workspace/plan_view.hpp"

namespace shardwise::gui {

QStringList planReportFiles(); // the file names, in the order they are written
QString planReasoningMarkdown(const PlanView& plan);
QString planCandidatesCsv(const PlanView& plan);
// Creates `directory` when missing; the error names the file that could not be written.
ExportResult writePlanReport(const PlanView& plan, const QString& directory);

} // namespace shardwise::gui
