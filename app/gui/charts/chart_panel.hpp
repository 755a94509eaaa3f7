#pragma once
// The Compare page's four run charts, one above the other at the panel's full width: each as high as
// its runs need (the page scrolls), one widget so that it can be exported as one picture.

#include "charts/comparison_charts.hpp"

#include <QWidget>

namespace shardwise::gui {

class BarChartView;

class ChartPanel : public QWidget {
    Q_OBJECT

public:
    explicit ChartPanel(QWidget* parent = nullptr);
    void setRuns(const QList<RunRecord>& runs);
    const QList<RunRecord>& runs() const { return m_runs; }
    BarChartView* view(ComparisonMetric metric) const;
    // The four charts' specs, in the panel's order: what an export draws.
    QList<BarChartSpec> specs() const;
    // Rebuilds the charts, e.g. after the palette switched between light and dark.
    void restyle();

private:
    QList<RunRecord> m_runs;
    BarChartView* m_views[4] = {};
};

} // namespace shardwise::gui
