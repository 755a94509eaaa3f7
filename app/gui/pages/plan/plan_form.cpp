#include "pages/plan/plan_form.hpp"

#include "workspace/plan_input.hpp"

#include "shardwise/frameworks/network.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

namespace shardwise::gui {

namespace {

const QString kCustomGpu = QStringLiteral("custom");
const QString kCustomNetwork = QStringLiteral("custom");

QString fromView(std::string_view v) { return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size())); }
constexpr int kFileRole = Qt::UserRole + 1; // model entries loaded from a file carry its path


// The spin boxes start at 0 where the planner needs at least 1 (or 16 tokens, or 1 GiB): a value
// below the planner's bound is kept as typed and planning says on the page what is wrong, instead
// of the box silently putting back its minimum.
QDoubleSpinBox* makeDoubleSpin(double min, double max, double value, const QString& suffix, const QString& tip, QWidget* parent)
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

PlanForm::PlanForm(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* modelBox = new QGroupBox(tr("Model"), this);
    auto* modelForm = new QFormLayout(modelBox);
    m_model = new QComboBox(modelBox);
    m_model->setObjectName(QStringLiteral("modelCombo"));
    m_model->setToolTip(tr("A model preset, or a Hugging Face config.json you opened (Qwen2, Llama, Mistral)."));
    m_openModel = new QPushButton(tr("Open config.json…"), modelBox);
    m_openModel->setObjectName(QStringLiteral("openModelButton"));
    m_openModel->setToolTip(tr("Read the architecture from a Hugging Face config.json or a Shardwise model file."));
    auto* modelRow = new QHBoxLayout;
    modelRow->addWidget(m_model, 1);
    modelRow->addWidget(m_openModel);
    auto* modelLabel = new QLabel(tr("&Model:"), modelBox);
    modelLabel->setBuddy(m_model);
    modelForm->addRow(modelLabel, modelRow);
    layout->addWidget(modelBox);

    auto* hardwareBox = new QGroupBox(tr("Hardware"), this);
    auto* hardwareForm = new QFormLayout(hardwareBox);
    m_gpu = new QComboBox(hardwareBox);
    m_gpu->setObjectName(QStringLiteral("gpuCombo"));
    m_gpu->setToolTip(tr("A GPU preset, or Custom to enter the memory and bandwidth figures yourself."));
    hardwareForm->addRow(tr("&GPU:"), m_gpu);

    m_customGpu = new QGroupBox(tr("Custom GPU"), hardwareBox);
    auto* customForm = new QFormLayout(m_customGpu);
    m_customMemoryGiB = makeDoubleSpin(0, 1024, 80, tr(" GiB"), tr("Device memory as the driver reports it."), m_customGpu);
    m_customTflops = makeDoubleSpin(0, 10000, 989, tr(" TFLOP/s"), tr("Dense bf16 tensor-core peak."), m_customGpu);
    m_customHbm = makeDoubleSpin(1, 20000, 3350, tr(" GB/s"), tr("Device memory bandwidth."), m_customGpu);
    m_customNvlink = makeDoubleSpin(0, 2000, 450, tr(" GB/s"), tr("NVLink bandwidth per GPU per direction; 0 means no NVLink."), m_customGpu);
    m_customPcie = makeDoubleSpin(0, 256, 64, tr(" GB/s"), tr("Host link (PCIe) bandwidth per direction."), m_customGpu);
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
    const QString ib8x400 = tr("8 × 400 Gb/s InfiniBand");
    const QString ib8x200 = tr("8 × 200 Gb/s InfiniBand");
    const QString ib4x200 = tr("4 × 200 Gb/s InfiniBand");
    const QString eth400 = tr("400 Gb/s Ethernet");
    const QString eth100 = tr("100 Gb/s Ethernet");
    const QString labels[] = {ib8x400, ib8x200, ib4x200, eth400, eth100};
    int presetIndex = 0;
    for (const frameworks::InterNodePreset& p : frameworks::interNodePresets()) {
        const QString label = presetIndex < 5 ? labels[presetIndex] : fromView(p.label);
        m_interNode->addItem(tr("%1 (%2 GB/s per node)").arg(label, QLocale().toString(p.gbps)), fromView(p.id));
        m_interNode->setItemData(m_interNode->count() - 1, p.gbps, Qt::UserRole + 1);
        ++presetIndex;
    }
    m_interNode->addItem(tr("Custom…"), kCustomNetwork);
    m_interNode->setToolTip(tr("The network between nodes: every collective that spans nodes runs at this bandwidth."));
    m_interNodeGBps = makeDoubleSpin(0.1, 1e5, ClusterSpec{}.interNodeGBps, tr(" GB/s"),
                                     tr("Network bandwidth per node per direction, in GB/s (8 × 400 Gb/s NICs = 400 GB/s)."),
                                     hardwareBox);
    m_interNodeGBps->setObjectName(QStringLiteral("interNodeSpin"));
    auto* interNodeRow = new QHBoxLayout;
    interNodeRow->addWidget(m_interNode, 1);
    interNodeRow->addWidget(m_interNodeGBps);
    m_interNodeLabel = new QLabel(tr("Inter-&node network:"), hardwareBox);
    m_interNodeLabel->setBuddy(m_interNode);
    hardwareForm->addRow(m_interNodeLabel, interNodeRow);

    m_hostRamGiB = makeDoubleSpin(0, 1e6, ClusterSpec{}.hostRamGiB, tr(" GiB"),
                                  tr("Host memory (RAM) of each node. It decides whether the CPU-offload strategies fit: "
                                     "their host state (master weights, Adam moments, gradient shards, page-locked) for "
                                     "all of the node's GPUs must fit in the %1 % of it taken as usable.")
                                      .arg(QLocale().toString(100.0 * Calibration{}.hostUsableFraction, 'f', 0)),
                                  hardwareBox);
    m_hostRamGiB->setObjectName(QStringLiteral("hostRamSpin"));
    m_hostRamGiB->setSingleStep(64);
    hardwareForm->addRow(tr("Host &RAM per node:"), m_hostRamGiB);
    layout->addWidget(hardwareBox);

    auto* frameworkBox = new QGroupBox(tr("Framework"), this);
    auto* frameworkForm = new QFormLayout(frameworkBox);
    m_framework = new QComboBox(frameworkBox);
    m_framework->setObjectName(QStringLiteral("frameworkCombo"));
    m_framework->addItem(tr("Shardwise runner (native)"), QStringLiteral("native"));
    m_framework->addItem(tr("DeepSpeed"), QStringLiteral("deepspeed"));
    m_framework->addItem(tr("PyTorch FSDP2"), QStringLiteral("fsdp2"));
    m_framework->addItem(tr("torchtitan"), QStringLiteral("torchtitan"));
    m_framework->setToolTip(tr("The framework you train with: the plan predicts what it allocates and how fast it runs at "
                               "its defaults, and marks the strategies it cannot run. Choosing one takes its default "
                               "precision and activation checkpointing."));
    frameworkForm->addRow(tr("Frame&work:"), m_framework);
    m_frameworkVersion = new QLineEdit(frameworkBox);
    m_frameworkVersion->setObjectName(QStringLiteral("frameworkVersionEdit"));
    m_frameworkVersion->setToolTip(tr("The release you train with; empty means the release Shardwise models."));
    frameworkForm->addRow(tr("V&ersion:"), m_frameworkVersion);
    m_compile = new QCheckBox(tr("torch.compile each decoder layer"), frameworkBox);
    m_compile->setObjectName(QStringLiteral("compileCheck"));
    m_compile->setToolTip(tr("Compiled layers (PyTorch FSDP2 and torchtitan)."));
    frameworkForm->addRow(QString(), m_compile);
    layout->addWidget(frameworkBox);

    auto* trainingBox = new QGroupBox(tr("Training"), this);
    auto* trainingForm = new QFormLayout(trainingBox);
    m_precision = new QComboBox(trainingBox);
    m_precision->setObjectName(QStringLiteral("precisionCombo"));
    m_precision->addItem(tr("bf16 (params, grads, Adam moments)"), QStringLiteral("bf16"));
    m_precision->addItem(tr("bf16 compute, fp32 master weights and moments"), QStringLiteral("bf16-fp32-master"));
    m_precision->setToolTip(tr("Bytes per parameter of the training state: 8 for pure bf16, 16 with fp32 master weights."));
    trainingForm->addRow(tr("&Precision:"), m_precision);
    m_microBatch = new QSpinBox(trainingBox);
    m_microBatch->setObjectName(QStringLiteral("microBatchSpin"));
    m_microBatch->setRange(0, 1024);
    m_microBatch->setToolTip(tr("Sequences per GPU per step."));
    trainingForm->addRow(tr("Micro-&batch:"), m_microBatch);
    m_gradAccumulation = new QSpinBox(trainingBox);
    m_gradAccumulation->setObjectName(QStringLiteral("gradAccumulationSpin"));
    m_gradAccumulation->setRange(0, 65536);
    m_gradAccumulation->setToolTip(tr("Micro-batches per optimizer step."));
    trainingForm->addRow(tr("Accumula&tion:"), m_gradAccumulation);
    m_seqLen = new QSpinBox(trainingBox);
    m_seqLen->setObjectName(QStringLiteral("seqLenSpin"));
    m_seqLen->setRange(0, 1 << 20);
    m_seqLen->setSingleStep(256);
    m_seqLen->setValue(2048);
    m_seqLen->setSuffix(tr(" tokens"));
    m_seqLen->setToolTip(tr("Tokens per sequence."));
    trainingForm->addRow(tr("&Sequence:"), m_seqLen);
    m_expandableSegments = new QCheckBox(tr("expandable_segments:True"), trainingBox);
    m_expandableSegments->setObjectName(QStringLiteral("expandableSegmentsCheck"));
    m_expandableSegments->setToolTip(
        tr("PyTorch's caching-allocator setting that grows segments in place; it reduces fragmentation. "
           "In the reference benchmark two PCIe configurations only completed with it."));
    trainingForm->addRow(tr("Allocator:"), m_expandableSegments);
    m_cudaGraphs = new QCheckBox(tr("C&UDA graphs"), trainingBox);
    m_cudaGraphs->setObjectName(QStringLiteral("cudaGraphsCheck"));
    m_cudaGraphs->setToolTip(
        tr("Capture each training step once as a CUDA graph and replay it: the CPU issues one graph launch per step "
           "instead of every kernel, which speeds up small models and short sequences. Applies to the GPU-resident "
           "strategies (no CPU offload) under bf16 only; the CPU-offload strategies stay eager."));
    trainingForm->addRow(tr("Step:"), m_cudaGraphs);
    m_checkpointing = new QCheckBox(tr("Activation checkpointing"), trainingBox);
    m_checkpointing->setObjectName(QStringLiteral("checkpointingCheck"));
    m_checkpointing->setToolTip(tr("Recompute each layer's forward in backward: less activation memory, about a third more compute."));
    m_checkpointPolicy = new QComboBox(trainingBox);
    m_checkpointPolicy->setObjectName(QStringLiteral("checkpointPolicyCombo"));
    m_checkpointPolicy->addItem(tr("full layers"), QStringLiteral("full"));
    m_checkpointPolicy->addItem(tr("selective"), QStringLiteral("selective"));
    m_checkpointPolicy->setToolTip(tr("Full recomputes each layer's forward; selective keeps the matmul outputs and "
                                      "recomputes the cheap parts (torchtitan's default)."));
    auto* checkpointRow = new QHBoxLayout;
    checkpointRow->addWidget(m_checkpointing);
    checkpointRow->addWidget(m_checkpointPolicy);
    trainingForm->addRow(QString(), checkpointRow);
    layout->addWidget(trainingBox);
    layout->addStretch(1);

    populatePresets();
    onGpuChanged();
    updateFrameworkWidgets();
    updateInterNodeWidgets();

    connect(m_openModel, &QPushButton::clicked, this, &PlanForm::browseModelFile);
    connect(m_gpu, &QComboBox::currentIndexChanged, this, [this] {
        onGpuChanged();
        emit configurationChanged();
    });
    for (QComboBox* combo : {m_model, m_interconnect, m_precision, m_framework, m_checkpointPolicy})
        connect(combo, &QComboBox::currentIndexChanged, this, &PlanForm::configurationChanged);
    connect(m_framework, &QComboBox::currentIndexChanged, this, &PlanForm::updateFrameworkWidgets);
    connect(m_framework, &QComboBox::activated, this, &PlanForm::onFrameworkChosen);
    connect(m_frameworkVersion, &QLineEdit::editingFinished, this, &PlanForm::configurationChanged);
    connect(m_compile, &QCheckBox::toggled, this, &PlanForm::configurationChanged);
    connect(m_checkpointing, &QCheckBox::toggled, m_checkpointPolicy, &QWidget::setEnabled);
    connect(m_interNode, &QComboBox::currentIndexChanged, this, [this] {
        const QVariant gbps = m_interNode->currentData(Qt::UserRole + 1);
        if (gbps.isValid()) {
            const QSignalBlocker block(m_interNodeGBps);
            m_interNodeGBps->setValue(gbps.toDouble());
        }
        updateInterNodeWidgets();
        emit configurationChanged();
    });
    connect(m_interNodeGBps, &QDoubleSpinBox::valueChanged, this, &PlanForm::configurationChanged);
    connect(m_nodes, &QSpinBox::valueChanged, this, &PlanForm::updateInterNodeWidgets);
    connect(m_gradAccumulation, &QSpinBox::valueChanged, this, &PlanForm::configurationChanged);
    // bf16-fp32-master steps AdamW with the host's step count, which a graph cannot replay.
    connect(m_precision, &QComboBox::currentIndexChanged, this, &PlanForm::onPrecisionChanged);
    for (QSpinBox* spin : {m_gpusPerNode, m_nodes, m_microBatch, m_seqLen})
        connect(spin, &QSpinBox::valueChanged, this, &PlanForm::configurationChanged);
    for (QDoubleSpinBox* spin : {m_customMemoryGiB, m_customTflops, m_customHbm, m_customNvlink, m_customPcie, m_hostRamGiB})
        connect(spin, &QDoubleSpinBox::valueChanged, this, &PlanForm::configurationChanged);
    for (QCheckBox* check : {m_expandableSegments, m_cudaGraphs, m_checkpointing})
        connect(check, &QCheckBox::toggled, this, &PlanForm::configurationChanged);
}

