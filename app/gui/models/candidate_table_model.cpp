#include "models/candidate_table_model.hpp"

#include "models/display_format.hpp"

#include <QBrush>
#include <QFont>
#include <QPalette>

namespace shardwise::gui {

CandidateTableModel::CandidateTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void CandidateTableModel::setPlan(const PlanView& plan)
{
    beginResetModel();
    m_plan = plan;
    endResetModel();
}

void CandidateTableModel::clear()
{
    setPlan(PlanView {});
}

int CandidateTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_plan.candidates.size());
}

int CandidateTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CandidateTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CandidateView& c = m_plan.candidates.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return display(c, index.column());
    case Qt::ToolTipRole:
        return toolTip(c, index.column());
    case Qt::TextAlignmentRole:
        return index.column() >= PeakColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                            : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::FontRole:
        if (c.recommended) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case SupportedRole:
        return c.supported;
    case Qt::ForegroundRole:
        if (!c.supported)
            return QPalette().brush(QPalette::Disabled, QPalette::Text);
        if (index.column() == FitsColumn && !c.fits)
            return QBrush(QColor(0xd0, 0x3b, 0x3b));
        return {};
    case RecommendedRole:
        return c.recommended;
    case RawValueRole:
        switch (index.column()) {
        case StrategyColumn:
            return static_cast<int>(c.strategy);
        case FitsColumn:
            return c.fits;
        case PeakColumn:
            return c.peakGiB;
        case TokensColumn:
            return c.tokensPerS;
        case MfuColumn:
            return c.mfu;
        case NcclColumn:
            return c.ncclShare;
        }
        return {};
    default:
        return {};
    }
}

QVariant CandidateTableModel::display(const CandidateView& c, int column) const
{
    switch (column) {
    case StrategyColumn:
        if (!c.supported)
            return tr("%1 (not in %2)").arg(strategyLabel(c.strategy), m_plan.target);
        return c.recommended ? tr("%1 (recommended)").arg(strategyLabel(c.strategy)) : strategyLabel(c.strategy);
    case FitsColumn:
        if (c.fits)
            return tr("fits");
        if (c.headroomGiB < 0)
            return tr("short by %1").arg(formatGiB(-c.headroomGiB));
        // Fits the GPU, so it is the host memory that the offloaded state does not fit.
        return tr("host RAM short by %1").arg(formatGiB(c.hostGiB - m_plan.hostUsableGiB));
    case PeakColumn:
        return formatGiB(c.peakGiB);
    case TokensColumn:
        return formatTokensPerS(c.tokensPerS);
    case MfuColumn:
        return formatPercent(c.mfu);
    case NcclColumn:
        return formatPercent(c.ncclShare);
    }
    return {};
}

QVariant CandidateTableModel::toolTip(const CandidateView& c, int column) const
{
    if (!c.supported)
        return c.unsupportedReason;
    switch (column) {
    case StrategyColumn:
        return c.note.isEmpty() ? strategySummary(c.strategy)
                                : strategySummary(c.strategy) + QLatin1Char('\n') + c.note;
    case FitsColumn: {
        if (!c.fits && c.headroomGiB >= 0)
            return tr("Fits the GPU, but its state in host memory, %1 per node, exceeds the usable %2 of the node's "
                      "RAM by %3.")
                .arg(formatGiB(c.hostGiB), formatGiB(m_plan.hostUsableGiB),
                     formatGiB(c.hostGiB - m_plan.hostUsableGiB));
        QString tip = c.fits ? tr("Predicted peak leaves %1 of the usable %2 free.")
                                   .arg(formatGiB(c.headroomGiB), formatGiB(m_plan.usableGiB))
                             : tr("Predicted peak exceeds the usable %1 (GPU memory minus headroom) by %2.")
                                   .arg(formatGiB(m_plan.usableGiB), formatGiB(-c.headroomGiB));
        if (c.hostGiB > 0)
            tip += QLatin1Char(' ')
                + tr("Host memory: %1 per node of the usable %2.")
                      .arg(formatGiB(c.hostGiB), formatGiB(m_plan.hostUsableGiB));
        return tip;
    }
    case PeakColumn:
        return tr("%1 allocated + %2 CUDA context and NCCL.")
                   .arg(formatGiB(c.allocatedPeakGiB), formatGiB(c.peakGiB - c.allocatedPeakGiB))
            + QLatin1Char('\n') + predictedPeakExplanation();
    case TokensColumn:
        return tr("Predicted. %1").arg(tokensPerSExplanation());
    case MfuColumn:
        return tr("Predicted. %1").arg(mfuExplanation());
    case NcclColumn:
        return tr("Predicted. %1").arg(ncclShareExplanation());
    }
    return {};
}

QString CandidateTableModel::predictedPeakExplanation() const
{
    return tr("Predicted peak per GPU: the most the step allocates at once plus the CUDA context and NCCL's buffers. "
              "It fits when it is at most the usable %1 (the GPU's %2 less %3 headroom). The allocator's unused cache "
              "is not counted: PyTorch frees it before it reports out of memory.")
        .arg(formatGiB(m_plan.usableGiB), formatGiB(m_plan.capacityGiB), formatGiB(m_plan.headroomGiB));
}

Qt::ItemFlags CandidateTableModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.row() < m_plan.candidates.size() && !m_plan.candidates.at(index.row()).supported)
        f &= ~(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    return f;
}

QVariant CandidateTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case StrategyColumn:
            return tr("Strategy");
        case FitsColumn:
            return tr("Fits");
        case PeakColumn:
            return tr("Peak / GPU");
        case TokensColumn:
            return tr("Throughput");
        case MfuColumn:
            return tr("MFU");
        case NcclColumn:
            return tr("NCCL share");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case StrategyColumn:
            return tr("The sharding strategy; the recommended one is shown in bold.");
        case FitsColumn:
            return tr(
                "Whether the predicted peak fits the GPU's memory with the planner's headroom and, for CPU offload, "
                "whether its state fits the node's usable host memory.");
        case PeakColumn:
            return predictedPeakExplanation();
        case TokensColumn:
            return tokensPerSExplanation();
        case MfuColumn:
            return mfuExplanation();
        case NcclColumn:
            return ncclShareExplanation();
        }
    }
    return {};
}

} // namespace shardwise::gui
