#pragma once
// Why a run failed: the first failure across all ranks (the root cause) highlighted among the
// failures in time order, its evidence lines, the explanation, and the suggested next steps; those
// the page can carry out (a rerun with expandable segments, deeper sharding, offload) are buttons.

#include "models/run_diagnosis_view.hpp"

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;
class QVBoxLayout;

namespace shardwise::gui {

class RunFailureModel;

class RunDiagnosisPanel : public QWidget {
    Q_OBJECT

public:
    explicit RunDiagnosisPanel(QWidget* parent = nullptr);

    void showDiagnosis(qint64 runId, const RunDiagnosisView& diagnosis);
    // The headline of a diagnosis: where the first failure happened, its kind and message.
    static QString headlineFor(const RunDiagnosisView& diagnosis);
    // No diagnosis for this run: `reason` says why (completed, still running, none stored).
    void showNothing(const QString& reason);

    qint64 runId() const { return m_runId; }
    const RunDiagnosisView& diagnosis() const { return m_diagnosis; }
    RunFailureModel* failureModel() const { return m_failures; }
    QTableView* failureView() const { return m_failureView; }
    QLabel* headline() const { return m_headline; }
    QPlainTextEdit* evidenceView() const { return m_evidence; }
    QList<QPushButton*> actionButtons() const { return m_actionButtons; }

signals:
    void actionTriggered(qint64 runId, const shardwise::gui::DiagnosisAction& action);

private:
    void showEvidence(int row);
    void rebuildActions();

    qint64 m_runId = 0;
    RunDiagnosisView m_diagnosis;
    QLabel* m_headline = nullptr;
    QLabel* m_explanation = nullptr;
    RunFailureModel* m_failures = nullptr;
    QTableView* m_failureView = nullptr;
    QPlainTextEdit* m_evidence = nullptr;
    QWidget* m_actionsBox = nullptr;
    QVBoxLayout* m_actionsLayout = nullptr;
    QList<QPushButton*> m_actionButtons;
};

} // namespace shardwise::gui

Q_DECLARE_METATYPE(shardwise::gui::DiagnosisAction)
