#include "pages/plan/plan_form.hpp"

#include "pages/plan/plan_form_parts.hpp"
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

using namespace plan_form;

PlanForm::PlanForm(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* modelBox = new QGroupBox(tr("Model"), this);
    auto* modelForm = new QFormLayout(modelBox);
    m_model = new QComboBox(modelBox);
    m_model->setObjectName(QStringLiteral("modelCombo"));
    keepNarrow(m_model);
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

    layout->addWidget(createHardwareBox());

    auto* frameworkBox = new QGroupBox(tr("Framework"), this);
    auto* frameworkForm = new QFormLayout(frameworkBox);
    m_framework = new QComboBox(frameworkBox);
    m_framework->setObjectName(QStringLiteral("frameworkCombo"));
    keepNarrow(m_framework);
    m_framework->addItem(tr("Shardwise runner (native)"), QStringLiteral("native"));
    m_framework->addItem(tr("DeepSpeed"), QStringLiteral("deepspeed"));
    m_framework->addItem(tr("PyTorch FSDP2"), QStringLiteral("fsdp2"));
    m_framework->addItem(tr("torchtitan"), QStringLiteral("torchtitan"));
    m_framework->setToolTip(
        tr("The framework you train with: the plan predicts what it allocates and how fast it runs at "
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
    keepNarrow(m_precision);
    m_precision->addItem(tr("bf16 (params, grads, Adam moments)"), QStringLiteral("bf16"));
    m_precision->addItem(tr("bf16 compute, fp32 master weights and moments"), QStringLiteral("bf16-fp32-master"));
    m_precision->setToolTip(
        tr("Bytes per parameter of the training state: 8 for pure bf16, 16 with fp32 master weights."));
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
    m_checkpointing->setToolTip(
        tr("Recompute each layer's forward in backward: less activation memory, about a third more compute."));
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
    for (QComboBox* combo : { m_model, m_interconnect, m_precision, m_framework, m_checkpointPolicy })
        connect(combo, &QComboBox::currentIndexChanged, this, &PlanForm::configurationChanged);
    connect(m_framework, &QComboBox::currentIndexChanged, this, &PlanForm::updateFrameworkWidgets);
    connect(m_framework, &QComboBox::activated, this, &PlanForm::onFrameworkChosen);
    connect(m_frameworkVersion, &QLineEdit::editingFinished, this, &PlanForm::configurationChanged);
    connect(m_compile, &QCheckBox::toggled, this, &PlanForm::configurationChanged);
    connect(m_checkpointing, &QCheckBox::toggled, m_checkpointPolicy, &QWidget::setEnabled);
    connect(m_interNode, &QComboBox::currentIndexChanged, this, [this] {
        const QVariant gbps = m_interNode->currentData(kGBpsRole);
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
    for (QSpinBox* spin : { m_gpusPerNode, m_nodes, m_microBatch, m_seqLen })
        connect(spin, &QSpinBox::valueChanged, this, &PlanForm::configurationChanged);
    for (QDoubleSpinBox* spin :
         { m_customMemoryGiB, m_customTflops, m_customHbm, m_customNvlink, m_customPcie, m_hostRamGiB })
        connect(spin, &QDoubleSpinBox::valueChanged, this, &PlanForm::configurationChanged);
    for (QCheckBox* check : { m_expandableSegments, m_cudaGraphs, m_checkpointing })
        connect(check, &QCheckBox::toggled, this, &PlanForm::configurationChanged);
}

void PlanForm::updateFrameworkWidgets()
{
    const auto f = frameworkFromId(m_framework->currentData().toString().toStdString()).value_or(Framework::Native);
    const bool torch = f == Framework::Fsdp2 || f == Framework::Torchtitan;
    m_compile->setEnabled(torch);
    m_frameworkVersion->setEnabled(f != Framework::Native);
    m_frameworkVersion->setPlaceholderText(
        f == Framework::Native ? QString() : tr("%1 (default)").arg(fromView(traits(f).defaultVersion)));
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

void PlanForm::selectFramework(Framework f)
{
    const int i = m_framework->findData(fromView(frameworkId(f)));
    if (i >= 0)
        m_framework->setCurrentIndex(i);
}

void PlanForm::onPrecisionChanged()
{
    // The box keeps its state, so that switching back to bf16 restores it; planInputFromState ignores it
    // under any other precision.
    m_cudaGraphs->setEnabled(m_precision->currentData().toString() == QLatin1String("bf16"));
}

QString PlanForm::fieldLabel(const std::string& field) const
{
    const struct {
        const char* prefix;
        QString label;
    } fields[] = {
        { "training.seq_len", tr("Sequence") },
        { "training.micro_batch", tr("Micro-batch") },
        { "training.grad_accumulation", tr("Accumulation") },
        { "training", tr("Training") },
        { "cluster.gpus_per_node", tr("GPUs per node") },
        { "cluster.nodes", tr("Nodes") },
        { "cluster.host_ram_gib", tr("Host RAM per node") },
        { "cluster.inter_node_gbps", tr("Inter-node network") },
        { "cluster", tr("Hardware") },
        { "custom_gpu.memory_mib", tr("Custom GPU memory (at least 1 GiB)") },
        { "custom_gpu.bf16_tflops", tr("Custom GPU bf16 peak") },
        { "custom_gpu.pcie_gbps", tr("Custom GPU PCIe bandwidth") },
        { "custom_gpu", tr("Custom GPU") },
        { "framework", tr("Framework") },
        { "model", tr("Model") },
    };
    for (const auto& f : fields)
        if (field.starts_with(f.prefix))
            return f.label;
    return {};
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

} // namespace shardwise::gui
