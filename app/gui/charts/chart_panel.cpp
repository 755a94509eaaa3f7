#include "charts/chart_panel.hpp"

#include "charts/bar_chart_view.hpp"
#include "models/display_format.hpp"

#include <QVBoxLayout>

namespace shardwise::gui {

ChartPanel::ChartPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(6);
    const QString tips[]
        = { tokensPerSExplanation(), peakMemoryExplanation() + QLatin1Char('\n') + reservedExplanation(),
            ncclShareExplanation(),
            tr("The planner's prediction beside the measurement. Runs measured on a CPU carry no prediction: "
               "the planner predicts GPUs.") };
    for (int i = 0; i < 4; ++i) {
        m_views[i] = new BarChartView(this);
        m_views[i]->setToolTip(tips[i]);
        column->addWidget(m_views[i]);
    }
    column->addStretch(1);
    restyle();
}

void ChartPanel::setRuns(const QList<RunRecord>& runs)
{
    m_runs = runs;
    restyle();
}

void ChartPanel::restyle()
{
    for (int i = 0; i < 4; ++i)
        m_views[i]->setSpec(comparisonChart(kComparisonMetrics[i], m_runs));
}

QList<BarChartSpec> ChartPanel::specs() const
{
    QList<BarChartSpec> out;
    for (const BarChartView* view : m_views)
        out << view->spec();
    return out;
}

BarChartView* ChartPanel::view(ComparisonMetric metric) const
{
    return m_views[static_cast<int>(metric)];
}

} // namespace shardwise::gui
