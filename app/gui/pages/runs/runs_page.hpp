#pragma once
// Runs: queue measured runs on a node, watch each rank live (steps done, tokens/s so far, memory)
// with the ranks' log tail, each run's elapsed time and time left and the whole queue's, cancel, re-attach a detached
// run on an SSH node (left running when the app closed) or abandon one (its ranks stopped where the node answers), and
// browse the history of stored runs. A run that did not complete shows its diagnosis: the first failure across the
// ranks highlighted, and the suggested next step as an action that queues the rerun.

#include "jobs/run_job.hpp"

#include <QWidget>

#include <optional>

class QLabel;
class QListView;
class QPushButton;
class QTabWidget;
class QTableView;
class QTimer;

namespace shardwise::gui {

class LogTailModel;
class RankProgressModel;
class RunDiagnosisPanel;
class RunHistoryModel;
class RunQueueModel;
class RunRequestForm;
class Workspace;
struct DiagnosisAction;

class RunsPage : public QWidget {
    Q_OBJECT

public:
    explicit RunsPage(Workspace& workspace, QWidget* parent = nullptr);
    ~RunsPage() override;

    RunJob* job() const { return m_job; }
    RunRequestForm* requestForm() const { return m_form; }
    RunQueueModel* queueModel() const { return m_queue; }
    RunHistoryModel* historyModel() const { return m_history; }
    RankProgressModel* rankModel() const { return m_ranks; }
    LogTailModel* logModel() const { return m_log; }
    RunDiagnosisPanel* diagnosisPanel() const { return m_diagnosis; }
    QTableView* historyView() const { return m_historyView; }
    QTableView* queueView() const { return m_queueView; }
    QTabWidget* detailTabs() const { return m_tabs; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* reattachButton() const { return m_reattach; }
    QPushButton* abandonButton() const { return m_abandon; }
    QLabel* statusLine() const { return m_status; }
    // Below the queue: how many runs, the whole queue's time left, the running run's elapsed time.
    QLabel* queueTotalLabel() const { return m_queueTotal; }
    qint64 shownRunId() const { return m_shownRun; }

    // Queues the form's configuration; returns the ticket, or 0 (with the reason on the status line).
    qint64 queueFromForm();
    qint64 queueRun(const RunRequest& request);

public slots:
    void reloadHistory();
    // Shows the run's ranks, log and diagnosis: live while it runs, from the store afterwards.
    void showRun(qint64 runId);
    // Cancels the selected queue row, else the running run.
    void cancelSelected();
    // Queues following the selected detached run again; returns the ticket, or 0 with the reason on
    // the status line.
    qint64 reattachSelected();
    // After a confirmation, queues giving up the selected detached run: its ranks are stopped where
    // their node answers, it ends as lost and its handle is dropped. Returns the ticket, or 0 when
    // not confirmed or refused (the reason on the status line).
    qint64 abandonSelected();

private:
    void onRunStarted(qint64 ticket, qint64 runId);
    void onRankProgress(qint64 runId, const QList<RankProgress>& ranks);
    void onLogLines(qint64 runId, const QList<RunLogLine>& lines);
    void onRunFinished(qint64 ticket, qint64 runId, const QString& status, const QString& summary, bool diagnosed);
    void onRunFailed(qint64 ticket, const QString& message);
    void onDiagnosisAction(qint64 runId, const DiagnosisAction& action);
    void refreshQueue();
    void onClockTick();
    void updateQueueTotal();
    // "Run N ended as ... First failure on rank R: ..." from the run's newest stored diagnosis; empty
    // when there is none or it cannot be read.
    QString diagnosedCause(qint64 runId) const;
    void showStoredRun(qint64 runId);
    void setStatus(const QString& text, bool problem);
    void updateRunnerAvailability();
    void updateReattach();
    // A request about stored run `runId` (its config, its first node) while it is detached; none
    // otherwise. Throws when the store cannot be read.
    std::optional<RunRequest> requestAboutDetached(qint64 runId) const;

    static constexpr int kLiveLineCap = 2000;

    Workspace& m_workspace;
    RunJob* m_job = nullptr;
    RunRequestForm* m_form = nullptr;
    RunQueueModel* m_queue = nullptr;
    RunHistoryModel* m_history = nullptr;
    RankProgressModel* m_ranks = nullptr;
    LogTailModel* m_log = nullptr;
    RunDiagnosisPanel* m_diagnosis = nullptr;
    QTableView* m_queueView = nullptr;
    QTableView* m_historyView = nullptr;
    QTableView* m_rankView = nullptr;
    QListView* m_logView = nullptr;
    QTabWidget* m_tabs = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_reattach = nullptr;
    QPushButton* m_abandon = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_queueTotal = nullptr;
    QTimer* m_clock = nullptr; // ticks the elapsed times while a run goes
    qint64 m_shownRun = 0;
    // The running run as its signals delivered it, so it can be shown again without the store.
    qint64 m_liveRun = 0;
    QList<RankProgress> m_liveRanks;
    QList<RunLogLine> m_liveLines;
};

} // namespace shardwise::gui
