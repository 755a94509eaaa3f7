#pragma once
// Cloud: prepares a GKE run of the current plan. Takes the plan the Plan page last showed (its
// saved form), lets the user pick a region that offers the plan's GPU, and shows the preflight
// checklist with pass / warn / check markers, the gcloud and kubectl commands and the Job manifest,
// each with Copy and Save (core/cloud does the work).

#include "shardwise/cloud/gke_preparation.hpp"
#include "shardwise/plan/plan.hpp"

#include <QJsonObject>
#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTableView;

namespace shardwise::gui {

class ChecklistModel;
class Workspace;

class CloudPage : public QWidget {
    Q_OBJECT

public:
    enum Output { GcloudOutput, KubectlOutput, ManifestOutput };

    explicit CloudPage(Workspace& workspace, QWidget* parent = nullptr);
    ~CloudPage() override;

    // The Plan form's state (PlanForm::state() shape) to prepare; reloadPlan() reads the saved one.
    void setPlanState(const QJsonObject& state);
    void setRegion(const QString& region);
    // The strategy the Job runs; the plan's recommendation until the user picks another.
    void setStrategy(Strategy s);
    std::optional<Strategy> strategy() const;
    QString region() const;
    QStringList regions() const; // regions offering the plan's GPU, in the picker's order

    ChecklistModel* checklistModel() const { return m_checklist; }
    const std::optional<cloud::GkePreparation>& preparation() const { return m_preparation; }
    QString planText() const;
    QString errorText() const;
    QString outputText(Output o) const;
    void showOutput(Output o);

public slots:
    void reloadPlan();
    void copyCurrentOutput();
    // Writes the visible output to `path`; false + message when the file cannot be written.
    bool saveCurrentOutput(const QString& path, QString* error = nullptr);

signals:
    void preparationChanged();

protected:
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void prepare();
    void fillRegions(const std::string& accelerator);
    void fillStrategies();
    void showError(const QString& message);
    void saveWithDialog();
    void retranslate();

    QJsonObject m_state;
    std::optional<cloud::GkeRequest> m_request;
    std::optional<Plan> m_planResult;
    std::optional<cloud::GkePreparation> m_preparation;
    QLabel* m_plan = nullptr;
    QLabel* m_regionLabel = nullptr;
    QComboBox* m_region = nullptr;
    QLabel* m_strategyLabel = nullptr;
    QComboBox* m_strategy = nullptr;
    QPushButton* m_reload = nullptr;
    QLabel* m_error = nullptr;
    ChecklistModel* m_checklist = nullptr;
    QTableView* m_checklistView = nullptr;
    QTabWidget* m_tabs = nullptr;
    QPlainTextEdit* m_outputs[3] = {};
    QPushButton* m_copy = nullptr;
    QPushButton* m_save = nullptr;
};

} // namespace shardwise::gui
