// The Compare page's exports: the comparison charts and the measured-vs-predicted chart as PNG, SVG
// or PDF with a caption, the table as CSV or Markdown; each through a Save As dialog or a given path.
#include "pages/compare/compare_page.hpp"

#include "charts/chart_panel.hpp"
#include "charts/comparison_charts.hpp"
#include "export/comparison_caption.hpp"
#include "export/run_csv.hpp"
#include "models/run_filter_model.hpp"
#include "models/run_table_model.hpp"

#include <QFileDialog>
#include <QMessageBox>

namespace shardwise::gui {

ExportResult ComparePage::exportCharts(const QString& filePath)
{
    return ChartExporter::exportBarCharts(m_charts->specs(), ChartExporter::barChartExportWidth(), filePath,
                                          comparisonCaption(m_charts->runs()));
}

ExportResult ComparePage::exportTable(const QString& filePath)
{
    QList<RunRecord> runs = m_runs->checkedRuns();
    if (runs.isEmpty())
        for (int row = 0; row < m_filter->rowCount(); ++row)
            if (const RunRecord* r
                = m_runs->runById(m_filter->index(row, 0).data(RunTableModel::RunIdRole).toLongLong()))
                runs.append(*r);
    return exportRunTable(runs, m_predictions, filePath); // CSV: numbers in SI units; Markdown: the table as shown
}

ExportResult ComparePage::exportPredictionChart(const QString& filePath)
{
    const QList<RunRecord> checked = m_runs->checkedRuns();
    return ChartExporter::exportBarCharts({ calibrationChart(checked, m_predictions.runs) },
                                          ChartExporter::barChartExportWidth(), filePath,
                                          predictionChartCaption(checked, m_predictions));
}

void ComparePage::exportPredictionChartInteractively()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export prediction chart"), QStringLiteral("shardwise-predicted-vs-measured.png"),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    const ExportResult result = exportPredictionChart(path);
    if (!result.ok)
        QMessageBox::warning(this, tr("Export prediction chart"), result.error);
}

void ComparePage::exportChartsInteractively()
{
    const QString path
        = QFileDialog::getSaveFileName(this, tr("Export charts"), QStringLiteral("shardwise-comparison.png"),
                                       tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    const ExportResult result = exportCharts(path);
    if (!result.ok)
        QMessageBox::warning(this, tr("Export charts"), result.error);
}

void ComparePage::exportTableInteractively()
{
    const QString path
        = QFileDialog::getSaveFileName(this, tr("Export table"), QStringLiteral("shardwise-comparison.csv"),
                                       tr("CSV table (*.csv);;Markdown table (*.md)"));
    if (path.isEmpty())
        return;
    const ExportResult result = exportTable(path);
    if (!result.ok)
        QMessageBox::warning(this, tr("Export table"), result.error);
}

} // namespace shardwise::gui
