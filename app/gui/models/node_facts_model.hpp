#pragma once
// The facts discovered on one node as property / value rows: system, each GPU, and the software the
// runner needs, followed by what prevents building or running the runner there; then the node's
// newest hardware probe: when, on which device, and each measured figure with its unit.

#include "shardwise/dispatch/node.hpp"
#include "shardwise/store/probes.hpp"

#include <QAbstractTableModel>

namespace shardwise::gui {

class NodeFactsModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { PropertyColumn, ValueColumn, ColumnCount };
    static constexpr int ProblemRole = Qt::UserRole + 1;

    explicit NodeFactsModel(QObject* parent = nullptr);

    void setFacts(const dispatch::NodeFacts& facts);
    void clear(); // facts and probe
    // The probe rows after the facts; nullopt = the node was never probed.
    void setProbe(const std::optional<store::StoredProbe>& probe);
    QString valueOf(const QString& property) const; // the first row with that property text

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString property;
        QString value;
        bool problem = false;
    };
    const Row& rowAt(int row) const;
    QList<Row> m_rows;
    QList<Row> m_probeRows;
};

} // namespace shardwise::gui
