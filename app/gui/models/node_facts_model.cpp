#include "models/node_facts_model.hpp"

#include "models/rank_progress_model.hpp"

#include <QBrush>
#include <QDateTime>
#include <QLocale>

#include <map>

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
        m_rows.append({ property, value.empty() ? tr("not found") : QString::fromStdString(value), false });
    };
    add(tr("Host name"), f.hostname);
    add(tr("Operating system"), f.os);
    add(tr("Architecture"), f.arch);
    m_rows.append({ tr("CPU cores"), QString::number(f.cpuCores), false });
    m_rows.append({ tr("Memory"), formatBytes(f.ramBytes), false });
    if (f.gpus.empty())
        m_rows.append({ tr("GPUs"), tr("none: only the CPU runner can run here"), false });
    for (const dispatch::NodeGpu& g : f.gpus)
        m_rows.append(
            { tr("GPU %1").arg(g.index),
              tr("%1, %2 (%3)")
                  .arg(QString::fromStdString(g.name), formatBytes(g.memoryBytes), QString::fromStdString(g.pciBusId)),
              false });
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
    add(tr("PyTorch for python3"),
        f.pythonTorch.empty() || f.torchPython.empty() ? f.pythonTorch : f.pythonTorch + " (" + f.torchPython + ")");
    m_rows.append({ tr("Transformers"),
                    f.transformers.empty() ? tr("not installed: the torch backend trains its plain PyTorch decoder")
                                           : QString::fromStdString(f.transformers),
                    false });
    m_rows.append({ tr("Can build the runner"), f.canBuildRunner() ? tr("yes") : tr("no"), !f.canBuildRunner() });
    for (const std::string& p : f.problems)
        m_rows.append({ tr("Problem"), QString::fromStdString(p), true });
    const std::vector<std::string> torchMissing = f.torchBackendProblems();
    m_rows.append(
        { tr("Can run the torch backend"), torchMissing.empty() ? tr("yes") : tr("no"), !torchMissing.empty() });
    for (const std::string& p : torchMissing)
        m_rows.append({ tr("Missing for torch"), QString::fromStdString(p), true });
    endResetModel();
}

void NodeFactsModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_probeRows.clear();
    endResetModel();
}

namespace {

// Names of the runner's probe kinds (docs/protocol.md); an unknown kind shows as the runner named it.
QString probeKindName(const std::string& kind)
{
    static const std::map<std::string, const char*> names {
        { "matmul_bf16", QT_TRANSLATE_NOOP("shardwise::gui::NodeFactsModel", "Matmul rate (bf16)") },
        { "matmul_fp32", QT_TRANSLATE_NOOP("shardwise::gui::NodeFactsModel", "Matmul rate (fp32)") },
        { "device_copy", QT_TRANSLATE_NOOP("shardwise::gui::NodeFactsModel", "Device copy bandwidth") },
        { "h2d_pinned", QT_TRANSLATE_NOOP("shardwise::gui::NodeFactsModel", "Host to device (pinned)") },
        { "d2h_pinned", QT_TRANSLATE_NOOP("shardwise::gui::NodeFactsModel", "Device to host (pinned)") },
        { "cpu_adamw", QT_TRANSLATE_NOOP("shardwise::gui::NodeFactsModel", "CPU AdamW rate") },
        { "all_gather", QT_TRANSLATE_NOOP("shardwise::gui::NodeFactsModel", "All-gather bus bandwidth") },
        { "reduce_scatter", QT_TRANSLATE_NOOP("shardwise::gui::NodeFactsModel", "Reduce-scatter bus bandwidth") },
        { "all_reduce", QT_TRANSLATE_NOOP("shardwise::gui::NodeFactsModel", "All-reduce bus bandwidth") },
    };
    const auto it = names.find(kind);
    return it == names.end() ? QString::fromStdString(kind) : NodeFactsModel::tr(it->second);
}

QString probeValue(const protocol::ProbeResult& r)
{
    const QLocale locale;
    // A CPU AdamW rate reaches 1e9 parameters/s: millions keep it readable.
    if (r.unit == "params/s")
        return NodeFactsModel::tr("%1 M parameters/s").arg(locale.toString(r.value / 1e6, 'f', 1));
    // A CPU's matmul rate is hundredths of a TFLOP/s: small figures keep three significant digits.
    const QString number = r.value >= 100 ? locale.toString(r.value, 'f', 0)
        : r.value >= 1                    ? locale.toString(r.value, 'f', 2)
                                          : locale.toString(r.value, 'g', 3);
    QString value = number + QLatin1Char(' ') + QString::fromStdString(r.unit);
    if (r.bytes > 0)
        value = NodeFactsModel::tr("%1 at %2").arg(value, formatBytes(r.bytes));
    return value;
}

} // namespace

void NodeFactsModel::setProbe(const std::optional<store::StoredProbe>& probe)
{
    beginResetModel();
    m_probeRows.clear();
    if (probe) {
        const protocol::ProbeEvent& e = probe->event;
        const QString when = QLocale().toString(
            QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(probe->measuredAt * 1000.0)), QLocale::ShortFormat);
        m_probeRows.append(
            { tr("Probed"),
              tr("%1, %2 (rank %3 of %4)").arg(when, QString::fromStdString(e.deviceName)).arg(e.rank).arg(e.world),
              false });
        // The probe repeats some kinds at several sizes; the largest is what training moves.
        std::map<std::string, const protocol::ProbeResult*> largest;
        std::vector<std::string> order;
        for (const protocol::ProbeResult& r : e.results) {
            auto [it, added] = largest.try_emplace(r.kind, &r);
            if (added)
                order.push_back(r.kind);
            else if (r.bytes > it->second->bytes)
                it->second = &r;
        }
        for (const std::string& kind : order)
            m_probeRows.append({ probeKindName(kind), probeValue(*largest.at(kind)), false });
    }
    endResetModel();
}

const NodeFactsModel::Row& NodeFactsModel::rowAt(int row) const
{
    return row < m_rows.size() ? m_rows[row] : m_probeRows[row - m_rows.size()];
}

QString NodeFactsModel::valueOf(const QString& property) const
{
    for (const QList<Row>* rows : { &m_rows, &m_probeRows })
        for (const Row& r : *rows)
            if (r.property == property)
                return r.value;
    return {};
}

int NodeFactsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size() + m_probeRows.size());
}

int NodeFactsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant NodeFactsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& r = rowAt(index.row());
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
