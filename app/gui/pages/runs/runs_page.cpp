#include "pages/runs/runs_page.hpp"

#include "models/display_format.hpp"
#include "models/log_tail_model.hpp"
#include "models/rank_progress_model.hpp"
#include "models/run_diagnosis_view.hpp"
#include "models/run_history_model.hpp"
#include "models/run_progress.hpp"
#include "models/run_queue_model.hpp"
#include "pages/runs/run_diagnosis_panel.hpp"
#include "pages/runs/run_request_form.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/store/remote_follow.hpp"
#include "shardwise/store/runs.hpp"

#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListView>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace shardwise::gui {

namespace {

QTableView* makeTable(QAbstractItemModel* model, const char* name, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setObjectName(QString::fromLatin1(name));
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    return view;
}

} // namespace

RunsPage::RunsPage(Workspace& workspace, QWidget* parent)
    : QWidget(parent)
    , m_workspace(workspace)
{
    m_job = workspace.runQueue();
    m_form = new RunRequestForm(this);
    m_queue = new RunQueueModel(this);
    m_history = new RunHistoryModel(this);
    m_ranks = new RankProgressModel(this);
    m_log = new LogTailModel(kLiveLineCap, this);
    m_diagnosis = new RunDiagnosisPanel(this);

    m_queueView = makeTable(m_queue, "runQueue", this);
    m_historyView = makeTable(m_history, "runHistory", this);
    m_rankView = makeTable(m_ranks, "rankProgress", this);
    m_logView = new QListView(this);
    m_logView->setObjectName(QStringLiteral("logTail"));
    m_logView->setModel(m_log);
    m_logView->setUniformItemSizes(true);

    m_cancel = new QPushButton(tr("&Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("cancelRun"));
    m_cancel->setToolTip(
        tr("Stops the selected run (its ranks get SIGTERM, then SIGKILL) or takes a queued one off the queue."));
    m_cancel->setEnabled(false);
    auto* refresh = new QPushButton(tr("R&efresh"), this);
    refresh->setObjectName(QStringLiteral("refreshHistory"));
    m_reattach = new QPushButton(tr("Re-&attach"), this);
    m_reattach->setObjectName(QStringLiteral("reattachRun"));
    m_reattach->setToolTip(
        tr("Follows the selected detached run again: its ranks kept running on their SSH node, and what they "
           "wrote since is recorded into the same run."));
    m_reattach->setEnabled(false);
    m_abandon = new QPushButton(tr("Aba&ndon…"), this);
    m_abandon->setObjectName(QStringLiteral("abandonRun"));
    m_abandon->setToolTip(
        tr("Gives up the selected detached run for good: its ranks still running are stopped on every node "
           "that answers, and it is kept as lost, no longer offered for re-attaching."));
    m_abandon->setEnabled(false);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("runsStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);

    auto* newRun = new QGroupBox(tr("New run"), this);
    (new QVBoxLayout(newRun))->addWidget(m_form);

    auto* queueBox = new QGroupBox(tr("Queue"), this);
    auto* queueLayout = new QVBoxLayout(queueBox);
    queueLayout->addWidget(m_queueView);
    m_queueTotal = new QLabel(this);
    m_queueTotal->setObjectName(QStringLiteral("queueTotal"));
    m_queueTotal->setWordWrap(true);
    m_queueTotal->setTextFormat(Qt::PlainText);
    queueLayout->addWidget(m_queueTotal);
    queueLayout->addWidget(m_cancel, 0, Qt::AlignRight);
    m_clock = new QTimer(this);
    m_clock->setInterval(1000);

    auto* historyBox = new QGroupBox(tr("History"), this);
    auto* historyLayout = new QVBoxLayout(historyBox);
    historyLayout->addWidget(m_historyView);
    auto* historyButtons = new QHBoxLayout;
    historyButtons->addStretch(1);
    historyButtons->addWidget(m_reattach);
    historyButtons->addWidget(m_abandon);
    historyButtons->addWidget(refresh);
    historyLayout->addLayout(historyButtons);

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("runDetailTabs"));
    m_tabs->addTab(m_rankView, tr("Ranks"));
    m_tabs->addTab(m_logView, tr("Log"));
    m_tabs->addTab(m_diagnosis, tr("Diagnosis"));

    auto* left = new QSplitter(Qt::Vertical, this);
    left->addWidget(newRun);
    left->addWidget(queueBox);
    auto* right = new QSplitter(Qt::Vertical, this);
    right->addWidget(historyBox);
    right->addWidget(m_tabs);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(1, 3);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split, 1);
    layout->addWidget(m_status);

    connect(m_form, &RunRequestForm::queueRequested, this, [this] { queueFromForm(); });
    connect(m_cancel, &QPushButton::clicked, this, &RunsPage::cancelSelected);
    connect(refresh, &QPushButton::clicked, this, &RunsPage::reloadHistory);
    connect(m_reattach, &QPushButton::clicked, this, [this] { reattachSelected(); });
    connect(m_abandon, &QPushButton::clicked, this, [this] { abandonSelected(); });
    connect(m_job, &RunJob::queueChanged, this, &RunsPage::refreshQueue);
    connect(m_clock, &QTimer::timeout, this, &RunsPage::onClockTick);
    connect(m_job, &RunJob::runStarted, this, &RunsPage::onRunStarted);
    connect(m_job, &RunJob::rankProgressAvailable, this, &RunsPage::onRankProgress);
    connect(m_job, &RunJob::logLinesAvailable, this, &RunsPage::onLogLines);
    connect(m_job, &RunJob::runFinished, this, &RunsPage::onRunFinished);
    connect(m_job, &RunJob::runFailed, this, &RunsPage::onRunFailed);
    connect(m_diagnosis, &RunDiagnosisPanel::actionTriggered, this, &RunsPage::onDiagnosisAction);
    connect(m_historyView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid())
                    showRun(current.data(RunHistoryModel::RunIdRole).toLongLong());
                updateReattach();
            });
    connect(m_queueView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] { refreshQueue(); });
    connect(&m_workspace, &Workspace::runsChanged, this, &RunsPage::reloadHistory);
    connect(&m_workspace, &Workspace::nodesChanged, this, [this] {
        m_form->setNodes(m_workspace.nodeNames());
        updateRunnerAvailability();
    });
    connect(m_form->nodeBox(), &QComboBox::currentTextChanged, this, [this] { updateRunnerAvailability(); });

    m_form->setNodes(m_workspace.nodeNames());
    updateRunnerAvailability();
    updateQueueTotal();
    reloadHistory();
}

