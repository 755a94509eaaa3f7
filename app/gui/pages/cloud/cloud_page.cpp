#include "pages/cloud/cloud_page.hpp"

#include "pages/cloud/checklist_model.hpp"
#include "workspace/plan_input.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/json.hpp"

#include <QComboBox>
#include <QEvent>
#include <QFile>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace shardwise::gui {

namespace {

// Where the Plan page keeps its form (plan_page.cpp): the plan this page prepares.
const QString kPlanFormKey = QStringLiteral("plan/form");
const QString kRegionKey = QStringLiteral("cloud/region");

QString joinedCommands(const std::vector<cloud::GkeCommand>& commands)
{
    QString text;
    for (const cloud::GkeCommand& c : commands)
        text += QStringLiteral("# ") + QString::fromStdString(c.purpose) + QLatin1Char('\n')
            + QString::fromStdString(c.command) + QStringLiteral("\n\n");
    return text;
}

} // namespace

CloudPage::CloudPage(Workspace& workspace, QWidget* parent)
    : QWidget(parent)
    , m_checklist(new ChecklistModel(this))
{
    Q_UNUSED(workspace);
    m_plan = new QLabel(this);
    m_plan->setWordWrap(true);
    m_regionLabel = new QLabel(this);
    m_region = new QComboBox(this);
    m_region->setMinimumContentsLength(18);
    m_regionLabel->setBuddy(m_region);
    m_strategyLabel = new QLabel(this);
    m_strategy = new QComboBox(this);
    m_strategyLabel->setBuddy(m_strategy);
    m_reload = new QPushButton(this);
    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->hide();

    m_checklistView = new QTableView(this);
    m_checklistView->setModel(m_checklist);
    m_checklistView->setSelectionBehavior(QAbstractItemView::SelectRows);
    // One line per item: the detail and the confirming command are the row's tooltip.
    m_checklistView->setWordWrap(false);
    m_checklistView->setTextElideMode(Qt::ElideRight);
    m_checklistView->verticalHeader()->hide();
    m_checklistView->horizontalHeader()->setSectionResizeMode(ChecklistModel::StatusColumn,
                                                              QHeaderView::ResizeToContents);
    m_checklistView->horizontalHeader()->setSectionResizeMode(ChecklistModel::ItemColumn, QHeaderView::Stretch);

    m_tabs = new QTabWidget(this);
    for (QPlainTextEdit*& out : m_outputs) {
        out = new QPlainTextEdit(this);
        out->setReadOnly(true);
        out->setLineWrapMode(QPlainTextEdit::NoWrap);
        out->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        m_tabs->addTab(out, QString());
    }
    m_copy = new QPushButton(this);
    m_save = new QPushButton(this);

    auto* top = new QHBoxLayout;
    top->addWidget(m_regionLabel);
    top->addWidget(m_region);
    top->addWidget(m_strategyLabel);
    top->addWidget(m_strategy);
    top->addWidget(m_reload);
    top->addStretch();
    auto* buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(m_copy);
    buttons->addWidget(m_save);
    auto* outputs = new QWidget(this);
    auto* outputsLayout = new QVBoxLayout(outputs);
    outputsLayout->setContentsMargins(0, 0, 0, 0);
    outputsLayout->addWidget(m_tabs);
    outputsLayout->addLayout(buttons);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_checklistView);
    splitter->addWidget(outputs);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_plan);
    layout->addLayout(top);
    layout->addWidget(m_error);
    layout->addWidget(splitter, 1);

    connect(m_region, &QComboBox::currentTextChanged, this, [this](const QString& region) {
        if (!region.isEmpty())
            QSettings().setValue(kRegionKey, region);
        prepare();
    });
    connect(m_strategy, &QComboBox::currentIndexChanged, this, [this] { prepare(); });
    connect(m_reload, &QPushButton::clicked, this, &CloudPage::reloadPlan);
    connect(m_copy, &QPushButton::clicked, this, &CloudPage::copyCurrentOutput);
    connect(m_save, &QPushButton::clicked, this, &CloudPage::saveWithDialog);
    retranslate();
    reloadPlan();
}

CloudPage::~CloudPage() = default;

