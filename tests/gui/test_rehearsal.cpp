// Checking the fit of a larger world on one GPU, in the desktop app: the Plan page offers a rehearsal
// of rank 0 of the plan's world N where N exceeds this machine's GPUs, enabled only where this
// machine has a CUDA GPU and the chosen backend runs the strategy, and builds the run as the run
// matrix does with the rehearsal set (accepted by the one launch builder); a stored rehearsal shows on
// the Runs page and in Compare as a memory result ("rehearsal of N", no tokens/s, its peak against the
// prediction for world N), stays out of the throughput, NCCL share and predicted-vs-measured charts,
// and the table's CSV carries rehearsed_world as `shardwise-cli compare` does.
#include "gui_test_main.hpp"

#include "charts/comparison_charts.hpp"
#include "export/run_csv.hpp"
#include "jobs/run_job.hpp"
#include "jobs/run_launch.hpp"
#include "models/display_format.hpp"
#include "models/run_backend.hpp"
#include "models/run_history_model.hpp"
#include "models/run_table_model.hpp"
#include "pages/plan/plan_form.hpp"
#include "pages/plan/plan_page.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/plan/plan.hpp"
#include "shardwise/session/launch_builder.hpp"
#include "shardwise/session/node_facts_json.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/nodes.hpp"
#include "shardwise/store/run_recorder.hpp"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QJsonObject>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>

#include <algorithm>
#include <memory>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

// Qwen2.5-7B on `gpusPerNode` x `nodes` H100s.
QJsonObject planOf(int gpusPerNode, int nodes)
{
    return QJsonObject { { QStringLiteral("model"), QStringLiteral("qwen2.5-7b") },
                         { QStringLiteral("gpu"), QStringLiteral("h100-80gb") },
                         { QStringLiteral("gpus_per_node"), gpusPerNode },
                         { QStringLiteral("nodes"), nodes },
                         { QStringLiteral("interconnect"), QStringLiteral("nvlink") },
                         { QStringLiteral("precision"), QStringLiteral("bf16") },
                         { QStringLiteral("micro_batch"), 2 },
                         { QStringLiteral("seq_len"), 2048 },
                         { QStringLiteral("expandable_segments"), true },
                         { QStringLiteral("cuda_graphs"), true },
                         { QStringLiteral("activation_checkpointing"), true } };
}

// The workspace's local node with `gpus` discovered GPUs (0: discovered, none), or with a driver but
// its GPUs not listed.
void setLocalGpus(Workspace& workspace, int gpus, bool driverOnly = false)
{
    const auto local = store::findNodeByName(*workspace.database(), "local");
    QVERIFY(local);
    dispatch::NodeFacts facts;
    facts.hostname = "box";
    if (driverOnly || gpus > 0)
        facts.driver = "550.54";
    for (int i = 0; i < gpus; ++i) {
        dispatch::NodeGpu gpu;
        gpu.name = "NVIDIA H100 80GB HBM3";
        facts.gpus.push_back(gpu);
    }
    store::setNodeFacts(*workspace.database(), local->id, session::nodeFactsToJson(facts));
    workspace.notifyNodesChanged();
}

void selectBackend(PlanPage& page, RunBackend backend)
{
    auto* combo = page.findChild<QComboBox*>(QStringLiteral("validationBackendCombo"));
    QVERIFY(combo);
    combo->setCurrentIndex(combo->findData(static_cast<int>(backend)));
}

void selectCandidate(PlanPage& page, Strategy s)
{
    auto* view = page.findChild<QTableView*>(QStringLiteral("candidateView"));
    QVERIFY(view);
    for (int row = 0; row < page.currentPlan().candidates.size(); ++row)
        if (page.currentPlan().candidates.at(row).strategy == s)
            view->selectRow(row);
}

