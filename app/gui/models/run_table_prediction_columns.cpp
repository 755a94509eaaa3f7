#include "models/run_table_prediction_columns.hpp"

#include "models/display_format.hpp"
#include "models/run_table_model.hpp"

#include <array>
#include <limits>

namespace shardwise::gui {

QVariant runCellNotAvailable()
{
    return RunTableModel::tr("n/a");
}

namespace {

QVariant error(const std::optional<double>& e)
{
    return e ? QVariant(signedPercent(*e)) : runCellNotAvailable();
}
QVariant rawError(const std::optional<double>& e)
{
    return e ? QVariant(*e) : QVariant(-std::numeric_limits<double>::infinity());
}
QString presetsExplanation()
{
    return RunTableModel::tr("The planner's prediction with its built-in (uncalibrated) coefficients.");
}
QString calibratedExplanation()
{
    return RunTableModel::tr("The planner's prediction with the calibration the run store supports for this GPU (the "
                             "line above the table names it). It is fitted to these same runs: in-sample.");
}
QString errorExplanation()
{
    return RunTableModel::tr("(predicted - measured) / measured; positive means the prediction was too high.");
}
QString verdictExplanation()
{
    return RunTableModel::tr(
        "Whether the prediction says the run fits in GPU memory; \"wrong\" where the outcome "
        "contradicts it (an out-of-memory run predicted to fit, or a completed one predicted not to).");
}

constexpr int kRecordColumns = RunTableModel::PresetsTokensColumn;
constexpr int kPredictionColumns = RunTableModel::ColumnCount - kRecordColumns;

const std::array<PredictionColumnSpec, kPredictionColumns> kPredictionColumnSpecs { {
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Presets throughput"),
      [](const RunPrediction& p) -> QVariant { return formatTokensPerS(p.presets.tokensPerS); },
      [](const RunPrediction& p) -> QVariant { return p.presets.tokensPerS; }, presetsExplanation },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Presets throughput error"),
      [](const RunPrediction& p) -> QVariant { return error(p.presets.tokensError); },
      [](const RunPrediction& p) -> QVariant { return rawError(p.presets.tokensError); }, errorExplanation },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Calibrated throughput"),
      [](const RunPrediction& p) -> QVariant { return formatTokensPerS(p.calibrated.tokensPerS); },
      [](const RunPrediction& p) -> QVariant { return p.calibrated.tokensPerS; }, calibratedExplanation },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Calibrated throughput error"),
      [](const RunPrediction& p) -> QVariant { return error(p.calibrated.tokensError); },
      [](const RunPrediction& p) -> QVariant { return rawError(p.calibrated.tokensError); }, errorExplanation },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Presets peak"),
      [](const RunPrediction& p) -> QVariant { return formatGiB(p.presets.peakGiB); },
      [](const RunPrediction& p) -> QVariant { return p.presets.peakGiB; }, presetsExplanation },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Presets peak error"),
      [](const RunPrediction& p) -> QVariant { return error(p.presets.peakError); },
      [](const RunPrediction& p) -> QVariant { return rawError(p.presets.peakError); }, errorExplanation },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Calibrated peak"),
      [](const RunPrediction& p) -> QVariant { return formatGiB(p.calibrated.peakGiB); },
      [](const RunPrediction& p) -> QVariant { return p.calibrated.peakGiB; }, calibratedExplanation },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Calibrated peak error"),
      [](const RunPrediction& p) -> QVariant { return error(p.calibrated.peakError); },
      [](const RunPrediction& p) -> QVariant { return rawError(p.calibrated.peakError); }, errorExplanation },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Presets verdict"),
      [](const RunPrediction& p) -> QVariant { return fitVerdictText(p.presets); },
      [](const RunPrediction& p) -> QVariant { return fitVerdictText(p.presets); }, verdictExplanation },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Calibrated verdict"),
      [](const RunPrediction& p) -> QVariant { return fitVerdictText(p.calibrated); },
      [](const RunPrediction& p) -> QVariant { return fitVerdictText(p.calibrated); }, verdictExplanation },
} };

} // namespace

const PredictionColumnSpec* predictionColumnSpec(int column)
{
    const int i = column - kRecordColumns;
    return i >= 0 && i < kPredictionColumns ? &kPredictionColumnSpecs[static_cast<std::size_t>(i)] : nullptr;
}

bool isThroughputPredictionColumn(int column)
{
    return column == RunTableModel::PresetsTokensColumn || column == RunTableModel::PresetsTokensErrorColumn
        || column == RunTableModel::CalibratedTokensColumn || column == RunTableModel::CalibratedTokensErrorColumn;
}

bool verdictWrong(const RunPrediction& p, int column)
{
    return (column == RunTableModel::PresetsVerdictColumn && p.presets.verdictWrong)
        || (column == RunTableModel::CalibratedVerdictColumn && p.calibrated.verdictWrong);
}

} // namespace shardwise::gui
