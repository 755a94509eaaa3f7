#pragma once
// Compare: pick runs (filter by model, hardware, strategy, backend, date, node; check the ones to chart),
// see throughput, peak memory (allocated vs reserved against capacity), NCCL share and predicted vs
// measured side by side, and export the charts (PNG, SVG, PDF) and the table (CSV, Markdown).
// Every finished GPU run is also predicted twice, with the presets and with the calibration the
// store supports (as `shardwise-cli compare` does), computed off the GUI thread; a line above the
// table names the calibration per GPU type shown and how far to trust it.

#include "export/chart_exporter.hpp"
#include "models/run_prediction.hpp"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDateEdit;
class QLabel;
class QTableView;

namespace shardwise::gui {

class BarChartView;
class ChartPanel;
class PredictionJob;
class RunFilterModel;
class RunTableModel;
class Workspace;

class ComparePage : public QWidget {
    Q_OBJECT

public:
    explicit ComparePage(Workspace& workspace, QWidget* parent = nullptr);
    ~ComparePage() override;

    RunTableModel* runModel() const { return m_runs; }
    RunFilterModel* filterModel() const { return m_filter; }
    ChartPanel* chartPanel() const { return m_charts; }
    QComboBox* modelFilter() const { return m_modelFilter; }
    QComboBox* strategyFilter() const { return m_strategyFilter; }
    QComboBox* backendFilter() const { return m_backendFilter; }
    QLabel* calibrationLine() const { return m_calibrationLine; }
    BarChartView* predictionChart() const { return m_predictionChart; }
    const PredictionSet& predictions() const { return m_predictions; }
    // True from a reload until its predictions (or the reason there are none) are shown.
    bool predictionsPending() const { return m_predictionsPending; }

    // The newest runs charted when the page first loads; every run that arrives later (a finished
    // validation, an import) is charted as it arrives.
    static constexpr int kChartedAtFirstLoad = 40;

    // Suffix picks the format; the caption states model, hardware, versions and step counts.
    ExportResult exportCharts(const QString& filePath);
    // The checked runs (all visible rows when none is checked) as CSV or Markdown.
    ExportResult exportTable(const QString& filePath);
    // The measured-vs-predicted chart, captioned with the calibration its predictions used.
    ExportResult exportPredictionChart(const QString& filePath);

public slots:
    void reload();

signals:
    void predictionsUpdated();

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuildFilterChoices();
    void applyFilters();
    void updateCharts();
    void showPredictions(const PredictionSet& predictions);
    void showPredictionFailure(const QString& message);
    void updateCalibrationLine();
    void exportChartsInteractively();
    void exportTableInteractively();
    void exportPredictionChartInteractively();

    Workspace& m_workspace;
    RunTableModel* m_runs = nullptr;
    RunFilterModel* m_filter = nullptr;
    QTableView* m_table = nullptr;
    ChartPanel* m_charts = nullptr;
    QComboBox* m_modelFilter = nullptr;
    QComboBox* m_hardwareFilter = nullptr;
    QComboBox* m_strategyFilter = nullptr;
    QComboBox* m_nodeFilter = nullptr;
    QComboBox* m_backendFilter = nullptr;
    QCheckBox* m_limitDates = nullptr;
    QDateEdit* m_from = nullptr;
    QDateEdit* m_to = nullptr;
    QLabel* m_calibrationLine = nullptr;
    BarChartView* m_predictionChart = nullptr;
    PredictionJob* m_predictionJob = nullptr;
    PredictionSet m_predictions;
    QString m_predictionError;
    bool m_predictionsPending = false;
};

} // namespace shardwise::gui
