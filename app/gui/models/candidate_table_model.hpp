#pragma once
// The nine sharding candidates of a plan, one row each: fits, predicted peak, throughput, MFU and
// NCCL share. Shared by the Plan page's table and its memory chart.

#include "workspace/plan_view.hpp"

#include <QAbstractTableModel>

namespace shardwise::gui {

class CandidateTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { StrategyColumn, FitsColumn, PeakColumn, TokensColumn, MfuColumn, NcclColumn, ColumnCount };
    // Unformatted value for sorting and charts (double, or bool for FitsColumn). PeakColumn's is the
    // plan's peak in GiB (CandidateView::peakGiB), the figure the memory chart's bar sums to.
    static constexpr int RawValueRole = Qt::UserRole + 1;
    static constexpr int RecommendedRole = Qt::UserRole + 2;
    // Whether the plan's framework target can run the row's strategy (bool); unsupported rows are
    // shown greyed with the reason and cannot be selected.
    static constexpr int SupportedRole = Qt::UserRole + 3;

    explicit CandidateTableModel(QObject* parent = nullptr);

    void setPlan(const PlanView& plan);
    void clear();
    const PlanView& plan() const { return m_plan; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

private:
    QVariant display(const CandidateView& c, int column) const;
    QVariant toolTip(const CandidateView& c, int column) const;
    QString predictedPeakExplanation() const; // what the peak column shows and what it is compared with

    PlanView m_plan;
};

} // namespace shardwise::gui
