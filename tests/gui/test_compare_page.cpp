// The Compare page over a real run store: failed runs stay visible as failed; finished GPU runs are
// predicted with the presets and with the store's calibration (checked against core/calibrate
// itself), the calibration line names where the calibration came from, and the exports carry the
// predictions; and end to end, a CPU validation launched from the Plan page runs the real
// shardwise-runner on the local node, lands in the store and appears in Compare, whose charts export
// as valid files.
#include "gui_test_main.hpp"

#include "charts/bar_chart_view.hpp"
#include "charts/chart_panel.hpp"
#include "charts/comparison_charts.hpp"
#include "export/run_csv.hpp"
#include "jobs/run_job.hpp"
#include "models/display_format.hpp"
#include "models/run_filter_model.hpp"
#include "models/run_table_model.hpp"
#include "pages/compare/compare_page.hpp"
#include "pages/plan/plan_form.hpp"
#include "pages/plan/plan_page.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/calibrate/from_store.hpp"
#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/probes.hpp"
#include "shardwise/store/run_recorder.hpp"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QHeaderView>
#include <QImage>
#include <QJsonObject>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTableView>
#include <QTemporaryDir>

#include <cmath>

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
    origin.nodes.push_back({ "local", std::nullopt });
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

// How the GPUs in the prediction tests "really" behave: far enough from the presets that
// calibration visibly changes the predictions.
Calibration truth()
{
    Calibration c;
    c.matmulEfficiency = 0.38;
    c.activationBytesScale = 1.25;
    return c;
}

// A GPU run recorded the way `shardwise-cli run` records one, its measurement made with truth().
qint64 recordGpuRun(store::Database& db, const char* gpuId, const char* model, Strategy s, int seq, bool oom)
{
    RunConfig rc;
    rc.model = *PresetCatalog::builtin().findModel(model);
    rc.strategy = s;
    rc.device = DeviceKind::Cuda;
    rc.training.seqLen = seq;
    rc.warmupSteps = 1;
    rc.timedSteps = 2;
    store::RunOrigin origin;
    origin.nodes = { { "box-a", std::nullopt } };
    origin.launcher = "shardwise";
    origin.gpuId = gpuId;
    origin.interconnect = "nvlink";
    store::RunRecorder recorder(db, rc, origin);
    const GpuSpec& gpu = *PresetCatalog::builtin().findGpu(gpuId);
    protocol::StartEvent start;
    start.config = rc;
    start.host = "box-a";
    start.deviceName = gpu.name;
    recorder.record(start);
    EstimateInput in;
    in.model = rc.model;
    in.gpu = gpu;
    in.training = rc.training;
    const Estimate e = estimate(in, s, truth());
    if (oom) {
        protocol::ErrorEvent err;
        err.kind = protocol::ErrorKind::Oom;
        err.message = "CUDA out of memory";
        err.step = 0;
        recorder.record(err);
    } else {
        protocol::SummaryEvent sum;
        sum.warmupSteps = 1;
        sum.timedSteps = 2;
        sum.tokensPerS = e.throughput.tokensPerS;
        sum.medianStepS = e.throughput.stepTimeS;
        sum.memory.peakAllocated = static_cast<std::int64_t>(e.memory.allocatedPeak());
        sum.memory.peakReserved = static_cast<std::int64_t>(e.memory.allocatedPeak() * 1.08);
        recorder.record(sum);
    }
    recorder.finish(recorder.statusFromEvents());
    return recorder.runId();
}

void saveH200Probe(store::Database& db)
{
    store::StoredProbe probe;
    probe.node = "box-a";
    probe.gpuId = "h200";
    probe.event.host = "box-a";
    probe.event.deviceName = "NVIDIA H200";
    probe.event.results = { { "cpu_adamw", 0, 2.0e9, "params/s", 3 }, { "h2d_pinned", 1 << 28, 45.0, "GB/s", 5 } };
    store::saveProbe(db, probe);
}

// A store of eight completed H200 runs, one H200 run that ran out of memory, a probe of the H200
// node, and two completed L4 runs of another strategy.
struct PredictionStore {
    QList<qint64> h200Runs;
    qint64 oomRun = 0;
    QList<qint64> l4Runs;
};

