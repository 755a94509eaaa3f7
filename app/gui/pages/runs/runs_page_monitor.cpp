// The Runs page while runs go: the running run's ranks and log as its signals deliver them, its
// elapsed time and time left in the queue (ticking once a second), the whole queue's time left, the
// ranks' states when it is cancelled or ends, and the status line with the diagnosed cause of a run
// that failed.
#include "pages/runs/runs_page.hpp"

#include "models/log_tail_model.hpp"
#include "models/rank_progress_model.hpp"
#include "models/run_diagnosis_view.hpp"
#include "models/run_history_model.hpp"
#include "models/run_queue_model.hpp"
#include "pages/runs/run_diagnosis_panel.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/store/runs.hpp"

#include <QDateTime>
#include <QLabel>
#include <QListView>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>

#include <algorithm>

namespace shardwise::gui {

void RunsPage::onRunStarted(qint64 ticket, qint64 runId)
{
    Q_UNUSED(ticket)
    m_liveRun = runId;
    m_liveRanks.clear();
    m_liveLines.clear();
    // Elapsed counts from the run's recorded start: a re-attached run's began before its detach.
    double startedAt = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    try {
        if (m_workspace.database())
            if (const auto summary = store::findRun(*m_workspace.database(), runId))
                startedAt = summary->startedAt;
    } catch (const std::exception&) {
        // The store unreadable for a moment: elapsed counts from now.
    }
    m_queue->setRunningStart(startedAt);
    m_clock->start();
    updateQueueTotal();
    reloadHistory();
    showRun(runId);
    if (const int row = m_history->rowOf(runId); row >= 0) {
        const QSignalBlocker blocker(m_historyView->selectionModel());
        m_historyView->selectRow(row);
    }
    m_tabs->setCurrentWidget(m_rankView);
}

void RunsPage::onRankProgress(qint64 runId, const QList<RankProgress>& ranks)
{
    if (runId != m_liveRun)
        return; // a late delivery of an earlier run
    m_liveRanks = ranks;
    m_ranks->update(runId, ranks);
    if (!ranks.isEmpty()) {
        const RankProgress& first = ranks.front();
        m_queue->setRunningSteps(first.stepsDone, first.totalSteps,
                                 first.stepsDone > 0 ? std::optional<double>(first.medianStepS) : std::nullopt);
        updateQueueTotal();
    }
}

void RunsPage::onLogLines(qint64 runId, const QList<RunLogLine>& lines)
{
    if (runId != m_liveRun)
        return;
    m_liveLines.append(lines);
    if (m_liveLines.size() > kLiveLineCap)
        m_liveLines.remove(0, m_liveLines.size() - kLiveLineCap);
    m_log->append(runId, lines);
    m_logView->scrollToBottom();
}

void RunsPage::onClockTick()
{
    m_queue->tick();
    updateQueueTotal();
    if (m_queue->rowCount() == 0)
        m_clock->stop();
}

void RunsPage::updateQueueTotal()
{
    const int runs = m_queue->rowCount();
    if (runs == 0) {
        m_queueTotal->setText(tr("The queue is empty."));
        return;
    }
    const RunEstimate total = m_queue->queueEstimate();
    QString text;
    if (total.kind == RunEstimate::Kind::Unknown)
        text = tr("%n run(s) in the queue; time left unknown: a queued run carries no predicted step time.", nullptr,
                  runs);
    else
        text = tr("%n run(s) in the queue; time left: %1.", nullptr, runs).arg(estimateText(total));
    if (const auto elapsed = m_queue->elapsedSeconds())
        text += QLatin1Char(' ') + tr("The running run has run for %1.").arg(formatDuration(*elapsed));
    m_queueTotal->setText(text);
}

QString RunsPage::diagnosedCause(qint64 runId) const
{
    if (!m_workspace.database())
        return {};
    try {
        const std::optional<store::RunDetail> detail = store::runDetail(*m_workspace.database(), runId);
        if (!detail || detail->diagnoses.empty())
            return {};
        const store::Diagnosis& newest = *std::max_element(detail->diagnoses.begin(), detail->diagnoses.end(),
                                                           [](const auto& a, const auto& b) { return a.id < b.id; });
        const RunDiagnosisView view = diagnosisViewFromJson(newest.document);
        //: status line after a run failed: run id, how it ended, the diagnosis's headline
        return tr("Run %1 ended as \"%2\". %3")
            .arg(runId)
            .arg(RunHistoryModel::statusText(detail->summary.status), RunDiagnosisPanel::headlineFor(view));
    } catch (const std::exception&) {
        return {}; // the run job's own summary stands
    }
}

void RunsPage::onRunFinished(qint64 ticket, qint64 runId, const QString& status, const QString& summary, bool diagnosed)
{
    Q_UNUSED(ticket)
    m_liveRun = 0;
    m_ranks->setCancelling(false);
    const QString cause = diagnosed ? diagnosedCause(runId) : QString();
    setStatus(cause.isEmpty() ? summary : cause, status != QLatin1String("completed"));
    reloadHistory();
    if (m_shownRun == runId) {
        showStoredRun(runId);
        if (diagnosed)
            m_tabs->setCurrentWidget(m_diagnosis);
    }
    updateQueueTotal();
}

void RunsPage::onRunFailed(qint64 ticket, const QString& message)
{
    Q_UNUSED(ticket)
    setStatus(message, true);
}

} // namespace shardwise::gui
