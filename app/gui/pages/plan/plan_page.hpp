#pragma once
// Plan: build a configuration, see the decision order's three steps with verdicts and reasons, the
// eight candidates and their memory against the GPU's capacity, live; "Validate" queues the run
// matrix on a chosen node into the workspace's run queue (the one the Runs page shows).

#include "workspace/plan_view.hpp"

#include "shardwise/frameworks/configs.hpp"

#include <QHash>
#include <QList>
#include <QWidget>

#include <memory>

class QChartView;
class QComboBox;
class QHBoxLayout;
class QVBoxLayout;
class QLabel;
class QMenu;
class QProgressBar;
class QToolButton;
class QPushButton;
class QStackedWidget;
class QTabBar;
class QTableView;
class QTimer;

namespace shardwise::gui {

class CandidateTableModel;
class DecisionStepModel;
class PlanForm;
class PinnedPlansPanel;
class PlanJob;
class RunJob;
class WhatIfPanel;
struct RankProgress;
struct RunRequest;
class Workspace;

class PlanPage : public QWidget {
    Q_OBJECT

public:
    explicit PlanPage(Workspace& workspace, QWidget* parent = nullptr);
    ~PlanPage() override;

    PlanForm* form() const { return m_form; }
    const PlanView& currentPlan() const;
    CandidateTableModel* candidateModel() const { return m_candidates; }
    DecisionStepModel* stepModel() const { return m_steps; }
    RunJob* runQueue() const { return m_queue; }
    // The what-if grid beside the memory chart: the form's input swept over two axes.
    WhatIfPanel* whatIf() const { return m_whatIf; }
    // Pinned plans side by side, and the plans saved in the workspace's store.
    PinnedPlansPanel* pinnedPlans() const { return m_pinned; }
    // Tickets of this page's validation runs still queued or running.
    QList<qint64> pendingValidation() const { return m_validationTickets; }
    QString recommendationText() const;
    QString errorText() const;
    // The runs validate() queues for the current plan on the chosen node and device, in queue order.
    QList<RunRequest> validationRequests() const;
    // Validate runs what the form says, allocator setting included. Where the plan's run matrix would
    // have turned expandable segments on (ZeRO-3 on PCIe, as the reference needed) and the form has
    // them off, the suggestion to turn them on, shown after Validate; else empty.
    QString validationSuggestion() const;

    // Checking the fit of a larger world on this machine's GPU: a rehearsal of one rank as rank 0 of
    // the plan's world N (RunConfig::rehearseWorld), offered where N exceeds this machine's GPUs, for
    // the selected candidate (the recommendation when none is selected), with the backend chosen
    // beside Validate (the button sits beside Validate). It runs through the workspace's run queue like every other
    // run.
    struct RehearsalOffer {
        bool offered = false; // the plan's world exceeds this machine's GPUs
        bool enabled = false; // offered, and this machine and the backend can run it
        int world = 0;
        std::optional<Strategy> strategy;
        QString reason; // why it is not enabled (or what it does, when it is)
    };
    RehearsalOffer rehearsalOffer() const;
    // The request rehearse() queues; none (with the reason in `why`) where the offer is not enabled.
    std::optional<RunRequest> rehearsalRequest(QString* why = nullptr) const;
    // This machine's CUDA GPUs as the workspace knows them: the local node's discovered GPUs, else 1
    // where its facts name an NVIDIA driver, else 0.
    int localGpuCount() const;
    QPushButton* rehearseButton() const { return m_rehearse; }

