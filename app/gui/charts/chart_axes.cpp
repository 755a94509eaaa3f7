#include "charts/chart_axes.hpp"

#include <QAbstractBarSeries>
#include <QBarSet>
#include <QCoreApplication>
#include <QPointer>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace shardwise::gui {

namespace {

struct ChartText {
    Q_DECLARE_TR_FUNCTIONS(ChartText)
};

const QString kLineBreak = QStringLiteral("<br>");

} // namespace

QList<double> NiceScale::ticks() const
{
    QList<double> values;
    for (int i = 0; i <= intervals; ++i)
        values << i * step;
    return values;
}

NiceScale niceScale(double maxValue, int maxIntervals)
{
    maxIntervals = std::max(maxIntervals, 1);
    if (!(maxValue > 0) || !std::isfinite(maxValue))
        maxValue = 1.0;
    // The smallest round step that covers maxValue in at most maxIntervals steps.
    double magnitude = std::pow(10.0, std::floor(std::log10(maxValue / maxIntervals)));
    static constexpr double kMantissas[] = { 1.0, 2.0, 2.5, 5.0 };
    NiceScale scale;
    for (int round = 0; round < 3; ++round, magnitude *= 10.0) {
        for (const double mantissa : kMantissas) {
            const double step = mantissa * magnitude;
            // 1e-9: a maximum already on a step (80 with steps of 10) is not pushed one step further.
            const int intervals = static_cast<int>(std::ceil(maxValue / step - 1e-9));
            if (intervals <= maxIntervals) {
                scale.step = step;
                scale.intervals = std::max(intervals, 1);
                scale.max = scale.intervals * step;
                scale.decimals
                    = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)) + (mantissa == 2.5 ? 1 : 0));
                return scale;
            }
        }
    }
    return scale;
}

void applyNiceScale(QValueAxis& axis, double maxValue)
{
    const NiceScale scale = niceScale(maxValue);
    axis.setTickType(QValueAxis::TicksFixed);
    axis.setRange(0.0, scale.max);
    axis.setTickCount(scale.intervals + 1);
    axis.setMinorTickCount(0);
    axis.setLabelFormat(QStringLiteral("%.%1f").arg(scale.decimals));
}

QString plainCategoryLabel(const QString& label)
{
    QString plain = label;
    plain.replace(kLineBreak, QStringLiteral(" "));
    return plain;
}

void showValuesOnHover(QChart& chart, QAbstractBarSeries& series, const QStringList& categories,
                       std::function<QString(double)> format)
{
    const bool stacked = series.type() == QAbstractSeries::SeriesTypeStackedBar
        || series.type() == QAbstractSeries::SeriesTypeHorizontalStackedBar;
    QStringList names;
    for (const QString& category : categories)
        names << plainCategoryLabel(category);
    QObject::connect(&series, &QAbstractBarSeries::hovered, &chart,
                     [chart = QPointer<QChart>(&chart), series = QPointer<QAbstractBarSeries>(&series), names, format,
                      stacked](bool entered, int index, QBarSet* set) {
                         if (!chart)
                             return;
                         if (!entered || !set || index < 0 || index >= set->count() || !series) {
                             chart->setToolTip({});
                             return;
                         }
                         const QString category = index < names.size() ? names[index] : QString::number(index);
                         QString text = ChartText::tr("%1, %2: %3").arg(category, set->label(), format(set->at(index)));
                         if (stacked) {
                             double total = 0;
                             for (const QBarSet* part : series->barSets())
                                 total += index < part->count() ? part->at(index) : 0.0;
                             text = ChartText::tr("%1 (of %2 in all)").arg(text, format(total));
                         }
                         chart->setToolTip(text);
                     });
}

} // namespace shardwise::gui
