// The Compare page over a real run store: failed runs stay visible as failed; and end to end, a CPU
// validation launched from the Plan page runs the real shardwise-runner on the local node, lands in
// the store and appears in Compare, whose charts export as valid files.
#include "gui_test_main.hpp"

#include "charts/chart_panel.hpp"
#include "charts/comparison_charts.hpp"
#include "jobs/run_job.hpp"
#include "models/run_filter_model.hpp"
#include "models/run_table_model.hpp"
#include "pages/compare/compare_page.hpp"
#include "pages/plan/plan_page.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/run_recorder.hpp"

#include <QBarCategoryAxis>
#include <QChartView>
#include <QComboBox>
#include <QImage>
#include <QSettings>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTemporaryDir>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

RunConfig tinyConfig(Strategy s)
{
    RunConfig c;
    c.model = resolveModel("tiny");
    c.strategy = s;
    c.worldSize = 2;
    c.warmupSteps = 1;
    c.timedSteps = 3;
    c.training.seqLen = 64;
    return c;
}

// Records a run through the store's own recorder, as a launcher would.
qint64 recordRun(Workspace& workspace, Strategy s, bool oom)
{
    store::RunOrigin origin;
    origin.nodes.push_back({"local", std::nullopt});
    origin.launcher = "shardwise";
    store::RunRecorder recorder(*workspace.database(), tinyConfig(s), origin);
    for (int rank = 0; rank < 2; ++rank) {
        if (oom) {
            protocol::ErrorEvent e;
            e.rank = rank;
            e.kind = protocol::ErrorKind::Oom;
            e.message = "CUDA out of memory. Tried to allocate 2.00 GiB";
            e.step = 0;
            e.time = store::currentUnixTime();
            recorder.record(e);
        } else {
            protocol::SummaryEvent summary;
            summary.rank = rank;
            summary.world = 2;
            summary.warmupSteps = 1;
            summary.timedSteps = 3;
            summary.medianStepS = 0.05;
            summary.p10StepS = 0.04;
            summary.p90StepS = 0.06;
            summary.tokensPerS = 2560;
            summary.ncclShare = 0.2;
            summary.memory.peakAllocated = 300 << 20;
            summary.memory.peakReserved = 400 << 20;
            summary.time = store::currentUnixTime();
            recorder.record(summary);
        }
    }
    recorder.finish(oom ? store::RunStatus::Oom : store::RunStatus::Completed);
    return recorder.runId();
}

QStringList categoryLabels(QChart* chart)
{
    for (QAbstractAxis* axis : chart->axes(Qt::Horizontal))
        if (auto* categories = qobject_cast<QBarCategoryAxis*>(axis))
            return categories->categories();
    return {};
}

} // namespace

class TestComparePage : public QObject {
    Q_OBJECT

private slots:
    void init() { QSettings().clear(); }