// A rehearsal of rank 0 of world `world` on one H100, recorded as a launch records it: its summary
// with tokens/s 0 and rehearsed_world, the plan's peak for world N per rank as its prediction.
qint64 recordRehearsal(store::Database& db, Strategy s, int world, double peakGiB, double predictedGiB)
{
    RunConfig rc;
    rc.model = *PresetCatalog::builtin().findModel("qwen2.5-7b");
    rc.strategy = s;
    rc.device = DeviceKind::Cuda;
    rc.worldSize = 1;
    rc.rehearseWorld = world;
    rc.training.seqLen = 2048;
    rc.warmupSteps = 1;
    rc.timedSteps = 2;
    store::RunOrigin origin;
    origin.nodes = { { "local", std::nullopt } };
    origin.launcher = "shardwise";
    origin.gpuId = "h100-80gb";
    origin.interconnect = "nvlink";
    store::RunPrediction predicted;
    predicted.peakBytes = static_cast<std::int64_t>(predictedGiB * kGiB);
    predicted.tokensPerS = 50000; // world N's: the store keeps none for a rehearsal
    origin.predicted = predicted;
    store::RunRecorder recorder(db, rc, origin);
    protocol::StartEvent start;
    start.config = rc;
    start.host = "box";
    start.deviceName = "NVIDIA H100 80GB HBM3";
    recorder.record(start);
    protocol::SummaryEvent sum;
    sum.world = 1;
    sum.rehearsedWorld = world;
    sum.warmupSteps = 1;
    sum.timedSteps = 2;
    sum.tokensPerS = 0;
    sum.medianStepS = 0.9;
    sum.ncclShare = 0;
    sum.memory.peakAllocated = static_cast<std::int64_t>(peakGiB * kGiB);
    sum.memory.peakReserved = static_cast<std::int64_t>(peakGiB * 1.05 * kGiB);
    sum.time = store::currentUnixTime();
    recorder.record(sum);
    recorder.finish(recorder.statusFromEvents());
    return recorder.runId();
}

// A real run of two ranks beside it.
qint64 recordRealRun(store::Database& db)
{
    RunConfig rc;
    rc.model = *PresetCatalog::builtin().findModel("qwen2.5-7b");
    rc.strategy = Strategy::Zero2;
    rc.device = DeviceKind::Cuda;
    rc.worldSize = 2;
    rc.training.seqLen = 2048;
    rc.warmupSteps = 1;
    rc.timedSteps = 2;
    store::RunOrigin origin;
    origin.nodes = { { "local", std::nullopt } };
    origin.launcher = "shardwise";
    origin.gpuId = "h100-80gb";
    store::RunRecorder recorder(db, rc, origin);
    for (int rank = 0; rank < 2; ++rank) {
        protocol::SummaryEvent sum;
        sum.rank = rank;
        sum.world = 2;
        sum.warmupSteps = 1;
        sum.timedSteps = 2;
        sum.tokensPerS = 9000;
        sum.medianStepS = 0.9;
        sum.ncclShare = 0.2;
        sum.memory.peakAllocated = static_cast<std::int64_t>(40 * kGiB);
        sum.memory.peakReserved = static_cast<std::int64_t>(42 * kGiB);
        sum.time = store::currentUnixTime();
        recorder.record(sum);
    }
    recorder.finish(store::RunStatus::Completed);
    return recorder.runId();
}

// Every row of a run chart, facet after facet.
QList<BarRow> chartRows(const BarChartSpec& spec)
{
    QList<BarRow> rows;
    for (const BarFacet& facet : spec.facets)
        rows << facet.rows;
    return rows;
}

// The row of run `id` ("#<id> ..."); null when the chart has none.
const BarRow* rowOfRun(const QList<BarRow>& rows, qint64 id)
{
    for (const BarRow& row : rows)
        if (row.label.startsWith(QStringLiteral("#%1 ").arg(id)))
            return &row;
    return nullptr;
}

int rowOf(const QAbstractItemModel& model, int idColumn, int idRole, qint64 id)
{
    for (int row = 0; row < model.rowCount(); ++row)
        if (model.index(row, idColumn).data(idRole).toLongLong() == id)
            return row;
    return -1;
}

} // namespace

class TestRehearsal : public QObject {
    Q_OBJECT

private slots:
    void init() { QSettings().clear(); }

