#pragma once
// A BarChartSpec on screen: as wide as it is given (at least as wide as its labels and a usable
// plot need) and as high as its rows need, so that in a scroll area the chart grows with the runs
// instead of squeezing them; the pointer over a row shows its label and values as a tooltip.

#include "charts/bar_chart.hpp"

#include <QWidget>

namespace shardwise::gui {

class BarChartView : public QWidget {
    Q_OBJECT

public:
    explicit BarChartView(QWidget* parent = nullptr);

    void setSpec(BarChartSpec spec);
    const BarChartSpec& spec() const { return m_spec; }
    // The layout at the widget's current width, as painted.
    const BarChartGeometry& chartGeometry() const { return m_geometry; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool event(QEvent* event) override;

private:
    void relayout();

    BarChartSpec m_spec;
    BarChartGeometry m_geometry;
};

} // namespace shardwise::gui
