#pragma once
// The caption every exported comparison carries, so a chart pasted into a report still says what
// was measured: model, hardware, software versions, precision and shape, warm-up and timed steps.

#include "export/chart_exporter.hpp"
#include "workspace/run_record.hpp"

#include <QList>

namespace shardwise::gui {

ExportCaption comparisonCaption(const QList<RunRecord>& runs);

} // namespace shardwise::gui