RunsPage::~RunsPage() = default;

void RunsPage::updateRunnerAvailability()
{
    // SSH nodes run the runner their preparation built; only this machine needs one here.
    const bool found = m_form->node() != QLatin1String("local") || RunJob::runnerPath().has_value();
    m_form->queueButton()->setEnabled(found);
    m_form->queueButton()->setToolTip(
        found ? tr("Adds the run to the queue; runs are measured one after another.")
              : tr("shardwise-runner was not found: set SHARDWISE_RUNNER or install it beside this program."));
}

void RunsPage::setStatus(const QString& text, bool problem)
{
    m_status->setText(text);
    m_status->setProperty("problem", problem);
    m_status->setStyleSheet(problem ? QStringLiteral("color: #c0392b;") : QString());
}

qint64 RunsPage::queueFromForm()
{
    QString error;
    const std::optional<RunConfig> config = m_form->config(&error);
    if (!config) {
        setStatus(tr("The run cannot be queued: %1").arg(error), true);
        return 0;
    }
    RunRequest request;
    request.config = *config;
    request.node = m_form->node();
    return queueRun(request);
}

qint64 RunsPage::queueRun(const RunRequest& request)
{
    updateRunnerAvailability();
    if (request.node == QLatin1String("local") && !RunJob::runnerPath()) {
        setStatus(tr("shardwise-runner was not found: set SHARDWISE_RUNNER or install it beside this program."), true);
        return 0;
    }
    const qint64 ticket = m_job->enqueue(request);
    setStatus(tr("Queued %1 on %2 with %n rank(s).", nullptr, request.config.worldSize)
                  .arg(strategyLabel(request.config.strategy), request.node),
              false);
    return ticket;
}

void RunsPage::refreshQueue()
{
    const qint64 selectedTicket
        = m_queueView->currentIndex().isValid() ? m_queue->ticketAt(m_queueView->currentIndex().row()) : 0;
    const std::optional<RunRequest> running = m_job->running();
    const QList<RunRequest> queued = m_job->queued();
    // The first queued request starting keeps the rows' tickets: that it runs now changes the model too.
    const bool wasRunning = m_queue->rowCount() > 0 && m_queue->index(0, 0).data(RunQueueModel::RunningRole).toBool();
    const bool changed = m_queue->rowCount() != static_cast<int>(queued.size()) + (running ? 1 : 0)
        || (running && m_queue->ticketAt(0) != running->ticket) || wasRunning != running.has_value();
    if (changed) {
        m_queue->setQueue(running, queued);
        for (int row = 0; row < m_queue->rowCount(); ++row)
            if (m_queue->ticketAt(row) == selectedTicket)
                m_queueView->selectRow(row);
    }
    m_cancel->setEnabled(m_queue->rowCount() > 0);
    updateQueueTotal();
    updateReattach();
}

void RunsPage::cancelSelected()
{
    qint64 ticket = 0;
    if (m_queueView->currentIndex().isValid())
        ticket = m_queue->ticketAt(m_queueView->currentIndex().row());
    if (ticket == 0) {
        if (const auto running = m_job->running())
            ticket = running->ticket;
    }
    if (ticket == 0)
        return;
    if (const auto running = m_job->running();
        running && running->ticket == ticket && m_ranks->watchedRunId() == m_liveRun)
        m_ranks->setCancelling(true);
    m_job->cancel(ticket);
    setStatus(tr("Cancelling…"), false);
}

