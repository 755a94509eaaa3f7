#include "models/run_table_model.hpp"

#include "export/run_csv.hpp"
#include "models/display_format.hpp"
#include "models/run_backend.hpp"
#include "models/run_history_model.hpp"
#include "models/run_table_prediction_columns.hpp"

#include <QColor>
#include <QLocale>

#include <array>
#include <limits>

namespace shardwise::gui {

QString outcomeText(RunOutcome outcome)
{
    switch (outcome) {
    case RunOutcome::Completed:
        return RunTableModel::tr("completed");
    case RunOutcome::OutOfMemory:
        return RunTableModel::tr("out of memory");
    case RunOutcome::Failed:
        return RunTableModel::tr("failed");
    case RunOutcome::Timeout:
        return RunTableModel::tr("timed out");
    case RunOutcome::Cancelled:
        return RunTableModel::tr("cancelled");
    case RunOutcome::Running:
        return RunTableModel::tr("running");
    case RunOutcome::Detached:
        return RunTableModel::tr("detached (running on its nodes)");
    }
    return {};
}

namespace {

using CellValue = QVariant (*)(const RunRecord& r);
using HeaderTip = QString (*)();

// One row per column, in Column order: what a cell shows, the raw value sorting and filtering use,
// the cell's tooltip and the header's tooltip (either may be absent), and the alignment.
struct ColumnSpec {
    const char* title; // translated in RunTableModel's context
    CellValue display;
    CellValue raw;
    CellValue toolTip;
    HeaderTip headerToolTip;
    bool alignRight;
};

bool measured(const RunRecord& r)
{
    return r.outcome == RunOutcome::Completed;
}

// A figure of the step's time (tokens/s, NCCL share): a completed run that is not a rehearsal.
bool timed(const RunRecord& r)
{
    return measured(r) && !r.rehearsal();
}

// What a rehearsal shows in place of a figure of the step's time.
QVariant untimed(const RunRecord& r)
{
    return r.rehearsal() ? QVariant(notMeasuredText()) : runCellNotAvailable();
}

// The cell's tooltip, or for a rehearsal why it has no such figure.
QVariant orRehearsal(const RunRecord& r, const QString& explanation)
{
    return r.rehearsal() ? rehearsalMemoryOnlyExplanation(*r.rehearsedWorld) : explanation;
}

constexpr int kRecordColumns = RunTableModel::PredictedTokensColumn + 1;

const std::array<ColumnSpec, kRecordColumns> kColumns { {
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Run"),
      [](const RunRecord& r) -> QVariant { return QStringLiteral("#%1").arg(r.id); },
      [](const RunRecord& r) -> QVariant { return r.id; },
      [](const RunRecord&) -> QVariant { return RunTableModel::tr("Check to include this run in the charts."); },
      nullptr, true },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Started"),
      [](const RunRecord& r) -> QVariant { return QLocale().toString(r.started.toLocalTime(), QLocale::ShortFormat); },
      [](const RunRecord& r) -> QVariant { return r.started; }, nullptr, nullptr, false },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Model"),
      [](const RunRecord& r) -> QVariant { return r.model; }, [](const RunRecord& r) -> QVariant { return r.model; },
      nullptr, nullptr, false },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Hardware"),
      [](const RunRecord& r) -> QVariant { return r.hardware; },
      [](const RunRecord& r) -> QVariant { return r.hardware; }, nullptr, nullptr, false },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "World"),
      [](const RunRecord& r) -> QVariant {
          return r.rehearsal() ? rehearsalWorldText(*r.rehearsedWorld)
                               : RunHistoryModel::tr("%n rank(s)", nullptr, r.world); // as the Runs page says it
      },
      [](const RunRecord& r) -> QVariant { return r.rehearsedWorld.value_or(r.world); },
      [](const RunRecord& r) -> QVariant {
          return r.rehearsal() ? rehearsalMemoryOnlyExplanation(*r.rehearsedWorld) : QVariant();
      },
      [] { return RunTableModel::tr("The ranks that ran; for a rehearsal, the world its one rank stood for."); },
      false },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Node"), [](const RunRecord& r) -> QVariant { return r.node; },
      [](const RunRecord& r) -> QVariant { return r.node; }, nullptr, nullptr, false },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Strategy"),
      [](const RunRecord& r) -> QVariant { return strategyLabel(r.strategy); },
      [](const RunRecord& r) -> QVariant { return strategyIdText(r.strategy); },
      [](const RunRecord& r) -> QVariant { return strategySummary(r.strategy); }, nullptr, false },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Backend"),
      [](const RunRecord& r) -> QVariant { return backendIdText(r.backend); },
      [](const RunRecord& r) -> QVariant { return backendIdText(r.backend); },
      [](const RunRecord& r) -> QVariant {
          return r.backendDetail.isEmpty() ? backendLabel(r.backend) : r.backendDetail;
      },
      [] {
          return RunTableModel::tr("What ran the ranks: native (Shardwise's runner) or torch (PyTorch's DDP / FSDP2).");
      },
      false },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Precision"),
      [](const RunRecord& r) -> QVariant { return precisionAsRun(r); },
      [](const RunRecord& r) -> QVariant { return precisionAsRun(r); }, nullptr,
      [] {
          return RunTableModel::tr("The precision the run asked for; a run on the CPU computes in fp32 whatever it "
                                   "asked.");
      },
      false },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Sequence"),
      [](const RunRecord& r) -> QVariant {
          return r.seqLen > 0 ? QVariant(QLocale().toString(r.seqLen)) : runCellNotAvailable();
      },
      [](const RunRecord& r) -> QVariant { return r.seqLen; }, nullptr,
      [] { return RunTableModel::tr("Tokens per sequence."); }, true },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Micro-batch"),
      [](const RunRecord& r) -> QVariant { return QLocale().toString(r.microBatch); },
      [](const RunRecord& r) -> QVariant { return r.microBatch; }, nullptr,
      [] { return RunTableModel::tr("Sequences per rank in each step."); }, true },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Outcome"),
      [](const RunRecord& r) -> QVariant { return outcomeText(r.outcome); },
      [](const RunRecord& r) -> QVariant { return static_cast<int>(r.outcome); },
      [](const RunRecord& r) -> QVariant { return r.failure.isEmpty() ? outcomeText(r.outcome) : r.failure; }, nullptr,
      false },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Throughput"),
      [](const RunRecord& r) -> QVariant { return timed(r) ? QVariant(formatTokensPerS(r.tokensPerS)) : untimed(r); },
      [](const RunRecord& r) -> QVariant { return r.rehearsal() ? -1.0 : r.tokensPerS; },
      [](const RunRecord& r) -> QVariant {
          return orRehearsal(r,
                             RunTableModel::tr("Measured over %1 timed steps after %2 warm-up steps. %3")
                                 .arg(r.timedSteps)
                                 .arg(r.warmupSteps)
                                 .arg(tokensPerSExplanation()));
      },
      tokensPerSExplanation, true },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Peak allocated"),
      [](const RunRecord& r) -> QVariant {
          return measured(r) || r.peakAllocatedGiB > 0 ? QVariant(formatGiB(r.peakAllocatedGiB))
                                                       : runCellNotAvailable();
      },
      [](const RunRecord& r) -> QVariant { return r.peakAllocatedGiB; },
      [](const RunRecord& r) -> QVariant {
          if (r.rehearsal())
              return RunTableModel::tr("%1 Rank 0's at world %2 (rehearsal); predicted for world %2: %3.")
                  .arg(peakMemoryExplanation())
                  .arg(*r.rehearsedWorld)
                  .arg(r.predictedPeakGiB ? formatGiB(*r.predictedPeakGiB) : RunTableModel::tr("none"));
          return peakMemoryExplanation();
      },
      peakMemoryExplanation, true },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Peak reserved"),
      [](const RunRecord& r) -> QVariant {
          return measured(r) || r.peakReservedGiB > 0 ? QVariant(formatGiB(r.peakReservedGiB)) : runCellNotAvailable();
      },
      [](const RunRecord& r) -> QVariant { return r.peakReservedGiB; },
      [](const RunRecord&) -> QVariant { return reservedExplanation(); }, reservedExplanation, true },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "NCCL share"),
      [](const RunRecord& r) -> QVariant { return timed(r) ? QVariant(formatPercent(r.ncclShare)) : untimed(r); },
      [](const RunRecord& r) -> QVariant { return r.rehearsal() ? -1.0 : r.ncclShare; },
      [](const RunRecord& r) -> QVariant { return orRehearsal(r, ncclShareExplanation()); }, ncclShareExplanation,
      true },
    { QT_TRANSLATE_NOOP("shardwise::gui::RunTableModel", "Predicted throughput"),
      [](const RunRecord& r) -> QVariant {
          if (r.rehearsal())
              return notMeasuredText();
          return r.predictedTokensPerS ? formatTokensPerS(*r.predictedTokensPerS) : RunTableModel::tr("none");
      },
      [](const RunRecord& r) -> QVariant { return r.rehearsal() ? -1.0 : r.predictedTokensPerS.value_or(-1.0); },
      [](const RunRecord& r) -> QVariant {
          return orRehearsal(r, RunTableModel::tr("What the planner predicted for this configuration before it ran."));
      },
      nullptr, true },
} };

