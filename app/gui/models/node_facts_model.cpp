#include "models/node_facts_model.hpp"

#include "models/rank_progress_model.hpp"

#include <QBrush>

namespace shardwise::gui {

NodeFactsModel::NodeFactsModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void NodeFactsModel::setFacts(const dispatch::NodeFacts& f)
{
    beginResetModel();
    m_rows.clear();
    auto add = [this](const QString& property, const std::string& value) {
        m_rows.append({property, value.empty() ? tr("not found") : QString::fromStdString(value), false});
    };
    add(tr("Host name"), f.hostname);
    add(tr("Operating system"), f.os);
    add(tr("Architecture"), f.arch);
    m_rows.append({tr("CPU cores"), QString::number(f.cpuCores), false});
    m_rows.append({tr("Memory"), formatBytes(f.ramBytes), false});
    if (f.gpus.empty())
        m_rows.append({tr("GPUs"), tr("none: only the CPU runner can run here"), false});
    for (const dispatch::NodeGpu& g : f.gpus)
        m_rows.append({tr("GPU %1").arg(g.index), tr("%1, %2 (%3)").arg(QString::fromStdString(g.name), formatBytes(g.memoryBytes),
                                                                      QString::fromStdString(g.pciBusId)),
                       false});
    if (!f.gpus.empty()) {
        add(tr("NVIDIA driver"), f.driver);
        add(tr("CUDA supported by the driver"), f.cudaDriverApi);
    }
    add(tr("CUDA toolkit"), f.cudaToolkit);
    add(tr("NCCL"), f.nccl);
    add(tr("Python"), f.python);
    add(tr("PyTorch"), f.torch);
    if (!f.torch.empty())
        add(tr("PyTorch's CUDA"), f.torchCuda);
    add(tr("LibTorch CMake folder"), f.torchConfigDir);
    add(tr("CMake"), f.cmake);
    add(tr("C++ compiler"), f.compiler);
    m_rows.append({tr("Can build the runner"), f.canBuildRunner() ? tr("yes") : tr("no"), !f.canBuildRunner()});
    for (const std::string& p : f.problems)
        m_rows.append({tr("Problem"), QString::fromStdString(p), true});
    endResetModel();
}

void NodeFactsModel::clear()
{
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

QString NodeFactsModel::valueOf(const QString& property) const
{
    for (const Row& r : m_rows)
        if (r.property == property)
            return r.value;
    return {};
}

int NodeFactsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_rows.size()); }

int NodeFactsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant NodeFactsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& r = m_rows[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        return index.column() == PropertyColumn ? r.property : r.value;
    case Qt::ForegroundRole:
        if (r.problem)
            return QBrush(QColor(0xc0, 0x39, 0x2b));
        return {};
    case ProblemRole:
        return r.problem;
    default:
        return {};
    }
}

QVariant NodeFactsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    return section == PropertyColumn ? tr("Property") : tr("Value");
}

} // namespace shardwise::gui