void RunsPage::reloadHistory()
{
    if (!m_workspace.database())
        return;
    try {
        m_history->setRuns(store::listRuns(*m_workspace.database()));
    } catch (const std::exception& e) {
        setStatus(tr("The run history could not be read: %1").arg(QString::fromUtf8(e.what())), true);
        return;
    }
    if (const int row = m_history->rowOf(m_shownRun); row >= 0) {
        const QSignalBlocker blocker(m_historyView->selectionModel());
        m_historyView->selectRow(row);
    }
    updateReattach();
}

void RunsPage::showRun(qint64 runId)
{
    m_shownRun = runId;
    if (runId != 0 && runId == m_liveRun && m_job->runningRunId() == runId) {
        m_ranks->watch(runId);
        m_ranks->update(runId, m_liveRanks);
        m_log->setLines(runId, m_liveLines);
        m_diagnosis->showNothing(tr("Run %1 is still running.").arg(runId));
        return;
    }
    showStoredRun(runId);
}

void RunsPage::showStoredRun(qint64 runId)
{
    m_ranks->watch(runId);
    m_log->watch(runId);
    if (runId == 0 || !m_workspace.database()) {
        m_diagnosis->showNothing(tr("Select a run that did not complete to see why."));
        return;
    }
    const store::Database& db = *m_workspace.database();
    try {
        const std::optional<store::RunDetail> detail = store::runDetail(db, runId);
        if (!detail) {
            m_diagnosis->showNothing(tr("Run %1 is no longer stored.").arg(runId));
            return;
        }
        m_ranks->update(runId, storedRankProgress(db, *detail));
        m_log->setLines(runId, storedLogLines(db, runId));
        if (detail->diagnoses.empty()) {
            if (detail->summary.status == store::RunStatus::Completed)
                m_diagnosis->showNothing(tr("Run %1 completed; there is nothing to diagnose.").arg(runId));
            else
                m_diagnosis->showNothing(tr("Run %1 ended as \"%2\" without a stored diagnosis. %3")
                                             .arg(runId)
                                             .arg(RunHistoryModel::statusText(detail->summary.status),
                                                  QString::fromStdString(detail->summary.note)));
            return;
        }
        // The newest diagnosis is the one that counts (a rerun of the diagnosis replaces older ones).
        const store::Diagnosis& stored = *std::max_element(detail->diagnoses.begin(), detail->diagnoses.end(),
                                                           [](const auto& a, const auto& b) { return a.id < b.id; });
        const RunDiagnosisView view = diagnosisViewFromJson(stored.document);
        m_diagnosis->showDiagnosis(runId, view);
        QStringList needles;
        if (const DiagnosisFailure* root = view.rootCauseFailure())
            for (const DiagnosisEvidence& e : root->evidence)
                needles << e.text;
        m_log->setHighlighted(needles);
        if (const int row = m_log->firstHighlightedRow(); row >= 0)
            m_logView->scrollTo(m_log->index(row), QAbstractItemView::PositionAtCenter);
    } catch (const std::exception& e) {
        m_diagnosis->showNothing(tr("Run %1 could not be read: %2").arg(runId).arg(QString::fromUtf8(e.what())));
    }
}

void RunsPage::onDiagnosisAction(qint64 runId, const DiagnosisAction& action)
{
    if (!m_workspace.database())
        return;
    try {
        const std::optional<store::RunDetail> detail = store::runDetail(*m_workspace.database(), runId);
        if (!detail || detail->config.is_null()) {
            setStatus(tr("Run %1 has no stored configuration to rerun.").arg(runId), true);
            return;
        }
        RunRequest request;
        request.config = runConfigFromJson(detail->config);
        request.rerunOf = runId;
        // Measured against the same network as the run it repeats.
        request.interNodeGBps = detail->summary.interNodeGBps;
        request.node = detail->summary.nodes.empty() ? QStringLiteral("local")
                                                     : QString::fromStdString(detail->summary.nodes.front());
        if (action.kind == QLatin1String("rerun_with_expandable_segments"))
            request.config.training.expandableSegments = true;
        else if (action.strategy)
            request.config.strategy = *action.strategy;
        // A graphed run rerun with deeper sharding or offload: graphs stay only where the new strategy's
        // step can be captured, so an offload rerun runs eager instead of failing its configuration.
        requestCudaGraphs(request.config, request.config.training.cudaGraphs);
        if (queueRun(request) != 0)
            setStatus(tr("Queued a rerun of run %1: %2").arg(runId).arg(action.text), false);
    } catch (const std::exception& e) {
        setStatus(tr("Run %1 cannot be rerun: %2").arg(runId).arg(QString::fromUtf8(e.what())), true);
    }
}

} // namespace shardwise::gui