const ColumnSpec* columnSpec(int column)
{
    return column >= 0 && column < static_cast<int>(kColumns.size()) ? &kColumns[static_cast<std::size_t>(column)]
                                                                     : nullptr;
}

} // namespace

RunTableModel::RunTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void RunTableModel::setRuns(const QList<RunRecord>& runs, const QSet<qint64>& check)
{
    beginResetModel();
    m_runs = runs;
    QSet<qint64> present;
    for (const RunRecord& r : m_runs)
        present.insert(r.id);
    m_checked.unite(check);
    m_checked.intersect(present);
    endResetModel();
    emit checkedRunsChanged();
}

void RunTableModel::setPredictions(const QHash<qint64, RunPrediction>& predictions)
{
    m_predictions = predictions;
    if (!m_runs.isEmpty())
        emit dataChanged(index(0, PresetsTokensColumn), index(rowCount() - 1, ColumnCount - 1));
}

const RunPrediction* RunTableModel::predictionFor(qint64 runId) const
{
    const auto it = m_predictions.constFind(runId);
    return it == m_predictions.constEnd() ? nullptr : &it.value();
}

const RunRecord* RunTableModel::runById(qint64 id) const
{
    for (const RunRecord& r : m_runs)
        if (r.id == id)
            return &r;
    return nullptr;
}

