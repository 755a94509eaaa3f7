// The Plan page's validation: the run matrix of the current plan queued on the chosen node, device
// and backend into the workspace's run queue, its progress and its cancellation.
#include "pages/plan/plan_page.hpp"

#include "jobs/run_job.hpp"
#include "models/candidate_table_model.hpp"
#include "models/run_backend.hpp"
#include "pages/plan/plan_form.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/calibrate/network.hpp"
#include "shardwise/plan/plan.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace shardwise::gui {

QVBoxLayout* PlanPage::createValidationRow()
{
    m_node = new QComboBox;
    m_node->setObjectName(QStringLiteral("validationNodeCombo"));
    m_node->setToolTip(tr("Where the validation runs are measured."));
    m_device = new QComboBox;
    m_device->setObjectName(QStringLiteral("validationDeviceCombo"));
    m_device->addItem(tr("CPU"), QStringLiteral("cpu"));
    m_device->addItem(tr("CUDA GPUs"), QStringLiteral("cuda"));
    m_device->setToolTip(
        tr("CPU runs exercise every strategy's schedule on any machine; their throughput says nothing about a GPU."));
    m_backend = new QComboBox;
    m_backend->setObjectName(QStringLiteral("validationBackendCombo"));
    for (RunBackend b : { RunBackend::Native, RunBackend::Torch }) {
        m_backend->addItem(backendLabel(b), static_cast<int>(b));
        m_backend->setItemData(m_backend->count() - 1, backendToolTip(b), Qt::ToolTipRole);
    }
    m_backend->setToolTip(
        tr("What measures the runs: Shardwise's runner, or PyTorch itself (DDP and fully_shard, the "
           "runs the PyTorch FSDP2 target predicts). Strategies PyTorch cannot express are left out."));
    m_validate = new QPushButton(tr("V&alidate"));
    m_validate->setObjectName(QStringLiteral("validateButton"));
    m_validate->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_validate->setToolTip(
        tr("Queue the plan's run matrix (the recommendation and what the decision order says to measure beside it) "
           "with the same model, precision, micro-batch, sequence and GPU count (%1).")
            .arg(m_validate->shortcut().toString(QKeySequence::NativeText)));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName(QStringLiteral("cancelValidationButton"));
    m_cancel->setEnabled(false);
    m_cancel->setToolTip(tr("Stop the running measurement and drop the queued ones."));
    // Node names and backend labels can be long: the combos stay narrow (the list shows them in full).
    // Where to validate on one line and the buttons below it, so that the rows fit the results
    // column of a 1024 px window; the progress bar, while runs are queued, beside the buttons.
    for (QComboBox* combo : { m_node, m_backend }) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(8);
    }
    auto* where = new QHBoxLayout;
    where->addWidget(new QLabel(tr("Validate on:")));
    where->addWidget(m_node);
    where->addWidget(m_device);
    where->addWidget(m_backend);
    where->addStretch(1);
    m_validationBar = new QProgressBar;
    m_validationBar->setObjectName(QStringLiteral("validationProgress"));
    m_validationBar->hide();
    auto* actions = new QHBoxLayout;
    actions->addWidget(m_validate);
    actions->addWidget(m_cancel);
    // Beside Validate, on the same backend: one rank of the plan's world on this machine's GPU.
    actions->addWidget(createRehearsalButton());
    actions->addWidget(m_validationBar, 1);
    actions->addStretch(0);
    auto* validateRow = new QVBoxLayout;
    validateRow->addLayout(where);
    validateRow->addLayout(actions);
    m_validationStatus = new QLabel;
    m_validationStatus->setObjectName(QStringLiteral("validationStatus"));
    m_validationStatus->setWordWrap(true);
    connect(m_validate, &QPushButton::clicked, this, &PlanPage::validate);
    connect(m_cancel, &QPushButton::clicked, this, &PlanPage::cancelValidation);
    return validateRow;
}

void PlanPage::connectValidationQueue()
{
    connect(m_queue, &RunJob::runStarted, this, [this](qint64 ticket, qint64 runId) {
        if (m_validationTickets.contains(ticket))
            m_validationRuns.insert(runId, ticket);
    });
    connect(m_queue, &RunJob::rankProgressAvailable, this, &PlanPage::showValidationProgress);
    connect(m_queue, &RunJob::runFinished, this,
            [this](qint64 ticket, qint64 runId, const QString& status, const QString& summary) {
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
}

void PlanPage::refreshNodes()
{
    if (m_workspace.database()) {
        try {
            m_form->setMeasuredNetworks(calibrate::measuredNetworks(*m_workspace.database()));
        } catch (const std::exception&) {
            m_form->setMeasuredNetworks({}); // unreadable probes offer no measured network
        }
    }
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

bool PlanPage::expandableSegmentsAsked() const
{
    return m_form->state().value(QStringLiteral("expandable_segments")).toBool();
}

QString PlanPage::validationSuggestion() const
{
    if (expandableSegmentsAsked())
        return {};
    QStringList suggested;
    for (const PlannedRun& planned : currentPlan().runMatrix)
        if (planned.config.training.expandableSegments)
            suggested << QString::fromLatin1(strategyId(planned.strategy).data());
    if (suggested.isEmpty())
        return {};
    return tr("Suggestion: %1 on PCIe needed expandable segments in the reference; tick \"%2\" under Allocator to "
              "measure it that way. Validate kept your setting (off).")
        .arg(suggested.join(QStringLiteral(", ")), QStringLiteral("expandable_segments:True"));
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
        // The allocator setting the user chose, never one the run matrix picked for them
        // (validationSuggestion() says when the reference ran otherwise).
        run.config.training.expandableSegments = expandableSegmentsAsked();
        const std::optional<RunConfig> forBackend = configForBackend(run.config, backend);
        if (!forBackend)
            continue; // the backend cannot run it: validate() says which were left out
        run.config = *forBackend;
        run.node = node;
        run.gpuId = plan.gpuId;
        run.interconnect = plan.interconnect;
        if (plan.interNodeGBps > 0) // recorded with the run, as shardwise-cli run --inter-node-gbps does
            run.interNodeGBps = plan.interNodeGBps;
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
    if (const QString suggestion = validationSuggestion(); !suggestion.isEmpty())
        status += QLatin1Char(' ') + suggestion;
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
