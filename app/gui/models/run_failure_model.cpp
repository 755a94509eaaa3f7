#include "models/run_failure_model.hpp"

#include <QBrush>
#include <QFont>

namespace shardwise::gui {

RunFailureModel::RunFailureModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void RunFailureModel::setDiagnosis(const RunDiagnosisView& diagnosis)
{
    beginResetModel();
    m_failures = diagnosis.failures;
    endResetModel();
}

void RunFailureModel::clear()
{
    beginResetModel();
    m_failures.clear();
    endResetModel();
}

int RunFailureModel::rootCauseRow() const
{
    for (int i = 0; i < m_failures.size(); ++i)
        if (m_failures[i].rootCause)
            return i;
    return -1;
}

int RunFailureModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_failures.size());
}

int RunFailureModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunFailureModel::display(const DiagnosisFailure& f, int row, int column) const
{
    switch (column) {
    case OrderColumn:
        return QString::number(row + 1);
    case RankColumn:
        if (f.rank)
            return tr("Rank %1").arg(*f.rank);
        //: a failure not tied to one rank (a launcher or node log)
        return f.node.isEmpty() ? tr("Launcher") : f.node;
    case KindColumn:
        return failureKindText(f.kind);
    case TimeColumn:
        return f.loggedTime;
    case RoleColumn:
        if (f.rootCause)
            return tr("First failure (root cause)");
        if (f.symptom)
            //: a failure that follows from another one, e.g. a watchdog timeout after a peer died
            return tr("Symptom");
        return tr("Failure");
    case MessageColumn:
        return f.message;
    default:
        return {};
    }
}

QVariant RunFailureModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const DiagnosisFailure& f = m_failures[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        return display(f, index.row(), index.column());
    case Qt::ToolTipRole: {
        QStringList lines;
        for (const DiagnosisEvidence& e : f.evidence)
            lines << tr("%1:%2: %3").arg(e.source).arg(e.line).arg(e.text);
        return lines.join(QLatin1Char('\n'));
    }
    case Qt::FontRole:
        if (f.rootCause) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::BackgroundRole:
        if (f.rootCause)
            return QBrush(QColor(0xff, 0xe0, 0x82)); // the same amber as the log tail's highlight
        return {};
    case Qt::ForegroundRole:
        if (f.rootCause)
            return QBrush(QColor(Qt::black));
        if (f.symptom)
            return QBrush(QColor(Qt::gray));
        return {};
    case RootCauseRole:
        return f.rootCause;
    case SymptomRole:
        return f.symptom;
    default:
        return {};
    }
}

QVariant RunFailureModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case OrderColumn:
        //: position of a failure in time order
        return tr("Order");
    case RankColumn:
        return tr("Where");
    case KindColumn:
        return tr("Kind");
    case TimeColumn:
        return tr("Logged at");
    case RoleColumn:
        return tr("Role");
    case MessageColumn:
        return tr("Message");
    default:
        return {};
    }
}

} // namespace shardwise::gui