    void planPageOffersTheRehearsalWhereTheWorldOutgrowsThisMachine()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("runs.db")), &error), qPrintable(error));
        PlanPage page(workspace);
        page.form()->setState(planOf(8, 2));
        QTRY_COMPARE_WITH_TIMEOUT(page.currentPlan().gpus, 16, 10000);
        QPushButton* button = page.rehearseButton();
        QVERIFY(button);

        // No GPU known on this machine: offered for world 16, disabled, saying why.
        setLocalGpus(workspace, 0);
        QCOMPARE(page.localGpuCount(), 0);
        PlanPage::RehearsalOffer offer = page.rehearsalOffer();
        QVERIFY(offer.offered);
        QVERIFY(!offer.enabled);
        QCOMPARE(offer.world, 16);
        QVERIFY(!button->isHidden());
        QVERIFY(!button->isEnabled());
        QCOMPARE(button->text(), QStringLiteral("Check the fit of world 16 on this GPU"));
        QVERIFY2(button->toolTip().contains(QStringLiteral("no CUDA GPU")), qPrintable(button->toolTip()));
        QVERIFY(!page.rehearsalRequest());

        // A driver but no GPU list: one GPU.
        setLocalGpus(workspace, 0, true);
        QCOMPARE(page.localGpuCount(), 1);
        QVERIFY(button->isEnabled());

        // One discovered GPU: enabled, for the recommendation.
        setLocalGpus(workspace, 1);
        QCOMPARE(page.localGpuCount(), 1);
        offer = page.rehearsalOffer();
        QVERIFY(offer.enabled);
        QVERIFY(button->isEnabled());
        QVERIFY(page.currentPlan().hasRecommendation);
        QCOMPARE(offer.strategy, std::optional<Strategy>(page.currentPlan().recommendation));

        // The request: the run matrix's run of that strategy (core's plannedRun, as Validate and the
        // command line build it) as one rank rehearsing world 16, on this machine, eager.
        const Strategy s = page.currentPlan().recommendation;
        QString why;
        const std::optional<RunRequest> request = page.rehearsalRequest(&why);
        QVERIFY2(request, qPrintable(why));
        RunConfig expected = plannedRun(page.form()->input(), s, DeviceKind::Cuda);
        expected.worldSize = 1;
        expected.rehearseWorld = 16;
        expected.warmupSteps = request->config.warmupSteps;
        expected.timedSteps = request->config.timedSteps;
        requestCudaGraphs(expected, false);
        expected = *configForBackend(expected, RunBackend::Native);
        QCOMPARE(QString::fromStdString(toJson(request->config).dump()),
                 QString::fromStdString(toJson(expected).dump()));
        QCOMPARE(request->config.rehearseWorld, 16);
        QCOMPARE(request->config.worldSize, 1);
        QCOMPARE(request->config.device, DeviceKind::Cuda);
        QCOMPARE(request->config.strategy, s);
        QCOMPARE(request->config.model.id, std::string("qwen2.5-7b"));
        QCOMPARE(request->config.training.seqLen, 2048);
        QCOMPARE(request->config.training.microBatch, 2);
        QVERIFY(request->config.training.activationCheckpointing);
        QVERIFY(request->config.training.expandableSegments);
        QVERIFY(!request->config.training.cudaGraphs);
        QCOMPARE(request->node, QStringLiteral("local"));
        QCOMPARE(request->gpuId, QStringLiteral("h100-80gb"));
        // Predicted: the plan's peak allocated per rank at world 16, no tokens/s.
        const auto candidate = std::find_if(page.currentPlan().candidates.begin(), page.currentPlan().candidates.end(),
                                            [s](const CandidateView& c) { return c.strategy == s; });
        QVERIFY(request->predicted && request->predicted->peakBytes);
        QCOMPARE(*request->predicted->peakBytes, static_cast<std::int64_t>(candidate->allocatedPeakGiB * kGiB));
        QVERIFY(!request->predicted->tokensPerS);

        // The one launch builder takes it as it is: one rank on this machine, rehearsing world 16.
        const session::LaunchRequest launchRequest
            = launchRequestFor(*request, std::nullopt, "/usr/bin/shardwise-runner", {}, ".cache/shardwise/runs");
        QCOMPARE(launchRequest.ranksPerNode, 1);
        const session::Launch launch = session::buildLaunch(launchRequest);
        QCOMPARE(launch.config.rehearseWorld, 16);
        QCOMPARE(launch.config.worldSize, 1);
        QVERIFY(!launch.isRemote);

        // A selected candidate is the one rehearsed; a backend that cannot run it disables the action.
        selectCandidate(page, Strategy::Zero1);
        QCOMPARE(page.rehearsalOffer().strategy, std::optional<Strategy>(Strategy::Zero1));
        QVERIFY(button->isEnabled());
        QCOMPARE(page.rehearsalRequest()->config.strategy, Strategy::Zero1);
        selectBackend(page, RunBackend::Torch);
        QVERIFY(!button->isEnabled());
        QCOMPARE(button->toolTip(), backendCannotRun(RunBackend::Torch, Strategy::Zero1));
        selectCandidate(page, Strategy::Fsdp2Reshard);
        QVERIFY(button->isEnabled());
        const std::optional<RunRequest> torch = page.rehearsalRequest();
        QVERIFY(torch);
        QCOMPARE(torch->config.backend, RunBackend::Torch);
        QCOMPARE(torch->config.rehearseWorld, 16);
        selectBackend(page, RunBackend::Native);

        // As many GPUs here as the world: nothing to rehearse, the action is not offered.
        setLocalGpus(workspace, 16);
        QVERIFY(!page.rehearsalOffer().offered);
        QVERIFY(button->isHidden());
        // A plan of one GPU on a machine without one: nothing to rehearse either.
        setLocalGpus(workspace, 0);
        page.form()->setState(planOf(1, 1));
        QTRY_COMPARE_WITH_TIMEOUT(page.currentPlan().gpus, 1, 10000);
        QVERIFY(!page.rehearsalOffer().offered);
        QVERIFY(button->isHidden());
    }

    void runsPageShowsARehearsalAsAMemoryResult()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("runs.db")), &error), qPrintable(error));
        const qint64 rehearsal = recordRehearsal(*workspace.database(), Strategy::Zero3, 8, 21.5, 20.25);
        const qint64 real = recordRealRun(*workspace.database());

        RunHistoryModel history;
        QAbstractItemModelTester tester(&history, QAbstractItemModelTester::FailureReportingMode::QtTest);
        history.setRuns(store::listRuns(*workspace.database()));
        const int row = history.rowOf(rehearsal);
        QVERIFY(row >= 0);
        auto cell = [&](int r, int column, int role = Qt::DisplayRole) {
            return history.index(r, column).data(role).toString();
        };
        QCOMPARE(cell(row, RunHistoryModel::RanksColumn), QStringLiteral("rehearsal of 8"));
        QCOMPARE(cell(row, RunHistoryModel::RanksColumn), rehearsalWorldText(8));
        QCOMPARE(cell(row, RunHistoryModel::TokensColumn), notMeasuredText());
        QCOMPARE(cell(row, RunHistoryModel::StepTimeColumn), notMeasuredText());
        QCOMPARE(cell(row, RunHistoryModel::TokensColumn, Qt::ToolTipRole), rehearsalMemoryOnlyExplanation(8));
        QVERIFY(cell(row, RunHistoryModel::TokensColumn, Qt::ToolTipRole).contains(QStringLiteral("memory only")));
        QCOMPARE(cell(row, RunHistoryModel::StepTimeColumn, Qt::ToolTipRole), rehearsalMemoryOnlyExplanation(8));
        QCOMPARE(cell(row, RunHistoryModel::PeakMemoryColumn),
                 QStringLiteral("%1 (predicted %2 at world 8)").arg(formatGiB(21.5), formatGiB(20.25)));
        // The real run beside it keeps its ranks and figures.
        const int realRow = history.rowOf(real);
        QCOMPARE(cell(realRow, RunHistoryModel::RanksColumn), RunHistoryModel::tr("%n rank(s)", nullptr, 2));
        QCOMPARE(cell(realRow, RunHistoryModel::TokensColumn), formatTokensPerS(9000));
        QCOMPARE(cell(realRow, RunHistoryModel::PeakMemoryColumn), formatGiB(40));
    }

    void compareShowsARehearsalAsAMemoryResult()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(workspace.open(dir.filePath(QStringLiteral("runs.db")), &error), qPrintable(error));
        const qint64 rehearsal = recordRehearsal(*workspace.database(), Strategy::Zero3, 8, 21.5, 20.25);
        const qint64 real = recordRealRun(*workspace.database());

        RunTableModel table;
        QAbstractItemModelTester tester(&table, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QList<RunRecord> runs = workspace.runs();
        table.setRuns(runs);
        const int row = rowOf(table, RunTableModel::IdColumn, RunTableModel::RunIdRole, rehearsal);
        const int realRow = rowOf(table, RunTableModel::IdColumn, RunTableModel::RunIdRole, real);
        QVERIFY(row >= 0 && realRow >= 0);
        auto cell = [&](int r, int column, int role = Qt::DisplayRole) { return table.index(r, column).data(role); };
        QCOMPARE(table.headerData(RunTableModel::WorldColumn, Qt::Horizontal).toString(), QStringLiteral("World"));
        QCOMPARE(cell(row, RunTableModel::WorldColumn).toString(), QStringLiteral("rehearsal of 8"));
        QCOMPARE(cell(row, RunTableModel::WorldColumn, RunTableModel::RawValueRole).toInt(), 8);
        QCOMPARE(cell(realRow, RunTableModel::WorldColumn).toString(), RunHistoryModel::tr("%n rank(s)", nullptr, 2));
        QCOMPARE(cell(row, RunTableModel::TokensColumn).toString(), notMeasuredText());
        QCOMPARE(cell(row, RunTableModel::TokensColumn, Qt::ToolTipRole).toString(), rehearsalMemoryOnlyExplanation(8));
        QCOMPARE(cell(row, RunTableModel::NcclColumn).toString(), notMeasuredText());
        QCOMPARE(cell(row, RunTableModel::PredictedTokensColumn).toString(), notMeasuredText());
        QCOMPARE(cell(row, RunTableModel::PeakAllocatedColumn).toString(), formatGiB(21.5));
        QVERIFY(cell(row, RunTableModel::PeakAllocatedColumn, Qt::ToolTipRole).toString().contains(formatGiB(20.25)));
        QCOMPARE(cell(realRow, RunTableModel::TokensColumn).toString(), formatTokensPerS(9000));

        const RunRecord* stored = table.runById(rehearsal);
        QVERIFY(stored);
        QCOMPARE(stored->rehearsedWorld, std::optional<int>(8));
        QCOMPARE(stored->world, 1);
        QCOMPARE(stored->predictedPeakGiB, std::optional<double>(20.25));
        QVERIFY(!stored->predictedTokensPerS);

        // Charts: the memory chart has both runs, the rehearsal's peak beside its prediction for world 8;
        // the throughput, NCCL share, predicted-vs-measured and calibration charts only the real run.
        const BarChartSpec memory = comparisonChart(ComparisonMetric::PeakMemory, runs);
        const QList<BarRow> memoryRows = chartRows(memory);
        QCOMPARE(memoryRows.size(), 2);
        QCOMPARE(memory.measures.size(), 3);
        QCOMPARE(memory.measures.at(2).name, QStringLiteral("predicted peak allocated"));
        const BarRow* rehearsed = rowOfRun(memoryRows, rehearsal);
        QVERIFY(rehearsed);
        QCOMPARE(rehearsed->values.at(0), std::optional<double>(21.5));
        QCOMPARE(rehearsed->values.at(2), std::optional<double>(20.25));
        QVERIFY(runChartLabel(*stored).contains(QStringLiteral("rehearsal of 8")));
        QCOMPARE(rehearsed->label, runChartLabel(*stored));
        for (ComparisonMetric metric :
             { ComparisonMetric::Throughput, ComparisonMetric::NcclShare, ComparisonMetric::PredictedVsMeasured }) {
            const QList<BarRow> rows = chartRows(comparisonChart(metric, runs));
            QCOMPARE(rows.size(), 1);
            QVERIFY(!rowOfRun(rows, rehearsal));
        }
        QCOMPARE(chartRows(calibrationChart(runs, {})).size(), 1);
        // Rehearsals only: no row at all in the throughput chart.
        QVERIFY(comparisonChart(ComparisonMetric::Throughput, { *stored }).isEmpty());

        // The CSV: world_size 1 and rehearsed_world 8 (empty for the real run), no tokens/s, its peaks.
        const QString csv = runsCsv(runs, {}).remove(QLatin1Char('\r'));
        QStringList lines;
        for (const QString& line : csv.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            if (!line.startsWith(QLatin1Char('#')))
                lines << line;
        const QStringList header = lines.front().split(QLatin1Char(','));
        QCOMPARE(header, runCsvColumns());
        QVERIFY(header.indexOf(QStringLiteral("rehearsed_world")) == header.indexOf(QStringLiteral("world_size")) + 1);
        auto value = [&](qint64 id, const char* column) {
            for (const QString& line : lines.mid(1)) {
                const QStringList cells = line.split(QLatin1Char(','));
                if (cells.front() == QString::number(id))
                    return cells.at(header.indexOf(QLatin1String(column)));
            }
            return QStringLiteral("<no run>");
        };
        QCOMPARE(value(rehearsal, "world_size"), QStringLiteral("1"));
        QCOMPARE(value(rehearsal, "rehearsed_world"), QStringLiteral("8"));
        QCOMPARE(value(rehearsal, "tokens_per_second"), QString());
        QCOMPARE(value(rehearsal, "step_seconds"), QString());
        QCOMPARE(value(rehearsal, "nccl_share"), QString());
        QCOMPARE(value(rehearsal, "planned_tokens_per_second"), QString());
        QCOMPARE(value(rehearsal, "peak_allocated_bytes"), QString::number(static_cast<qint64>(21.5 * kGiB)));
        QCOMPARE(value(rehearsal, "planned_peak_allocated_bytes"), QString::number(static_cast<qint64>(20.25 * kGiB)));
        QCOMPARE(value(real, "world_size"), QStringLiteral("2"));
        QCOMPARE(value(real, "rehearsed_world"), QString());
        QCOMPARE(value(real, "tokens_per_second"), QStringLiteral("9000"));
    }
};

SHARDWISE_GUI_TEST_MAIN(TestRehearsal)
#include "test_rehearsal.moc"
