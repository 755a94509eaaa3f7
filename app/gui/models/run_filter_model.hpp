#pragma once
// Narrows the run table by model, hardware, strategy, backend, node and start date. An empty criterion
// matches everything; failed runs are filtered like any other, never hidden for failing.

#include <QDate>
#include <QSortFilterProxyModel>

namespace shardwise::gui {

class RunFilterModel : public QSortFilterProxyModel {
    Q_OBJECT

public:
    explicit RunFilterModel(QObject* parent = nullptr);

    void setModelFilter(const QString& model);
    void setHardwareFilter(const QString& hardware);
    void setStrategyFilter(const QString& strategyId);
    void setNodeFilter(const QString& node);
    void setBackendFilter(const QString& backendId);       // "native" | "torch" | "" (any)
    void setDateRange(const QDate& from, const QDate& to); // inclusive; invalid = open end

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    QString m_model;
    QString m_hardware;
    QString m_strategy;
    QString m_node;
    QString m_backend;
    QDate m_from;
    QDate m_to;
};

} // namespace shardwise::gui