void CloudPage::retranslate()
{
    m_regionLabel->setText(tr("&Region:"));
    m_region->setToolTip(tr("Google Cloud regions with at least one zone that lists the plan's GPU (from the dated GKE "
                            "table; the gcloud commands confirm it live)"));
    m_strategyLabel->setText(tr("S&trategy:"));
    m_strategy->setToolTip(tr("The sharding strategy the Job runs: the plan's recommendation, or another to measure it "
                              "on the same nodes"));
    m_reload->setText(tr("Use current plan"));
    m_reload->setToolTip(tr("Read the plan the Plan page shows now: model, GPU, GPUs per node, nodes and training"));
    m_checklistView->setToolTip(
        tr("Preflight checklist: pass = the commands below take care of it, warn = a risk they "
           "cannot remove, check = confirm it in your project first. Hover a row for the reason "
           "and the command that confirms it."));
    m_tabs->setTabText(GcloudOutput, tr("gcloud commands"));
    m_tabs->setTabText(KubectlOutput, tr("kubectl commands"));
    m_tabs->setTabText(ManifestOutput, tr("Job manifest"));
    m_tabs->setTabToolTip(GcloudOutput,
                          tr("Quota, zone and version checks, then the regional cluster and the GPU node pool"));
    m_tabs->setTabToolTip(KubectlOutput, tr("Credentials, starting the Job, watching nodes and pods, logs, clean-up"));
    m_tabs->setTabToolTip(ManifestOutput,
                          tr("A headless Service and an Indexed Job running shardwise-runner on every planned GPU"));
    m_copy->setText(tr("&Copy"));
    m_copy->setToolTip(tr("Copy the visible commands or manifest to the clipboard"));
    m_save->setText(tr("&Save…"));
    m_save->setToolTip(tr("Save the visible commands or manifest to a file"));
    if (m_request) {
        fillStrategies();
        prepare();
    }
}

void CloudPage::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void CloudPage::showEvent(QShowEvent* event)
{
    // The Plan page may have changed the plan while this page was hidden.
    reloadPlan();
    QWidget::showEvent(event);
}

void CloudPage::reloadPlan()
{
    QJsonObject state = QJsonDocument::fromJson(QSettings().value(kPlanFormKey).toByteArray()).object();
    if (state.isEmpty()) {
        const QList<ExamplePlan> examples = Workspace::examplePlans();
        if (!examples.isEmpty())
            state = examples.front().form;
    }
    setPlanState(state);
}

void CloudPage::setPlanState(const QJsonObject& state)
{
    if (state == m_state && m_request)
        return;
    m_state = state;
    m_request.reset();
    m_planResult.reset();
    try {
        const EstimateInput in = planInputFromState(state);
        const Plan plan = makePlan(in);
        cloud::GkeRequest r;
        r.run.model = in.model;
        r.run.training = in.training;
        r.run.device = DeviceKind::Cuda;
        r.run.worldSize = in.cluster.worldSize();
        r.gpu = in.gpu;
        r.cluster = in.cluster;
        m_planResult = plan;
        m_plan->setText(tr("Plan: %1 on %2 × %3 (%4 node(s) × %5 GPU(s)), %6")
                            .arg(QString::fromStdString(in.model.name))
                            .arg(in.cluster.worldSize())
                            .arg(QString::fromStdString(in.gpu.name))
                            .arg(in.cluster.nodes)
                            .arg(in.cluster.gpusPerNode)
                            .arg(plan.recommendation.strategy
                                     ? tr("strategy %1 (the plan's recommendation)")
                                           .arg(QString::fromLatin1(strategyId(*plan.recommendation.strategy)))
                                     : tr("no strategy fits")));
        m_request = r;
        fillStrategies();
        fillRegions(in.gpu.gkeAccelerator);
    } catch (const SpecError& e) {
        m_plan->setText(tr("Plan: not valid"));
        showError(tr("The plan cannot be read: %1").arg(QString::fromStdString(e.what())));
        return;
    }
    prepare();
}

void CloudPage::fillRegions(const std::string& accelerator)
{
    const QSignalBlocker block(m_region);
    const QString previous
        = m_region->currentText().isEmpty() ? QSettings().value(kRegionKey).toString() : m_region->currentText();
    m_region->clear();
    try {
        if (const cloud::GkeAcceleratorOffer* offer = cloud::GkeCatalog::builtin().find(accelerator))
            for (const std::string& r : offer->regions())
                m_region->addItem(QString::fromStdString(r));
    } catch (const cloud::CloudError& e) {
        showError(QString::fromStdString(e.what()));
    }
    const int i = m_region->findText(previous);
    m_region->setCurrentIndex(i >= 0 ? i
                                  : m_region->findText(QStringLiteral("us-central1")) >= 0
                                  ? m_region->findText(QStringLiteral("us-central1"))
                                  : 0);
    m_region->setEnabled(m_region->count() > 0);
}

