// The run charts with 30 runs, offscreen: every run's label is drawn whole (the label column is as
// wide as the longest label, the chart as high as its rows, at any width), bars are coloured by
// strategy with their values at their ends, every hardware has its own facet with its own value
// axis and capacity line, CPU communication is Gloo's, and the Plan page's memory chart names every
// strategy whole and marks the recommended and the fastest fitting candidate.

#include "gui_test_main.hpp"

#include "charts/bar_chart_view.hpp"
#include "charts/chart_panel.hpp"
#include "charts/chart_style.hpp"
#include "charts/comparison_charts.hpp"
#include "charts/memory_breakdown_chart.hpp"
#include "models/display_format.hpp"

#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QChartView>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QImage>
#include <QLegendMarker>
#include <QPainter>
#include <QScatterSeries>

#include <set>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

constexpr Strategy kStrategies[] = { Strategy::Zero0,          Strategy::Zero1,        Strategy::Zero2,
                                     Strategy::Zero3,          Strategy::Zero2Offload, Strategy::Zero3Offload,
                                     Strategy::Fsdp2NoReshard, Strategy::Fsdp2Reshard, Strategy::Fsdp2ReshardOffload };

// 30 runs: 14 on 8 x H200, 10 on 4 x L4, 6 on CPU; every strategy, three precisions, two sequence
// lengths, both backends; two out of memory.
QList<RunRecord> thirtyRuns()
{
    QList<RunRecord> runs;
    for (int i = 0; i < 30; ++i) {
        RunRecord r;
        r.id = 100 + i;
        r.model = QStringLiteral("Qwen2.5 7B");
        r.strategy = kStrategies[i % 9];
        r.backend = i % 2 ? RunBackend::Torch : RunBackend::Native;
        r.precision = i % 3 == 0 ? QStringLiteral("bf16-fp32-master")
                                 : (i % 3 == 1 ? QStringLiteral("bf16") : QStringLiteral("fp32"));
        r.seqLen = i % 4 < 2 ? 2048 : 4096;
        if (i < 14) {
            r.hardware = QStringLiteral("8 × NVIDIA H200 (NVLink)");
            r.capacityGiB = 139.8;
            r.world = 8;
            r.tokensPerS = 9000 + 700 * i;
            r.peakAllocatedGiB = 40 + 5 * i;
        } else if (i < 24) {
            r.hardware = QStringLiteral("4 × NVIDIA L4 24GB (PCIe)");
            r.capacityGiB = 22.5;
            r.world = 4;
            r.tokensPerS = 1500 + 60 * i;
            r.peakAllocatedGiB = 10 + 0.5 * i;
        } else {
            r.hardware = QStringLiteral("2 × cpu");
            r.onCpu = true;
            r.world = 2;
            r.tokensPerS = 200 + i;
            r.peakAllocatedGiB = 0; // the runner reports no device memory on the CPU
        }
        r.peakReservedGiB = r.peakAllocatedGiB * 1.1;
        r.ncclShare = 0.1 + 0.01 * i;
        r.predictedTokensPerS = r.onCpu ? std::nullopt : std::optional<double>(r.tokensPerS * 1.05);
        if (i == 5 || i == 17) {
            r.outcome = RunOutcome::OutOfMemory;
            r.tokensPerS = 0;
        }
        runs << r;
    }
    return runs;
}

