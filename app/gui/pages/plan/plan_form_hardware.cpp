// The Plan form's hardware: the GPU (a preset or custom figures), the cluster's shape, the
// interconnect inside a node, the network between nodes and the host memory per node.
#include "pages/plan/plan_form.hpp"

#include "pages/plan/plan_form_parts.hpp"

#include "shardwise/frameworks/network.hpp"
#include "shardwise/spec/presets.hpp"

#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>

namespace shardwise::gui {

using namespace plan_form;

namespace {

// The spin boxes start at 0 where the planner needs at least 1 (or 16 tokens, or 1 GiB): a value
// below the planner's bound is kept as typed and planning says on the page what is wrong, instead
// of the box silently putting back its minimum.
QDoubleSpinBox* makeDoubleSpin(double min, double max, double value, const QString& suffix, const QString& tip,
                               QWidget* parent)
{
    auto* spin = new QDoubleSpinBox(parent);
    spin->setRange(min, max);
    spin->setDecimals(1);
    spin->setValue(value);
    spin->setSuffix(suffix);
    spin->setToolTip(tip);
    return spin;
}

} // namespace

QGroupBox* PlanForm::createHardwareBox()
{
    auto* hardwareBox = new QGroupBox(tr("Hardware"), this);
    auto* hardwareForm = new QFormLayout(hardwareBox);
    m_gpu = new QComboBox(hardwareBox);
    m_gpu->setObjectName(QStringLiteral("gpuCombo"));
    keepNarrow(m_gpu);
    m_gpu->setToolTip(tr("A GPU preset, or Custom to enter the memory and bandwidth figures yourself."));
    hardwareForm->addRow(tr("&GPU:"), m_gpu);

    m_customGpu = new QGroupBox(tr("Custom GPU"), hardwareBox);
    auto* customForm = new QFormLayout(m_customGpu);
    m_customMemoryGiB
        = makeDoubleSpin(0, 1024, 80, tr(" GiB"), tr("Device memory as the driver reports it."), m_customGpu);
    m_customTflops = makeDoubleSpin(0, 10000, 989, tr(" TFLOP/s"), tr("Dense bf16 tensor-core peak."), m_customGpu);
    m_customHbm = makeDoubleSpin(1, 20000, 3350, tr(" GB/s"), tr("Device memory bandwidth."), m_customGpu);
    m_customNvlink = makeDoubleSpin(0, 2000, 450, tr(" GB/s"),
                                    tr("NVLink bandwidth per GPU per direction; 0 means no NVLink."), m_customGpu);
    m_customPcie
        = makeDoubleSpin(0, 256, 64, tr(" GB/s"), tr("Host link (PCIe) bandwidth per direction."), m_customGpu);
    m_customMemoryGiB->setObjectName(QStringLiteral("customMemorySpin"));
    customForm->addRow(tr("Memory:"), m_customMemoryGiB);
    customForm->addRow(tr("bf16 peak:"), m_customTflops);
    customForm->addRow(tr("HBM bandwidth:"), m_customHbm);
    customForm->addRow(tr("NVLink:"), m_customNvlink);
    customForm->addRow(tr("PCIe:"), m_customPcie);
    hardwareForm->addRow(m_customGpu);

    m_gpusPerNode = new QSpinBox(hardwareBox);
    m_gpusPerNode->setObjectName(QStringLiteral("gpusPerNodeSpin"));
    m_gpusPerNode->setRange(0, 16);
    m_gpusPerNode->setToolTip(tr("GPUs in each node; every GPU runs one rank."));
    m_nodes = new QSpinBox(hardwareBox);
    m_nodes->setObjectName(QStringLiteral("nodesSpin"));
    m_nodes->setRange(0, 256);
    m_nodes->setToolTip(tr("Nodes; more than one adds the inter-node network to every collective."));
    auto* shapeRow = new QHBoxLayout;
    shapeRow->addWidget(m_gpusPerNode);
    shapeRow->addWidget(new QLabel(tr("GPUs per node ×"), hardwareBox));
    shapeRow->addWidget(m_nodes);
    shapeRow->addWidget(new QLabel(tr("nodes"), hardwareBox));
    auto* clusterLabel = new QLabel(tr("&Cluster:"), hardwareBox);
    clusterLabel->setBuddy(m_gpusPerNode);
    hardwareForm->addRow(clusterLabel, shapeRow);

    m_interconnect = new QComboBox(hardwareBox);
    m_interconnect->setObjectName(QStringLiteral("interconnectCombo"));
    m_interconnect->addItem(tr("NVLink"), QStringLiteral("nvlink"));
    m_interconnect->addItem(tr("PCIe"), QStringLiteral("pcie"));
    m_interconnect->setToolTip(tr("How the GPUs inside a node talk. The decision order's step 2 chooses by it."));
    hardwareForm->addRow(tr("&Interconnect:"), m_interconnect);

    m_interNode = new QComboBox(hardwareBox);
    m_interNode->setObjectName(QStringLiteral("interNodeCombo"));
    keepNarrow(m_interNode);
    const QString ib8x400 = tr("8 × 400 Gb/s InfiniBand");
    const QString ib8x200 = tr("8 × 200 Gb/s InfiniBand");
    const QString ib4x200 = tr("4 × 200 Gb/s InfiniBand");
    const QString eth400 = tr("400 Gb/s Ethernet");
    const QString eth100 = tr("100 Gb/s Ethernet");
    const QString labels[] = { ib8x400, ib8x200, ib4x200, eth400, eth100 };
    int presetIndex = 0;
    for (const frameworks::InterNodePreset& p : frameworks::interNodePresets()) {
        const QString label = presetIndex < 5 ? labels[presetIndex] : fromView(p.label);
        m_interNode->addItem(tr("%1 (%2 GB/s per node)").arg(label, QLocale().toString(p.gbps)), fromView(p.id));
        m_interNode->setItemData(m_interNode->count() - 1, p.gbps, kGBpsRole);
        ++presetIndex;
    }
    m_interNode->addItem(tr("Custom…"), kCustomNetwork);
    m_interNode->setToolTip(tr("The network between nodes: every collective that spans nodes runs at this bandwidth."));
    m_interNodeGBps = makeDoubleSpin(
        0.1, 1e5, ClusterSpec {}.interNodeGBps, tr(" GB/s"),
        tr("Network bandwidth per node per direction, in GB/s (8 × 400 Gb/s NICs = 400 GB/s)."), hardwareBox);
    m_interNodeGBps->setObjectName(QStringLiteral("interNodeSpin"));
    auto* interNodeRow = new QHBoxLayout;
    interNodeRow->addWidget(m_interNode, 1);
    interNodeRow->addWidget(m_interNodeGBps);
    m_interNodeLabel = new QLabel(tr("Inter-&node network:"), hardwareBox);
    m_interNodeLabel->setBuddy(m_interNode);
    hardwareForm->addRow(m_interNodeLabel, interNodeRow);

    m_hostRamGiB
        = makeDoubleSpin(0, 1e6, ClusterSpec {}.hostRamGiB, tr(" GiB"),
                         tr("Host memory (RAM) of each node. It decides whether the CPU-offload strategies fit: "
                            "their host state (master weights, Adam moments, gradient shards, page-locked) for "
                            "all of the node's GPUs must fit in the %1 % of it taken as usable.")
                             .arg(QLocale().toString(100.0 * Calibration {}.hostUsableFraction, 'f', 0)),
                         hardwareBox);
    m_hostRamGiB->setObjectName(QStringLiteral("hostRamSpin"));
    m_hostRamGiB->setSingleStep(64);
    hardwareForm->addRow(tr("Host &RAM per node:"), m_hostRamGiB);
    return hardwareBox;
}

void PlanForm::setMeasuredNetworks(const std::vector<calibrate::MeasuredNetwork>& networks)
{
    const QString current = m_interNode->currentData().toString();
    const double gbps = m_interNodeGBps->value();
    {
        const QSignalBlocker block(m_interNode);
        for (int i = m_interNode->count() - 1; i >= 0; --i)
            if (m_interNode->itemData(i).toString().startsWith(kMeasuredNetworkPrefix))
                m_interNode->removeItem(i);
        const QLocale locale;
        int at = m_interNode->findData(kCustomNetwork);
        for (const calibrate::MeasuredNetwork& n : networks) {
            const QString name = QString::fromStdString(n.name);
            const double planned = std::max(m_interNodeGBps->minimum(), n.interNodeGBps);
            m_interNode->insertItem(at,
                                    tr("Measured: %1 (%2 GB/s per node)")
                                        .arg(name, locale.toString(planned, 'f', m_interNodeGBps->decimals())),
                                    kMeasuredNetworkPrefix + name);
            m_interNode->setItemData(at, planned, kGBpsRole);
            m_interNode->setItemData(
                at,
                tr("Probed %1: collectives between the nodes reached %2 GB/s bus bandwidth, "
                   "which the planner reaches at %3 GB/s per node.")
                    .arg(QDateTime::fromSecsSinceEpoch(static_cast<qint64>(n.measuredAt)).toString(Qt::ISODate),
                         locale.toString(n.busGBps, 'f', 2), locale.toString(n.interNodeGBps, 'f', 1)),
                Qt::ToolTipRole);
            ++at;
        }
        int keep = m_interNode->findData(current);
        if (keep < 0) // a measurement no longer stored: its figure stays, as a custom one
            keep = m_interNode->findData(kCustomNetwork);
        m_interNode->setCurrentIndex(keep);
    }
    const QVariant measured = m_interNode->currentData(kGBpsRole);
    if (measured.isValid() && measured.toDouble() != gbps) {
        m_interNodeGBps->setValue(measured.toDouble()); // a newer probe of the chosen network
        emit configurationChanged();
    }
    updateInterNodeWidgets();
}

void PlanForm::updateInterNodeWidgets()
{
    const bool several = m_nodes->value() > 1;
    m_interNodeLabel->setVisible(several);
    m_interNode->setVisible(several);
    m_interNodeGBps->setVisible(several);
    m_interNodeGBps->setEnabled(m_interNode->currentData().toString() == kCustomNetwork);
}

void PlanForm::onGpuChanged()
{
    const bool custom = m_gpu->currentData().toString() == kCustomGpu;
    m_customGpu->setVisible(custom);
    const GpuSpec gpu = selectedGpu();
    const QSignalBlocker block(m_interconnect);
    m_interconnect->setCurrentIndex(
        m_interconnect->findData(gpu.nvlinkGBps > 0 ? QStringLiteral("nvlink") : QStringLiteral("pcie")));
}

GpuSpec PlanForm::selectedGpu() const
{
    const QString id = m_gpu->currentData().toString();
    if (id != kCustomGpu) {
        if (const GpuSpec* g = PresetCatalog::builtin().findGpu(id.toStdString()))
            return *g;
    }
    GpuSpec custom;
    custom.id = "custom";
    custom.name = tr("Custom GPU").toStdString();
    custom.memoryMiB = static_cast<std::int64_t>(m_customMemoryGiB->value() * 1024.0);
    custom.bf16Tflops = m_customTflops->value();
    custom.hbmGBps = m_customHbm->value();
    custom.nvlinkGBps = m_customNvlink->value();
    custom.pcieGBps = m_customPcie->value();
    return custom;
}

} // namespace shardwise::gui
