#pragma once
// The run table's prediction columns (RunTableModel::PresetsTokensColumn on): each column's title, the
// cell's text and raw value read from the run's prediction, and the header's explanation.

#include "models/run_prediction.hpp"

#include <QString>
#include <QVariant>

namespace shardwise::gui {

using PredictionValue = QVariant (*)(const RunPrediction& p);

// One column: the cell's text and its raw value (a number, so sorting orders by it).
struct PredictionColumnSpec {
    const char* title; // translated in RunTableModel's context
    PredictionValue display;
    PredictionValue raw;
    QString (*headerToolTip)();
};

// The column's spec, or nullptr where the column is not a prediction column.
const PredictionColumnSpec* predictionColumnSpec(int column);
// Whether the column is a prediction of tokens/s or its error: none for a rehearsal.
bool isThroughputPredictionColumn(int column);
// Whether the column is a verdict column whose verdict the run's outcome contradicts.
bool verdictWrong(const RunPrediction& p, int column);
// "n/a": a cell with nothing to show.
QVariant runCellNotAvailable();

} // namespace shardwise::gui
