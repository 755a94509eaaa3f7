#pragma once
// Chart colours and theme that follow the application palette (light or dark).

#include <QChart>
#include <QColor>

namespace shardwise::gui {

void styleChart(QChart& chart);
QColor seriesColor(int index); // a fixed, colour-blind-safe cycle (Okabe & Ito 2008)
QColor capacityLineColor();
QColor failureColor();

} // namespace shardwise::gui
