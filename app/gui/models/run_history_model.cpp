#include "models/run_history_model.hpp"

#include "models/display_format.hpp"
#include "models/run_backend.hpp"

#include <QBrush>
#include <QDateTime>
#include <QLocale>

namespace shardwise::gui {

namespace {
constexpr double kGiBytes = 1024.0 * 1024.0 * 1024.0;
}

RunHistoryModel::RunHistoryModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void RunHistoryModel::setRuns(std::vector<store::RunSummary> runs)
{
    beginResetModel();
    m_runs = std::move(runs);
    endResetModel();
}

int RunHistoryModel::rowOf(qint64 runId) const
{
    for (std::size_t i = 0; i < m_runs.size(); ++i)
        if (m_runs[i].id == runId)
            return static_cast<int>(i);
    return -1;
}

int RunHistoryModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_runs.size());
}

int RunHistoryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString RunHistoryModel::statusText(store::RunStatus status)
{
    switch (status) {
    case store::RunStatus::Running:
        return tr("Running");
    case store::RunStatus::Completed:
        return tr("Completed");
    case store::RunStatus::Oom:
        return tr("Out of memory");
    case store::RunStatus::Failed:
        return tr("Failed");
    case store::RunStatus::Timeout:
        return tr("Timed out");
    case store::RunStatus::Lost:
        return tr("Node lost");
    case store::RunStatus::Cancelled:
        return tr("Cancelled");
    case store::RunStatus::Interrupted:
        //: a run whose recording process stopped without finishing it
        return tr("Interrupted");
    case store::RunStatus::Detached:
        //: a remote run whose ranks go on running on their nodes with nothing following them; it can be re-attached
        return tr("Detached");
    }
    return {};
}

QVariant RunHistoryModel::display(const store::RunSummary& r, int column) const
{
    switch (column) {
    case IdColumn:
        return QString::number(r.id);
    case StartedColumn:
        return QLocale().toString(QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(r.startedAt * 1000.0)),
                                  QLocale::ShortFormat);
    case StatusColumn:
        return statusText(r.status);
    case StrategyColumn:
        return strategyLabel(r.strategy);
    case BackendColumn:
        return backendIdText(r.backend);
    case ModelColumn:
        return QString::fromStdString(r.modelId);
    case RanksColumn:
        return r.rehearsal() ? rehearsalWorldText(*r.rehearsedWorld) : tr("%n rank(s)", nullptr, r.worldSize);
    case NodeColumn: {
        QStringList nodes;
        for (const std::string& n : r.nodes)
            nodes << QString::fromStdString(n);
        return nodes.join(QStringLiteral(", "));
    }
    case TokensColumn:
        if (r.rehearsal())
            return notMeasuredText();
        return r.tokensPerS ? formatTokensPerS(*r.tokensPerS) : QString();
    case StepTimeColumn:
        if (r.rehearsal())
            return notMeasuredText();
        return r.medianStepS ? formatSeconds(*r.medianStepS) : QString();
    case PeakMemoryColumn: {
        if (!r.peakAllocated)
            return QString();
        const QString measured = formatGiB(static_cast<double>(*r.peakAllocated) / kGiBytes);
        // A rehearsal is a memory result: its peak beside the plan's prediction for rank 0 of world N.
        if (r.rehearsal() && r.predicted.peakBytes)
            return tr("%1 (predicted %2 at world %3)")
                .arg(measured, formatGiB(static_cast<double>(*r.predicted.peakBytes) / kGiBytes))
                .arg(*r.rehearsedWorld);
        return measured;
    }
    case NoteColumn:
        return QString::fromStdString(r.note);
    default:
        return {};
    }
}

QVariant RunHistoryModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const store::RunSummary& r = m_runs[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return display(r, index.column());
    case Qt::ToolTipRole:
        if (r.rehearsal()
            && (index.column() == TokensColumn || index.column() == StepTimeColumn || index.column() == RanksColumn))
            return rehearsalMemoryOnlyExplanation(*r.rehearsedWorld);
        if (index.column() == TokensColumn)
            return tokensPerSExplanation();
        if (index.column() == PeakMemoryColumn)
            return r.rehearsal() ? tr("%1 Measured on rank 0 of a rehearsal of world %2; the prediction is the "
                                      "plan's per rank at world %2.")
                                       .arg(peakMemoryExplanation())
                                       .arg(*r.rehearsedWorld)
                                 : peakMemoryExplanation();
        if (index.column() == NoteColumn || index.column() == StatusColumn)
            return QString::fromStdString(r.note);
        if (index.column() == BackendColumn)
            return backendLabel(r.backend);
        return {};
    case Qt::ForegroundRole:
        if (index.column() == StatusColumn && r.status != store::RunStatus::Completed
            && r.status != store::RunStatus::Running)
            return QBrush(QColor(0xc0, 0x39, 0x2b)); // readable on light and dark palettes
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == TokensColumn || index.column() == StepTimeColumn || index.column() == PeakMemoryColumn
            || index.column() == IdColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case RunIdRole:
        return static_cast<qint64>(r.id);
    case StatusIdRole: {
        const std::string_view id = store::runStatusId(r.status);
        return QString::fromUtf8(id.data(), static_cast<qsizetype>(id.size()));
    }
    default:
        return {};
    }
}

QVariant RunHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case IdColumn:
        //: run number
        return tr("#");
    case StartedColumn:
        return tr("Started");
    case StatusColumn:
        return tr("Status");
    case StrategyColumn:
        return tr("Strategy");
    case BackendColumn:
        return tr("Backend");
    case ModelColumn:
        return tr("Model");
    case RanksColumn:
        return tr("Ranks");
    case NodeColumn:
        return tr("Node");
    case TokensColumn:
        return tr("Throughput");
    case StepTimeColumn:
        return tr("Median step");
    case PeakMemoryColumn:
        return tr("Peak allocated");
    case NoteColumn:
        return tr("Reason");
    default:
        return {};
    }
}

} // namespace shardwise::gui