QList<RunRecord> RunTableModel::checkedRuns() const
{
    QList<RunRecord> out;
    for (const RunRecord& r : m_runs)
        if (m_checked.contains(r.id))
            out.append(r);
    return out;
}

void RunTableModel::setChecked(qint64 runId, bool checked)
{
    for (int row = 0; row < m_runs.size(); ++row) {
        if (m_runs[row].id == runId) {
            setData(index(row, IdColumn), checked ? Qt::Checked : Qt::Unchecked, Qt::CheckStateRole);
            return;
        }
    }
}

void RunTableModel::checkAll(bool checked)
{
    if (m_runs.isEmpty())
        return;
    for (const RunRecord& r : m_runs) {
        if (checked)
            m_checked.insert(r.id);
        else
            m_checked.remove(r.id);
    }
    emit dataChanged(index(0, IdColumn), index(rowCount() - 1, IdColumn), { Qt::CheckStateRole });
    emit checkedRunsChanged();
}

int RunTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_runs.size());
}

int RunTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

// The root index (views and QAbstractItemModelTester ask about it) has no data and no flags; only
// indexes from elsewhere are worth checkIndex's warning.
Qt::ItemFlags RunTableModel::flags(const QModelIndex& index) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() == IdColumn)
        f |= Qt::ItemIsUserCheckable;
    return f;
}

