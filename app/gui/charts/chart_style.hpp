#pragma once
// Chart colours and theme that follow the application palette (light or dark).

#include "shardwise/spec/strategy.hpp"

#include <QChart>
#include <QColor>

namespace shardwise::gui {

void styleChart(QChart& chart);
QColor seriesColor(int index); // a fixed, colour-blind-safe cycle (Okabe & Ito 2008)
// One colour per strategy, the same in every chart and export: Paul Tol's "muted" scheme, nine
// colours told apart with the common colour-vision deficiencies (P. Tol, "Colour Schemes", SRON, 2021),
// one per strategy in the strategy table's order.
QColor strategyColor(Strategy strategy);
QColor capacityLineColor();
QColor failureColor();

} // namespace shardwise::gui