    void failedRunsAppearAsFailed()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("runs.sqlite")), &error), qPrintable(error));
        const qint64 ok = recordRun(workspace, Strategy::Zero1, false);
        const qint64 oom = recordRun(workspace, Strategy::Zero0, true);

        ComparePage page(workspace);
        QCOMPARE(page.runModel()->rowCount(), 2);
        const RunRecord* oomRun = page.runModel()->runById(oom);
        const RunRecord* okRun = page.runModel()->runById(ok);
        QVERIFY(oomRun && okRun);
        QCOMPARE(oomRun->outcome, RunOutcome::OutOfMemory);
        QCOMPARE(okRun->outcome, RunOutcome::Completed);
        QCOMPARE(okRun->tokensPerS, 2560.0);
        // Both are charted on first load; the OOM run keeps its slot, labelled with its outcome.
        QCOMPARE(page.chartPanel()->runs().size(), 2);
        const QStringList labels = categoryLabels(page.chartPanel()->view(ComparisonMetric::Throughput)->chart());
        QCOMPARE(labels.size(), 2);
        QVERIFY2(labels.join(QLatin1Char('|')).contains(QStringLiteral("out of memory")), qPrintable(labels.join(QLatin1Char('|'))));
    }

    void filtersNarrowTheTable()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("runs.sqlite")), &error), qPrintable(error));
        recordRun(workspace, Strategy::Zero1, false);
        recordRun(workspace, Strategy::Zero2, false);
        recordRun(workspace, Strategy::Zero2, true);
        ComparePage page(workspace);
        QCOMPARE(page.filterModel()->rowCount(), 3);
        page.strategyFilter()->setCurrentIndex(page.strategyFilter()->findData(QStringLiteral("zero2")));
        QCOMPARE(page.filterModel()->rowCount(), 2);
    }

    void cpuValidationRunsEndToEndAndIsCompared()
    {
        if (!dispatch::locateRunner())
            QSKIP("shardwise-runner is not built (configure with SHARDWISE_BUILD_RUNNER=ON)");
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("e2e.sqlite")), &error), qPrintable(error));
        PlanPage plan(workspace);
        QSignalSpy planned(&plan, &PlanPage::planUpdated);
        QVERIFY(planned.wait(10000));
        QVERIFY(!plan.currentPlan().runMatrix.isEmpty());
        ComparePage compare(workspace);
        QCOMPARE(compare.runModel()->rowCount(), 0);

        plan.setValidationNode(QStringLiteral("local"));
        plan.setValidationSteps(1, 3);
        QSignalSpy finished(&plan, &PlanPage::validationFinished);
        QSignalSpy recorded(&plan, &PlanPage::validationRunFinished);
        QSignalSpy progress(plan.runQueue(), &RunJob::rankProgressAvailable);
        plan.validate();
        QVERIFY(finished.wait(240000));
        const auto matrixSize = plan.currentPlan().runMatrix.size();
        QCOMPARE(recorded.size(), matrixSize);
        QVERIFY(!progress.isEmpty());
        for (const QList<QVariant>& r : recorded)
            QVERIFY2(r.at(1).toString() == QLatin1String("completed"), qPrintable(r.at(2).toString()));

        // The runs reached Compare through the workspace's change signal.
        QCOMPARE(compare.runModel()->rowCount(), matrixSize);
        compare.runModel()->checkAll(true);
        for (const RunRecord& r : compare.runModel()->checkedRuns()) {
            QCOMPARE(r.outcome, RunOutcome::Completed);
            QVERIFY(r.tokensPerS > 0);
            QCOMPARE(r.timedSteps, 3);
        }
        compare.resize(1200, 900);
        compare.show();
        QVERIFY(QTest::qWaitForWindowExposed(&compare));
        for (const QString& suffix : {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
            const QString path = dir.filePath(QStringLiteral("compare.") + suffix);
            const ExportResult result = compare.exportCharts(path);
            QVERIFY2(result.ok, qPrintable(result.error));
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray bytes = file.readAll();
            if (suffix == QLatin1String("png"))
                QVERIFY(!QImage::fromData(bytes, "PNG").isNull());
            else if (suffix == QLatin1String("svg"))
                QVERIFY(QSvgRenderer(bytes).isValid());
            else
                QVERIFY(bytes.startsWith("%PDF-") && bytes.trimmed().endsWith("%%EOF"));
        }
        for (const QString& suffix : {QStringLiteral("csv"), QStringLiteral("md")}) {
            const ExportResult result = compare.exportTable(dir.filePath(QStringLiteral("compare.") + suffix));
            QVERIFY2(result.ok, qPrintable(result.error));
        }
    }

    void cancelStopsTheValidation()
    {
        if (!dispatch::locateRunner())
            QSKIP("shardwise-runner is not built (configure with SHARDWISE_BUILD_RUNNER=ON)");
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("cancel.sqlite")), &error), qPrintable(error));
        PlanPage plan(workspace);
        QSignalSpy planned(&plan, &PlanPage::planUpdated);
        QVERIFY(planned.wait(10000));
        plan.setValidationSteps(2, 100000); // far longer than the test waits
        QSignalSpy finished(&plan, &PlanPage::validationFinished);
        QSignalSpy progress(plan.runQueue(), &RunJob::rankProgressAvailable);
        plan.validate();
        QVERIFY(progress.wait(60000));
        plan.cancelValidation();
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.front().at(0).toBool(), true);
        const QList<RunRecord> runs = workspace.runs();
        QCOMPARE(runs.size(), 1); // the rest of the queue was dropped
        QCOMPARE(runs.front().outcome, RunOutcome::Cancelled);
    }
};

SHARDWISE_GUI_TEST_MAIN(TestComparePage)
#include "test_compare_page.moc"
