#pragma once
// The decision order's three steps with their verdict and reason, one row each.

#include "workspace/plan_view.hpp"

#include <QAbstractTableModel>

namespace shardwise::gui {

class DecisionStepModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { StepColumn, VerdictColumn, ReasonColumn, ColumnCount };
    static constexpr int VerdictRole = Qt::UserRole + 1;

    explicit DecisionStepModel(QObject* parent = nullptr);
    void setSteps(const QList<DecisionStepView>& steps);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    static QString verdictText(StepVerdict verdict);

private:
    QList<DecisionStepView> m_steps;
};

} // namespace shardwise::gui
