#include "pages/plan/plan_page.hpp"

#include "charts/memory_breakdown_chart.hpp"
#include "jobs/plan_job.hpp"
#include "jobs/run_job.hpp"
#include "models/candidate_table_model.hpp"
#include "models/decision_step_model.hpp"
#include "pages/plan/pinned_plans_panel.hpp"
#include "pages/plan/plan_form.hpp"
#include "pages/plan/what_if_panel.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/json.hpp"

#include <QChartView>
#include <QComboBox>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonDocument>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTabBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace shardwise::gui {

namespace {
const QString kFormKey = QStringLiteral("plan/form");
const QString kSplitterKey = QStringLiteral("plan/splitter");

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
    formScroll->setObjectName(QStringLiteral("planFormScroll"));
    formScroll->setWidget(m_form);
    formScroll->setWidgetResizable(true);
    // The form at its narrowest beside a vertical scroll bar: the results keep the rest of the window.
    formScroll->setMinimumWidth(m_form->minimumSizeHint().width()
                                + formScroll->style()->pixelMetric(QStyle::PM_ScrollBarExtent)
                                + 2 * formScroll->frameWidth());

    auto* results = new QWidget;
    auto* resultsLayout = new QVBoxLayout(results);
    resultsLayout->setContentsMargins(6, 4, 6, 4); // the window's height goes to the results, not to margins
    m_recommendation = new QLabel;
    m_recommendation->setObjectName(QStringLiteral("recommendationLabel"));
    m_recommendation->setWordWrap(true);
    QFont big = m_recommendation->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    big.setBold(true);
    m_recommendation->setFont(big);
    m_recommendation->setToolTip(
        tr("The decision order: lightest sharding that fits, then full sharding chosen by interconnect, "
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

    QHBoxLayout* configRow = createExportRow();
    m_stepView = makeTable(m_steps, results);
    m_stepView->setObjectName(QStringLiteral("decisionStepView"));
    m_stepView->horizontalHeader()->setSectionResizeMode(DecisionStepModel::StepColumn, QHeaderView::ResizeToContents);
    m_stepView->horizontalHeader()->setSectionResizeMode(DecisionStepModel::VerdictColumn,
                                                         QHeaderView::ResizeToContents);
    m_stepView->horizontalHeader()->setSectionResizeMode(DecisionStepModel::ReasonColumn, QHeaderView::Stretch);
    m_stepView->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_stepView->setMinimumHeight(150);
    m_stepView->setMaximumHeight(260);

    m_candidateView = makeTable(m_candidates, results);
    m_candidateView->setObjectName(QStringLiteral("candidateView"));
    m_candidateView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_candidateView->horizontalHeader()->setStretchLastSection(true);

    m_memoryChart = new QChartView(createMemoryBreakdownChart({}));
    m_memoryChart->setObjectName(QStringLiteral("memoryChart"));
    m_memoryChart->setRenderHint(QPainter::Antialiasing);
    m_memoryChart->setMinimumHeight(240);
    m_memoryChart->setToolTip(
        tr("The predicted peak per GPU of each strategy, stacked by kind. The dashed line is the usable "
           "GPU memory (less the planner's headroom): a bar above it does not fit."));

    m_whatIf = new WhatIfPanel;
    m_figures = new QStackedWidget;
    m_figures->setObjectName(QStringLiteral("planFigures"));
    m_figures->addWidget(m_memoryChart);
    m_figures->addWidget(m_whatIf);
    m_savedForm = std::make_unique<PlanForm>();
    m_pinned = new PinnedPlansPanel(m_workspace, [this](const QJsonObject& form) -> std::optional<EstimateInput> {
        m_savedForm->setState(form);
        try {
            return m_savedForm->input();
        } catch (const std::exception&) {
            return std::nullopt;
        }
    });
    m_figures->addWidget(m_pinned);
    connect(m_pinned, &PinnedPlansPanel::openRequested, m_form, &PlanForm::setState);
    // The tabs take no height of their own: they share the row of Open config and Export.
    m_figureTabs = new QTabBar;
    m_figureTabs->setObjectName(QStringLiteral("planFigureTabs"));
    m_figureTabs->setDocumentMode(true);
    m_figureTabs->setDrawBase(false);
    m_figureTabs->setExpanding(false);
    m_figureTabs->addTab(WhatIfPanel::memoryTabTitle());
    m_figureTabs->addTab(WhatIfPanel::tabTitle());
    m_figureTabs->addTab(PinnedPlansPanel::tabTitle());
    configRow->addWidget(m_figureTabs);
    connect(m_figureTabs, &QTabBar::currentChanged, m_figures, &QStackedWidget::setCurrentIndex);

    QVBoxLayout* validateRow = createValidationRow();

    resultsLayout->addLayout(configRow);
    resultsLayout->addWidget(m_importMessage);
    resultsLayout->addWidget(m_recommendation);
    resultsLayout->addWidget(m_planBusy);
    resultsLayout->addWidget(m_error);
    resultsLayout->addWidget(m_stepView);
    resultsLayout->addWidget(m_candidateView, 1);
    resultsLayout->addWidget(m_figures, 2);
    resultsLayout->addLayout(validateRow);
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
    connectValidationQueue();
    connect(m_candidateView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &PlanPage::updateRehearsalAction);
    connect(m_backend, &QComboBox::currentIndexChanged, this, &PlanPage::updateRehearsalAction);
    connect(&m_workspace, &Workspace::nodesChanged, this, &PlanPage::updateRehearsalAction);

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
    connect(splitter, &QSplitter::splitterMoved, this,
            [splitter] { QSettings().setValue(kSplitterKey, splitter->saveState()); });
    schedulePlan();
}

PlanPage::~PlanPage() = default;

const PlanView& PlanPage::currentPlan() const
{
    return m_candidates->plan();
}

QString PlanPage::recommendationText() const
{
    return m_recommendation->text();
}

QString PlanPage::errorText() const
{
    return m_error->isVisible() ? m_error->text() : QString();
}

void PlanPage::schedulePlan()
{
    m_debounce->stop();
    try {
        const EstimateInput input = m_form->input();
        QSettings().setValue(kFormKey, QJsonDocument(m_form->state()).toJson(QJsonDocument::Compact));
        m_formInvalid = false;
        m_job->request(input);
        m_whatIf->setBaseInput(input);
        m_pinned->setCurrent(m_form->state(), input);
    } catch (const SpecError& e) {
        m_formInvalid = true;
        m_whatIf->clearBase();
        m_pinned->clearCurrent();
        // Name the form's field as the user sees it, then core's reason with its bound.
        const QString label = m_form->fieldLabel(e.field());
        showPlanError(label.isEmpty() ? QString::fromUtf8(e.what())
                                      : tr("%1: %2").arg(label, QString::fromUtf8(e.what())));
    } catch (const std::exception& e) {
        m_formInvalid = true;
        m_whatIf->clearBase();
        m_pinned->clearCurrent();
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
    updateRehearsalAction();
    emit planUpdated();
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
    updateRehearsalAction();
    emit planUpdated();
}

} // namespace shardwise::gui
