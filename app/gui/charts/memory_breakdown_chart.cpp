#include "charts/memory_breakdown_chart.hpp"

#include "charts/chart_axes.hpp"
#include "charts/chart_style.hpp"
#include "models/display_format.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCoreApplication>
#include <QLineSeries>
#include <QPen>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>

namespace shardwise::gui {

namespace {
struct ChartText {
    Q_DECLARE_TR_FUNCTIONS(ChartText)
};
} // namespace

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
    // the candidate's peak, the figure of the table and the reasons.
    QStringList parts;
    for (const CandidateView& c : plan.candidates)
        for (const MemoryPart& part : c.memory)
            if (!parts.contains(part.label))
                parts << part.label;

    auto* series = new QStackedBarSeries;
    series->setObjectName(QStringLiteral("peakPartsSeries"));
    for (int p = 0; p < parts.size(); ++p) {
        auto* set = new QBarSet(parts[p]);
        set->setColor(seriesColor(p));
        set->setBorderColor(seriesColor(p).darker(130));
        for (const CandidateView& c : plan.candidates) {
            double gib = 0;
            for (const MemoryPart& part : c.memory)
                if (part.label == parts[p])
                    gib = part.gib;
            set->append(gib);
        }
        series->append(set);
    }
    chart->addSeries(series);

    QStringList categories;
    double maxValue = plan.capacityGiB;
    for (const CandidateView& c : plan.candidates) {
        categories << strategyIdText(c.strategy); // ids are short enough for nine slots side by side
        maxValue = std::max(maxValue, c.peakGiB);
    }
    auto* axisX = new QBarCategoryAxis;
    axisX->setLabelsAngle(-40);
    chart->addAxis(axisX, Qt::AlignBottom);
    series->attachAxis(axisX);
    setFittedCategories(*chart, *axisX, categories);

    // Round ticks up to a round maximum at or above the highest bar and the GPU's memory.
    auto* axisY = new QValueAxis;
    axisY->setTitleText(ChartText::tr("GiB per GPU"));
    applyNiceScale(*axisY, maxValue);
    chart->addAxis(axisY, Qt::AlignLeft);
    series->attachAxis(axisY);
    showValuesOnHover(*chart, *series, categories, [](double gib) { return formatGiB(gib); });

    // The capacity line spans the category axis through a hidden value axis over the same slots. It
    // is drawn at the usable capacity, what "fits" compares each peak with, so a bar crosses it
    // exactly when its candidate does not fit the GPU.
    if (plan.capacityGiB > 0) {
        auto* capacity = new QLineSeries;
        capacity->setObjectName(QStringLiteral("usableCapacityLine"));
        capacity->setName(
            ChartText::tr("Usable GPU memory: %1 (%2 less %3 headroom)")
                .arg(formatGiB(plan.usableGiB), formatGiB(plan.capacityGiB), formatGiB(plan.headroomGiB)));
        const qreal n = static_cast<qreal>(categories.size());
        capacity->append(-0.5, plan.usableGiB);
        capacity->append(n - 0.5, plan.usableGiB);
        QPen pen(capacityLineColor());
        pen.setWidth(2);
        pen.setStyle(Qt::DashLine);
        capacity->setPen(pen);
        chart->addSeries(capacity);
        auto* hiddenX = new QValueAxis;
        hiddenX->setRange(-0.5, n - 0.5);
        hiddenX->setVisible(false);
        chart->addAxis(hiddenX, Qt::AlignBottom);
        capacity->attachAxis(hiddenX);
        capacity->attachAxis(axisY);
    }
    chart->legend()->setAlignment(Qt::AlignRight);
    return chart;
}

} // namespace shardwise::gui