bool RunTableModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)
        || role != Qt::CheckStateRole || index.column() != IdColumn)
        return false;
    const qint64 id = m_runs.at(index.row()).id;
    const bool checked = value.toInt() == Qt::Checked;
    if (checked == m_checked.contains(id))
        return true;
    if (checked)
        m_checked.insert(id);
    else
        m_checked.remove(id);
    emit dataChanged(index, index, { Qt::CheckStateRole });
    emit checkedRunsChanged();
    return true;
}

QVariant RunTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunRecord& r = m_runs.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return display(r, index.column());
    case RawValueRole:
        return raw(r, index.column());
    case RunIdRole:
        return r.id;
    case Qt::ToolTipRole:
        return toolTip(r, index.column());
    case Qt::CheckStateRole:
        if (index.column() == IdColumn)
            return m_checked.contains(r.id) ? Qt::Checked : Qt::Unchecked;
        return {};
    case Qt::TextAlignmentRole:
        if (predictionColumnSpec(index.column()))
            return index.column() >= PresetsVerdictColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                          : QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return columnSpec(index.column()) && columnSpec(index.column())->alignRight
            ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
            : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() == OutcomeColumn && r.outcome != RunOutcome::Completed && r.outcome != RunOutcome::Running
            && r.outcome != RunOutcome::Detached)
            return QColor(0xd0, 0x3b, 0x3b);
        if (const RunPrediction* p = predictionFor(r.id); p && verdictWrong(*p, index.column()))
            return QColor(0xd0, 0x3b, 0x3b);
        return {};
    default:
        return {};
    }
}

QVariant RunTableModel::display(const RunRecord& r, int column) const
{
    if (const PredictionColumnSpec* p = predictionColumnSpec(column)) {
        if (r.rehearsal() && isThroughputPredictionColumn(column))
            return notMeasuredText();
        const RunPrediction* prediction = predictionFor(r.id);
        return prediction ? p->display(*prediction) : runCellNotAvailable();
    }
    const ColumnSpec* c = columnSpec(column);
    return c ? c->display(r) : QVariant();
}

QVariant RunTableModel::raw(const RunRecord& r, int column) const
{
    if (const PredictionColumnSpec* p = predictionColumnSpec(column)) {
        // Runs without a prediction sort before every number (and every verdict text).
        if (const RunPrediction* prediction = predictionFor(r.id);
            prediction && !(r.rehearsal() && isThroughputPredictionColumn(column)))
            return p->raw(*prediction);
        return column >= PresetsVerdictColumn ? QVariant(QString())
                                              : QVariant(-std::numeric_limits<double>::infinity());
    }
    const ColumnSpec* c = columnSpec(column);
    return c ? c->raw(r) : QVariant();
}

QVariant RunTableModel::toolTip(const RunRecord& r, int column) const
{
    if (const PredictionColumnSpec* p = predictionColumnSpec(column)) {
        if (r.rehearsal() && isThroughputPredictionColumn(column))
            return rehearsalMemoryOnlyExplanation(*r.rehearsedWorld);
        if (!predictionFor(r.id))
            return tr("No prediction to compare: only completed or out-of-memory runs on a known GPU preset, with "
                      "their configuration stored, are predicted.");
        return p->headerToolTip();
    }
    const ColumnSpec* c = columnSpec(column);
    return c && c->toolTip ? c->toolTip(r) : QVariant();
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (const PredictionColumnSpec* p = predictionColumnSpec(section); p && orientation == Qt::Horizontal) {
        if (role == Qt::DisplayRole)
            return tr(p->title);
        if (role == Qt::ToolTipRole)
            return p->headerToolTip();
        return {};
    }
    const ColumnSpec* c = columnSpec(section);
    if (orientation != Qt::Horizontal || !c)
        return {};
    if (role == Qt::DisplayRole)
        return tr(c->title);
    if (role == Qt::ToolTipRole && c->headerToolTip)
        return c->headerToolTip();
    return {};
}

} // namespace shardwise::gui
