#include "models/node_table_model.hpp"

#include "models/rank_progress_model.hpp"

#include "shardwise/session/node_facts_json.hpp"

namespace shardwise::gui {

NodeTableModel::NodeTableModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void NodeTableModel::setNodes(std::vector<store::Node> nodes)
{
    beginResetModel();
    m_nodes = std::move(nodes);
    endResetModel();
}

const store::Node* NodeTableModel::nodeAt(int row) const
{
    return row >= 0 && row < static_cast<int>(m_nodes.size()) ? &m_nodes[static_cast<std::size_t>(row)] : nullptr;
}

int NodeTableModel::rowOf(qint64 nodeId) const
{
    for (std::size_t i = 0; i < m_nodes.size(); ++i)
        if (m_nodes[i].id == nodeId)
            return static_cast<int>(i);
    return -1;
}

int NodeTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_nodes.size());
}

int NodeTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant NodeTableModel::display(const store::Node& n, int column) const
{
    const bool discovered = n.facts.is_object() && !n.facts.empty();
    const dispatch::NodeFacts facts = session::nodeFactsFromJson(n.facts);
    switch (column) {
    case NameColumn:
        return QString::fromStdString(n.name);
    case KindColumn:
        return n.kind == store::NodeKind::Local ? tr("This machine") : tr("SSH");
    case AddressColumn:
        if (n.kind == store::NodeKind::Local)
            return QString();
        if (n.port == 22)
            return QStringLiteral("%1@%2").arg(QString::fromStdString(n.user), QString::fromStdString(n.host));
        return QStringLiteral("%1@%2:%3")
            .arg(QString::fromStdString(n.user), QString::fromStdString(n.host))
            .arg(n.port);
    case GpusColumn:
        if (!discovered)
            return tr("Not discovered yet");
        if (facts.gpus.empty())
            return tr("No GPU (CPU runner only)");
        //: e.g. "2 × NVIDIA H200, 141.0 GiB each"
        return tr("%1 × %2, %3 each")
            .arg(facts.gpus.size())
            .arg(QString::fromStdString(facts.gpus.front().name), formatBytes(facts.gpus.front().memoryBytes));
    case SoftwareColumn: {
        if (!discovered)
            return QString();
        QStringList parts;
        if (!facts.driver.empty())
            parts << tr("driver %1").arg(QString::fromStdString(facts.driver));
        if (!facts.cudaToolkit.empty())
            parts << tr("CUDA %1").arg(QString::fromStdString(facts.cudaToolkit));
        if (!facts.nccl.empty())
            parts << tr("NCCL %1").arg(QString::fromStdString(facts.nccl));
        if (!facts.torch.empty())
            parts << tr("PyTorch %1").arg(QString::fromStdString(facts.torch));
        if (!facts.cmake.empty())
            parts << tr("CMake %1").arg(QString::fromStdString(facts.cmake));
        return parts.join(QStringLiteral(", "));
    }
    case HostKeyColumn:
        if (n.kind == store::NodeKind::Local)
            return QString();
        if (n.hostKeyFingerprint.empty())
            return tr("Not accepted yet");
        return QString::fromStdString(n.hostKeyFingerprint);
    default:
        return {};
    }
}

QVariant NodeTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const store::Node& n = m_nodes[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return display(n, index.column());
    case Qt::ToolTipRole:
        if (index.column() == HostKeyColumn && n.kind == store::NodeKind::Ssh)
            return tr("The SHA256 fingerprint of the host key you accepted; a different key is always refused.");
        return {};
    case NodeIdRole:
        return static_cast<qint64>(n.id);
    default:
        return {};
    }
}

QVariant NodeTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Name");
    case KindColumn:
        return tr("Kind");
    case AddressColumn:
        return tr("Address");
    case GpusColumn:
        return tr("GPUs");
    case SoftwareColumn:
        return tr("Software");
    case HostKeyColumn:
        return tr("Host key");
    default:
        return {};
    }
}

} // namespace shardwise::gui
