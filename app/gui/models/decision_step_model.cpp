#include "models/decision_step_model.hpp"

#include <QColor>
#include <QFont>

namespace shardwise::gui {

DecisionStepModel::DecisionStepModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void DecisionStepModel::setSteps(const QList<DecisionStepView>& steps)
{
    beginResetModel();
    m_steps = steps;
    endResetModel();
}

int DecisionStepModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_steps.size());
}

int DecisionStepModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString DecisionStepModel::verdictText(StepVerdict verdict)
{
    switch (verdict) {
    case StepVerdict::Decided:
        return tr("decided");
    case StepVerdict::Passed:
        return tr("passed on");
    case StepVerdict::NotReached:
        return tr("not reached");
    }
    return {};
}

QVariant DecisionStepModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const DecisionStepView& step = m_steps.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case StepColumn:
            return tr("%1. %2").arg(step.number).arg(step.title);
        case VerdictColumn:
            return verdictText(step.verdict);
        case ReasonColumn:
            return step.reason;
        }
        return {};
    case Qt::ToolTipRole:
        return step.reason;
    case Qt::FontRole:
        if (step.verdict == StepVerdict::Decided) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::ForegroundRole:
        if (step.verdict == StepVerdict::NotReached)
            return QColor(Qt::gray);
        return {};
    case VerdictRole:
        return static_cast<int>(step.verdict);
    default:
        return {};
    }
}

QVariant DecisionStepModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case StepColumn:
        return tr("Step");
    case VerdictColumn:
        return tr("Verdict");
    case ReasonColumn:
        return tr("Reason");
    }
    return {};
}

} // namespace shardwise::gui
