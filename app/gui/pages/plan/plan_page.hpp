#pragma once
// Plan: build a configuration, see the decision order's three steps with verdicts and reasons, the
// eight candidates and their memory against the GPU's capacity, live; "Validate" queues the run
// matrix on a chosen node.

#include "workspace/plan_view.hpp"

#include <QWidget>

class QChartView;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;
class QTimer;

namespace shardwise::gui {

class CandidateTableModel;
class DecisionStepModel;
class PlanForm;
class PlanJob;
class ValidationQueue;
struct ValidationProgress;
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
    ValidationQueue* validationQueue() const { return m_validation; }
    QString recommendationText() const;
    QString errorText() const;

public slots:
    // Queues the current plan's run matrix on the node chosen beside the button.
    void validate();
    void setValidationNode(const QString& node);
    void setValidationSteps(int warmup, int timed);

protected:
    void changeEvent(QEvent* event) override;

signals:
    void planUpdated();
    void validationFinished();

private:
    void schedulePlan();
    void showPlan(const PlanView& plan);
    void showPlanError(const QString& message);
    void showValidationProgress(const ValidationProgress& p);
    void refreshNodes();

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
    QComboBox* m_node = nullptr;
    QComboBox* m_device = nullptr;
    QPushButton* m_validate = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_validationBar = nullptr;
    QLabel* m_validationStatus = nullptr;
    ValidationQueue* m_validation = nullptr;
    int m_warmupSteps = 3;
    int m_timedSteps = 10;
};

} // namespace shardwise::gui
