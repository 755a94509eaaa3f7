#include "charts/bar_chart_view.hpp"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

namespace shardwise::gui {

BarChartView::BarChartView(QWidget* parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    relayout();
}

void BarChartView::setSpec(BarChartSpec spec)
{
    m_spec = std::move(spec);
    relayout();
    update();
}

QSize BarChartView::sizeHint() const
{
    return { std::max(640, static_cast<int>(m_geometry.minimumWidth)), static_cast<int>(m_geometry.height) };
}

QSize BarChartView::minimumSizeHint() const
{
    return { static_cast<int>(m_geometry.minimumWidth), static_cast<int>(m_geometry.height) };
}

void BarChartView::relayout()
{
    m_geometry = layoutBarChart(m_spec, std::max(1, width()), font());
    const int height = static_cast<int>(m_geometry.height);
    if (minimumHeight() != height || maximumHeight() != height)
        setFixedHeight(height);
    if (minimumWidth() != static_cast<int>(m_geometry.minimumWidth))
        setMinimumWidth(static_cast<int>(m_geometry.minimumWidth));
    updateGeometry();
}

void BarChartView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    paintBarChart(painter, m_spec, m_geometry, palette());
}

void BarChartView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    relayout();
}

void BarChartView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange) {
        relayout();
        update();
    }
    if (event->type() == QEvent::PaletteChange)
        update();
    QWidget::changeEvent(event);
}

bool BarChartView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const QPointF pos = static_cast<QHelpEvent*>(event)->pos();
        for (int f = 0; f < m_geometry.facets.size(); ++f)
            for (int r = 0; r < m_geometry.facets[f].rowRects.size(); ++r)
                if (m_geometry.facets[f].rowRects[r].adjusted(0, 0, m_geometry.width, 0).contains(pos)) {
                    QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), barRowDescription(m_spec, f, r),
                                       this);
                    return true;
                }
        if (!toolTip().isEmpty())
            return QWidget::event(event);
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    return QWidget::event(event);
}

} // namespace shardwise::gui
