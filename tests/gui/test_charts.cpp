// The charts' axes and hover values, on the real chart views offscreen: value axes tick on round
// values up to a round maximum, a category label too long for its slot is elided in the middle and
// its label area's tooltip is the full name, and the pointer over a bar shows the bar's value with its
// unit, on the Plan page's memory chart and on the Compare page's charts.

#include "gui_test_main.hpp"

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

QBarCategoryAxis* categoryAxis(QChart* chart)
{
    for (QAbstractAxis* axis : chart->axes(Qt::Horizontal))
        if (auto* categories = qobject_cast<QBarCategoryAxis*>(axis))
            return categories;
    return nullptr;
}

QValueAxis* valueAxis(QChart* chart)
{
    for (QAbstractAxis* axis : chart->axes(Qt::Vertical))
        if (auto* values = qobject_cast<QValueAxis*>(axis))
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
    if (series->type() == QAbstractSeries::SeriesTypeStackedBar)
        for (int s = 0; s < set; ++s)
            below += series->barSets().at(s)->at(index);
    const double value = series->barSets().at(set)->at(index);
    const QPointF inChart = view.chart()->mapToPosition(QPointF(index, below + value / 2), series);
    return view.mapFromScene(view.chart()->mapToScene(inChart));
}

// What the tooltip says at `pos` of the view's viewport, through the help event Qt sends on a hover pause.
QString toolTipAt(QChartView& view, QPoint pos)
{
    QToolTip::hideText();
    QHelpEvent help(QEvent::ToolTip, pos, view.viewport()->mapToGlobal(pos));
    QCoreApplication::sendEvent(view.viewport(), &help);
    return QToolTip::isVisible() ? QToolTip::text() : QString();
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
        QCOMPARE(axis->max(), 80.0); // peak 73.6, capacity 79.6
        QCOMPARE(axis->tickCount(), 5);
        QCOMPARE(axis->labelFormat(), QStringLiteral("%.0f"));

        const QList<RunRecord> runs { run(3, Strategy::Zero0, RunOutcome::Completed, 7360.0),
                                      run(4, Strategy::Zero3, RunOutcome::Completed, 3000.0) };
        std::unique_ptr<QChart> throughput(createComparisonChart(ComparisonMetric::Throughput, runs));
        QCOMPARE(valueAxis(throughput.get())->max(), 8000.0);
        std::unique_ptr<QChart> peak(createComparisonChart(ComparisonMetric::PeakMemory, runs));
        QCOMPARE(valueAxis(peak.get())->max(), 25.0); // capacity 22.5 GiB
        QCOMPARE(valueAxis(peak.get())->labelFormat(), QStringLiteral("%.0f"));
        std::unique_ptr<QChart> nccl(createComparisonChart(ComparisonMetric::NcclShare, runs));
        QCOMPARE(valueAxis(nccl.get())->max(), 20.0);
        std::unique_ptr<QChart> predicted(createComparisonChart(ComparisonMetric::PredictedVsMeasured, runs));
        QCOMPARE(valueAxis(predicted.get())->max(), 8000.0);
        std::unique_ptr<QChart> calibration(createCalibrationChart(runs, {}));
        QCOMPARE(valueAxis(calibration.get())->max(), 8000.0);
    }

    void longLabelIsElidedInTheMiddleWithTheFullNameAsTooltip()
    {
        const QList<RunRecord> runs { run(14, Strategy::Fsdp2ReshardOffload, RunOutcome::OutOfMemory, 0.0),
                                      run(15, Strategy::Zero0, RunOutcome::Completed, 500.0),
                                      run(16, Strategy::Zero3, RunOutcome::Completed, 400.0) };
        const QString full = runCategoryLabel(runs[0]);
        const QString firstLine = full.section(QStringLiteral("<br>"), 0, 0);
        QVERIFY2(firstLine.startsWith(QStringLiteral("#14 fsdp2_reshard_offload"))
                     && firstLine.endsWith(QStringLiteral("out of memory")),
                 qPrintable(full));

        QChartView view(createComparisonChart(ComparisonMetric::Throughput, runs));
        view.resize(420, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QBarCategoryAxis* axis = categoryAxis(view.chart());
        QVERIFY(axis);
        QTRY_VERIFY(axis->categories().first() != full);

        const QString shown = axis->categories().first();
        const QString shownFirstLine = shown.section(QStringLiteral("<br>"), 0, 0);
        // Elided in the middle: the run's number and the end of its outcome stay, an ellipsis between.
        QVERIFY2(shownFirstLine.contains(QChar(0x2026)), qPrintable(shown));
        QVERIFY2(shownFirstLine.startsWith(QStringLiteral("#14 ")), qPrintable(shown));
        QVERIFY2(shownFirstLine.endsWith(QStringLiteral("memory")), qPrintable(shown));
        QVERIFY2(shownFirstLine.size() < firstLine.size(), qPrintable(shown));
        // It fits its slot, and the line that already fitted is left alone.
        const qreal slot = view.chart()->plotArea().width() / runs.size();
        QVERIFY(QFontMetricsF(axis->labelsFont()).horizontalAdvance(shownFirstLine) <= slot);
        QCOMPARE(shown.section(QStringLiteral("<br>"), 1), QStringLiteral("(torch)"));
        QCOMPARE(axis->property(kFullCategoriesProperty).toStringList().first(), full);

        // The label's area, below the plot in the run's slot, tells the full name.
        const QRectF plot = view.chart()->plotArea();
        const QPointF underSlot(plot.left() + slot / 2, plot.bottom() + 8);
        const QPoint pos = view.mapFromScene(view.chart()->mapToScene(underSlot));
        QCOMPARE(toolTipAt(view, pos), plainCategoryLabel(full));
        QCOMPARE(toolTipAt(view, pos), QStringLiteral("#14 fsdp2_reshard_offload — out of memory (torch)"));

        // Wider, the label fits whole again.
        view.resize(1800, 300);
        QTRY_COMPARE(axis->categories().first(), full);
    }

    // The Plan page's nine strategies, slanted, at a usual size: every id fits whole, none is elided.
    void strategyLabelsThatFitStayWhole()
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
        QBarCategoryAxis* axis = categoryAxis(view.chart());
        QVERIFY(axis);
        QTRY_VERIFY(view.chart()->plotArea().width() > 0);
        QCoreApplication::processEvents();
        QCOMPARE(axis->categories(), axis->property(kFullCategoriesProperty).toStringList());
        QVERIFY(axis->categories().contains(QStringLiteral("fsdp2_reshard_offload")));
    }

    void hoverOverABarShowsItsValue()
    {
        const QList<RunRecord> runs { run(21, Strategy::Zero0, RunOutcome::Completed, 7360.0),
                                      run(22, Strategy::Zero3, RunOutcome::Completed, 3000.0) };
        QChartView view(createComparisonChart(ComparisonMetric::Throughput, runs));
        view.resize(640, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QAbstractBarSeries* series = barSeries(view.chart());
        QVERIFY(series);
        QCOMPARE(view.chart()->toolTip(), QString());

        const QPoint bar = barCentre(view, series, 0, 1);
        QTest::mouseMove(view.viewport(), bar);
        const QString expected
            = QStringLiteral("#22 zero3 (torch), measured tokens/s: %1").arg(formatTokensPerS(3000.0));
        QTRY_COMPARE(view.chart()->toolTip(), expected);
        QCOMPARE(toolTipAt(view, bar), expected);

        // Off the bars (above the plot): no value.
        QTest::mouseMove(
            view.viewport(),
            view.mapFromScene(view.chart()->mapToScene(view.chart()->plotArea().topLeft() + QPointF(2, -4))));
        QTRY_COMPARE(view.chart()->toolTip(), QString());
    }

    void hoverOverAStackedPartShowsItsValueAndThePeak()
    {
        QChartView view(createMemoryBreakdownChart(twoCandidatePlan()));
        view.resize(800, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QAbstractBarSeries* series = barSeries(view.chart());
        QVERIFY(series);
        QCOMPARE(series->type(), QAbstractSeries::SeriesTypeStackedBar);
        // zero0's optimizer state, 42.6 GiB of a 73.6 GiB peak.
        QTest::mouseMove(view.viewport(), barCentre(view, series, 2, 0));
        QTRY_COMPARE(view.chart()->toolTip(),
                     QStringLiteral("zero0, optimizer state: %1 (of %2 in all)").arg(formatGiB(42.6), formatGiB(73.6)));
    }

    void hoverOverAPeakMemoryBarShowsGiB()
    {
        QList<RunRecord> runs { run(31, Strategy::Zero2, RunOutcome::Completed, 100.0) };
        runs[0].peakAllocatedGiB = 17.25;
        QChartView view(createComparisonChart(ComparisonMetric::PeakMemory, runs));
        view.resize(640, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QAbstractBarSeries* series = barSeries(view.chart());
        QVERIFY(series);
        // Two sets side by side in the slot: the allocated bar is the left half.
        const QPoint centre = barCentre(view, series, 0, 0);
        const qreal slot = view.chart()->plotArea().width();
        QTest::mouseMove(view.viewport(), centre - QPoint(static_cast<int>(slot * 0.15), 0));
        QTRY_COMPARE(view.chart()->toolTip(),
                     QStringLiteral("#31 zero2 (torch), peak allocated: %1").arg(formatGiB(17.25)));
    }
};

SHARDWISE_GUI_TEST_MAIN(TestCharts)
#include "test_charts.moc"
