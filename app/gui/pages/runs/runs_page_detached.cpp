// The Runs page's actions on a detached run (its ranks go on on an SSH node with nothing following
// them): re-attach it, or abandon it after a confirmation.
#include "pages/runs/runs_page.hpp"

#include "models/run_history_model.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/spec/json.hpp"
#include "shardwise/store/runs.hpp"

#include <QMessageBox>
#include <QPushButton>
#include <QTableView>

namespace shardwise::gui {

void RunsPage::updateReattach()
{
    const QModelIndex current = m_historyView->currentIndex();
    bool detached = false;
    if (current.isValid() && m_workspace.database()) {
        const qint64 runId = current.data(RunHistoryModel::RunIdRole).toLongLong();
        const auto summary = store::findRun(*m_workspace.database(), runId);
        detached = summary && summary->status == store::RunStatus::Detached && m_job->runningRunId() != runId;
        for (const RunRequest& queued : m_job->queued())
            detached = detached && queued.reattachOf != runId && queued.abandonOf != runId;
        if (const auto running = m_job->running())
            detached = detached && running->abandonOf != runId;
    }
    m_reattach->setEnabled(detached);
    m_abandon->setEnabled(detached);
}

std::optional<RunRequest> RunsPage::requestAboutDetached(qint64 runId) const
{
    const std::optional<store::RunDetail> detail = store::runDetail(*m_workspace.database(), runId);
    if (!detail || detail->summary.status != store::RunStatus::Detached)
        return std::nullopt;
    RunRequest request;
    request.config = runConfigFromJson(detail->config);
    request.node = detail->summary.nodes.empty() ? QString() : QString::fromStdString(detail->summary.nodes.front());
    return request;
}

qint64 RunsPage::abandonSelected()
{
    const QModelIndex current = m_historyView->currentIndex();
    if (!current.isValid() || !m_workspace.database())
        return 0;
    const qint64 runId = current.data(RunHistoryModel::RunIdRole).toLongLong();
    QMessageBox confirm(
        QMessageBox::Question, tr("Abandon run %1").arg(runId),
        tr("Abandon run %1? On every node of the run that answers, its ranks still running are stopped; "
           "the run is kept as lost and can no longer be re-attached.")
            .arg(runId),
        QMessageBox::Yes | QMessageBox::Cancel, this);
    confirm.setObjectName(QStringLiteral("confirmAbandon"));
    confirm.setDefaultButton(QMessageBox::Cancel);
    if (confirm.exec() != QMessageBox::Yes)
        return 0;
    try {
        std::optional<RunRequest> request = requestAboutDetached(runId);
        if (!request) {
            setStatus(tr("Run %1 is not detached; only a detached run can be abandoned.").arg(runId), true);
            updateReattach();
            return 0;
        }
        request->abandonOf = runId;
        const qint64 ticket = m_job->enqueue(*request);
        setStatus(tr("Abandoning run %1: stopping its ranks where its node answers.").arg(runId), false);
        updateReattach();
        return ticket;
    } catch (const std::exception& e) {
        setStatus(tr("Run %1 cannot be abandoned: %2").arg(runId).arg(QString::fromUtf8(e.what())), true);
        return 0;
    }
}

qint64 RunsPage::reattachSelected()
{
    const QModelIndex current = m_historyView->currentIndex();
    if (!current.isValid() || !m_workspace.database())
        return 0;
    const qint64 runId = current.data(RunHistoryModel::RunIdRole).toLongLong();
    try {
        std::optional<RunRequest> request = requestAboutDetached(runId);
        if (!request) {
            setStatus(tr("Run %1 is not detached; only a detached run can be re-attached.").arg(runId), true);
            return 0;
        }
        request->reattachOf = runId;
        const qint64 ticket = m_job->enqueue(*request);
        setStatus(tr("Re-attaching run %1 on %2.").arg(runId).arg(request->node), false);
        updateReattach();
        return ticket;
    } catch (const std::exception& e) {
        setStatus(tr("Run %1 cannot be re-attached: %2").arg(runId).arg(QString::fromUtf8(e.what())), true);
        return 0;
    }
}

} // namespace shardwise::gui