void CloudPage::fillStrategies()
{
    const QSignalBlocker block(m_strategy);
    m_strategy->clear();
    if (!m_planResult)
        return;
    const Recommendation& rec = m_planResult->recommendation;
    for (const StrategyTraits& t : allStrategies()) {
        const QString id = QString::fromLatin1(t.id);
        QString text = id;
        if (rec.strategy == t.strategy)
            text = tr("%1 (recommended)").arg(id);
        else if (!m_planResult->candidate(t.strategy).estimate.fits())
            text = tr("%1 (does not fit)").arg(id);
        m_strategy->addItem(text, static_cast<int>(t.strategy));
    }
    const int recommended = rec.strategy ? m_strategy->findData(static_cast<int>(*rec.strategy)) : -1;
    m_strategy->setCurrentIndex(recommended);
}

void CloudPage::setStrategy(Strategy s)
{
    const int i = m_strategy->findData(static_cast<int>(s));
    if (i >= 0)
        m_strategy->setCurrentIndex(i);
}

std::optional<Strategy> CloudPage::strategy() const
{
    if (m_strategy->currentIndex() < 0)
        return std::nullopt;
    return static_cast<Strategy>(m_strategy->currentData().toInt());
}

void CloudPage::setRegion(const QString& region)
{
    const int i = m_region->findText(region);
    if (i >= 0)
        m_region->setCurrentIndex(i);
    else
        showError(tr("%1 offers no zone with this plan's GPU; pick one of the listed regions.").arg(region));
}

QString CloudPage::region() const
{
    return m_region->currentText();
}

QStringList CloudPage::regions() const
{
    QStringList out;
    for (int i = 0; i < m_region->count(); ++i)
        out << m_region->itemText(i);
    return out;
}

void CloudPage::prepare()
{
    if (!m_request || !m_planResult)
        return;
    const std::optional<Strategy> chosen = strategy();
    if (!chosen) {
        m_preparation.reset();
        m_checklist->setItems({});
        for (QPlainTextEdit* out : m_outputs)
            out->clear();
        showError(tr("No strategy fits this plan, so there is nothing to deploy. Change the plan on the Plan page, or "
                     "pick a strategy to prepare it anyway."));
        emit preparationChanged();
        return;
    }
    cloud::GkeRequest r = *m_request;
    r.run.strategy = *chosen;
    // The plan's CUDA graphs reach the Job only where the runner can capture the chosen strategy's step.
    requestCudaGraphs(r.run, r.run.training.cudaGraphs);
    const Estimate& predicted = m_planResult->candidate(*chosen).estimate;
    // The plan was made with the default calibration (setPlanState): its usable share of host RAM is the
    // one core/cloud applies to the VM's RAM.
    r.verdict = cloud::PlanVerdict { predicted.fitsDevice,
                                     predicted.memory.peakBytes() / kGiB,
                                     r.gpu.memoryGiB(),
                                     m_planResult->recommendation.strategy == *chosen,
                                     predicted.hostBytesPerNode / kGiB,
                                     Calibration {}.hostUsableFraction };
    // A GPU without a GKE offering has no regions to pick; prepareGke says why.
    r.region = m_region->currentText().isEmpty() ? std::string("us-central1") : m_region->currentText().toStdString();
    try {
        m_preparation = cloud::prepareGke(r);
    } catch (const cloud::CloudError& e) {
        m_preparation.reset();
        m_checklist->setItems({});
        for (QPlainTextEdit* out : m_outputs)
            out->clear();
        showError(QString::fromStdString(e.what()));
        emit preparationChanged();
        return;
    }
    m_error->hide();
    m_checklist->setItems(m_preparation->checklist);
    m_outputs[GcloudOutput]->setPlainText(joinedCommands(m_preparation->gcloud));
    m_outputs[KubectlOutput]->setPlainText(joinedCommands(m_preparation->kubectl));
    m_outputs[ManifestOutput]->setPlainText(QString::fromStdString(m_preparation->manifest));
    m_copy->setEnabled(true);
    m_save->setEnabled(true);
    emit preparationChanged();
}

void CloudPage::showError(const QString& message)
{
    m_error->setText(message);
    m_error->show();
    m_copy->setEnabled(false);
    m_save->setEnabled(false);
}

QString CloudPage::planText() const
{
    return m_plan->text();
}

QString CloudPage::errorText() const
{
    return m_error->isVisible() || !m_preparation ? m_error->text() : QString();
}

} // namespace shardwise::gui
