#include "charts/chart_panel.hpp"

#include "models/display_format.hpp"

#include <QChartView>
#include <QGridLayout>

namespace shardwise::gui {

namespace {
constexpr ComparisonMetric kMetrics[] = { ComparisonMetric::Throughput, ComparisonMetric::PeakMemory,
                                          ComparisonMetric::NcclShare, ComparisonMetric::PredictedVsMeasured };
}

ChartPanel::ChartPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(4);
    const QString tips[]
        = { tokensPerSExplanation(), peakMemoryExplanation() + QLatin1Char('\n') + reservedExplanation(),
            ncclShareExplanation(),
            tr("The planner's prediction beside the measurement. Runs measured on a CPU carry no prediction: "
               "the planner predicts GPUs.") };
    for (int i = 0; i < 4; ++i) {
        m_views[i] = new QChartView(createComparisonChart(kMetrics[i], {}), this);
        m_views[i]->setRenderHint(QPainter::Antialiasing);
        m_views[i]->setMinimumSize(320, 220);
        m_views[i]->setToolTip(tips[i]);
        grid->addWidget(m_views[i], i / 2, i % 2);
    }
}

void ChartPanel::setRuns(const QList<RunRecord>& runs)
{
    m_runs = runs;
    restyle();
}

void ChartPanel::restyle()
{
    for (int i = 0; i < 4; ++i) {
        QChart* old = m_views[i]->chart();
        m_views[i]->setChart(createComparisonChart(kMetrics[i], m_runs));
        delete old;
    }
}

QChartView* ChartPanel::view(ComparisonMetric metric) const
{
    return m_views[static_cast<int>(metric)];
}

} // namespace shardwise::gui