void PlanForm::updateFrameworkWidgets()
{
    const auto f = frameworkFromId(m_framework->currentData().toString().toStdString()).value_or(Framework::Native);
    const bool torch = f == Framework::Fsdp2 || f == Framework::Torchtitan;
    m_compile->setEnabled(torch);
    m_frameworkVersion->setEnabled(f != Framework::Native);
    m_frameworkVersion->setPlaceholderText(f == Framework::Native ? QString()
                                                                  : tr("%1 (default)").arg(fromView(traits(f).defaultVersion)));
}

void PlanForm::onFrameworkChosen()
{
    const auto f = frameworkFromId(m_framework->currentData().toString().toStdString()).value_or(Framework::Native);
    const int pr = m_precision->findData(fromView(precisionId(defaultPrecision(f))));
    if (pr >= 0)
        m_precision->setCurrentIndex(pr);
    const auto policy = defaultCheckpointing(f);
    m_checkpointing->setChecked(policy.has_value());
    if (policy)
        m_checkpointPolicy->setCurrentIndex(m_checkpointPolicy->findData(fromView(checkpointPolicyId(*policy))));
    emit configurationChanged();
}

void PlanForm::updateInterNodeWidgets()
{
    const bool several = m_nodes->value() > 1;
    m_interNodeLabel->setVisible(several);
    m_interNode->setVisible(several);
    m_interNodeGBps->setVisible(several);
    m_interNodeGBps->setEnabled(m_interNode->currentData().toString() == kCustomNetwork);
}

