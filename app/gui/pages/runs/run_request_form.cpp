#include "pages/runs/run_request_form.hpp"

#include "models/display_format.hpp"
#include "models/run_backend.hpp"

#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>

namespace shardwise::gui {

RunRequestForm::RunRequestForm(QWidget* parent)
    : QWidget(parent)
{
    m_model = new QComboBox(this);
    m_model->setObjectName(QStringLiteral("runModel"));
    try {
        for (const ModelSpec& m : PresetCatalog::builtin().models())
            m_model->addItem(QString::fromStdString(m.name.empty() ? m.id : m.name), QString::fromStdString(m.id));
    } catch (const std::exception& e) {
        m_model->setToolTip(tr("The model presets could not be loaded: %1").arg(QString::fromUtf8(e.what())));
    }
    if (const int tiny = m_model->findData(QStringLiteral("tiny")); tiny >= 0)
        m_model->setCurrentIndex(tiny);

    m_strategy = new QComboBox(this);
    m_strategy->setObjectName(QStringLiteral("runStrategy"));
    for (const StrategyTraits& t : allStrategies()) {
        m_strategy->addItem(strategyLabel(t.strategy), strategyIdText(t.strategy));
        m_strategy->setItemData(m_strategy->count() - 1, strategySummary(t.strategy), Qt::ToolTipRole);
    }

    m_device = new QComboBox(this);
    m_device->setObjectName(QStringLiteral("runDevice"));
    m_device->addItem(tr("CPU (fp32, Gloo)"), QStringLiteral("cpu"));
    m_device->addItem(tr("CUDA GPUs (bf16, NCCL)"), QStringLiteral("cuda"));
    m_device->setToolTip(
        tr("CPU runs measure the sharding schedule, not GPU speed; CUDA needs a runner built with CUDA."));

    m_node = new QComboBox(this);
    m_node->setObjectName(QStringLiteral("runNode"));

    // The unit after the number, singular or plural as the number asks: "1 sequence", "4 sequences".
    auto spin = [this](const char* name, int min, int max, int value, QString (*counted)(int)) {
        auto* box = new QSpinBox(this);
        box->setObjectName(QString::fromLatin1(name));
        box->setRange(min, max);
        const auto unitFor = [counted](int n) {
            QString unit = counted(n);
            const QString number = QString::number(n);
            if (const qsizetype at = unit.indexOf(number); at >= 0)
                unit.remove(at, number.size());
            return unit;
        };
        connect(box, &QSpinBox::valueChanged, box, [box, unitFor](int n) { box->setSuffix(unitFor(n)); });
        box->setValue(value);
        box->setSuffix(unitFor(value));
        return box;
    };
    m_ranks = spin("runRanks", 1, 64, 2, [](int n) { return RunRequestForm::tr("%n rank(s)", nullptr, n); });
    m_warmup = spin("runWarmup", 0, 1000, 2, [](int n) { return RunRequestForm::tr("%n step(s)", nullptr, n); });
    m_steps = spin("runSteps", 1, 10000, 5, [](int n) { return RunRequestForm::tr("%n step(s)", nullptr, n); });
    m_seq = spin("runSeq", 1, 1 << 20, 64, [](int n) { return RunRequestForm::tr("%n token(s)", nullptr, n); });
    m_microBatch
        = spin("runMicroBatch", 1, 4096, 1, [](int n) { return RunRequestForm::tr("%n sequence(s)", nullptr, n); });
    m_expandable = new QCheckBox(tr("CUDA allocator with expandable segments"), this);
    m_expandable->setObjectName(QStringLiteral("runExpandableSegments"));
    m_expandable->setToolTip(tr("Sets expandable_segments:True: a diagnostic for fragmentation (a large reserved but "
                                "unallocated amount at an out-of-memory error), not a cure."));
    m_cudaGraphs = new QCheckBox(tr("Replay each step as a CUDA graph"), this);
    m_cudaGraphs->setObjectName(QStringLiteral("runCudaGraphs"));
    // Its tooltip depends on the backend (applyBackend).

    m_backend = new QComboBox(this);
    m_backend->setObjectName(QStringLiteral("runBackend"));
    for (const RunBackend b : { RunBackend::Native, RunBackend::Torch }) {
        m_backend->addItem(backendLabel(b), backendIdText(b));
        m_backend->setItemData(m_backend->count() - 1, backendToolTip(b), Qt::ToolTipRole);
    }
    m_backend->setToolTip(tr("What runs the ranks: Shardwise's runner, or PyTorch itself (DDP / FSDP2) to measure the "
                             "framework the plan's fsdp2 target predicts."));
    m_torchCompile = new QCheckBox(tr("Compile each decoder layer (torch.compile)"), this);
    m_torchCompile->setObjectName(QStringLiteral("runTorchCompile"));
    connect(m_backend, &QComboBox::currentIndexChanged, this, &RunRequestForm::applyBackend);

    m_queue = new QPushButton(tr("&Queue run"), this);
    m_queue->setObjectName(QStringLiteral("queueRun"));
    connect(m_queue, &QPushButton::clicked, this, &RunRequestForm::queueRequested);

    auto* form = new QFormLayout;
    form->addRow(tr("&Model:"), m_model);
    form->addRow(tr("&Strategy:"), m_strategy);
    form->addRow(tr("Bac&kend:"), m_backend);
    form->addRow(tr("&Device:"), m_device);
    form->addRow(tr("N&ode:"), m_node);
    form->addRow(tr("&Ranks:"), m_ranks);
    form->addRow(tr("&Warm-up:"), m_warmup);
    form->addRow(tr("&Timed:"), m_steps);
    form->addRow(tr("Sequence &length:"), m_seq);
    form->addRow(tr("Micro-&batch:"), m_microBatch);
    form->addRow(QString(), m_expandable);
    form->addRow(QString(), m_cudaGraphs);
    form->addRow(QString(), m_torchCompile);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addWidget(m_queue, 0, Qt::AlignRight);
    applyBackend();
}

RunBackend RunRequestForm::backend() const
{
    return backendFromId(m_backend->currentData().toString().toStdString()).value_or(RunBackend::Native);
}

void RunRequestForm::applyBackend()
{
    const RunBackend chosen = backend();
    auto* strategies = qobject_cast<QStandardItemModel*>(m_strategy->model());
    for (int i = 0; i < m_strategy->count(); ++i) {
        const auto strategy = strategyFromId(m_strategy->itemData(i).toString().toStdString());
        if (!strategy)
            continue;
        const QString why = backendCannotRun(chosen, *strategy);
        if (strategies)
            if (QStandardItem* item = strategies->item(i))
                item->setEnabled(why.isEmpty());
        m_strategy->setItemData(i, why.isEmpty() ? strategySummary(*strategy) : why, Qt::ToolTipRole);
    }
    // A strategy the backend cannot run is never left chosen: the first one it can run is taken.
    if (const auto current = strategyFromId(m_strategy->currentData().toString().toStdString());
        current && !backendRuns(chosen, *current)) {
        for (int i = 0; i < m_strategy->count(); ++i)
            if (const auto s = strategyFromId(m_strategy->itemData(i).toString().toStdString());
                s && backendRuns(chosen, *s)) {
                m_strategy->setCurrentIndex(i);
                break;
            }
    }
    const bool torch = chosen == RunBackend::Torch;
    m_cudaGraphs->setEnabled(!torch);
    if (torch)
        m_cudaGraphs->setChecked(false);
    m_cudaGraphs->setToolTip(
        torch ? tr("The torch backend runs eager or compiled steps, not CUDA graphs.")
              : tr("The runner captures the whole step after two eager steps and replays it as one graph "
                   "launch. Needs CUDA, a GPU-resident strategy (no CPU offload) and at least 3 warm-up "
                   "steps."));
    m_torchCompile->setEnabled(torch);
    if (!torch)
        m_torchCompile->setChecked(false);
    m_torchCompile->setToolTip(
        torch ? tr("torch.compile each decoder layer before the first step; the warm-up steps include "
                   "the compilation.")
              : tr("Only the torch backend runs PyTorch code to compile."));
}

void RunRequestForm::setNodes(const QStringList& names)
{
    const QString current = m_node->currentText();
    m_node->clear();
    m_node->addItems(names.isEmpty() ? QStringList { QStringLiteral("local") } : names);
    m_node->setToolTip(tr("Where the ranks run: this machine, or an SSH node prepared on the Nodes page."));
    if (const int i = m_node->findText(current); i >= 0)
        m_node->setCurrentIndex(i);
    else if (const int localRow = m_node->findText(QStringLiteral("local")); localRow >= 0)
        m_node->setCurrentIndex(localRow);
}

QString RunRequestForm::node() const
{
    return m_node->currentText().isEmpty() ? QStringLiteral("local") : m_node->currentText();
}

std::optional<RunConfig> RunRequestForm::config(QString* error) const
{
    try {
        RunConfig c;
        c.model = resolveModel(m_model->currentData().toString().toStdString(), "model");
        const auto strategy = strategyFromId(m_strategy->currentData().toString().toStdString());
        if (!strategy)
            throw SpecError("strategy", "no strategy chosen");
        c.strategy = *strategy;
        c.device = m_device->currentData().toString() == QLatin1String("cuda") ? DeviceKind::Cuda : DeviceKind::Cpu;
        c.worldSize = m_ranks->value();
        c.warmupSteps = m_warmup->value();
        c.timedSteps = m_steps->value();
        c.training.seqLen = m_seq->value();
        c.training.microBatch = m_microBatch->value();
        c.training.expandableSegments = m_expandable->isChecked();
        c.training.cudaGraphs = m_cudaGraphs->isChecked(); // validate says when the run cannot be captured
        c.backend = backend();
        c.torchCompile = m_torchCompile->isChecked();
        validate(c);
        return c;
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return std::nullopt;
    }
}

} // namespace shardwise::gui
