#include "pages/plan/plan_page.hpp"

#include "charts/memory_breakdown_chart.hpp"
#include "export/plan_report.hpp"
#include "jobs/plan_job.hpp"
#include "jobs/run_job.hpp"
#include "models/candidate_table_model.hpp"
#include "models/decision_step_model.hpp"
#include "models/display_format.hpp"
#include "models/run_backend.hpp"
#include "pages/plan/plan_form.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/json.hpp"

#include <QChartView>
#include <QComboBox>
#include <QAction>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace shardwise::gui {

namespace {
const QString kFormKey = QStringLiteral("plan/form");
const QString kSplitterKey = QStringLiteral("plan/splitter");

QString fromView(std::string_view v) { return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size())); }

QTableView* makeTable(QAbstractItemModel* model, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->verticalHeader()->hide();
    view->setAlternatingRowColors(true);
    view->setWordWrap(true);
    return view;
}
} // namespace

PlanPage::PlanPage(Workspace& workspace, QWidget* parent)
    : QWidget(parent)
    , m_workspace(workspace)
{
    m_form = new PlanForm;
    m_job = new PlanJob(this);
    m_queue = m_workspace.runQueue();
    m_steps = new DecisionStepModel(this);
    m_candidates = new CandidateTableModel(this);

    auto* formScroll = new QScrollArea;
    formScroll->setWidget(m_form);
    formScroll->setWidgetResizable(true);
    formScroll->setMinimumWidth(m_form->sizeHint().width() + 24);

    auto* results = new QWidget;
    auto* resultsLayout = new QVBoxLayout(results);
    m_recommendation = new QLabel;
    m_recommendation->setObjectName(QStringLiteral("recommendationLabel"));
    m_recommendation->setWordWrap(true);
    QFont big = m_recommendation->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    big.setBold(true);
    m_recommendation->setFont(big);
    m_recommendation->setToolTip(tr("The decision order: lightest sharding that fits, then full sharding chosen by interconnect, "
                                    "then CPU offload; always validate on your own hardware."));
    m_planBusy = new QProgressBar;
    m_planBusy->setRange(0, 0); // planning is quick: a busy bar, no steps to count
    m_planBusy->setMaximumHeight(6);
    m_planBusy->setTextVisible(false);
    m_planBusy->hide();
    m_error = new QLabel;
    m_error->setObjectName(QStringLiteral("planErrorLabel"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #d03b3b"));
    m_error->hide();

    m_stepView = makeTable(m_steps, results);
    m_stepView->setObjectName(QStringLiteral("decisionStepView"));
    m_stepView->horizontalHeader()->setSectionResizeMode(DecisionStepModel::StepColumn, QHeaderView::ResizeToContents);
    m_stepView->horizontalHeader()->setSectionResizeMode(DecisionStepModel::VerdictColumn, QHeaderView::ResizeToContents);
    m_stepView->horizontalHeader()->setSectionResizeMode(DecisionStepModel::ReasonColumn, QHeaderView::Stretch);
    m_stepView->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_stepView->setMinimumHeight(170);
    m_stepView->setMaximumHeight(260);

    m_candidateView = makeTable(m_candidates, results);
    m_candidateView->setObjectName(QStringLiteral("candidateView"));
    m_candidateView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_candidateView->horizontalHeader()->setStretchLastSection(true);

    m_memoryChart = new QChartView(createMemoryBreakdownChart({}));
    m_memoryChart->setObjectName(QStringLiteral("memoryChart"));
    m_memoryChart->setRenderHint(QPainter::Antialiasing);
    m_memoryChart->setMinimumHeight(260);
    m_memoryChart->setToolTip(tr("The predicted peak per GPU of each strategy, stacked by kind. The dashed line is the usable "
                                 "GPU memory (less the planner's headroom): a bar above it does not fit."));

    auto* validateRow = new QHBoxLayout;
    m_node = new QComboBox;
    m_node->setObjectName(QStringLiteral("validationNodeCombo"));
    m_node->setToolTip(tr("Where the validation runs are measured."));
    m_device = new QComboBox;
    m_device->setObjectName(QStringLiteral("validationDeviceCombo"));
    m_device->addItem(tr("CPU"), QStringLiteral("cpu"));
    m_device->addItem(tr("CUDA GPUs"), QStringLiteral("cuda"));
    m_device->setToolTip(tr("CPU runs exercise every strategy's schedule on any machine; their throughput says nothing about a GPU."));
    m_backend = new QComboBox;
    m_backend->setObjectName(QStringLiteral("validationBackendCombo"));
    for (RunBackend b : {RunBackend::Native, RunBackend::Torch}) {
        m_backend->addItem(backendLabel(b), static_cast<int>(b));
        m_backend->setItemData(m_backend->count() - 1, backendToolTip(b), Qt::ToolTipRole);
    }
    m_backend->setToolTip(tr("What measures the runs: Shardwise's runner, or PyTorch itself (DDP and fully_shard, the "
                             "runs the PyTorch FSDP2 target predicts). Strategies PyTorch cannot express are left out."));
    m_validate = new QPushButton(tr("V&alidate"));
    m_validate->setObjectName(QStringLiteral("validateButton"));
    m_validate->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_validate->setToolTip(tr("Queue the plan's run matrix (the recommendation and what the decision order says to measure beside it) "
                              "with the same model, precision, micro-batch, sequence and GPU count (%1).")
                               .arg(m_validate->shortcut().toString(QKeySequence::NativeText)));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName(QStringLiteral("cancelValidationButton"));
    m_cancel->setEnabled(false);
    m_cancel->setToolTip(tr("Stop the running measurement and drop the queued ones."));
    validateRow->addWidget(new QLabel(tr("Validate on:")));
    validateRow->addWidget(m_node);
    validateRow->addWidget(m_device);
    validateRow->addWidget(m_backend);
    validateRow->addWidget(m_validate);
    validateRow->addWidget(m_cancel);
    validateRow->addStretch(1);
    m_validationBar = new QProgressBar;
    m_validationBar->setObjectName(QStringLiteral("validationProgress"));
    m_validationBar->hide();
    m_validationStatus = new QLabel;
    m_validationStatus->setObjectName(QStringLiteral("validationStatus"));
    m_validationStatus->setWordWrap(true);

    auto* configRow = new QHBoxLayout;
    m_openConfig = new QPushButton(tr("&Open config…"));
    m_openConfig->setObjectName(QStringLiteral("openConfigButton"));
    m_openConfig->setToolTip(tr("Read a DeepSpeed ds_config.json or an Accelerate config YAML into the form: framework, "
                                "strategy, precision, micro-batch, accumulation, GPUs, checkpointing and DeepSpeed's knobs."));
    m_exportButton = new QToolButton;
    m_exportButton->setObjectName(QStringLiteral("exportButton"));
    m_exportButton->setText(tr("E&xport"));
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    m_exportButton->setToolTip(tr("Write the selected candidate (or the recommendation) as a config for the framework you "
                                  "train with; each file names the plan it came from."));
    m_exportMenu = new QMenu(m_exportButton);
    m_exportMenu->setObjectName(QStringLiteral("exportMenu"));
    const struct {
        frameworks::ConfigKind kind;
        QString text;
    } exports[] = {
        {frameworks::ConfigKind::DsConfig, tr("DeepSpeed ds_config.json…")},
        {frameworks::ConfigKind::Accelerate, tr("Accelerate config YAML…")},
        {frameworks::ConfigKind::Torchtitan, tr("torchtitan job config TOML…")},
        {frameworks::ConfigKind::Fsdp2Python, tr("PyTorch FSDP2 script…")},
        {frameworks::ConfigKind::Launch, tr("Launch lines (torchrun, deepspeed, srun)…")},
        {frameworks::ConfigKind::Sbatch, tr("Slurm batch script…")},
    };
    for (const auto& e : exports) {
        QAction* action = m_exportMenu->addAction(e.text);
        action->setObjectName(QStringLiteral("export-") + fromView(frameworks::configKindId(e.kind)));
        action->setData(static_cast<int>(e.kind));
        const frameworks::ConfigKind kind = e.kind;
        connect(action, &QAction::triggered, this, [this, kind] { browseExport(kind); });
    }
    m_exportMenu->addSeparator();
    QAction* report = m_exportMenu->addAction(tr("Report: reasoning, charts and CSV…"));
    report->setObjectName(QStringLiteral("export-report"));
    report->setData(-1); // not a framework config: updateExportActions leaves it alone
    report->setToolTip(
        tr("Write the plan's reasoning (Markdown), its memory chart (SVG, PNG) and the candidates' figures "
           "(CSV) into one folder."));
    connect(report, &QAction::triggered, this, &PlanPage::browseReport);
    m_exportButton->setMenu(m_exportMenu);
    configRow->addWidget(m_openConfig);
    configRow->addWidget(m_exportButton);
    configRow->addStretch(1);
    m_importMessage = new QLabel;
    m_importMessage->setObjectName(QStringLiteral("importMessageLabel"));
    m_importMessage->setWordWrap(true);
    m_importMessage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_importMessage->hide();

    resultsLayout->addLayout(configRow);
    resultsLayout->addWidget(m_importMessage);
    resultsLayout->addWidget(m_recommendation);
    resultsLayout->addWidget(m_planBusy);
    resultsLayout->addWidget(m_error);
    resultsLayout->addWidget(m_stepView);
    resultsLayout->addWidget(m_candidateView, 1);
    resultsLayout->addWidget(m_memoryChart, 2);
    resultsLayout->addLayout(validateRow);
    resultsLayout->addWidget(m_validationBar);
    resultsLayout->addWidget(m_validationStatus);

    auto* splitter = new QSplitter;
    splitter->setObjectName(QStringLiteral("planSplitter"));
    splitter->addWidget(formScroll);
    splitter->addWidget(results);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    // Re-plan once the user pauses: every keystroke in a spin box would otherwise queue a plan.
    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(150);
    connect(m_debounce, &QTimer::timeout, this, &PlanPage::schedulePlan);
    connect(m_form, &PlanForm::configurationChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(m_form, &PlanForm::modelFileFailed, this, [this](const QString& path, const QString& message) {
        m_importMessage->setStyleSheet(QStringLiteral("color: #d03b3b"));
        m_importMessage->setText(tr("Cannot open %1 as a model: %2").arg(QFileInfo(path).fileName(), message));
        m_importMessage->show();
    });
    connect(m_job, &PlanJob::planAvailable, this, &PlanPage::showPlan);
    connect(m_job, &PlanJob::planFailed, this, &PlanPage::showPlanError);
    connect(m_job, &PlanJob::busyChanged, m_planBusy, &QWidget::setVisible);
    connect(m_validate, &QPushButton::clicked, this, &PlanPage::validate);
    connect(m_openConfig, &QPushButton::clicked, this, &PlanPage::browseOpenConfig);
    connect(m_exportMenu, &QMenu::aboutToShow, this, &PlanPage::updateExportActions);
    connect(m_cancel, &QPushButton::clicked, this, &PlanPage::cancelValidation);
    connect(m_queue, &RunJob::runStarted, this, [this](qint64 ticket, qint64 runId) {
        if (m_validationTickets.contains(ticket))
            m_validationRuns.insert(runId, ticket);
    });
    connect(m_queue, &RunJob::rankProgressAvailable, this, &PlanPage::showValidationProgress);
    connect(m_queue, &RunJob::runFinished, this, [this](qint64 ticket, qint64 runId, const QString& status, const QString& summary) {
        if (!m_validationTickets.contains(ticket))
            return;
        m_validationStatus->setText(summary);
        emit validationRunFinished(runId, status, summary);
        onQueuedRunEnded(ticket);
    });
    connect(m_queue, &RunJob::runFailed, this, [this](qint64 ticket, const QString& message) {
        if (!m_validationTickets.contains(ticket))
            return;
        m_validationStatus->setText(message);
        emit validationRunFinished(0, QString(), message);
        onQueuedRunEnded(ticket);
    });
    // A run the user takes off the queue on the Runs page ends without a result.
    connect(m_queue, &RunJob::queueChanged, this, [this] {
        QList<qint64> live;
        for (const RunRequest& r : m_queue->queued())
            live << r.ticket;
        if (const auto running = m_queue->running())
            live << running->ticket;
        const QList<qint64> mine = m_validationTickets;
        for (qint64 ticket : mine)
            if (!live.contains(ticket) && !m_validationRuns.values().contains(ticket))
                onQueuedRunEnded(ticket);
    });
    connect(&m_workspace, &Workspace::runsChanged, this, &PlanPage::refreshNodes);
    connect(&m_workspace, &Workspace::nodesChanged, this, &PlanPage::refreshNodes);
    refreshNodes();

    QSettings settings;
    const QJsonObject saved = QJsonDocument::fromJson(settings.value(kFormKey).toByteArray()).object();
    if (!saved.isEmpty()) {
        m_form->setState(saved);
    } else {
        const QList<ExamplePlan> examples = Workspace::examplePlans();
        if (!examples.isEmpty())
            m_form->setState(examples.front().form);
    }
    splitter->restoreState(settings.value(kSplitterKey).toByteArray());
    connect(splitter, &QSplitter::splitterMoved, this, [splitter] { QSettings().setValue(kSplitterKey, splitter->saveState()); });
    schedulePlan();
}

PlanPage::~PlanPage() = default;

const PlanView& PlanPage::currentPlan() const { return m_candidates->plan(); }

QString PlanPage::recommendationText() const { return m_recommendation->text(); }

QString PlanPage::errorText() const { return m_error->isVisible() ? m_error->text() : QString(); }

void PlanPage::schedulePlan()
{
    m_debounce->stop();
    try {
        const EstimateInput input = m_form->input();
        QSettings().setValue(kFormKey, QJsonDocument(m_form->state()).toJson(QJsonDocument::Compact));
        m_formInvalid = false;
        m_job->request(input);
    } catch (const SpecError& e) {
        m_formInvalid = true;
        // Name the form's field as the user sees it, then core's reason with its bound.
        const QString label = m_form->fieldLabel(e.field());
        showPlanError(label.isEmpty() ? QString::fromUtf8(e.what()) : tr("%1: %2").arg(label, QString::fromUtf8(e.what())));
    } catch (const std::exception& e) {
        m_formInvalid = true;
        showPlanError(QString::fromUtf8(e.what()));
    }
}

void PlanPage::showPlan(const PlanView& plan)
{
    if (m_formInvalid)
        return; // planned from an earlier form; the error about the current one stays
    m_error->hide();
    m_steps->setSteps(plan.steps);
    m_candidates->setPlan(plan);
    m_recommendation->setText(plan.summary);
    QChart* old = m_memoryChart->chart();
    m_memoryChart->setChart(createMemoryBreakdownChart(plan));
    delete old;
    m_validate->setEnabled(!plan.runMatrix.isEmpty());
    if (m_selectAfterPlan) {
        for (int row = 0; row < plan.candidates.size(); ++row)
            if (plan.candidates.at(row).strategy == *m_selectAfterPlan && plan.candidates.at(row).supported)
                m_candidateView->selectRow(row);
        m_selectAfterPlan.reset();
    }
    updateExportActions();
    emit planUpdated();
}

std::optional<Strategy> PlanPage::exportStrategy() const
{
    const PlanView& plan = currentPlan();
    const QModelIndexList rows = m_candidateView->selectionModel() ? m_candidateView->selectionModel()->selectedRows()
                                                                   : QModelIndexList{};
    if (!rows.isEmpty() && rows.front().row() < plan.candidates.size())
        return plan.candidates.at(rows.front().row()).strategy;
    if (plan.hasRecommendation)
        return plan.recommendation;
    return std::nullopt;
}

void PlanPage::updateExportActions()
{
    const std::optional<Strategy> strategy = exportStrategy();
    std::optional<EstimateInput> input;
    try {
        input = m_form->input();
    } catch (const std::exception&) {
    }
    for (QAction* action : m_exportMenu->actions()) {
        if (action->isSeparator() || action->data().toInt() < 0)
            continue;
        const auto kind = static_cast<frameworks::ConfigKind>(action->data().toInt());
        if (!strategy || !input) {
            action->setEnabled(false);
            action->setToolTip(tr("Nothing to export: no candidate is selected and nothing fits."));
            continue;
        }
        const bool ok = frameworks::exportSupports(kind, *input, *strategy);
        action->setEnabled(ok);
        QString tip = ok ? tr("Write %1 for %2.").arg(fromView(frameworks::configKindFileName(kind)), strategyLabel(*strategy))
                         : QString::fromStdString(frameworks::unsupportedReason(kind, *input, *strategy));
        const Framework reader = frameworks::configFramework(kind, *input, *strategy);
        if (ok && reader != input->framework.framework)
            tip += QLatin1Char(' ')
                + tr("%1 reads it, while this plan's figures are for %2; choose %1 as the framework for its defaults and figures.")
                      .arg(fromView(traits(reader).label), fromView(traits(input->framework.framework).label));
        action->setToolTip(tip);
    }
    m_exportMenu->setToolTipsVisible(true);
}

bool PlanPage::exportConfig(frameworks::ConfigKind kind, const QString& path, QString* error)
{
    const std::optional<Strategy> strategy = exportStrategy();
    try {
        if (!strategy)
            throw std::runtime_error(tr("Nothing to export: no candidate is selected and nothing fits.").toStdString());
        const EstimateInput in = m_form->input();
        const std::string text = frameworks::exportConfig(kind, in, *strategy, frameworks::planIdentity(in, *strategy));
        // Written aside and renamed over the target: a failed write keeps the previous file.
        QSaveFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(QByteArray::fromStdString(text)) != static_cast<qint64>(text.size())
            || !file.commit())
            throw std::runtime_error(tr("Cannot write %1.").arg(path).toStdString());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

void PlanPage::browseExport(frameworks::ConfigKind kind)
{
    const QString name = fromView(frameworks::configKindFileName(kind));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export %1").arg(name), name);
    if (path.isEmpty())
        return;
    QString error;
    if (exportConfig(kind, path, &error)) {
        m_importMessage->setStyleSheet(QString());
        m_importMessage->setText(tr("Wrote %1.").arg(QFileInfo(path).fileName()));
    } else {
        m_importMessage->setStyleSheet(QStringLiteral("color: #d03b3b"));
        m_importMessage->setText(error);
    }
    m_importMessage->show();
}

void PlanPage::browseReport()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export report into folder"));
    if (dir.isEmpty())
        return;
    const ExportResult result = writePlanReport(currentPlan(), dir);
    m_importMessage->setStyleSheet(result.ok ? QString() : QStringLiteral("color: #d03b3b"));
    m_importMessage->setText(result.ok ? tr("Wrote the report into %1.").arg(dir) : result.error);
    m_importMessage->show();
}

bool PlanPage::openConfig(const QString& path, QString* error)
{
    const QString name = QFileInfo(path).fileName();
    try {
        const frameworks::ImportedSettings settings = frameworks::importConfigFile(path.toStdString());
        m_form->applyImported(settings);
        m_selectAfterPlan = settings.strategy;
        QStringList lines;
        lines << tr("Read %1 (%2).").arg(name, fromView(frameworks::configFormatId(settings.format)));
        for (const frameworks::ConfigWarning& w : settings.warnings)
            lines << tr("Warning: %1: %2").arg(QString::fromStdString(w.key), QString::fromStdString(w.message));
        if (!settings.autoKeys.empty())
            lines << tr("Left to the plan (\"auto\"): %1").arg(QString::fromStdString([&] {
                std::string keys;
                for (const std::string& k : settings.autoKeys)
                    keys += (keys.empty() ? "" : ", ") + k;
                return keys;
            }()));
        m_importMessage->setStyleSheet(settings.warnings.empty() ? QString() : QStringLiteral("color: #b8860b"));
        m_importMessage->setText(lines.join(QLatin1Char('\n')));
        m_importMessage->show();
    } catch (const std::exception& e) {
        const QString message = tr("Cannot read %1: %2").arg(name, QString::fromUtf8(e.what()));
        m_importMessage->setStyleSheet(QStringLiteral("color: #d03b3b"));
        m_importMessage->setText(message);
        m_importMessage->show();
        if (error)
            *error = message;
        return false;
    }
    return true;
}

QString PlanPage::importMessageText() const { return m_importMessage->isHidden() ? QString() : m_importMessage->text(); }

void PlanPage::browseOpenConfig()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a DeepSpeed or Accelerate config"), QString(),
                                                      tr("Framework configs (*.json *.yaml *.yml);;All files (*)"));
    if (!path.isEmpty())
        openConfig(path);
}

void PlanPage::changeEvent(QEvent* event)
{
    // Charts take their theme when built; rebuild so a light/dark switch reaches them.
    if (event->type() == QEvent::PaletteChange) {
        QChart* old = m_memoryChart->chart();
        m_memoryChart->setChart(createMemoryBreakdownChart(currentPlan()));
        delete old;
    }
    QWidget::changeEvent(event);
}

void PlanPage::showPlanError(const QString& message)
{
    m_error->setText(tr("Cannot plan this configuration: %1").arg(message));
    m_error->show();
    m_validate->setEnabled(false);
    // The previous plan's figures are not this configuration's: they go, so that only the message is left.
    m_recommendation->clear();
    m_steps->setSteps({});
    m_candidates->clear();
    QChart* old = m_memoryChart->chart();
    m_memoryChart->setChart(createMemoryBreakdownChart({}));
    delete old;
    emit planUpdated();
}

void PlanPage::refreshNodes()
{
    const QString current = m_node->currentText();
    const QSignalBlocker block(m_node);
    m_node->clear();
    m_node->addItems(m_workspace.nodeNames());
    const int i = m_node->findText(current);
    m_node->setCurrentIndex(i >= 0 ? i : 0);
}

void PlanPage::setValidationNode(const QString& node)
{
    const int i = m_node->findText(node);
    if (i >= 0)
        m_node->setCurrentIndex(i);
}

void PlanPage::setValidationSteps(int warmup, int timed)
{
    m_warmupSteps = warmup;
    m_timedSteps = timed;
}

QList<RunRequest> PlanPage::validationRequests() const
{
    const PlanView& plan = currentPlan();
    const bool cuda = m_device->currentData().toString() == QLatin1String("cuda");
    const QString node = m_node->currentText();
    const auto backend = static_cast<RunBackend>(m_backend->currentData().toInt());
    // A prediction is of what the plan's framework target runs: the native runner's for a native plan,
    // PyTorch's own for the fsdp2 target; another pairing has nothing to compare with.
    const bool predictsBackend = (backend == RunBackend::Native && plan.framework == Framework::Native)
        || (backend == RunBackend::Torch && plan.framework == Framework::Fsdp2);
    QList<RunRequest> requests;
    for (const PlannedRun& planned : plan.runMatrix) {
        RunRequest run;
        run.config = planned.config;
        run.config.device = cuda ? DeviceKind::Cuda : DeviceKind::Cpu;
        run.config.warmupSteps = m_warmupSteps;
        run.config.timedSteps = m_timedSteps;
        // The run matrix graphed the rows the runner can capture on a GPU; on the CPU every row runs
        // eager, and a graphed row needs the warm-up steps that settle the schedule before capture.
        requestCudaGraphs(run.config, planned.config.training.cudaGraphs);
        const std::optional<RunConfig> forBackend = configForBackend(run.config, backend);
        if (!forBackend)
            continue; // the backend cannot run it: validate() says which were left out
        run.config = *forBackend;
        run.node = node;
        run.gpuId = plan.gpuId;
        run.interconnect = plan.interconnect;
        // A prediction is for the planned GPU; a CPU measurement cannot confirm or refute it.
        if (cuda && predictsBackend) {
            for (const CandidateView& c : plan.candidates) {
                if (c.strategy == planned.strategy) {
                    store::RunPrediction prediction;
                    prediction.tokensPerS = c.tokensPerS;
                    prediction.stepS = c.stepTimeS;
                    prediction.peakBytes = static_cast<std::int64_t>(c.allocatedPeakGiB * 1024.0 * 1024.0 * 1024.0);
                    run.predicted = prediction;
                }
            }
        }
        requests << run;
    }
    return requests;
}

void PlanPage::validate()
{
    const PlanView& plan = currentPlan();
    if (plan.runMatrix.isEmpty())
        return;
    const QString node = m_node->currentText();
    if (m_validationTickets.isEmpty()) {
        m_validationCount = 0;
        m_validationCancelled = false;
    }
    const auto backend = static_cast<RunBackend>(m_backend->currentData().toInt());
    QStringList leftOut;
    for (const PlannedRun& planned : plan.runMatrix)
        if (!backendRuns(backend, planned.strategy))
            leftOut << QString::fromLatin1(strategyId(planned.strategy).data());
    const QList<RunRequest> requests = validationRequests();
    for (const RunRequest& run : requests) {
        m_validationTickets << m_queue->enqueue(run);
        ++m_validationCount;
    }
    QString status = tr("Queued %n run(s) on %1; the Runs page shows them with the rest of the queue.", nullptr,
                        static_cast<int>(requests.size()))
                         .arg(node);
    if (!leftOut.isEmpty())
        status += QLatin1Char(' ')
            + tr("Left out, as %1 cannot run them: %2.").arg(backendLabel(backend), leftOut.join(QStringLiteral(", ")));
    m_validationStatus->setText(status);
    if (requests.isEmpty())
        return;
    m_cancel->setEnabled(true);
    m_validationBar->setRange(0, 0); // busy until the first step arrives
    m_validationBar->show();
}

void PlanPage::cancelValidation()
{
    m_validationCancelled = true;
    // The running one last: cancelling it first would start the next queued one meanwhile.
    const QList<qint64> tickets = m_validationTickets;
    for (auto it = tickets.rbegin(); it != tickets.rend(); ++it)
        m_queue->cancel(*it);
}

void PlanPage::onQueuedRunEnded(qint64 ticket)
{
    m_validationTickets.removeAll(ticket);
    for (auto it = m_validationRuns.begin(); it != m_validationRuns.end();) {
        if (it.value() == ticket)
            it = m_validationRuns.erase(it);
        else
            ++it;
    }
    if (!m_validationTickets.isEmpty())
        return;
    m_cancel->setEnabled(false);
    m_validationBar->hide();
    if (m_validationCancelled)
        m_validationStatus->setText(tr("Validation cancelled."));
    emit validationFinished(m_validationCancelled);
}

void PlanPage::showValidationProgress(qint64 runId, const QList<RankProgress>& ranks)
{
    if (!m_validationRuns.contains(runId) || ranks.isEmpty())
        return;
    const RankProgress& first = ranks.front();
    const int done = m_validationCount - static_cast<int>(m_validationTickets.size()); // runs already ended
    m_validationBar->show();
    if (first.totalSteps > 0) {
        m_validationBar->setRange(0, m_validationCount * first.totalSteps);
        m_validationBar->setValue(done * first.totalSteps + first.stepsDone);
    }
    m_validationStatus->setText(tr("Run %1 of %2: step %3 of %4")
                                    .arg(done + 1)
                                    .arg(m_validationCount)
                                    .arg(first.stepsDone)
                                    .arg(first.totalSteps));
}

} // namespace shardwise::gui