void PlanForm::selectFramework(Framework f)
{
    const int i = m_framework->findData(fromView(frameworkId(f)));
    if (i >= 0)
        m_framework->setCurrentIndex(i);
}

void PlanForm::applyImported(const frameworks::ImportedSettings& settings)
{
    // Apply to the form's current input first so a setting that cannot be taken (a global batch that
    // does not divide over the GPUs) throws before the form changes.
    EstimateInput in = input();
    frameworks::applyImported(settings, in);
    {
        const QSignalBlocker block(this);
        selectFramework(in.framework.framework);
        m_compile->setChecked(in.framework.compiled);
        m_gpusPerNode->setValue(in.cluster.gpusPerNode);
        m_nodes->setValue(in.cluster.nodes);
        m_precision->setCurrentIndex(m_precision->findData(fromView(precisionId(in.training.precision))));
        m_microBatch->setValue(in.training.microBatch);
        m_gradAccumulation->setValue(in.training.gradAccumulation);
        m_seqLen->setValue(in.training.seqLen);
        m_checkpointing->setChecked(in.training.activationCheckpointing);
        m_checkpointPolicy->setCurrentIndex(m_checkpointPolicy->findData(fromView(checkpointPolicyId(in.training.checkpointPolicy))));
        m_knobs = in.knobs;
    }
    emit configurationChanged();
}

