#include "charts/chart_style.hpp"

#include "shell/appearance.hpp"

#include <QApplication>
#include <QFont>

#include <iterator>

namespace shardwise::gui {

void styleChart(QChart& chart)
{
    const QPalette palette = QApplication::palette();
    chart.setTheme(paletteIsDark(palette) ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart.setBackgroundBrush(palette.color(QPalette::Base));
    chart.setTitleBrush(palette.color(QPalette::Text));
    QFont title = chart.titleFont();
    title.setBold(true);
    chart.setTitleFont(title);
    chart.legend()->setLabelColor(palette.color(QPalette::Text));
    chart.setAnimationOptions(QChart::NoAnimation);
    chart.setMargins(QMargins(6, 6, 6, 6));
}

QColor seriesColor(int index)
{
    // Okabe-Ito palette: distinguishable with the common colour-vision deficiencies; the memory
    // breakdown has ten parts, so three neutral greys (mid, dark, light: each visible on the light and
    // the dark theme's background) close the cycle.
    static const QColor colors[]
        = { QColor(0x00, 0x72, 0xb2), QColor(0xe6, 0x9f, 0x00), QColor(0x00, 0x9e, 0x73), QColor(0xcc, 0x79, 0xa7),
            QColor(0x56, 0xb4, 0xe9), QColor(0xd5, 0x5e, 0x00), QColor(0xf0, 0xe4, 0x42), QColor(0x99, 0x99, 0x99),
            QColor(0x4d, 0x4d, 0x4d), QColor(0xc8, 0xc8, 0xc8) };
    constexpr int count = static_cast<int>(std::size(colors));
    return colors[index % count];
}

QColor strategyColor(Strategy strategy)
{
    static const QColor colors[] = { QColor(0x33, 0x22, 0x88), QColor(0x88, 0xcc, 0xee), QColor(0x44, 0xaa, 0x99),
                                     QColor(0x11, 0x77, 0x33), QColor(0x99, 0x99, 0x33), QColor(0xdd, 0xcc, 0x77),
                                     QColor(0xcc, 0x66, 0x77), QColor(0x88, 0x22, 0x55), QColor(0xaa, 0x44, 0x99) };
    constexpr int count = static_cast<int>(std::size(colors));
    static_assert(static_cast<std::size_t>(count) >= kStrategyCount, "one colour per strategy");
    return colors[static_cast<int>(strategy) % count];
}

QColor capacityLineColor()
{
    return QColor(0xd0, 0x3b, 0x3b);
}

QColor failureColor()
{
    return QColor(0xd0, 0x3b, 0x3b);
}

} // namespace shardwise::gui
