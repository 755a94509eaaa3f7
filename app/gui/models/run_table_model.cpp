#include "models/run_table_model.hpp"

#include "models/display_format.hpp"

#include <QColor>
#include <QLocale>

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
    }
    return {};
}

RunTableModel::RunTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void RunTableModel::setRuns(const QList<RunRecord>& runs)
{
    beginResetModel();
    m_runs = runs;
    QSet<qint64> present;
    for (const RunRecord& r : m_runs)
        present.insert(r.id);
    m_checked.intersect(present);
    endResetModel();
    emit checkedRunsChanged();
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
    emit dataChanged(index(0, IdColumn), index(rowCount() - 1, IdColumn), {Qt::CheckStateRole});
    emit checkedRunsChanged();
}

int RunTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_runs.size()); }

int RunTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

Qt::ItemFlags RunTableModel::flags(const QModelIndex& index) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() == IdColumn)
        f |= Qt::ItemIsUserCheckable;
    return f;
}

bool RunTableModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || role != Qt::CheckStateRole
        || index.column() != IdColumn)
        return false;
    const qint64 id = m_runs.at(index.row()).id;
    const bool checked = value.toInt() == Qt::Checked;
    if (checked == m_checked.contains(id))
        return true;
    if (checked)
        m_checked.insert(id);
    else
        m_checked.remove(id);
    emit dataChanged(index, index, {Qt::CheckStateRole});
    emit checkedRunsChanged();
    return true;
}

QVariant RunTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
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
        return index.column() >= TokensColumn || index.column() == IdColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                                            : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() == OutcomeColumn && r.outcome != RunOutcome::Completed && r.outcome != RunOutcome::Running)
            return QColor(0xd0, 0x3b, 0x3b);
        return {};
    default:
        return {};
    }
}

QVariant RunTableModel::display(const RunRecord& r, int column) const
{
    const bool measured = r.outcome == RunOutcome::Completed;
    switch (column) {
    case IdColumn:
        return QStringLiteral("#%1").arg(r.id);
    case StartedColumn:
        return QLocale().toString(r.started.toLocalTime(), QLocale::ShortFormat);
    case ModelColumn:
        return r.model;
    case HardwareColumn:
        return r.hardware;
    case NodeColumn:
        return r.node;
    case StrategyColumn:
        return strategyLabel(r.strategy);
    case OutcomeColumn:
        return outcomeText(r.outcome);
    case TokensColumn:
        return measured ? formatTokensPerS(r.tokensPerS) : tr("n/a");
    case PeakAllocatedColumn:
        return measured || r.peakAllocatedGiB > 0 ? formatGiB(r.peakAllocatedGiB) : tr("n/a");
    case PeakReservedColumn:
        return measured || r.peakReservedGiB > 0 ? formatGiB(r.peakReservedGiB) : tr("n/a");
    case NcclColumn:
        return measured ? formatPercent(r.ncclShare) : tr("n/a");
    case PredictedTokensColumn:
        return r.predictedTokensPerS ? formatTokensPerS(*r.predictedTokensPerS) : tr("none");
    }
    return {};
}

QVariant RunTableModel::raw(const RunRecord& r, int column) const
{
    switch (column) {
    case IdColumn:
        return r.id;
    case StartedColumn:
        return r.started;
    case ModelColumn:
        return r.model;
    case HardwareColumn:
        return r.hardware;
    case NodeColumn:
        return r.node;
    case StrategyColumn:
        return strategyIdText(r.strategy);
    case OutcomeColumn:
        return static_cast<int>(r.outcome);
    case TokensColumn:
        return r.tokensPerS;
    case PeakAllocatedColumn:
        return r.peakAllocatedGiB;
    case PeakReservedColumn:
        return r.peakReservedGiB;
    case NcclColumn:
        return r.ncclShare;
    case PredictedTokensColumn:
        return r.predictedTokensPerS.value_or(-1.0);
    }
    return {};
}

QVariant RunTableModel::toolTip(const RunRecord& r, int column) const
{
    switch (column) {
    case IdColumn:
        return tr("Check to include this run in the charts.");
    case OutcomeColumn:
        return r.failure.isEmpty() ? outcomeText(r.outcome) : r.failure;
    case TokensColumn:
        return tr("Measured over %1 timed steps after %2 warm-up steps. %3")
            .arg(r.timedSteps)
            .arg(r.warmupSteps)
            .arg(tokensPerSExplanation());
    case PeakAllocatedColumn:
        return peakMemoryExplanation();
    case PeakReservedColumn:
        return reservedExplanation();
    case NcclColumn:
        return ncclShareExplanation();
    case PredictedTokensColumn:
        return tr("What the planner predicted for this configuration before it ran.");
    case StrategyColumn:
        return strategySummary(r.strategy);
    default:
        return {};
    }
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case IdColumn:
            return tr("Run");
        case StartedColumn:
            return tr("Started");
        case ModelColumn:
            return tr("Model");
        case HardwareColumn:
            return tr("Hardware");
        case NodeColumn:
            return tr("Node");
        case StrategyColumn:
            return tr("Strategy");
        case OutcomeColumn:
            return tr("Outcome");
        case TokensColumn:
            return tr("Throughput");
        case PeakAllocatedColumn:
            return tr("Peak allocated");
        case PeakReservedColumn:
            return tr("Peak reserved");
        case NcclColumn:
            return tr("NCCL share");
        case PredictedTokensColumn:
            return tr("Predicted throughput");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case TokensColumn:
            return tokensPerSExplanation();
        case PeakAllocatedColumn:
            return peakMemoryExplanation();
        case PeakReservedColumn:
            return reservedExplanation();
        case NcclColumn:
            return ncclShareExplanation();
        default:
            return {};
        }
    }
    return {};
}

} // namespace shardwise::gui