void PlanForm::populatePresets()
{
    const PresetCatalog& catalog = PresetCatalog::builtin();
    const QSignalBlocker blockModel(m_model);
    const QSignalBlocker blockGpu(m_gpu);
    for (const ModelSpec& m : catalog.models()) {
        const double params = static_cast<double>(m.parameterCount());
        const QString size = params >= 1e9 ? tr("%1 B parameters").arg(QLocale().toString(params / 1e9, 'f', 1))
                           : params >= 1e6 ? tr("%1 M parameters").arg(QLocale().toString(params / 1e6, 'f', 0))
                                           : tr("%1 parameters").arg(QLocale().toString(m.parameterCount()));
        m_model->addItem(tr("%1 (%2)").arg(QString::fromStdString(m.name), size), QString::fromStdString(m.id));
    }
    for (const GpuSpec& g : catalog.gpus())
        m_gpu->addItem(tr("%1 (%2 GiB)").arg(QString::fromStdString(g.name)).arg(QLocale().toString(g.memoryGiB(), 'f', 1)),
                       QString::fromStdString(g.id));
    m_gpu->addItem(tr("Custom GPU…"), kCustomGpu);
}

void PlanForm::onPrecisionChanged()
{
    // The box keeps its state, so that switching back to bf16 restores it; planInputFromState ignores it
    // under any other precision.
    m_cudaGraphs->setEnabled(m_precision->currentData().toString() == QLatin1String("bf16"));
}

