#pragma once
// The nodes runs can be dispatched to: this machine and SSH nodes, with their address, whether the
// host key was accepted, and the GPU and software facts last discovered on them.

#include "shardwise/store/nodes.hpp"

#include <QAbstractTableModel>

#include <vector>

namespace shardwise::gui {

class NodeTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { NameColumn, KindColumn, AddressColumn, GpusColumn, SoftwareColumn, HostKeyColumn, ColumnCount };
    static constexpr int NodeIdRole = Qt::UserRole + 1;

    explicit NodeTableModel(QObject* parent = nullptr);

    void setNodes(std::vector<store::Node> nodes);
    const std::vector<store::Node>& nodes() const { return m_nodes; }
    const store::Node* nodeAt(int row) const;
    int rowOf(qint64 nodeId) const; // -1 when absent

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const store::Node& n, int column) const;
    std::vector<store::Node> m_nodes;
};

} // namespace shardwise::gui