// Every label of the chart, as laid out, is its run's whole label and has the room its text needs.
void verifyLabelsWhole(const BarChartGeometry& geometry, const QList<RunRecord>& runs)
{
    const QFontMetricsF metrics(geometry.font);
    QStringList expected;
    for (const RunRecord& r : runs)
        expected << runChartLabel(r);
    QStringList drawn;
    for (const BarChartGeometry::Label& label : geometry.labels) {
        drawn << label.text;
        QVERIFY2(metrics.horizontalAdvance(label.text) <= label.rect.width(),
                 qPrintable(QStringLiteral("%1: %2 px of text in %3 px")
                                .arg(label.text)
                                .arg(metrics.horizontalAdvance(label.text))
                                .arg(label.rect.width())));
        QVERIFY(label.rect.right() <= geometry.width);
        QVERIFY2(metrics.height() <= label.rect.height(), qPrintable(label.text));
        QVERIFY(!label.text.contains(QChar(0x2026)));
    }
    std::sort(expected.begin(), expected.end());
    std::sort(drawn.begin(), drawn.end());
    QCOMPARE(drawn, expected);
    // One row under the other: no two labels overlap.
    for (int i = 1; i < geometry.labels.size(); ++i)
        QVERIFY(!geometry.labels[i].rect.intersects(geometry.labels[i - 1].rect));
}

// The text of the axis labels the chart's scene draws.
QStringList sceneTexts(QChartView& view)
{
    QStringList texts;
    for (QGraphicsItem* item : view.scene()->items())
        if (auto* text = dynamic_cast<QGraphicsTextItem*>(item))
            texts << text->toPlainText();
    return texts;
}

PlanView ninePlan()
{
    PlanView plan;
    plan.modelName = QStringLiteral("Qwen2.5-7B");
    plan.gpuName = QStringLiteral("NVIDIA H100 80GB");
    plan.gpus = 8;
    plan.capacityGiB = 79.6;
    plan.usableGiB = 77.6;
    plan.headroomGiB = 2.0;
    double peak = 90;
    double tokens = 30000;
    for (const Strategy s : kStrategies) {
        CandidateView c;
        c.strategy = s;
        c.memory = { { QStringLiteral("parameters"), peak * 0.2 }, { QStringLiteral("optimizer state"), peak * 0.8 } };
        c.peakGiB = peak;
        c.fits = peak <= plan.usableGiB;
        c.tokensPerS = tokens;
        peak *= 0.8;
        tokens *= 0.9;
        plan.candidates << c;
    }
    plan.candidates[2].recommended = true; // ZeRO-2 (fits, 57.6 GiB); ZeRO-1 (72 GiB) fits and is faster
    plan.hasRecommendation = true;
    plan.recommendation = Strategy::Zero2;
    return plan;
}

QScatterSeries* markSeries(QChart* chart, const QString& name)
{
    for (QAbstractSeries* s : chart->series())
        if (s->objectName() == name)
            return qobject_cast<QScatterSeries*>(s);
    return nullptr;
}

} // namespace

