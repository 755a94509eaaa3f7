#pragma once
// The failures of a diagnosed run in time order, across ranks; the root cause (the FIRST primary
// failure on any rank) is marked and highlighted, symptoms such as watchdog timeouts are labelled as
// such.

#include "models/run_diagnosis_view.hpp"

#include <QAbstractTableModel>

namespace shardwise::gui {

class RunFailureModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { OrderColumn, RankColumn, KindColumn, TimeColumn, RoleColumn, MessageColumn, ColumnCount };
    static constexpr int RootCauseRole = Qt::UserRole + 1;
    static constexpr int SymptomRole = Qt::UserRole + 2;

    explicit RunFailureModel(QObject* parent = nullptr);

    void setDiagnosis(const RunDiagnosisView& diagnosis);
    void clear();
    const QList<DiagnosisFailure>& failures() const { return m_failures; }
    int rootCauseRow() const; // -1 when there is none

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const DiagnosisFailure& f, int row, int column) const;
    QList<DiagnosisFailure> m_failures;
};

} // namespace shardwise::gui
