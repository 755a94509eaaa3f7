// The charts' axes and hover values, on the real chart views offscreen: value axes tick on round
// values up to a round maximum, and the pointer over a bar shows the bar's value with its unit, on
// the Plan page's memory chart; the Compare page's run charts tell a row's label and values.

#include "gui_test_main.hpp"

#include "charts/bar_chart_view.hpp"
#include "charts/chart_axes.hpp"
#include "charts/comparison_charts.hpp"
#include "charts/memory_breakdown_chart.hpp"
#include "models/display_format.hpp"

#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChartView>
#include <QHelpEvent>
#include <QToolTip>
#include <QValueAxis>

#include <cmath>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

// The memory chart's visible value axis (its bars are horizontal: the bottom axis).
QValueAxis* valueAxis(QChart* chart)
{
    for (QAbstractAxis* axis : chart->axes(Qt::Horizontal))
        if (auto* values = qobject_cast<QValueAxis*>(axis); values && values->isVisible())
            return values;
    return nullptr;
}

QAbstractBarSeries* barSeries(QChart* chart)
{
    for (QAbstractSeries* series : chart->series())
        if (auto* bars = qobject_cast<QAbstractBarSeries*>(series))
            return bars;
    return nullptr;
}

// A step of the form 1, 2, 2.5 or 5 x 10^k.
bool isRoundStep(double step)
{
    const double magnitude = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    const double mantissa = step / magnitude;
    for (const double round : { 1.0, 2.0, 2.5, 5.0 })
        if (std::abs(mantissa - round) < 1e-9)
            return true;
    return false;
}

RunRecord run(qint64 id, Strategy strategy, RunOutcome outcome, double tokensPerS)
{
    RunRecord r;
    r.id = id;
    r.strategy = strategy;
    r.outcome = outcome;
    r.backend = RunBackend::Torch;
    r.tokensPerS = tokensPerS;
    r.peakAllocatedGiB = 10.0;
    r.peakReservedGiB = 12.0;
    r.capacityGiB = 22.5;
    r.ncclShare = 0.2;
    return r;
}

// The viewport position of the middle of bar `index` of `set` (a series with one set, or a stacked one).
QPoint barCentre(QChartView& view, QAbstractBarSeries* series, int set, int index)
{
    double below = 0;
    if (series->type() == QAbstractSeries::SeriesTypeStackedBar
        || series->type() == QAbstractSeries::SeriesTypeHorizontalStackedBar)
        for (int s = 0; s < set; ++s)
            below += series->barSets().at(s)->at(index);
    const double value = series->barSets().at(set)->at(index);
    const bool horizontal = series->type() == QAbstractSeries::SeriesTypeHorizontalStackedBar;
    const QPointF inChart = view.chart()->mapToPosition(
        horizontal ? QPointF(below + value / 2, index) : QPointF(index, below + value / 2), series);
    return view.mapFromScene(view.chart()->mapToScene(inChart));
}

PlanView twoCandidatePlan()
{
    PlanView plan;
    plan.modelName = QStringLiteral("Qwen2.5-7B");
    plan.gpuName = QStringLiteral("NVIDIA H100 80GB");
    plan.gpus = 8;
    plan.capacityGiB = 79.6;
    plan.usableGiB = 77.6;
    plan.headroomGiB = 2.0;
    for (const auto& [strategy, parts] : { std::pair { Strategy::Zero0, QList<double> { 14.2, 14.2, 42.6, 2.6 } },
                                           std::pair { Strategy::Zero3, QList<double> { 1.8, 1.8, 5.3, 2.6 } } }) {
        CandidateView c;
        c.strategy = strategy;
        const QStringList names { QStringLiteral("parameters"), QStringLiteral("gradients"),
                                  QStringLiteral("optimizer state"), QStringLiteral("activations") };
        for (int i = 0; i < parts.size(); ++i) {
            c.memory << MemoryPart { names[i], parts[i] };
            c.peakGiB += parts[i];
        }
        c.fits = c.peakGiB <= plan.usableGiB;
        plan.candidates << c;
    }
    return plan;
}

} // namespace

class TestCharts : public QObject {
    Q_OBJECT

private slots:
    void ticksAreRound_data()
    {
        QTest::addColumn<double>("maxValue");
        QTest::addColumn<double>("expectedMax");
        QTest::addColumn<double>("expectedStep");
        QTest::newRow("73.6 GiB") << 73.6 << 80.0 << 20.0;
        QTest::newRow("0.37") << 0.37 << 0.4 << 0.1;
        QTest::newRow("79.6 GiB capacity") << 79.6 << 80.0 << 20.0;
        QTest::newRow("exactly 80") << 80.0 << 80.0 << 20.0;
        QTest::newRow("12.3") << 12.3 << 12.5 << 2.5;
        QTest::newRow("22,658 tokens/s") << 22658.0 << 25000.0 << 5000.0;
        QTest::newRow("3,025 tokens/s") << 3025.0 << 4000.0 << 1000.0;
        QTest::newRow("0.9") << 0.9 << 1.0 << 0.2;
        QTest::newRow("0.0042") << 0.0042 << 0.005 << 0.001;
        QTest::newRow("nothing to show") << 0.0 << 1.0 << 0.2;
    }
    void ticksAreRound()
    {
        QFETCH(double, maxValue);
        QFETCH(double, expectedMax);
        QFETCH(double, expectedStep);
        const NiceScale scale = niceScale(maxValue);
        QVERIFY2(std::abs(scale.max - expectedMax) < 1e-9 * expectedMax, qPrintable(QString::number(scale.max)));
        QVERIFY2(std::abs(scale.step - expectedStep) < 1e-9 * expectedStep, qPrintable(QString::number(scale.step)));
        QVERIFY(isRoundStep(scale.step));
        QVERIFY(scale.intervals >= 1 && scale.intervals <= 6);
        QVERIFY(scale.max >= maxValue);
        const QList<double> ticks = scale.ticks();
        QCOMPARE(ticks.size(), scale.intervals + 1);
        QCOMPARE(ticks.first(), 0.0);
        QVERIFY(std::abs(ticks.last() - scale.max) < 1e-9 * scale.max);
        // Every tick label, at the decimals the scale asks for, reads as the tick itself.
        for (const double tick : ticks)
            QVERIFY2(std::abs(QString::number(tick, 'f', scale.decimals).toDouble() - tick) < 1e-9 * scale.max,
                     qPrintable(QString::number(tick, 'f', scale.decimals)));
    }

