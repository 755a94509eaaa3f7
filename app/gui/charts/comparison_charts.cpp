#include "charts/comparison_charts.hpp"

#include "charts/chart_axes.hpp"
#include "charts/chart_style.hpp"
#include "models/display_format.hpp"
#include "models/run_backend.hpp"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCoreApplication>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>

#include <algorithm>
#include <functional>

namespace shardwise::gui {

namespace {

struct ChartText {
    Q_DECLARE_TR_FUNCTIONS(ChartText)
};

bool measured(const RunRecord& r)
{
    return r.outcome == RunOutcome::Completed;
}

QBarSet* makeSet(const QString& name, int colorIndex)
{
    auto* set = new QBarSet(name);
    set->setColor(seriesColor(colorIndex));
    set->setBorderColor(seriesColor(colorIndex).darker(130));
    return set;
}

using ValueFormat = std::function<QString(double)>;

// The runs a chart of the step's time (tokens/s, NCCL share) shows: a rehearsal's steps hold no
// communication, so it has no such figure of the world it stands for and no category there.
QList<RunRecord> timedRuns(const QList<RunRecord>& runs)
{
    QList<RunRecord> out;
    for (const RunRecord& r : runs)
        if (!r.rehearsal())
            out.append(r);
    return out;
}

QString formatShare(double percent)
{
    return formatPercent(percent / 100.0);
}

// Adds the category axis (one slot per run, labels elided in the middle to fit), a value axis from 0
// to a round maximum at or above `maxValue`, and each bar's value (through `format`) on hover.
QValueAxis* addAxes(QChart& chart, QAbstractBarSeries& series, const QList<RunRecord>& runs, double maxValue,
                    const QString& yTitle, const ValueFormat& format)
{
    QStringList categories;
    for (const RunRecord& r : runs)
        categories << runCategoryLabel(r);
    auto* axisX = new QBarCategoryAxis;
    axisX->setLabelsAngle(runs.size() > 4 ? -30 : 0);
    chart.addAxis(axisX, Qt::AlignBottom);
    series.attachAxis(axisX);
    setFittedCategories(chart, *axisX, categories);
    auto* axisY = new QValueAxis;
    axisY->setTitleText(yTitle);
    applyNiceScale(*axisY, maxValue);
    chart.addAxis(axisY, Qt::AlignLeft);
    series.attachAxis(axisY);
    showValuesOnHover(chart, series, categories, format);
    return axisY;
}

void addCapacityLine(QChart& chart, QValueAxis& axisY, int categoryCount, double capacityGiB)
{
    auto* line = new QLineSeries;
    line->setName(ChartText::tr("GPU memory (%1)").arg(formatGiB(capacityGiB)));
    line->append(-0.5, capacityGiB);
    line->append(categoryCount - 0.5, capacityGiB);
    QPen pen(capacityLineColor());
    pen.setWidth(2);
    pen.setStyle(Qt::DashLine);
    line->setPen(pen);
    chart.addSeries(line);
    auto* hiddenX = new QValueAxis;
    hiddenX->setRange(-0.5, categoryCount - 0.5);
    hiddenX->setVisible(false);
    chart.addAxis(hiddenX, Qt::AlignBottom);
    line->attachAxis(hiddenX);
    line->attachAxis(&axisY);
}

} // namespace

QString runCategoryLabel(const RunRecord& run)
{
    QString label = QStringLiteral("#%1 %2").arg(run.id).arg(strategyIdText(run.strategy));
    if (!measured(run))
        label = ChartText::tr("%1 — %2").arg(label, outcomeText(run.outcome));
    else if (run.rehearsal())
        label = ChartText::tr("%1 — %2").arg(label, rehearsalWorldText(*run.rehearsedWorld));
    // The backend always, on a line of its own (axis labels are rich text; one long line would be
    // elided in a narrow slot): a native and a torch run of one strategy stand side by side.
    return label + QStringLiteral("<br>(%1)").arg(backendIdText(run.backend));
}

QChart* createComparisonChart(ComparisonMetric metric, const QList<RunRecord>& allRuns)
{
    // Rehearsals are memory results: the peak-memory chart only.
    const QList<RunRecord> runs = metric == ComparisonMetric::PeakMemory ? allRuns : timedRuns(allRuns);
    auto* chart = new QChart;
    styleChart(*chart);
    chart->legend()->setAlignment(Qt::AlignBottom);
    auto* series = new QBarSeries;
    double maxValue = 0;

    switch (metric) {
    case ComparisonMetric::Throughput: {
        chart->setTitle(ChartText::tr("Throughput (tokens/s, higher is better)"));
        QBarSet* set = makeSet(ChartText::tr("measured tokens/s"), 0);
        for (const RunRecord& r : runs) {
            set->append(measured(r) ? r.tokensPerS : 0.0);
            maxValue = std::max(maxValue, measured(r) ? r.tokensPerS : 0.0);
        }
        series->append(set);
        chart->addSeries(series);
        addAxes(*chart, *series, runs, maxValue, ChartText::tr("tokens/s"), formatTokensPerS);
        break;
    }
    case ComparisonMetric::PeakMemory: {
        chart->setTitle(ChartText::tr("Peak memory per GPU (allocated vs reserved)"));
        QBarSet* allocated = makeSet(ChartText::tr("peak allocated"), 0);
        QBarSet* reserved = makeSet(ChartText::tr("peak reserved"), 1);
        // The plan's peak allocated beside the measured one where the run has a prediction (for a
        // rehearsal of world N: rank 0's at world N).
        const bool anyPredicted
            = std::any_of(runs.begin(), runs.end(), [](const RunRecord& r) { return r.predictedPeakGiB.has_value(); });
        QBarSet* predicted = anyPredicted ? makeSet(ChartText::tr("predicted peak allocated"), 4) : nullptr;
        double capacity = 0;
        for (const RunRecord& r : runs) {
            // An OOM run still reports what the allocator held when it failed.
            allocated->append(r.peakAllocatedGiB);
            reserved->append(r.peakReservedGiB);
            maxValue = std::max({ maxValue, r.peakAllocatedGiB, r.peakReservedGiB });
            if (predicted) {
                predicted->append(r.predictedPeakGiB.value_or(0.0));
                maxValue = std::max(maxValue, r.predictedPeakGiB.value_or(0.0));
            }
            capacity = std::max(capacity, r.capacityGiB);
        }
        series->append(allocated);
        series->append(reserved);
        if (predicted)
            series->append(predicted);
        chart->addSeries(series);
        QValueAxis* axisY
            = addAxes(*chart, *series, runs, std::max(maxValue, capacity), ChartText::tr("GiB per GPU"), formatGiB);
        if (capacity > 0 && !runs.isEmpty())
            addCapacityLine(*chart, *axisY, static_cast<int>(runs.size()), capacity);
        break;
    }
    case ComparisonMetric::NcclShare: {
        chart->setTitle(ChartText::tr("NCCL share of step time (overlaps compute; not waiting time)"));
        QBarSet* set = makeSet(ChartText::tr("NCCL kernel share"), 2);
        for (const RunRecord& r : runs) {
            set->append(measured(r) ? r.ncclShare * 100.0 : 0.0);
            maxValue = std::max(maxValue, measured(r) ? r.ncclShare * 100.0 : 0.0);
        }
        series->append(set);
        chart->addSeries(series);
        addAxes(*chart, *series, runs, std::max(maxValue, 10.0), ChartText::tr("% of step time"), formatShare);
        break;
    }
    case ComparisonMetric::PredictedVsMeasured: {
        chart->setTitle(ChartText::tr("Predicted vs measured throughput"));
        QBarSet* predicted = makeSet(ChartText::tr("predicted tokens/s"), 4);
        QBarSet* measuredSet = makeSet(ChartText::tr("measured tokens/s"), 0);
        for (const RunRecord& r : runs) {
            const double p = r.predictedTokensPerS.value_or(0.0);
            const double m = measured(r) ? r.tokensPerS : 0.0;
            predicted->append(p);
            measuredSet->append(m);
            maxValue = std::max({ maxValue, p, m });
        }
        series->append(predicted);
        series->append(measuredSet);
        chart->addSeries(series);
        addAxes(*chart, *series, runs, maxValue, ChartText::tr("tokens/s"), formatTokensPerS);
        break;
    }
    }
    if (runs.isEmpty())
        chart->setTitle(allRuns.isEmpty() ? ChartText::tr("Check runs in the table to compare them.")
                                          : ChartText::tr("The checked runs are rehearsals: memory results only."));
    return chart;
}

QChart* createCalibrationChart(const QList<RunRecord>& allRuns, const QHash<qint64, RunPrediction>& predictions)
{
    const QList<RunRecord> runs = timedRuns(allRuns); // tokens/s: no rehearsal
    auto* chart = new QChart;
    styleChart(*chart);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setTitle(ChartText::tr("Tokens/s: measured vs predicted"));
    auto* series = new QBarSeries;
    // Short names: the chart is a third of the page wide and the axis already says tokens/s.
    QBarSet* measuredSet = makeSet(ChartText::tr("measured"), 0);
    QBarSet* presets = makeSet(ChartText::tr("presets"), 4);
    QBarSet* calibrated = makeSet(ChartText::tr("calibrated"), 2);
    double maxValue = 0;
    for (const RunRecord& r : runs) {
        const auto it = predictions.constFind(r.id);
        const bool predicted = it != predictions.constEnd();
        const double m = measured(r) ? r.tokensPerS : 0.0;
        const double p = predicted ? it->presets.tokensPerS : 0.0;
        const double c = predicted ? it->calibrated.tokensPerS : 0.0;
        measuredSet->append(m);
        presets->append(p);
        calibrated->append(c);
        maxValue = std::max({ maxValue, m, p, c });
    }
    series->append(measuredSet);
    series->append(presets);
    series->append(calibrated);
    chart->addSeries(series);
    addAxes(*chart, *series, runs, maxValue, ChartText::tr("tokens/s"), formatTokensPerS);
    if (runs.isEmpty())
        chart->setTitle(allRuns.isEmpty() ? ChartText::tr("Check runs in the table to compare them.")
                                          : ChartText::tr("The checked runs are rehearsals: memory results only."));
    return chart;
}

} // namespace shardwise::gui