    // Framework configs (core/frameworks). The Export menu holds one action per kind, each writing the
    // selected candidate (the recommendation when none is selected) after a Save As dialog.
    QMenu* exportMenu() const { return m_exportMenu; }
    std::optional<Strategy> exportStrategy() const;
    // Writes one export of exportStrategy() to `path`; false with the reason (an unsupported strategy
    // names the framework that can run it, an unwritable file its path).
    bool exportConfig(frameworks::ConfigKind kind, const QString& path, QString* error = nullptr);
    // Reads a ds_config.json or Accelerate YAML into the form, shows its warnings (keys not understood)
    // on the page and selects its strategy once planned; false with the error naming the key.
    bool openConfig(const QString& path, QString* error = nullptr);
    QString importMessageText() const;
    // The Open config dialog's name filter: every format openConfig reads (DeepSpeed JSON, Accelerate
    // YAML, torchtitan TOML).
    static QString openConfigFilter();

public slots:
    // Queues the current plan's run matrix on the node chosen beside the button.
    void validate();
    void setValidationNode(const QString& node);
    void setValidationSteps(int warmup, int timed);
    // Stops the running validation run and takes the queued ones off the queue.
    void cancelValidation();
    // Queues rehearsalRequest() on this machine; the Runs page shows it.
    void rehearse();

protected:
    void changeEvent(QEvent* event) override;

signals:
    void planUpdated();
    // One validation run ended: stored with `status` ("completed", "failed", ...), or not run at all
    // (runId 0, status empty) with the reason in `summary`.
    void validationRunFinished(qint64 runId, const QString& status, const QString& summary);
    // The last run of the validation ended; `cancelled` when the user stopped it.
    void validationFinished(bool cancelled);

private:
    bool expandableSegmentsAsked() const; // the form's allocator setting
    QHBoxLayout* createExportRow();       // "Open config…" and the Export menu (plan_page_export.cpp)
    QVBoxLayout* createValidationRow();   // node, device, backend; Validate, Cancel (plan_page_validation.cpp)
    void connectValidationQueue();        // follows this page's runs through the workspace's run queue
    QPushButton* createRehearsalButton(); // "Check the fit of world N on this GPU" (plan_page_rehearsal.cpp)
    void updateRehearsalAction();
    void schedulePlan();
    void showPlan(const PlanView& plan);
    void showPlanError(const QString& message);
    void showValidationProgress(qint64 runId, const QList<RankProgress>& ranks);
    void onQueuedRunEnded(qint64 ticket);
    void refreshNodes();
    void updateExportActions();
    void browseExport(frameworks::ConfigKind kind);
    void browseReport(); // "Export report": reasoning, memory chart and candidates' CSV into a folder
    void browseOpenConfig();

    Workspace& m_workspace;
    PlanForm* m_form = nullptr;
    PlanJob* m_job = nullptr;
    QTimer* m_debounce = nullptr;
    QLabel* m_recommendation = nullptr;
    QLabel* m_error = nullptr;
    QProgressBar* m_planBusy = nullptr;
    DecisionStepModel* m_steps = nullptr;
    CandidateTableModel* m_candidates = nullptr;
    QTableView* m_stepView = nullptr;
    QTableView* m_candidateView = nullptr;
    QChartView* m_memoryChart = nullptr;
    // The memory chart, the what-if grid and the pinned plans, one at a time; the tabs sit in the row above the
    // results.
    QTabBar* m_figureTabs = nullptr;
    QStackedWidget* m_figures = nullptr;
    WhatIfPanel* m_whatIf = nullptr;
    PinnedPlansPanel* m_pinned = nullptr;
    std::unique_ptr<PlanForm> m_savedForm; // never shown: reads a saved plan's form into an input
    QComboBox* m_node = nullptr;
    QComboBox* m_device = nullptr;
    QComboBox* m_backend = nullptr;
    QPushButton* m_validate = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_rehearse = nullptr;
    QProgressBar* m_validationBar = nullptr;
    QPushButton* m_openConfig = nullptr;
    QToolButton* m_exportButton = nullptr;
    QMenu* m_exportMenu = nullptr;
    QLabel* m_importMessage = nullptr;
    std::optional<Strategy> m_selectAfterPlan; // the strategy an opened config chose
    bool m_formInvalid = false;                // the form's input failed validation: no plan shown
    QLabel* m_validationStatus = nullptr;
    RunJob* m_queue = nullptr;
    QList<qint64> m_validationTickets;      // in queue order
    QHash<qint64, qint64> m_validationRuns; // run id -> ticket, once started
    int m_validationCount = 0;              // runs of the current validation
    bool m_validationCancelled = false;
    int m_warmupSteps = 3;
    int m_timedSteps = 10;
};

} // namespace shardwise::gui