    void valueAxesOfEveryChartEndOnRoundValues()
    {
        std::unique_ptr<QChart> memory(createMemoryBreakdownChart(twoCandidatePlan()));
        QValueAxis* axis = valueAxis(memory.get());
        QVERIFY(axis);
        QCOMPARE(axis->min(), 0.0);
        QCOMPARE(axis->max(), 100.0); // peak 73.6, capacity 79.6, and room for the marks after a bar
        QCOMPARE(axis->labelFormat(), QStringLiteral("%.0f"));

        const QList<RunRecord> runs { run(3, Strategy::Zero0, RunOutcome::Completed, 7360.0),
                                      run(4, Strategy::Zero3, RunOutcome::Completed, 3000.0) };
        const auto axisMax = [](const BarChartSpec& spec) {
            BarChartView view;
            view.setSpec(spec);
            view.resize(800, 100);
            return view.chartGeometry().facets.value(0).scale.max;
        };
        QCOMPARE(axisMax(comparisonChart(ComparisonMetric::Throughput, runs)), 8000.0);
        QCOMPARE(axisMax(comparisonChart(ComparisonMetric::PeakMemory, runs)), 25.0); // capacity 22.5 GiB
        QCOMPARE(axisMax(comparisonChart(ComparisonMetric::NcclShare, runs)), 20.0);
        QCOMPARE(axisMax(comparisonChart(ComparisonMetric::PredictedVsMeasured, runs)), 8000.0);
        QCOMPARE(axisMax(calibrationChart(runs, {})), 8000.0);
    }

    // The Plan page's nine strategies at a usual size: every label whole.
    void strategyLabelsStayWhole()
    {
        PlanView plan = twoCandidatePlan();
        const CandidateView zero0 = plan.candidates.first();
        plan.candidates.clear();
        for (const Strategy strategy : { Strategy::Zero0, Strategy::Zero1, Strategy::Zero2, Strategy::Zero3,
                                         Strategy::Zero2Offload, Strategy::Zero3Offload, Strategy::Fsdp2NoReshard,
                                         Strategy::Fsdp2Reshard, Strategy::Fsdp2ReshardOffload }) {
            CandidateView c = zero0;
            c.strategy = strategy;
            plan.candidates << c;
        }
        QChartView view(createMemoryBreakdownChart(plan));
        view.resize(900, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QBarCategoryAxis* axis = nullptr;
        for (QAbstractAxis* a : view.chart()->axes(Qt::Vertical))
            if (auto* categories = qobject_cast<QBarCategoryAxis*>(a))
                axis = categories;
        QVERIFY(axis);
        QCOMPARE(axis->categories().size(), 9);
        QVERIFY(axis->categories().contains(strategyLabel(Strategy::Fsdp2ReshardOffload)));
        QVERIFY(!axis->truncateLabels());
    }

    void hoverOverARunRowShowsItsLabelAndValues()
    {
        QList<RunRecord> runs { run(21, Strategy::Zero0, RunOutcome::Completed, 7360.0),
                                run(22, Strategy::Zero3, RunOutcome::Completed, 3000.0) };
        runs[1].peakAllocatedGiB = 17.25;
        BarChartView view;
        view.setSpec(comparisonChart(ComparisonMetric::PeakMemory, runs));
        view.resize(800, 100);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QRectF row = view.chartGeometry().facets.value(0).rowRects.value(1);
        QVERIFY(!row.isEmpty());
        const QPoint pos = row.center().toPoint();
        QToolTip::hideText();
        QHelpEvent help(QEvent::ToolTip, pos, view.mapToGlobal(pos));
        QCoreApplication::sendEvent(&view, &help);
        QVERIFY(QToolTip::isVisible());
        const QString tip = QToolTip::text();
        QVERIFY2(tip.startsWith(runChartLabel(runs[1])), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("peak allocated: %1").arg(formatGiB(17.25))), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("peak reserved: %1").arg(formatGiB(12.0))), qPrintable(tip));
    }

    void hoverOverAStackedPartShowsItsValueAndThePeak()
    {
        QChartView view(createMemoryBreakdownChart(twoCandidatePlan()));
        view.resize(800, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QAbstractBarSeries* series = barSeries(view.chart());
        QVERIFY(series);
        QCOMPARE(series->type(), QAbstractSeries::SeriesTypeHorizontalStackedBar);
        // zero0's optimizer state, 42.6 GiB of a 73.6 GiB peak: the first candidate, on top (slot 1 of 2).
        QTest::mouseMove(view.viewport(), barCentre(view, series, 2, 1));
        QTRY_COMPARE(
            view.chart()->toolTip(),
            QStringLiteral("ZeRO-0 (DDP), optimizer state: %1 (of %2 in all)").arg(formatGiB(42.6), formatGiB(73.6)));
    }
};

SHARDWISE_GUI_TEST_MAIN(TestCharts)
#include "test_charts.moc"