PredictionStore fillPredictionStore(store::Database& db)
{
    PredictionStore out;
    for (const char* model : { "qwen2.5-0.5b", "qwen2.5-1.5b" })
        for (int seq : { 1024, 4096 })
            for (Strategy s : { Strategy::Zero0, Strategy::Fsdp2Reshard })
                out.h200Runs << recordGpuRun(db, "h200", model, s, seq, false);
    out.oomRun = recordGpuRun(db, "h200", "qwen2.5-7b", Strategy::Fsdp2NoReshard, 8192, true);
    for (int seq : { 1024, 2048 })
        out.l4Runs << recordGpuRun(db, "l4", "qwen2.5-0.5b", Strategy::Zero2, seq, false);
    saveH200Probe(db);
    return out;
}

int rowOfRun(const RunTableModel& model, qint64 id)
{
    for (int row = 0; row < model.rowCount(); ++row)
        if (model.index(row, RunTableModel::IdColumn).data(RunTableModel::RunIdRole).toLongLong() == id)
            return row;
    return -1;
}

QString readText(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// The labels of a run chart's rows, facet after facet.
QStringList rowLabels(const BarChartView* view)
{
    QStringList labels;
    for (const BarFacet& facet : view->spec().facets)
        for (const BarRow& row : facet.rows)
            labels << row.label;
    return labels;
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
        const QStringList labels = rowLabels(page.chartPanel()->view(ComparisonMetric::Throughput));
        QCOMPARE(labels.size(), 2);
        QVERIFY2(labels.join(QLatin1Char('|')).contains(QStringLiteral("out of memory")),
                 qPrintable(labels.join(QLatin1Char('|'))));
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

    // More than the first screenful is charted at first load, and every run that arrives later (a
    // finished validation, an import) is checked and charted as it arrives; a run the user unchecked
    // stays unchecked.
    void newRunsAreChartedAsTheyArrive()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("runs.sqlite")), &error), qPrintable(error));
        for (int i = 0; i < 10; ++i)
            recordRun(workspace, i % 2 ? Strategy::Zero1 : Strategy::Zero3, false);
        ComparePage page(workspace);
        QCOMPARE(page.runModel()->checkedRuns().size(), 10);
        QCOMPARE(page.chartPanel()->runs().size(), 10);
        // The charts list the runs in the table's order: newest id first, then oldest first once sorted so.
        const auto firstCharted = [&page] { return page.chartPanel()->runs().front().id; };
        const auto firstInTable
            = [&page] { return page.filterModel()->index(0, 0).data(RunTableModel::RunIdRole).toLongLong(); };
        QCOMPARE(firstCharted(), firstInTable());
        page.filterModel()->sort(RunTableModel::IdColumn, Qt::AscendingOrder);
        QCOMPARE(firstCharted(), firstInTable());
        QVERIFY(rowLabels(page.chartPanel()->view(ComparisonMetric::Throughput))
                    .front()
                    .startsWith(QStringLiteral("#%1 ").arg(firstInTable())));

        const qint64 unchecked = page.runModel()->runs().last().id;
        page.runModel()->setChecked(unchecked, false);
        const qint64 arrived = recordRun(workspace, Strategy::Fsdp2Reshard, false);
        workspace.notifyRunsChanged();
        QCOMPARE(page.runModel()->rowCount(), 11);
        QList<qint64> charted;
        for (const RunRecord& r : page.chartPanel()->runs())
            charted << r.id;
        QVERIFY(charted.contains(arrived));
        QVERIFY(!charted.contains(unchecked));
        QCOMPARE(charted.size(), 10);
        QVERIFY(rowLabels(page.chartPanel()->view(ComparisonMetric::Throughput))
                    .join(QLatin1Char('|'))
                    .contains(QStringLiteral("#%1 ").arg(arrived)));
    }

    // A native and a torch run of one strategy, side by side: the chart slots ("#2 fsdp2_reshard",
    // "(torch)" on the line below) and the table say
    // which backend each is, the backend filter picks one, and the exports carry it.
    void nativeAndTorchRunsAreComparedSideBySideLabelled()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("runs.sqlite")), &error), qPrintable(error));
        const qint64 native = recordRun(workspace, Strategy::Fsdp2Reshard, false);
        RunConfig torchConfig = tinyConfig(Strategy::Fsdp2Reshard);
        torchConfig.backend = RunBackend::Torch;
        qint64 torch = 0;
        {
            store::RunOrigin origin;
            origin.launcher = "shardwise";
            store::RunRecorder recorder(*workspace.database(), torchConfig, origin);
            torch = recorder.runId();
            for (int rank = 0; rank < 2; ++rank) {
                protocol::StartEvent start;
                start.rank = rank;
                start.world = 2;
                start.config = torchConfig;
                start.versions.runner = "shardwise-torch 0.1.0";
                start.versions.backend = protocol::kTorchBackend;
                start.versions.python = "3.11.2";
                start.versions.torch = "2.5.1";
                start.versions.transformers = "4.46.3";
                start.versions.modelImpl = "transformers";
                recorder.record(start);
                protocol::SummaryEvent summary;
                summary.rank = rank;
                summary.world = 2;
                summary.medianStepS = 0.08;
                summary.tokensPerS = 1600;
                recorder.record(summary);
            }
            recorder.finish(recorder.statusFromEvents());
        }
        ComparePage page(workspace);
        QAbstractItemModelTester tester(page.runModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(page.runModel()->runById(torch)->backend, RunBackend::Torch);
        QVERIFY2(page.runModel()->runById(torch)->versions.contains(QStringLiteral("PyTorch 2.5.1")),
                 qPrintable(page.runModel()->runById(torch)->versions));
        const QStringList labels = rowLabels(page.chartPanel()->view(ComparisonMetric::Throughput));
        // Each row names its backend at the end of its label, after the strategy as the table names it.
        const auto labelOf = [&labels](qint64 id) {
            for (const QString& label : labels)
                if (label.startsWith(QStringLiteral("#%1 ").arg(id)))
                    return label;
            return QString();
        };
        QVERIFY2(labelOf(native).startsWith(
                     QStringLiteral("#%1 %2 · ").arg(native).arg(strategyLabel(Strategy::Fsdp2Reshard)))
                     && labelOf(native).endsWith(QStringLiteral(" · native")),
                 qPrintable(labels.join(QLatin1Char('|'))));
        QVERIFY2(labelOf(torch).endsWith(QStringLiteral(" · torch")), qPrintable(labels.join(QLatin1Char('|'))));
        for (int row = 0; row < page.runModel()->rowCount(); ++row) {
            const qint64 id = page.runModel()->index(row, 0).data(RunTableModel::RunIdRole).toLongLong();
            QCOMPARE(page.runModel()->index(row, RunTableModel::BackendColumn).data().toString(),
                     id == torch ? QStringLiteral("torch") : QStringLiteral("native"));
        }

        page.backendFilter()->setCurrentIndex(page.backendFilter()->findData(QStringLiteral("torch")));
        QCOMPARE(page.filterModel()->rowCount(), 1);
        QCOMPARE(page.filterModel()->index(0, 0).data(RunTableModel::RunIdRole).toLongLong(), torch);
        page.backendFilter()->setCurrentIndex(0);
        QCOMPARE(page.filterModel()->rowCount(), 2);

        for (const char* suffix : { "csv", "md" }) {
            const QString path = dir.filePath(QStringLiteral("compare.%1").arg(QLatin1String(suffix)));
            const ExportResult result = page.exportTable(path);
            QVERIFY2(result.ok, qPrintable(result.error));
            // A CSV keeps its caption in the side file beside it.
            const QString text = readText(path)
                + (QLatin1String(suffix) == QLatin1String("csv") ? readText(captionSidecarPath(path)) : QString());
            QVERIFY2(text.contains(QStringLiteral("Backend")), qPrintable(text));
            QVERIFY2(text.contains(QStringLiteral("Backend: native; torch"))
                         || text.contains(QStringLiteral("Backend: torch; native")),
                     qPrintable(text));
            QVERIFY2(
                text.contains(QStringLiteral("PyTorch 2.5.1, Transformers 4.46.3, model transformers, Python 3.11.2")),
                qPrintable(text));
        }
        page.resize(1400, 900);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        const QString svgPath = dir.filePath(QStringLiteral("charts.svg"));
        const ExportResult charts = page.exportCharts(svgPath);
        QVERIFY2(charts.ok, qPrintable(charts.error));
        const QString svg = readText(svgPath);
        // Each row names its run with its backend, whole, as the page draws it.
        for (const qint64 id : { native, torch })
            QVERIFY2(svg.contains(QStringLiteral(">%1<").arg(labelOf(id).toHtmlEscaped())),
                     qPrintable(QStringLiteral("the label of run %1 is drawn whole").arg(id)));
        QVERIFY2(svg.contains(QStringLiteral("Backend: ")), "the caption names the backends");
    }

    void predictionsMatchTheCalibrationCode()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("runs.sqlite")), &error), qPrintable(error));
        const PredictionStore runs = fillPredictionStore(*workspace.database());

        // What core/calibrate says, computed here on its own connection.
        const store::Database db = store::Database::open(dir.filePath(QStringLiteral("runs.sqlite")).toStdString());
        const GpuSpec& h200 = *PresetCatalog::builtin().findGpu("h200");
        const calibrate::StoredCalibration calibration
            = calibrate::calibrationFromStore(db, h200, Interconnect::NvLink);
        const auto observations = calibrate::observationsFromStore(db, h200);
        QCOMPARE(static_cast<int>(observations.size()), static_cast<int>(runs.h200Runs.size()) + 1);

        ComparePage page(workspace);
        QAbstractItemModelTester tester(page.runModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(page.predictionsPending());
        QTRY_VERIFY_WITH_TIMEOUT(!page.predictionsPending(), 120000);
        const RunTableModel& model = *page.runModel();
        int calibrationHelped = 0;
        for (const calibrate::StoredRunObservation& stored : observations) {
            const calibrate::Comparison presets = calibrate::compare(stored.observation, Calibration {});
            const calibrate::Comparison calibrated = calibrate::compare(stored.observation, calibration.calibration);
            const int row = rowOfRun(model, stored.runId);
            QVERIFY2(row >= 0, qPrintable(QStringLiteral("run %1 is not in the table").arg(stored.runId)));
            const auto cell = [&](int column, int role) { return model.index(row, column).data(role); };
            QCOMPARE(cell(RunTableModel::PresetsTokensColumn, RunTableModel::RawValueRole).toDouble(),
                     presets.predictedTokensPerS);
            QCOMPARE(cell(RunTableModel::CalibratedTokensColumn, RunTableModel::RawValueRole).toDouble(),
                     calibrated.predictedTokensPerS);
            QCOMPARE(cell(RunTableModel::PresetsPeakColumn, RunTableModel::RawValueRole).toDouble(),
                     presets.predictedPeakBytes / (1024.0 * 1024.0 * 1024.0));
            QCOMPARE(cell(RunTableModel::CalibratedPeakColumn, RunTableModel::RawValueRole).toDouble(),
                     calibrated.predictedPeakBytes / (1024.0 * 1024.0 * 1024.0));
            QCOMPARE(cell(RunTableModel::PresetsVerdictColumn, Qt::DisplayRole).toString(),
                     QString::fromLatin1(presets.predictedFits ? "fits" : "does not fit")
                         + QString::fromLatin1(presets.verdictWrong() ? " (wrong)" : ""));
            if (stored.observation.oom) {
                QCOMPARE(stored.runId, runs.oomRun);
                QCOMPARE(cell(RunTableModel::PresetsTokensErrorColumn, Qt::DisplayRole).toString(),
                         QStringLiteral("n/a"));
                QCOMPARE(cell(RunTableModel::CalibratedPeakErrorColumn, Qt::DisplayRole).toString(),
                         QStringLiteral("n/a"));
                continue;
            }
            QVERIFY(presets.tokensError && calibrated.tokensError && presets.peakError && calibrated.peakError);
            QCOMPARE(cell(RunTableModel::PresetsTokensErrorColumn, RunTableModel::RawValueRole).toDouble(),
                     *presets.tokensError);
            QCOMPARE(cell(RunTableModel::CalibratedTokensErrorColumn, RunTableModel::RawValueRole).toDouble(),
                     *calibrated.tokensError);
            QCOMPARE(cell(RunTableModel::PresetsPeakErrorColumn, RunTableModel::RawValueRole).toDouble(),
                     *presets.peakError);
            QCOMPARE(cell(RunTableModel::CalibratedPeakErrorColumn, RunTableModel::RawValueRole).toDouble(),
                     *calibrated.peakError);
            const QString shown = cell(RunTableModel::CalibratedTokensErrorColumn, Qt::DisplayRole).toString();
            QCOMPARE(shown, signedPercent(*calibrated.tokensError));
            QVERIFY2(shown.endsWith(QStringLiteral(" %")), qPrintable(shown));
            if (std::fabs(*calibrated.tokensError) + 0.05 < std::fabs(*presets.tokensError))
                ++calibrationHelped;
        }
        // The measurements were made with other coefficients than the presets: calibration must matter.
        QVERIFY(calibrationHelped > 0);
        // The table shows each prediction beside the measurement it predicts.
        const QHeaderView* header = page.findChild<QTableView*>(QStringLiteral("runTable"))->horizontalHeader();
        QCOMPARE(header->visualIndex(RunTableModel::PresetsTokensColumn),
                 header->visualIndex(RunTableModel::TokensColumn) + 1);
        QCOMPARE(header->visualIndex(RunTableModel::CalibratedTokensErrorColumn),
                 header->visualIndex(RunTableModel::TokensColumn) + 4);
        QCOMPARE(header->visualIndex(RunTableModel::PresetsPeakColumn),
                 header->visualIndex(RunTableModel::PeakAllocatedColumn) + 1);
        QCOMPARE(header->visualIndex(RunTableModel::PresetsVerdictColumn),
                 header->visualIndex(RunTableModel::OutcomeColumn) + 1);
        // Runs that are not predicted say so instead of showing a number.
        const qint64 cpuRun = recordRun(workspace, Strategy::Zero1, false);
        page.reload();
        QTRY_VERIFY_WITH_TIMEOUT(!page.predictionsPending(), 120000);
        const int cpuRow = rowOfRun(model, cpuRun);
        QVERIFY(cpuRow >= 0);
        QCOMPARE(model.index(cpuRow, RunTableModel::CalibratedTokensColumn).data().toString(), QStringLiteral("n/a"));
    }

    void calibrationLineNamesTheCalibrationPerGpuShown()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("runs.sqlite")), &error), qPrintable(error));
        fillPredictionStore(*workspace.database());
        const store::Database db = store::Database::open(dir.filePath(QStringLiteral("runs.sqlite")).toStdString());
        const calibrate::StoredCalibration h200
            = calibrate::calibrationFromStore(db, *PresetCatalog::builtin().findGpu("h200"), Interconnect::NvLink);
        const calibrate::StoredCalibration l4
            = calibrate::calibrationFromStore(db, *PresetCatalog::builtin().findGpu("l4"), Interconnect::NvLink);
        QCOMPARE(QString::fromStdString(h200.source), QStringLiteral("probe of node box-a + 8 runs"));

        ComparePage page(workspace);
        QCOMPARE(page.calibrationLine()->text(), QStringLiteral("Calibrating from the run store…"));
        QTRY_VERIFY_WITH_TIMEOUT(!page.predictionsPending(), 120000);
        const QString both = page.calibrationLine()->text();
        QVERIFY2(both.contains(QStringLiteral("GPU h200: calibration from probe of node box-a + 8 runs, confidence %1")
                                   .arg(QString::fromStdString(h200.confidenceLabel))),
                 qPrintable(both));
        QVERIFY2(both.contains(QStringLiteral("GPU l4: calibration from %1").arg(QString::fromStdString(l4.source))),
                 qPrintable(both));
        QVERIFY2(both.contains(QLocale().toString(h200.confidence, 'f', 2)), qPrintable(both));

        // Only the GPU types the filters leave in the table are named.
        page.strategyFilter()->setCurrentIndex(page.strategyFilter()->findData(QStringLiteral("zero2")));
        const QString onlyL4 = page.calibrationLine()->text();
        QVERIFY2(onlyL4.contains(QStringLiteral("GPU l4")), qPrintable(onlyL4));
        QVERIFY2(!onlyL4.contains(QStringLiteral("h200")), qPrintable(onlyL4));
    }

    void exportsCarryThePredictions()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("runs.sqlite")), &error), qPrintable(error));
        const PredictionStore runs = fillPredictionStore(*workspace.database());
        ComparePage page(workspace);
        QTRY_VERIFY_WITH_TIMEOUT(!page.predictionsPending(), 120000);
        const RunPrediction* first = page.runModel()->predictionFor(runs.h200Runs.front());
        QVERIFY(first && first->calibrated.tokensError);

        page.runModel()->checkAll(false);
        page.runModel()->setChecked(runs.h200Runs.front(), true);
        page.runModel()->setChecked(runs.oomRun, true);
        const QString csvPath = dir.filePath(QStringLiteral("compare.csv"));
        ExportResult result = page.exportTable(csvPath);
        QVERIFY2(result.ok, qPrintable(result.error));
        const QString csv = readText(csvPath);
        // Named columns in SI units; errors as fractions, numbers as C-locale text.
        for (const char* column : { "presets_tokens_per_second", "presets_tokens_error", "calibrated_tokens_per_second",
                                    "calibrated_tokens_error", "presets_peak_error", "calibrated_peak_error",
                                    "presets_fits", "calibrated_fits" })
            QVERIFY2(csv.contains(QLatin1String(column)), column);
        QVERIFY2(!csv.startsWith(QLatin1Char('#')), qPrintable(csv)); // a plain CSV
        const QString caption = readText(captionSidecarPath(csvPath));
        QVERIFY2(caption.contains(QStringLiteral("probe of node box-a + 8 runs")), qPrintable(caption));
        QVERIFY2(csv.contains(QString::number(*first->calibrated.tokensError, 'g', QLocale::FloatingPointShortest)),
                 qPrintable(csv));
        int dataRows = 0;
        for (const QString& line : csv.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts))
            dataRows += !line.isEmpty() && line.at(0).isDigit() ? 1 : 0;
        QCOMPARE(dataRows, 2);

        const QString mdPath = dir.filePath(QStringLiteral("compare.md"));
        result = page.exportTable(mdPath);
        QVERIFY2(result.ok, qPrintable(result.error));
        const QString md = readText(mdPath);
        QVERIFY2(md.contains(QStringLiteral("| Calibrated throughput error |")), qPrintable(md));
        QVERIFY2(md.contains(signedPercent(*first->presets.tokensError)), qPrintable(md));

        page.resize(1400, 900);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        const QString svgPath = dir.filePath(QStringLiteral("predicted.svg"));
        result = page.exportPredictionChart(svgPath);
        QVERIFY2(result.ok, qPrintable(result.error));
        const QString svg = readText(svgPath);
        QVERIFY(QSvgRenderer(svg.toUtf8()).isValid());
        QVERIFY2(svg.contains(QStringLiteral("probe of node box-a + 8 runs")), "the caption names the calibration");
        const QString pngPath = dir.filePath(QStringLiteral("predicted.png"));
        result = page.exportPredictionChart(pngPath);
        QVERIFY2(result.ok, qPrintable(result.error));
        QVERIFY(!QImage(pngPath).isNull());
        // The chart pairs measured, presets and calibrated tokens/s for the checked runs.
        const BarChartSpec& chart = page.predictionChart()->spec();
        QCOMPARE(rowLabels(page.predictionChart()).size(), 2);
        QCOMPARE(chart.measures.size(), 3);
        const BarRow* firstRow = nullptr;
        for (const BarFacet& facet : chart.facets)
            for (const BarRow& row : facet.rows)
                if (row.label.startsWith(QStringLiteral("#%1 ").arg(runs.h200Runs.front())))
                    firstRow = &row;
        QVERIFY(firstRow);
        QCOMPARE(firstRow->values.at(1), std::optional<double>(first->presets.tokensPerS));
        QCOMPARE(firstRow->values.at(2), std::optional<double>(first->calibrated.tokensPerS));
    }

    void emptyStoreSaysThereAreNoMeasurements()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("empty.sqlite")), &error), qPrintable(error));
        ComparePage page(workspace);
        QTRY_VERIFY_WITH_TIMEOUT(!page.predictionsPending(), 60000);
        QVERIFY2(page.calibrationLine()->text().startsWith(QStringLiteral("No measurements")),
                 qPrintable(page.calibrationLine()->text()));
        QVERIFY(page.predictions().runs.isEmpty());
        const QString csvPath = dir.filePath(QStringLiteral("empty.csv"));
        const ExportResult result = page.exportTable(csvPath);
        QVERIFY2(result.ok, qPrintable(result.error));
        // An empty store still writes the header: the named SI columns, calibrated figures included.
        QVERIFY(readText(csvPath).contains(QStringLiteral("calibrated_tokens_error")));
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
        // The example that validates on this machine's CPU (the Plan page opens on a 7B model on 8 x H100).
        plan.form()->setState(Workspace::examplePlan(QStringLiteral("try-it-here")).form);
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
        for (const QString& suffix : { QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf") }) {
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
        for (const QString& suffix : { QStringLiteral("csv"), QStringLiteral("md") }) {
            const ExportResult result = compare.exportTable(dir.filePath(QStringLiteral("compare.") + suffix));
            QVERIFY2(result.ok, qPrintable(result.error));
        }
    }

    // Every training option the Plan page offers produces runs that start and complete: the example
    // plan (tiny on two GPUs) with each option set in the form, validated on this machine's CPU with
    // the real runner; each stored run carries the option as the runner ran it.
    void everyPlanOptionValidatesOnTheTinyModel_data()
    {
        QTest::addColumn<QString>("checkpointing"); // "" = off
        QTest::addColumn<int>("accumulation");
        QTest::addColumn<QString>("precision");
        QTest::newRow("full activation checkpointing") << QStringLiteral("full") << 1 << QStringLiteral("bf16");
        QTest::newRow("selective activation checkpointing")
            << QStringLiteral("selective") << 1 << QStringLiteral("bf16");
        QTest::newRow("gradient accumulation 2") << QString() << 2 << QStringLiteral("bf16");
        QTest::newRow("fp32 master weights") << QString() << 1 << QStringLiteral("bf16-fp32-master");
        QTest::newRow("all at once") << QStringLiteral("selective") << 3 << QStringLiteral("bf16-fp32-master");
    }
    void everyPlanOptionValidatesOnTheTinyModel()
    {
        if (!dispatch::locateRunner())
            QSKIP("shardwise-runner is not built (configure with SHARDWISE_BUILD_RUNNER=ON)");
        QFETCH(QString, checkpointing);
        QFETCH(int, accumulation);
        QFETCH(QString, precision);
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("options.sqlite")), &error), qPrintable(error));
        PlanPage plan(workspace);
        QSignalSpy planned(&plan, &PlanPage::planUpdated);
        QVERIFY(planned.wait(10000));
        // The example that validates on this machine's CPU (the Plan page opens on a 7B model on 8 x H100).
        plan.form()->setState(Workspace::examplePlan(QStringLiteral("try-it-here")).form);
        QVERIFY(planned.wait(10000));
        QJsonObject state = plan.form()->state();
        QCOMPARE(state.value(QStringLiteral("model")).toString(), QStringLiteral("tiny"));
        state[QStringLiteral("activation_checkpointing")] = !checkpointing.isEmpty();
        if (!checkpointing.isEmpty())
            state[QStringLiteral("checkpoint_policy")] = checkpointing;
        state[QStringLiteral("grad_accumulation")] = accumulation;
        state[QStringLiteral("precision")] = precision;
        plan.form()->setState(state);
        QVERIFY(planned.wait(10000));
        QVERIFY(!plan.currentPlan().runMatrix.isEmpty());

        plan.setValidationNode(QStringLiteral("local"));
        plan.setValidationSteps(1, 2);
        QSignalSpy finished(&plan, &PlanPage::validationFinished);
        QSignalSpy recorded(&plan, &PlanPage::validationRunFinished);
        plan.validate();
        QVERIFY(finished.wait(240000));
        QCOMPARE(recorded.size(), plan.currentPlan().runMatrix.size());
        for (const QList<QVariant>& r : recorded) {
            QVERIFY2(r.at(1).toString() == QLatin1String("completed"), qPrintable(r.at(2).toString()));
            const auto detail = store::runDetail(*workspace.database(), r.at(0).toLongLong());
            QVERIFY(detail);
            const RunConfig ran = runConfigFromJson(detail->config);
            QCOMPARE(ran.training.activationCheckpointing, !checkpointing.isEmpty());
            if (!checkpointing.isEmpty())
                QCOMPARE(QString::fromLatin1(checkpointPolicyId(ran.training.checkpointPolicy).data()), checkpointing);
            QCOMPARE(ran.training.gradAccumulation, accumulation);
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
        // The example that validates on this machine's CPU (the Plan page opens on a 7B model on 8 x H100).
        plan.form()->setState(Workspace::examplePlan(QStringLiteral("try-it-here")).form);
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
