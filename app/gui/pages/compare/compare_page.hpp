#pragma once
// Compare: pick runs (filter by model, hardware, strategy, date, node; check the ones to chart),
// see throughput, peak memory (allocated vs reserved against capacity), NCCL share and predicted vs
// measured side by side, and export the charts (PNG, SVG, PDF) and the table (CSV, Markdown).

#include "export/chart_exporter.hpp"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDateEdit;
class QTableView;

namespace shardwise::gui {

class ChartPanel;
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

    // Suffix picks the format; the caption states model, hardware, versions and step counts.
    ExportResult exportCharts(const QString& filePath);
    // The checked runs (all visible rows when none is checked) as CSV or Markdown.
    ExportResult exportTable(const QString& filePath);

public slots:
    void reload();

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuildFilterChoices();
    void applyFilters();
    void updateCharts();
    void exportChartsInteractively();
    void exportTableInteractively();

    Workspace& m_workspace;
    RunTableModel* m_runs = nullptr;
    RunFilterModel* m_filter = nullptr;
    QTableView* m_table = nullptr;
    ChartPanel* m_charts = nullptr;
    QComboBox* m_modelFilter = nullptr;
    QComboBox* m_hardwareFilter = nullptr;
    QComboBox* m_strategyFilter = nullptr;
    QComboBox* m_nodeFilter = nullptr;
    QCheckBox* m_limitDates = nullptr;
    QDateEdit* m_from = nullptr;
    QDateEdit* m_to = nullptr;
};

} // namespace shardwise::gui