void PlanForm::onGpuChanged()
{
    const bool custom = m_gpu->currentData().toString() == kCustomGpu;
    m_customGpu->setVisible(custom);
    const GpuSpec gpu = selectedGpu();
    const QSignalBlocker block(m_interconnect);
    m_interconnect->setCurrentIndex(m_interconnect->findData(gpu.nvlinkGBps > 0 ? QStringLiteral("nvlink") : QStringLiteral("pcie")));
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

EstimateInput PlanForm::input() const { return planInputFromState(state()); }

QString PlanForm::fieldLabel(const std::string& field) const
{
    const struct {
        const char* prefix;
        QString label;
    } fields[] = {
        {"training.seq_len", tr("Sequence")},
        {"training.micro_batch", tr("Micro-batch")},
        {"training.grad_accumulation", tr("Accumulation")},
        {"training", tr("Training")},
        {"cluster.gpus_per_node", tr("GPUs per node")},
        {"cluster.nodes", tr("Nodes")},
        {"cluster.host_ram_gib", tr("Host RAM per node")},
        {"cluster.inter_node_gbps", tr("Inter-node network")},
        {"cluster", tr("Hardware")},
        {"custom_gpu.memory_mib", tr("Custom GPU memory (at least 1 GiB)")},
        {"custom_gpu.bf16_tflops", tr("Custom GPU bf16 peak")},
        {"custom_gpu.pcie_gbps", tr("Custom GPU PCIe bandwidth")},
        {"custom_gpu", tr("Custom GPU")},
        {"framework", tr("Framework")},
        {"model", tr("Model")},
    };
    for (const auto& f : fields)
        if (field.starts_with(f.prefix))
            return f.label;
    return {};
}

bool PlanForm::addModelFile(const QString& path, QString* error)
{
    try {
        const ModelSpec m = resolveModel(path.toStdString(), "model");
        const QSignalBlocker block(m_model);
        m_model->addItem(tr("%1 (from %2)").arg(QString::fromStdString(m.name.empty() ? m.id : m.name), QFileInfo(path).fileName()),
                         QString::fromStdString(m.id));
        m_model->setItemData(m_model->count() - 1, path, kFileRole);
        m_model->setItemData(m_model->count() - 1, path, Qt::ToolTipRole);
        m_model->setCurrentIndex(m_model->count() - 1);
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        emit modelFileFailed(path, QString::fromUtf8(e.what()));
        return false;
    }
    emit configurationChanged();
    return true;
}

void PlanForm::browseModelFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a model configuration"), QString(),
                                                      tr("Model configuration (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    addModelFile(path, nullptr); // a failure is shown on the page (modelFileFailed)
}

void PlanForm::selectModel(const QString& presetId)
{
    const int i = m_model->findData(presetId);
    if (i >= 0)
        m_model->setCurrentIndex(i);
}

void PlanForm::selectGpu(const QString& presetId)
{
    const int i = m_gpu->findData(presetId);
    if (i >= 0)
        m_gpu->setCurrentIndex(i);
}

void PlanForm::setGpuCount(int gpusPerNode, int nodes)
{
    m_gpusPerNode->setValue(gpusPerNode);
    m_nodes->setValue(nodes);
}

void PlanForm::setSequence(int microBatch, int seqLen)
{
    m_microBatch->setValue(microBatch);
    m_seqLen->setValue(seqLen);
}

QJsonObject PlanForm::state() const
{
    QJsonObject s;
    const QString modelFile = m_model->currentData(kFileRole).toString();
    s[QStringLiteral("model")] = modelFile.isEmpty() ? m_model->currentData().toString() : modelFile;
    s[QStringLiteral("gpu")] = m_gpu->currentData().toString();
    s[QStringLiteral("custom_gpu")] = QJsonObject{{QStringLiteral("memory_gib"), m_customMemoryGiB->value()},
                                                  {QStringLiteral("bf16_tflops"), m_customTflops->value()},
                                                  {QStringLiteral("hbm_gbps"), m_customHbm->value()},
                                                  {QStringLiteral("nvlink_gbps"), m_customNvlink->value()},
                                                  {QStringLiteral("pcie_gbps"), m_customPcie->value()}};
    s[QStringLiteral("gpus_per_node")] = m_gpusPerNode->value();
    s[QStringLiteral("nodes")] = m_nodes->value();
    s[QStringLiteral("interconnect")] = m_interconnect->currentData().toString();
    s[QStringLiteral("host_ram_gib")] = m_hostRamGiB->value();
    s[QStringLiteral("precision")] = m_precision->currentData().toString();
    s[QStringLiteral("micro_batch")] = m_microBatch->value();
    s[QStringLiteral("seq_len")] = m_seqLen->value();
    s[QStringLiteral("expandable_segments")] = m_expandableSegments->isChecked();
    s[QStringLiteral("cuda_graphs")] = m_cudaGraphs->isChecked();
    s[QStringLiteral("activation_checkpointing")] = m_checkpointing->isChecked();
    s[QStringLiteral("checkpoint_policy")] = m_checkpointPolicy->currentData().toString();
    s[QStringLiteral("grad_accumulation")] = m_gradAccumulation->value();
    s[QStringLiteral("framework")] = m_framework->currentData().toString();
    s[QStringLiteral("framework_version")] = m_frameworkVersion->text().trimmed();
    s[QStringLiteral("compile")] = m_compile->isChecked() && m_compile->isEnabled();
    s[QStringLiteral("inter_node_gbps")] = m_interNodeGBps->value();
    if (!(toJson(m_knobs) == toJson(TuningKnobs{})))
        s[QStringLiteral("knobs")] =
            QJsonDocument::fromJson(QByteArray::fromStdString(toJson(m_knobs).dump())).object();
    return s;
}

void PlanForm::setState(const QJsonObject& s)
{
    {
        const QSignalBlocker block(this);
        const QString model = s.value(QStringLiteral("model")).toString();
        if (m_model->findData(model) >= 0)
            selectModel(model);
        else if (QFileInfo::exists(model))
            addModelFile(model, nullptr);
        const QJsonObject custom = s.value(QStringLiteral("custom_gpu")).toObject();
        m_customMemoryGiB->setValue(custom.value(QStringLiteral("memory_gib")).toDouble(m_customMemoryGiB->value()));
        m_customTflops->setValue(custom.value(QStringLiteral("bf16_tflops")).toDouble(m_customTflops->value()));
        m_customHbm->setValue(custom.value(QStringLiteral("hbm_gbps")).toDouble(m_customHbm->value()));
        m_customNvlink->setValue(custom.value(QStringLiteral("nvlink_gbps")).toDouble(m_customNvlink->value()));
        m_customPcie->setValue(custom.value(QStringLiteral("pcie_gbps")).toDouble(m_customPcie->value()));
        selectGpu(s.value(QStringLiteral("gpu")).toString());
        m_gpusPerNode->setValue(s.value(QStringLiteral("gpus_per_node")).toInt(m_gpusPerNode->value()));
        m_nodes->setValue(s.value(QStringLiteral("nodes")).toInt(m_nodes->value()));
        const int ic = m_interconnect->findData(s.value(QStringLiteral("interconnect")).toString());
        if (ic >= 0)
            m_interconnect->setCurrentIndex(ic);
        // Forms saved before the field existed were planned with the default.
        m_hostRamGiB->setValue(s.value(QStringLiteral("host_ram_gib")).toDouble(ClusterSpec{}.hostRamGiB));
        const int pr = m_precision->findData(s.value(QStringLiteral("precision")).toString());
        if (pr >= 0)
            m_precision->setCurrentIndex(pr);
        m_microBatch->setValue(s.value(QStringLiteral("micro_batch")).toInt(m_microBatch->value()));
        m_seqLen->setValue(s.value(QStringLiteral("seq_len")).toInt(m_seqLen->value()));
        m_expandableSegments->setChecked(s.value(QStringLiteral("expandable_segments")).toBool(false));
        // Workspaces saved before the option existed planned eager steps.
        m_cudaGraphs->setChecked(s.value(QStringLiteral("cuda_graphs")).toBool(false));
        m_checkpointing->setChecked(s.value(QStringLiteral("activation_checkpointing")).toBool(false));
        // Forms saved before the framework target existed planned for the native runner.
        const int fw = m_framework->findData(s.value(QStringLiteral("framework")).toString(QStringLiteral("native")));
        m_framework->setCurrentIndex(fw >= 0 ? fw : 0);
        m_frameworkVersion->setText(s.value(QStringLiteral("framework_version")).toString());
        m_compile->setChecked(s.value(QStringLiteral("compile")).toBool(false));
        const int cp = m_checkpointPolicy->findData(s.value(QStringLiteral("checkpoint_policy")).toString(QStringLiteral("full")));
        m_checkpointPolicy->setCurrentIndex(cp >= 0 ? cp : 0);
        m_gradAccumulation->setValue(s.value(QStringLiteral("grad_accumulation")).toInt(1));
        const double gbps = s.value(QStringLiteral("inter_node_gbps")).toDouble(ClusterSpec{}.interNodeGBps);
        const auto preset = frameworks::interNodePresetFor(gbps);
        m_interNode->setCurrentIndex(m_interNode->findData(preset ? fromView(preset->id) : kCustomNetwork));
        m_interNodeGBps->setValue(gbps);
        m_knobs = TuningKnobs{};
        if (const QJsonValue k = s.value(QStringLiteral("knobs")); k.isObject()) {
            try {
                m_knobs = knobsFromJson(nlohmann::json::parse(QJsonDocument(k.toObject()).toJson().toStdString()), "knobs");
            } catch (const std::exception&) {
                m_knobs = TuningKnobs{}; // a damaged saved form plans with the defaults
            }
        }
        m_checkpointPolicy->setEnabled(m_checkpointing->isChecked());
        updateFrameworkWidgets();
        updateInterNodeWidgets();
    }
    emit configurationChanged();
}

} // namespace shardwise::gui
