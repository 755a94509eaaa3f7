#include "charts/chart_axes.hpp"

#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCoreApplication>
#include <QFontMetricsF>
#include <QGraphicsRectItem>
#include <QPointer>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <QtMath>

#include <algorithm>
#include <cmath>
#include <memory>

namespace shardwise::gui {

namespace {

struct ChartText {
    Q_DECLARE_TR_FUNCTIONS(ChartText)
};

const QString kLineBreak = QStringLiteral("<br>");

// The labels of one category axis, fitted again whenever the chart's plot area changes.
struct FittedLabels {
    QPointer<QChart> chart;
    QPointer<QBarCategoryAxis> axis;
    QStringList full;
    QList<QGraphicsRectItem*> hitAreas; // children of the chart: deleted with it
    bool fitting = false;
};

// How long a label may be. A horizontal label has its slot; a slanted one may run past its slot
// (its neighbours run parallel to it), and what bounds it is the height the axis may take, at most a
// third of the chart.
qreal labelWidthLimit(qreal slotWidth, qreal angleDegrees, qreal lineHeight, qreal chartHeight)
{
    const qreal angle = qDegreesToRadians(std::abs(angleDegrees));
    if (angle < 0.01)
        return std::max<qreal>(slotWidth - 6.0, 8.0);
    return std::max(slotWidth, (chartHeight / 3.0 - lineHeight * std::cos(angle)) / std::sin(angle));
}

void fit(FittedLabels& labels)
{
    if (labels.fitting || !labels.chart || !labels.axis || labels.full.isEmpty())
        return;
    const QRectF plot = labels.chart->plotArea();
    if (plot.width() <= 0)
        return;
    labels.fitting = true;
    const QFontMetricsF metrics(labels.axis->labelsFont());
    const qreal slot = plot.width() / labels.full.size();
    const int angle = labels.axis->labelsAngle();
    const qreal limit = labelWidthLimit(slot, angle, metrics.height(), labels.chart->size().height());

    QStringList shown;
    qreal longest = 0;
    int lines = 1;
    for (const QString& label : labels.full) {
        QString elided = elideCategoryLabel(label, metrics, limit);
        // Categories must differ; a zero-width space keeps two equal elisions apart invisibly.
        while (shown.contains(elided))
            elided += QChar(0x200B);
        shown << elided;
        for (const QString& line : elided.split(kLineBreak))
            longest = std::max(longest, metrics.horizontalAdvance(line));
        lines = std::max(lines, static_cast<int>(label.count(kLineBreak)) + 1);
    }
    if (shown != labels.axis->categories())
        labels.axis->setCategories(shown);

    // The tooltip areas: each slot's width, from the plot's bottom down over the labels.
    const qreal a = qDegreesToRadians(std::abs(static_cast<qreal>(angle)));
    const qreal textHeight = lines * metrics.height();
    const qreal height = 8.0 + (a < 0.01 ? textHeight : longest * std::sin(a) + textHeight * std::cos(a));
    for (int i = 0; i < labels.full.size(); ++i) {
        if (labels.hitAreas.size() <= i) {
            auto* area = new QGraphicsRectItem(labels.chart);
            area->setPen(Qt::NoPen);
            area->setBrush(Qt::NoBrush);
            area->setAcceptedMouseButtons(Qt::NoButton);
            area->setZValue(1000);
            area->setToolTip(plainCategoryLabel(labels.full[i]));
            labels.hitAreas << area;
        }
        labels.hitAreas[i]->setRect(plot.left() + i * slot, plot.bottom() + 1.0, slot, height);
    }
    labels.fitting = false;
}

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

QString elideCategoryLabel(const QString& label, const QFontMetricsF& metrics, qreal width)
{
    QStringList lines = label.split(kLineBreak);
    for (QString& line : lines)
        line = metrics.elidedText(line, Qt::ElideMiddle, width);
    return lines.join(kLineBreak);
}

QString plainCategoryLabel(const QString& label)
{
    QString plain = label;
    plain.replace(kLineBreak, QStringLiteral(" "));
    return plain;
}

void setFittedCategories(QChart& chart, QBarCategoryAxis& axis, const QStringList& labels)
{
    axis.setCategories(labels);
    axis.setProperty(kFullCategoriesProperty, labels);
    auto state = std::make_shared<FittedLabels>();
    state->chart = &chart;
    state->axis = &axis;
    state->full = labels;
    QObject::connect(&chart, &QChart::plotAreaChanged, &axis, [state] { fit(*state); });
    fit(*state);
}

void showValuesOnHover(QChart& chart, QAbstractBarSeries& series, const QStringList& categories,
                       std::function<QString(double)> format)
{
    const bool stacked = qobject_cast<QStackedBarSeries*>(&series) != nullptr;
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