class TestRunCharts : public QObject {
    Q_OBJECT

private slots:
    void thirtyRunLabelsAreDrawnWhole_data()
    {
        QTest::addColumn<int>("width");
        QTest::newRow("1400 px") << 1400;
        QTest::newRow("1024 px window") << 760;
        QTest::newRow("narrower than the labels") << 320;
    }
    void thirtyRunLabelsAreDrawnWhole()
    {
        QFETCH(int, width);
        const QList<RunRecord> runs = thirtyRuns();
        ChartPanel panel;
        panel.setRuns(runs);
        panel.resize(width, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        for (const ComparisonMetric metric : kComparisonMetrics) {
            BarChartView* view = panel.view(metric);
            const BarChartGeometry& geometry = view->chartGeometry();
            // The peak-memory chart has every run; the others every run too (no rehearsal here).
            verifyLabelsWhole(geometry, runs);
            if (QTest::currentTestFailed())
                return;
            // As high as its rows: the widget grows with the runs instead of squeezing them, and is
            // never narrower than its labels and a usable plot.
            QCOMPARE(view->height(), static_cast<int>(geometry.height));
            QVERIFY(view->height() > 30 * QFontMetrics(view->font()).height());
            QVERIFY(view->minimumWidth() >= static_cast<int>(geometry.labelColumnWidth));
            // Labels and bars start after the longest label.
            for (const BarChartGeometry::Facet& facet : geometry.facets)
                QVERIFY(facet.plot.left() >= geometry.labelColumnWidth);
        }
        // What is painted is what was laid out: the view renders without a clip at its own size.
        BarChartView* throughput = panel.view(ComparisonMetric::Throughput);
        QImage image(throughput->size(), QImage::Format_ARGB32);
        throughput->render(&image);
        QVERIFY(!image.isNull());
    }

    void labelsNameTheRunAsTheTableDoes()
    {
        RunRecord r = thirtyRuns().at(0);
        QCOMPARE(runChartLabel(r),
                 QStringLiteral("#100 ZeRO-0 (DDP) · bf16-fp32-master · seq 2048 · 8 × NVIDIA H200 (NVLink) · native"));
        r.outcome = RunOutcome::OutOfMemory;
        QVERIFY(runChartLabel(r).endsWith(QStringLiteral(" — out of memory")));
        const RunRecord cpu = thirtyRuns().at(25);
        QVERIFY2(runChartLabel(cpu).contains(QStringLiteral("2 × CPU")), qPrintable(runChartLabel(cpu)));
        // The precision as the table says it: whatever was asked, a CPU run computes in fp32.
        QVERIFY2(runChartLabel(cpu).contains(QStringLiteral(" · fp32 (CPU) · ")), qPrintable(runChartLabel(cpu)));
    }

    void facetsSplitByHardwareEachWithItsAxisAndCapacity()
    {
        const QList<RunRecord> runs = thirtyRuns();
        const BarChartSpec memory = comparisonChart(ComparisonMetric::PeakMemory, runs);
        QCOMPARE(memory.facets.size(), 3);
        QVERIFY2(memory.facets[0].title.startsWith(QStringLiteral("NVIDIA H200")), qPrintable(memory.facets[0].title));
        QVERIFY2(memory.facets[1].title.startsWith(QStringLiteral("NVIDIA L4 24GB")),
                 qPrintable(memory.facets[1].title));
        QCOMPARE(memory.facets[2].title, QStringLiteral("CPU"));
        QCOMPARE(memory.facets[0].rows.size(), 14);
        QCOMPARE(memory.facets[1].rows.size(), 10);
        QCOMPARE(memory.facets[2].rows.size(), 6);
        QCOMPARE(memory.facets[0].capacity, 139.8);
        QCOMPARE(memory.facets[1].capacity, 22.5);
        QCOMPARE(memory.facets[2].capacity, 0.0); // a CPU has no GPU memory line
        // ... and no GPU memory to chart: no bar, and the row says why.
        for (const BarRow& row : memory.facets[2].rows) {
            QVERIFY(!row.values[0] && !row.values[1]);
            QVERIFY2(row.note.contains(QStringLiteral("CPU")), qPrintable(row.note));
        }

        BarChartView view;
        view.setSpec(memory);
        view.resize(1000, 100);
        const BarChartGeometry& g = view.chartGeometry();
        QCOMPARE(g.facets.size(), 3);
        // Each facet's axis ends at a round value at or above its own largest figure.
        QCOMPARE(g.facets[0].scale.max, 150.0); // H200: 105 GiB reserved peak, 139.8 GiB capacity
        QCOMPARE(g.facets[1].scale.max, 25.0);  // L4: 22.5 GiB capacity
        QVERIFY(g.facets[2].scale.max <= 1.0);  // CPU: nothing
        // The capacity line at the facet's own capacity, none on the CPU.
        QVERIFY(std::abs(g.facets[0].capacityX - (g.facets[0].plot.left() + g.facets[0].plot.width() * 139.8 / 150.0))
                < 0.5);
        QVERIFY(std::abs(g.facets[1].capacityX - (g.facets[1].plot.left() + g.facets[1].plot.width() * 22.5 / 25.0))
                < 0.5);
        QCOMPARE(g.facets[2].capacityX, -1.0);
        // Facets follow each other down the chart.
        QVERIFY(g.facets[1].titleRect.top() > g.facets[0].plot.bottom());
        QVERIFY(g.facets[2].titleRect.top() > g.facets[1].plot.bottom());

        // Communication: NCCL on the GPUs, Gloo on the CPU, so named.
        const BarChartSpec comm = comparisonChart(ComparisonMetric::NcclShare, runs);
        QCOMPARE(comm.facets.size(), 3);
        QCOMPARE(comm.facets[2].title, QStringLiteral("CPU (Gloo)"));
        QVERIFY(comm.facets[2].axisTitle.contains(QStringLiteral("Gloo")));
        QVERIFY(!comm.facets[2].axisTitle.contains(QStringLiteral("NCCL")));
        QVERIFY(comm.facets[0].title.endsWith(QStringLiteral("(NCCL)")));
        QVERIFY(comm.facets[0].axisTitle.contains(QStringLiteral("NCCL")));
    }

    void barsAreColouredByStrategyWithTheirValues()
    {
        const QList<RunRecord> runs = thirtyRuns();
        // Nine strategies, nine colours.
        std::set<QRgb> colours;
        for (const Strategy s : kStrategies)
            colours.insert(strategyColor(s).rgb());
        QCOMPARE(colours.size(), std::size(kStrategies));

        BarChartView view;
        view.setSpec(comparisonChart(ComparisonMetric::Throughput, runs));
        view.resize(1000, 100);
        const BarChartSpec& spec = view.spec();
        for (const BarFacet& facet : spec.facets)
            for (const BarRow& row : facet.rows) {
                const qint64 id = row.label.section(QLatin1Char(' '), 0, 0).mid(1).toLongLong();
                const RunRecord& run = runs[static_cast<int>(id - 100)];
                QCOMPARE(row.color, strategyColor(run.strategy));
                QCOMPARE(row.colorName, strategyLabel(run.strategy));
            }
        // The legend names each strategy as the table does, once.
        QStringList legend;
        for (const BarChartGeometry::LegendEntry& entry : view.chartGeometry().legend)
            if (entry.kind == BarChartGeometry::LegendEntry::Kind::Color)
                legend << entry.text;
        QCOMPARE(legend.size(), 9);
        QVERIFY(legend.contains(QStringLiteral("ZeRO-0 (DDP)")));
        // Every measured run has a bar with its value at its end; the two OOM runs have none, and say so.
        const BarChartGeometry& g = view.chartGeometry();
        QCOMPARE(g.bars.size(), 28);
        const QFontMetricsF metrics(g.font);
        for (const BarChartGeometry::Bar& bar : g.bars) {
            const double value = *spec.facets[bar.facet].rows[bar.row].values[bar.measure];
            QCOMPARE(bar.valueText, formatTokensPerS(value));
            QVERIFY(bar.valueRect.left() >= bar.rect.right());
            QVERIFY2(bar.valueRect.right() <= g.width, qPrintable(bar.valueText));
            QVERIFY(bar.rect.width() > 0);
        }
        int notes = 0;
        for (const BarFacet& facet : spec.facets)
            for (const BarRow& row : facet.rows)
                notes += row.note == outcomeText(RunOutcome::OutOfMemory);
        QCOMPARE(notes, 2);
    }

    void rehearsalsOnlyInTheMemoryChart()
    {
        QList<RunRecord> runs = thirtyRuns().mid(0, 3);
        runs[1].rehearsedWorld = 8;
        runs[1].world = 1;
        QCOMPARE(comparisonChart(ComparisonMetric::PeakMemory, runs).rowCount(), 3);
        QCOMPARE(comparisonChart(ComparisonMetric::Throughput, runs).rowCount(), 2);
        const BarChartSpec onlyRehearsal = comparisonChart(ComparisonMetric::Throughput, { runs[1] });
        QVERIFY(onlyRehearsal.isEmpty());
        QVERIFY(onlyRehearsal.emptyText.contains(QStringLiteral("rehearsals")));
    }

    void planMemoryChartNamesEveryStrategyWholeAndMarksTheChoices()
    {
        const PlanView plan = ninePlan();
        QCOMPARE(fastestFittingCandidate(plan), std::optional<int>(1)); // ZeRO-1: 72 GiB fits, 27,000 tokens/s
        QChartView view(createMemoryBreakdownChart(plan));
        view.resize(620, 460); // the chart's share of a 1024 x 700 window
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTRY_VERIFY(view.chart()->plotArea().width() > 0);
        QCoreApplication::processEvents();

        QBarCategoryAxis* axis = nullptr;
        for (QAbstractAxis* a : view.chart()->axes(Qt::Vertical))
            if (auto* c = qobject_cast<QBarCategoryAxis*>(a))
                axis = c;
        QVERIFY(axis);
        QVERIFY(!axis->truncateLabels());
        const QStringList texts = sceneTexts(view);
        QCOMPARE(axis->categories().last(), strategyLabel(Strategy::Zero0)); // on top
        for (const Strategy s : kStrategies) {
            QVERIFY(axis->categories().contains(strategyLabel(s)));
            QVERIFY2(texts.contains(strategyLabel(s)),
                     qPrintable(strategyLabel(s) + QStringLiteral(" not drawn whole; drawn: ")
                                + texts.join(QStringLiteral(" | "))));
        }

        // The marks: a star after the recommended bar, a triangle after the fastest that fits, each
        // with a visible legend entry that names the strategy.
        QScatterSeries* recommended = markSeries(view.chart(), QStringLiteral("recommendedMark"));
        QScatterSeries* fastest = markSeries(view.chart(), QStringLiteral("fastestFittingMark"));
        QVERIFY(recommended && fastest);
        QCOMPARE(recommended->markerShape(), QScatterSeries::MarkerShapeStar);
        QCOMPARE(fastest->markerShape(), QScatterSeries::MarkerShapeTriangle);
        // The slots count from the bottom: the table's first candidate is on top, in slot 8.
        QCOMPARE(recommended->count(), 1);
        QCOMPARE(recommended->at(0).y(), 6.0);
        QVERIFY(recommended->at(0).x() > plan.candidates[2].peakGiB);
        QCOMPARE(fastest->at(0).y(), 7.0);
        QVERIFY(fastest->at(0).x() > plan.candidates[1].peakGiB);
        QVERIFY(recommended->name().contains(QStringLiteral("ZeRO-2")));
        QVERIFY(fastest->name().contains(QStringLiteral("ZeRO-1")));
        // Their entries head the legend: a legend taller than the chart scrolls, and they stay in view.
        const QList<QLegendMarker*> legend = view.chart()->legend()->markers();
        QVERIFY(legend.size() >= 2);
        QCOMPARE(legend.at(0)->series(), recommended);
        QCOMPARE(legend.at(1)->series(), fastest);
        // The parts' entries keep their filled swatches in the part's colour.
        for (QLegendMarker* marker : legend)
            if (marker->type() == QLegendMarker::LegendMarkerTypeBar) {
                QVERIFY(marker->shape() != QLegend::MarkerShapeFromSeries);
                QVERIFY(marker->brush().style() != Qt::NoBrush);
            }
        for (QScatterSeries* mark : { recommended, fastest }) {
            QCOMPARE(view.chart()->legend()->markers(mark).front()->shape(), QLegend::MarkerShapeFromSeries);
            const QList<QLegendMarker*> markers = view.chart()->legend()->markers(mark);
            QCOMPARE(markers.size(), 1);
            QVERIFY(markers.front()->isVisible());
            QCOMPARE(markers.front()->label(), mark->name());
        }

        // Without a recommendation and with nothing fitting: no mark.
        PlanView none = plan;
        for (CandidateView& c : none.candidates) {
            c.recommended = false;
            c.fits = false;
        }
        std::unique_ptr<QChart> bare(createMemoryBreakdownChart(none));
        QVERIFY(!markSeries(bare.get(), QStringLiteral("recommendedMark")));
        QVERIFY(!markSeries(bare.get(), QStringLiteral("fastestFittingMark")));
    }
};

SHARDWISE_GUI_TEST_MAIN(TestRunCharts)
#include "test_run_charts.moc"
