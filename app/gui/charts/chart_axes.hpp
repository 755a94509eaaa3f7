#pragma once
// What every bar chart of the app shares beyond its colours: a value axis that ticks on round values,
// and the value of a bar as the chart's tooltip while the pointer is over it.

#include <QChart>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

class QAbstractBarSeries;
class QValueAxis;

namespace shardwise::gui {

// A value axis from 0 to a round maximum in round steps: 1, 2, 2.5 or 5 x 10^k ("nice numbers",
// P. S. Heckbert, "Nice Numbers for Graph Labels", Graphics Gems, 1990, with 2.5 added to the steps).
struct NiceScale {
    double max = 1.0; // the axis' end, a whole number of steps
    double step = 0.2;
    int intervals = 5;           // max / step
    int decimals = 1;            // what the tick labels need to show every step exactly
    QList<double> ticks() const; // 0, step, ..., max
};

// The scale over [0, maxValue] with at most `maxIntervals` steps, taking the smallest step that fits;
// maxValue <= 0 (nothing to show) gives 0 .. 1.
NiceScale niceScale(double maxValue, int maxIntervals = 6);
// Sets `axis` to 0 .. niceScale(maxValue).max with a tick on every step and labels to match.
void applyNiceScale(QValueAxis& axis, double maxValue);

// A category label as plain text on one line, as its tooltip shows it (lines split by "<br>" joined).
QString plainCategoryLabel(const QString& label);

// While the pointer is over one of `series`' bars, the chart's tooltip is "<category>, <set>: <value>"
// with the value through `format` (which gives its unit); for a stacked series also the bar's total.
void showValuesOnHover(QChart& chart, QAbstractBarSeries& series, const QStringList& categories,
                       std::function<QString(double)> format);

} // namespace shardwise::gui
