#include "models/run_filter_model.hpp"

#include "models/run_table_model.hpp"

#include <QDateTime>

namespace shardwise::gui {

RunFilterModel::RunFilterModel(QObject* parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(RunTableModel::RawValueRole);
}

void RunFilterModel::setModelFilter(const QString& model)
{
    m_model = model;
    invalidateFilter();
}

void RunFilterModel::setHardwareFilter(const QString& hardware)
{
    m_hardware = hardware;
    invalidateFilter();
}

void RunFilterModel::setStrategyFilter(const QString& strategyId)
{
    m_strategy = strategyId;
    invalidateFilter();
}

void RunFilterModel::setNodeFilter(const QString& node)
{
    m_node = node;
    invalidateFilter();
}

void RunFilterModel::setBackendFilter(const QString& backendId)
{
    m_backend = backendId;
    invalidateFilter();
}

void RunFilterModel::setDateRange(const QDate& from, const QDate& to)
{
    m_from = from;
    m_to = to;
    invalidateFilter();
}

bool RunFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QAbstractItemModel* src = sourceModel();
    auto rawAt
        = [&](int column) { return src->index(sourceRow, column, sourceParent).data(RunTableModel::RawValueRole); };
    if (!m_model.isEmpty() && rawAt(RunTableModel::ModelColumn).toString() != m_model)
        return false;
    if (!m_hardware.isEmpty() && rawAt(RunTableModel::HardwareColumn).toString() != m_hardware)
        return false;
    if (!m_strategy.isEmpty() && rawAt(RunTableModel::StrategyColumn).toString() != m_strategy)
        return false;
    if (!m_node.isEmpty() && rawAt(RunTableModel::NodeColumn).toString() != m_node)
        return false;
    if (!m_backend.isEmpty() && rawAt(RunTableModel::BackendColumn).toString() != m_backend)
        return false;
    const QDate day = rawAt(RunTableModel::StartedColumn).toDateTime().toLocalTime().date();
    if (m_from.isValid() && day < m_from)
        return false;
    if (m_to.isValid() && day > m_to)
        return false;
    return true;
}

bool RunFilterModel::lessThan(const QModelIndex& left, const QModelIndex& right) const
{
    const QVariant l = left.data(RunTableModel::RawValueRole);
    const QVariant r = right.data(RunTableModel::RawValueRole);
    return QVariant::compare(l, r) == QPartialOrdering::Less;
}

} // namespace shardwise::gui
