#include "models/rank_progress_model.hpp"

#include "models/display_format.hpp"

#include <QBrush>
#include <QLocale>

namespace shardwise::gui {

QString formatBytes(std::int64_t bytes)
{
    constexpr double kMiB = 1024.0 * 1024.0;
    const double mib = static_cast<double>(bytes) / kMiB;
    if (mib < 1024.0)
        return RankProgressModel::tr("%1 MiB").arg(QLocale().toString(mib, 'f', 0));
    return formatGiB(mib / 1024.0);
}

RankProgressModel::RankProgressModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void RankProgressModel::watch(qint64 runId)
{
    if (runId == m_runId)
        return;
    beginResetModel();
    m_runId = runId;
    m_ranks.clear();
    m_cancelling = false;
    endResetModel();
}

void RankProgressModel::clear()
{
    watch(0);
}

void RankProgressModel::setCancelling(bool cancelling)
{
    if (cancelling == m_cancelling)
        return;
    m_cancelling = cancelling;
    if (!m_ranks.isEmpty())
        emit dataChanged(index(0, StateColumn), index(static_cast<int>(m_ranks.size()) - 1, StateColumn));
}

void RankProgressModel::update(qint64 runId, const QList<RankProgress>& ranks)
{
    if (runId != m_runId || runId == 0)
        return;
    if (ranks.size() != m_ranks.size()) {
        beginResetModel();
        m_ranks = ranks;
        endResetModel();
        return;
    }
    m_ranks = ranks;
    if (!m_ranks.isEmpty())
        emit dataChanged(index(0, 0), index(static_cast<int>(m_ranks.size()) - 1, ColumnCount - 1));
}

int RankProgressModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_ranks.size());
}

int RankProgressModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RankProgressModel::display(const RankProgress& p, int column) const
{
    switch (column) {
    case RankColumn:
        return tr("Rank %1").arg(p.rank);
    case StateColumn:
        if (p.failed)
            return tr("Failed");
        if (p.finished)
            return tr("Finished");
        if (p.cancelled)
            return tr("Cancelled");
        if (p.stopped)
            //: a rank the launcher stopped when the run ended (another rank failed, or it timed out)
            return tr("Stopped");
        if (m_cancelling)
            return tr("Cancelling…");
        if (p.stepsDone == 0)
            return tr("Starting");
        return p.timedStepsDone == 0 ? tr("Warming up") : tr("Timing");
    case StepsColumn:
        return tr("%1 of %2").arg(p.stepsDone).arg(p.totalSteps);
    case TokensColumn:
        return p.timedStepsDone > 0 ? formatTokensPerS(p.tokensPerS) : QString();
    case StepTimeColumn:
        return p.stepsDone > 0 ? formatSeconds(p.lastStepS) : QString();
    case LossColumn:
        return p.stepsDone > 0 ? QLocale().toString(p.lastLoss, 'f', 4) : QString();
    case MemoryColumn:
        // On a CPU run the caching allocator reports nothing; the process's peak RSS is the memory.
        if (p.devicePeakAllocated > 0)
            return tr("%1 allocated, %2 peak").arg(formatBytes(p.deviceAllocated), formatBytes(p.devicePeakAllocated));
        if (p.hostPeakRss > 0)
            return tr("%1 peak RSS (host)").arg(formatBytes(p.hostPeakRss));
        return QString();
    default:
        return {};
    }
}

QVariant RankProgressModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RankProgress& p = m_ranks[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        return display(p, index.column());
    case Qt::ToolTipRole:
        if (index.column() == StateColumn && p.failed)
            return p.error;
        if (index.column() == StateColumn && p.cancelled)
            return tr("The run was cancelled before this rank finished; it was stopped.");
        if (index.column() == StateColumn && p.stopped)
            return p.timedOut ? tr("The run timed out before this rank finished; it was stopped.")
                              : tr("The run ended (another rank failed) before this rank finished; it was stopped.");
        if (index.column() == TokensColumn)
            return tr("This rank's tokens over its timed steps so far, divided by their step time; warm-up steps are "
                      "left out.");
        if (index.column() == RankColumn)
            return p.deviceName;
        return {};
    case Qt::ForegroundRole:
        if (p.failed && index.column() == StateColumn)
            return QBrush(QColor(0xc0, 0x39, 0x2b));
        return {};
    case RankRole:
        return p.rank;
    case FailedRole:
        return p.failed;
    default:
        return {};
    }
}

QVariant RankProgressModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case RankColumn:
        return tr("Rank");
    case StateColumn:
        return tr("State");
    case StepsColumn:
        return tr("Steps done");
    case TokensColumn:
        return tr("Throughput so far");
    case StepTimeColumn:
        return tr("Last step");
    case LossColumn:
        return tr("Loss");
    case MemoryColumn:
        return tr("Memory");
    default:
        return {};
    }
}

} // namespace shardwise::gui
