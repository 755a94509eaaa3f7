#pragma once
// The Compare page's four charts in a 2 x 2 grid; one widget so it can be exported as one picture.

#include "charts/comparison_charts.hpp"

#include <QWidget>

class QChartView;

namespace shardwise::gui {

class ChartPanel : public QWidget {
    Q_OBJECT

public:
    explicit ChartPanel(QWidget* parent = nullptr);
    void setRuns(const QList<RunRecord>& runs);
    const QList<RunRecord>& runs() const { return m_runs; }
    QChartView* view(ComparisonMetric metric) const;
    // Rebuilds the charts, e.g. after the palette switched between light and dark.
    void restyle();

private:
    QList<RunRecord> m_runs;
    QChartView* m_views[4] = {};
};

} // namespace shardwise::gui
