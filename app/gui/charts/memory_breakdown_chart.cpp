#include "charts/memory_breakdown_chart.hpp"

#include "charts/chart_axes.hpp"
#include "charts/chart_style.hpp"
#include "models/display_format.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCoreApplication>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <optional>

namespace shardwise::gui {

namespace {
struct ChartText {
    Q_DECLARE_TR_FUNCTIONS(ChartText)
};

// A mark after the end of the bar in slot `row` (counted from the bottom), on the chart's hidden slot axis.
QScatterSeries* addMark(QChart& chart, QValueAxis& values, QValueAxis& rows, const QString& objectName,
                        const QString& name, QScatterSeries::MarkerShape shape, const QColor& color, double at, int row)
{
    auto* mark = new QScatterSeries;
    mark->setObjectName(objectName);
    mark->setName(name);
    mark->setMarkerShape(shape);
    mark->setMarkerSize(15);
    mark->setColor(color);
    mark->setBorderColor(color.darker(150));
    mark->append(at, row);
    chart.addSeries(mark);
    mark->attachAxis(&values);
    mark->attachAxis(&rows);
    return mark;
}

} // namespace

std::optional<int> fastestFittingCandidate(const PlanView& plan)
{
    std::optional<int> best;
    for (int i = 0; i < plan.candidates.size(); ++i) {
        const CandidateView& c = plan.candidates[i];
        if (c.fits && c.supported && (!best || c.tokensPerS > plan.candidates[*best].tokensPerS))
            best = i;
    }
    return best;
}

QChart* createMemoryBreakdownChart(const PlanView& plan)
{
    auto* chart = new QChart;
    styleChart(*chart);
    if (plan.candidates.isEmpty()) {
        chart->setTitle(ChartText::tr("No plan yet"));
        return chart;
    }
    chart->setTitle(
        ChartText::tr("Predicted memory per GPU: %1 on %2 x %3").arg(plan.modelName).arg(plan.gpus).arg(plan.gpuName));

    // One bar set per part of the peak, in the order the first candidate lists them: each bar sums to
    // the candidate's peak, the figure of the table and the reasons. Horizontal bars in the table's
    // order from the top: a horizontal series puts its first slot at the bottom, so the slots hold the
    // candidates last to first (candidate i in slot n - 1 - i).
    QList<CandidateView> bottomUp = plan.candidates;
    std::reverse(bottomUp.begin(), bottomUp.end());
    const int n = static_cast<int>(bottomUp.size());
    QStringList parts;
    for (const CandidateView& c : plan.candidates)
        for (const MemoryPart& part : c.memory)
            if (!parts.contains(part.label))
                parts << part.label;

    auto* series = new QHorizontalStackedBarSeries;
    series->setObjectName(QStringLiteral("peakPartsSeries"));
    for (int p = 0; p < parts.size(); ++p) {
        auto* set = new QBarSet(parts[p]);
        set->setColor(seriesColor(p));
        set->setBorderColor(seriesColor(p).darker(130));
        for (const CandidateView& c : bottomUp) {
            double gib = 0;
            for (const MemoryPart& part : c.memory)
                if (part.label == parts[p])
                    gib = part.gib;
            set->append(gib);
        }
        series->append(set);
    }

    // The strategies as the table names them, whole: the axis takes the width its longest label needs.
    QStringList categories;
    double maxValue = plan.capacityGiB;
    for (const CandidateView& c : bottomUp) {
        categories << strategyLabel(c.strategy);
        maxValue = std::max(maxValue, c.peakGiB);
    }
    auto* axisY = new QBarCategoryAxis;
    axisY->setCategories(categories);
    axisY->setTruncateLabels(false);
    chart->addAxis(axisY, Qt::AlignLeft);

    // Round ticks up to a round maximum at or above the highest bar and the GPU's memory, with room
    // after the longest bar for its marks.
    auto* axisX = new QValueAxis;
    axisX->setTitleText(ChartText::tr("GiB per GPU"));
    applyNiceScale(*axisX, maxValue * 1.08);
    chart->addAxis(axisX, Qt::AlignBottom);

    // The slots again as a hidden value axis (-0.5 .. n-0.5), for the capacity line and the marks.
    auto* rows = new QValueAxis;
    rows->setRange(-0.5, n - 0.5);
    rows->setVisible(false);
    chart->addAxis(rows, Qt::AlignRight);

    // The recommended candidate and the fastest one that fits, each with a mark after its bar and a
    // legend entry naming it: told apart by shape, not only by colour. Added first, so that their
    // entries head the legend (a legend taller than the chart scrolls).
    const double gap = axisX->max() * 0.025;
    int recommended = -1;
    for (int i = 0; i < plan.candidates.size(); ++i)
        if (plan.candidates[i].recommended)
            recommended = i;
    if (recommended >= 0) {
        const CandidateView& c = plan.candidates[recommended];
        addMark(*chart, *axisX, *rows, QStringLiteral("recommendedMark"),
                ChartText::tr("recommended: %1").arg(strategyLabel(c.strategy)), QScatterSeries::MarkerShapeStar,
                QColor(0xe6, 0x9f, 0x00), c.peakGiB + gap, n - 1 - recommended);
    }
    if (const std::optional<int> fastest = fastestFittingCandidate(plan)) {
        const CandidateView& c = plan.candidates[*fastest];
        addMark(*chart, *axisX, *rows, QStringLiteral("fastestFittingMark"),
                ChartText::tr("fastest that fits: %1").arg(strategyLabel(c.strategy)),
                QScatterSeries::MarkerShapeTriangle, QColor(0x00, 0x9e, 0x73),
                c.peakGiB + gap * (*fastest == recommended ? 2.5 : 1.0), n - 1 - *fastest);
    }

    // The capacity line, drawn at the usable capacity, what "fits" compares each peak with, so a bar
    // crosses it exactly when its candidate does not fit the GPU.
    if (plan.capacityGiB > 0) {
        auto* capacity = new QLineSeries;
        capacity->setObjectName(QStringLiteral("usableCapacityLine"));
        // Short, for the legend beside the bars; the tooltip and the report's caption say how it is made.
        capacity->setName(ChartText::tr("usable: %1").arg(formatGiB(plan.usableGiB)));
        capacity->append(plan.usableGiB, -0.5);
        capacity->append(plan.usableGiB, n - 0.5);
        QPen pen(capacityLineColor());
        pen.setWidth(2);
        pen.setStyle(Qt::DashLine);
        capacity->setPen(pen);
        chart->addSeries(capacity);
        capacity->attachAxis(axisX);
        capacity->attachAxis(rows);
    }

    chart->addSeries(series);
    series->attachAxis(axisY);
    series->attachAxis(axisX);
    showValuesOnHover(*chart, *series, categories, [](double gib) { return formatGiB(gib); });
    // Beside the bars, one entry a line: a row under them would elide every name.
    chart->legend()->setAlignment(Qt::AlignRight);
    // The marks' entries drawn as the marks are (star, triangle), the capacity line's as a line; the
    // parts keep their filled squares (a bar set's marker "from the series" is drawn empty).
    for (QLegendMarker* marker : chart->legend()->markers())
        if (marker->type() == QLegendMarker::LegendMarkerTypeXY)
            marker->setShape(QLegend::MarkerShapeFromSeries);
    return chart;
}

} // namespace shardwise::gui
