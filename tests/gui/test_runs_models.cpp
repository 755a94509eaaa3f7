// The Runs and Nodes pages' item models under QAbstractItemModelTester, filled from real store
// records (an SQLite file), real core/diagnose output on the committed diagnosis cases, and real
// node facts; plus the behaviour the pages rely on (stale progress dropped, log cap, root cause
// highlighted, facts round trip).
#include "gui_test_main.hpp"

#include "models/log_tail_model.hpp"
#include "models/node_facts_model.hpp"
#include "models/node_table_model.hpp"
#include "models/rank_progress_model.hpp"
#include "models/run_backend.hpp"
#include "models/run_diagnosis_view.hpp"
#include "models/run_failure_model.hpp"
#include "models/run_history_model.hpp"
#include "models/run_queue_model.hpp"
#include "pages/runs/run_request_form.hpp"
#include "shardwise/session/node_facts_json.hpp"
#include "shardwise/session/run_session.hpp"

#include "shardwise/diagnose/run_folder.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/run_recorder.hpp"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QFont>
#include <QLocale>
#include <QStandardItemModel>
#include <QTemporaryDir>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

RunRequest request(qint64 ticket, Strategy s, int world)
{
    RunRequest r;
    r.ticket = ticket;
    r.config.model = resolveModel("tiny");
    r.config.strategy = s;
    r.config.worldSize = world;
    r.config.warmupSteps = 1;
    r.config.timedSteps = 3;
    return r;
}

RankProgress rank(int r, int done, int total, int timed)
{
    RankProgress p;
    p.rank = r;
    p.stepsDone = done;
    p.totalSteps = total;
    p.timedStepsDone = timed;
    p.tokensPerS = timed > 0 ? 1234.0 : 0.0;
    p.hostPeakRss = 300LL << 20;
    return p;
}

diagnose::Diagnosis diagnoseCase(const char* name)
{
    return diagnose::diagnose(
        diagnose::loadRunFolder(std::filesystem::path(SHARDWISE_TEST_DATA_DIR) / "diagnose" / name));
}

RunDiagnosisView viewOfCase(const char* name)
{
    return diagnosisViewFromJson(diagnose::toJson(diagnoseCase(name)));
}

} // namespace

class TestRunsModels : public QObject {
    Q_OBJECT

private slots:
    void queueModelShowsRunningRequestFirst();
    void historyModelShowsEveryStoredOutcome();
    void rankProgressModelDropsUpdatesOfOtherRuns();
    void rankProgressStateFollowsSteps_data();
    void rankProgressStateFollowsSteps();
    void logTailKeepsOnlyTheLastLines();
    void logTailHighlightsFirstFailureEvidence();
    void diagnosisViewReadsCoreDiagnosis_data();
    void diagnosisViewReadsCoreDiagnosis();
    void diagnosisViewRejectsMalformedDocument_data();
    void diagnosisViewRejectsMalformedDocument();
    void failureModelHighlightsRootCauseAmongSymptoms();
    void storedDiagnosisRoundTripsThroughStore();
    void nodeModelsShowDiscoveredFacts();
    void nodeFactsSurviveJsonRoundTrip();
    void nodeFactsShowTheNewestProbeAfterTheFacts();
    void requestFormOffersOnlyWhatTheBackendRuns();
    void historyModelShowsTheBackend();
};

void TestRunsModels::queueModelShowsRunningRequestFirst()
{
    RunQueueModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setQueue(request(7, Strategy::Zero3, 2),
                   { request(8, Strategy::Zero1, 1), request(9, Strategy::Fsdp2Reshard, 4) });
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.ticketAt(0), 7);
    QVERIFY(model.index(0, 0).data(RunQueueModel::RunningRole).toBool());
    QVERIFY(!model.index(1, 0).data(RunQueueModel::RunningRole).toBool());
    QCOMPARE(model.index(1, RunQueueModel::StateColumn).data().toString(), QStringLiteral("Queued (1)"));
    QCOMPARE(model.index(2, RunQueueModel::StateColumn).data().toString(), QStringLiteral("Queued (2)"));
    model.setRunningSteps(2, 4);
    QCOMPARE(model.index(0, RunQueueModel::StateColumn).data().toString(), QStringLiteral("Running, step 2 of 4"));
    // A torch run says its backend in the queue.
    RunRequest torch = request(10, Strategy::Fsdp2Reshard, 2);
    torch.config.backend = RunBackend::Torch;
    model.setQueue(std::nullopt, { request(11, Strategy::Fsdp2Reshard, 2), torch });
    QCOMPARE(model.index(1, RunQueueModel::StrategyColumn).data().toString(),
             model.index(0, RunQueueModel::StrategyColumn).data().toString() + QStringLiteral(" (torch)"));
    QVERIFY(model.index(1, RunQueueModel::StrategyColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("PyTorch")));
    model.setQueue(std::nullopt, {});
    QCOMPARE(model.rowCount(), 0);
}

void TestRunsModels::historyModelShowsEveryStoredOutcome()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    store::Database db = store::Database::open(dir.filePath(QStringLiteral("runs.sqlite")).toStdString());
    RunConfig config;
    config.model = resolveModel("tiny");
    config.worldSize = 1;
    store::RunOrigin origin;
    origin.nodes.push_back({ "local", std::nullopt });
    origin.launcher = "shardwise";
    {
        store::RunRecorder completed(db, config, origin);
        protocol::SummaryEvent summary;
        summary.tokensPerS = 2500;
        summary.medianStepS = 0.1;
        summary.timedSteps = 3;
        completed.record(summary);
        completed.finish(store::RunStatus::Completed);
    }
    {
        store::RunRecorder failed(db, config, origin);
        protocol::ErrorEvent error;
        error.kind = protocol::ErrorKind::Config;
        error.message = "training.activation_checkpointing is not supported by the runner";
        failed.record(error);
        failed.finish(store::RunStatus::Failed);
    }
    RunHistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRuns(store::listRuns(db));
    QCOMPARE(model.rowCount(), 2);
    // Newest first: the failed run, then the completed one.
    QCOMPARE(model.index(0, RunHistoryModel::StatusColumn).data().toString(), QStringLiteral("Failed"));
    QCOMPARE(model.index(0, RunHistoryModel::StatusColumn).data(RunHistoryModel::StatusIdRole).toString(),
             QStringLiteral("failed"));
    QVERIFY(model.index(0, RunHistoryModel::NoteColumn)
                .data()
                .toString()
                .contains(QStringLiteral("activation_checkpointing")));
    QVERIFY(model.index(0, RunHistoryModel::TokensColumn).data().toString().isEmpty());
    QCOMPARE(model.index(1, RunHistoryModel::StatusColumn).data().toString(), QStringLiteral("Completed"));
    QVERIFY(model.index(1, RunHistoryModel::TokensColumn).data().toString().contains(QStringLiteral("tokens/s")));
    QCOMPARE(model.rowOf(model.runs()[1].id), 1);
    QCOMPARE(model.index(1, RunHistoryModel::BackendColumn).data().toString(), QStringLiteral("native"));
}

void TestRunsModels::rankProgressModelDropsUpdatesOfOtherRuns()
{
    RankProgressModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.watch(5);
    model.update(5, { rank(0, 1, 4, 0), rank(1, 1, 4, 0) });
    QCOMPARE(model.rowCount(), 2);
    model.update(4, { rank(0, 4, 4, 3) }); // a late delivery of an earlier run
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, RankProgressModel::StepsColumn).data().toString(), QStringLiteral("1 of 4"));
    model.update(5, { rank(0, 3, 4, 2), rank(1, 3, 4, 2) });
    QCOMPARE(model.index(1, RankProgressModel::StepsColumn).data().toString(), QStringLiteral("3 of 4"));
    QVERIFY(model.index(1, RankProgressModel::TokensColumn).data().toString().contains(QStringLiteral("tokens/s")));
    QVERIFY(model.index(1, RankProgressModel::MemoryColumn).data().toString().contains(QStringLiteral("300 MiB")));
    model.watch(6);
    QCOMPARE(model.rowCount(), 0);
}

void TestRunsModels::rankProgressStateFollowsSteps_data()
{
    QTest::addColumn<int>("done");
    QTest::addColumn<int>("timed");
    QTest::addColumn<bool>("finished");
    QTest::addColumn<bool>("failed");
    QTest::addColumn<QString>("state");
    QTest::newRow("no step yet") << 0 << 0 << false << false << QStringLiteral("Starting");
    QTest::newRow("warm-up") << 1 << 0 << false << false << QStringLiteral("Warming up");
    QTest::newRow("timed steps") << 3 << 2 << false << false << QStringLiteral("Timing");
    QTest::newRow("summary sent") << 4 << 3 << true << false << QStringLiteral("Finished");
    QTest::newRow("error event") << 2 << 1 << false << true << QStringLiteral("Failed");
}

void TestRunsModels::rankProgressStateFollowsSteps()
{
    QFETCH(int, done);
    QFETCH(int, timed);
    QFETCH(bool, finished);
    QFETCH(bool, failed);
    QFETCH(QString, state);
    RankProgressModel model;
    model.watch(1);
    RankProgress p = rank(0, done, 4, timed);
    p.finished = finished;
    p.failed = failed;
    model.update(1, { p });
    QCOMPARE(model.index(0, RankProgressModel::StateColumn).data().toString(), state);
    QCOMPARE(model.index(0, 0).data(RankProgressModel::FailedRole).toBool(), failed);
}

void TestRunsModels::logTailKeepsOnlyTheLastLines()
{
    LogTailModel model(5);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.watch(3);
    QList<RunLogLine> lines;
    for (int i = 0; i < 4; ++i)
        lines.append({ i % 2, QStringLiteral("line %1").arg(i), false, false });
    model.append(3, lines);
    QCOMPARE(model.rowCount(), 4);
    lines.clear();
    for (int i = 4; i < 12; ++i)
        lines.append({ 0, QStringLiteral("line %1").arg(i), false, false });
    model.append(3, lines);
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(model.index(0).data().toString(), QStringLiteral("[rank 0] line 7"));
    QCOMPARE(model.index(4).data().toString(), QStringLiteral("[rank 0] line 11"));
    model.append(2, { { 1, QStringLiteral("from another run"), false, false } });
    QCOMPARE(model.index(4).data().toString(), QStringLiteral("[rank 0] line 11"));
}

void TestRunsModels::logTailHighlightsFirstFailureEvidence()
{
    LogTailModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setLines(
        1,
        { { 0, QStringLiteral("step 1"), false, false },
          { 1, QStringLiteral("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"), false, false },
          { 0, QStringLiteral("watchdog caught collective operation timeout"), false, true } });
    QCOMPARE(model.firstHighlightedRow(), -1);
    model.setHighlighted({ QStringLiteral("CUDA out of memory. Tried to allocate 2.00 GiB") });
    QCOMPARE(model.firstHighlightedRow(), 1);
    QVERIFY(model.index(1).data(LogTailModel::HighlightedRole).toBool());
    QVERIFY(model.index(1).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(!model.index(2).data(LogTailModel::HighlightedRole).toBool());
    QVERIFY(model.index(2).data(LogTailModel::ErrorRole).toBool());
}

void TestRunsModels::diagnosisViewReadsCoreDiagnosis_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("rootKind");
    QTest::addColumn<int>("rootRank");
    QTest::addColumn<QString>("rerunAction");
    QTest::newRow("fragmentation OOM") << QStringLiteral("oom_fragmentation_single_rank") << QStringLiteral("oom") << 0
                                       << QStringLiteral("rerun_with_expandable_segments");
    QTest::newRow("OOM on rank 3, watchdogs elsewhere")
        << QStringLiteral("oom_rank3_then_watchdog_4_ranks_2_nodes") << QStringLiteral("oom") << 3 << QString();
    QTest::newRow("runner config error") << QStringLiteral("runner_config_error_event") << QStringLiteral("config")
                                         << -1 << QString();
}

void TestRunsModels::diagnosisViewReadsCoreDiagnosis()
{
    QFETCH(QString, caseName);
    QFETCH(QString, rootKind);
    QFETCH(int, rootRank);
    QFETCH(QString, rerunAction);
    const RunDiagnosisView view = viewOfCase(caseName.toUtf8().constData());
    QCOMPARE(view.verdict, QStringLiteral("root_cause"));
    const DiagnosisFailure* root = view.rootCauseFailure();
    QVERIFY(root);
    QCOMPARE(root->kind, rootKind);
    QVERIFY(root->rootCause);
    if (rootRank >= 0) {
        QVERIFY(root->rank);
        QCOMPARE(*root->rank, rootRank);
    }
    QVERIFY(!root->evidence.isEmpty());
    QVERIFY(!view.explanation.isEmpty());
    if (!rerunAction.isEmpty()) {
        const auto it = std::find_if(view.actions.begin(), view.actions.end(),
                                     [&](const DiagnosisAction& a) { return a.kind == rerunAction; });
        QVERIFY(it != view.actions.end());
        QVERIFY(it->isRerun());
        QVERIFY(!it->text.isEmpty());
    }
}

void TestRunsModels::diagnosisViewRejectsMalformedDocument_data()
{
    QTest::addColumn<QString>("document");
    QTest::addColumn<QString>("field");
    QTest::newRow("not an object") << QStringLiteral("[1, 2]") << QStringLiteral("diagnosis");
    QTest::newRow("root cause out of range")
        << QStringLiteral(R"({"root_cause": 2, "failures": []})") << QStringLiteral("root_cause");
    QTest::newRow("failures not an array") << QStringLiteral(R"({"failures": {}})") << QStringLiteral("failures");
    QTest::newRow("message not a string")
        << QStringLiteral(R"({"failures": [{"message": 3}]})") << QStringLiteral("failures[0].message");
    QTest::newRow("unknown strategy") << QStringLiteral(R"({"actions": [{"kind": "offload", "strategy": "zero9"}]})")
                                      << QStringLiteral("actions[0].strategy");
}

void TestRunsModels::diagnosisViewRejectsMalformedDocument()
{
    QFETCH(QString, document);
    QFETCH(QString, field);
    try {
        diagnosisViewFromJson(nlohmann::json::parse(document.toStdString()));
        QFAIL("a malformed diagnosis was accepted");
    } catch (const std::runtime_error& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(field), e.what());
    }
}

void TestRunsModels::failureModelHighlightsRootCauseAmongSymptoms()
{
    const RunDiagnosisView view = viewOfCase("oom_rank3_then_watchdog_4_ranks_2_nodes");
    RunFailureModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setDiagnosis(view);
    QVERIFY(model.rowCount() > 1);
    const int root = model.rootCauseRow();
    QCOMPARE(root, *view.rootCause);
    QVERIFY(model.index(root, 0).data(RunFailureModel::RootCauseRole).toBool());
    QVERIFY(model.index(root, 0).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(model.index(root, 0).data(Qt::BackgroundRole).isValid());
    QCOMPARE(model.index(root, RunFailureModel::RoleColumn).data().toString(),
             QStringLiteral("First failure (root cause)"));
    QCOMPARE(model.index(root, RunFailureModel::RankColumn).data().toString(), QStringLiteral("Rank 3"));
    int symptoms = 0;
    for (int row = 0; row < model.rowCount(); ++row) {
        if (row == root)
            continue;
        QVERIFY(!model.index(row, 0).data(Qt::BackgroundRole).isValid());
        if (model.index(row, 0).data(RunFailureModel::SymptomRole).toBool()) {
            ++symptoms;
            QCOMPARE(model.index(row, RunFailureModel::RoleColumn).data().toString(), QStringLiteral("Symptom"));
        }
    }
    QVERIFY2(symptoms > 0, "the watchdog timeouts of the other ranks are symptoms");
}

void TestRunsModels::storedDiagnosisRoundTripsThroughStore()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    store::Database db = store::Database::open(dir.filePath(QStringLiteral("runs.sqlite")).toStdString());
    RunConfig config;
    config.model = resolveModel("tiny");
    store::RunOrigin origin;
    origin.nodes.push_back({ "local", std::nullopt });
    store::RunRecorder recorder(db, config, origin);
    recorder.finish(store::RunStatus::Oom);
    const diagnose::Diagnosis diagnosis = diagnoseCase("oom_fragmentation_single_rank");
    session::storeRunDiagnosis(db, recorder.runId(), diagnosis);
    session::storeRunDiagnosis(db, recorder.runId(), diagnosis); // a repeated diagnosis replaces the first
    const std::vector<store::Diagnosis> stored = store::diagnoses(db, recorder.runId());
    QCOMPARE(stored.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(stored.front().code), QStringLiteral("oom"));
    QVERIFY(stored.front().firstFailureRank);
    QCOMPARE(*stored.front().firstFailureRank, 0);
    const RunDiagnosisView view = diagnosisViewFromJson(stored.front().document);
    QCOMPARE(view.failures.size(), static_cast<qsizetype>(diagnosis.failures.size()));
    QCOMPARE(view.actions.size(), static_cast<qsizetype>(diagnosis.actions.size()));
}

void TestRunsModels::nodeModelsShowDiscoveredFacts()
{
    dispatch::NodeFacts facts;
    facts.hostname = "gpu-box-1";
    facts.os = "Debian GNU/Linux 12 (bookworm)";
    facts.arch = "x86_64";
    facts.cpuCores = 64;
    facts.ramBytes = 512LL << 30;
    facts.gpus = { { 0, "NVIDIA H200", 141LL << 30, "00000000:18:00.0" },
                   { 1, "NVIDIA H200", 141LL << 30, "00000000:2A:00.0" } };
    facts.driver = "550.54.15";
    facts.cudaToolkit = "12.4";
    facts.nccl = "2.21.5";
    store::Node local;
    local.id = 1;
    local.name = "local";
    store::Node ssh;
    ssh.id = 2;
    ssh.name = "gpu-box-1";
    ssh.kind = store::NodeKind::Ssh;
    ssh.host = "10.0.0.5";
    ssh.port = 2222;
    ssh.user = "ml";
    ssh.facts = session::nodeFactsToJson(facts);
    ssh.hostKeyFingerprint = "SHA256:abc";

    NodeTableModel nodes;
    QAbstractItemModelTester nodesTester(&nodes, QAbstractItemModelTester::FailureReportingMode::QtTest);
    nodes.setNodes({ local, ssh });
    QCOMPARE(nodes.rowCount(), 2);
    QCOMPARE(nodes.index(0, NodeTableModel::GpusColumn).data().toString(), QStringLiteral("Not discovered yet"));
    QCOMPARE(nodes.index(1, NodeTableModel::AddressColumn).data().toString(), QStringLiteral("ml@10.0.0.5:2222"));
    QVERIFY(nodes.index(1, NodeTableModel::GpusColumn).data().toString().startsWith(QStringLiteral("2 × NVIDIA H200")));
    QVERIFY(nodes.index(1, NodeTableModel::SoftwareColumn).data().toString().contains(QStringLiteral("NCCL 2.21.5")));
    QCOMPARE(nodes.index(1, NodeTableModel::HostKeyColumn).data().toString(), QStringLiteral("SHA256:abc"));
    QCOMPARE(nodes.rowOf(2), 1);

    NodeFactsModel factsModel;
    QAbstractItemModelTester factsTester(&factsModel, QAbstractItemModelTester::FailureReportingMode::QtTest);
    factsModel.setFacts(facts);
    QCOMPARE(factsModel.valueOf(QStringLiteral("Host name")), QStringLiteral("gpu-box-1"));
    QCOMPARE(factsModel.valueOf(QStringLiteral("CPU cores")), QStringLiteral("64"));
    QVERIFY(factsModel.valueOf(QStringLiteral("GPU 1")).contains(QStringLiteral("141")));
    QCOMPARE(factsModel.valueOf(QStringLiteral("Python")), QStringLiteral("not found"));
    // The torch backend's needs, named: here python3 itself is missing.
    QCOMPARE(factsModel.valueOf(QStringLiteral("Can run the torch backend")), QStringLiteral("no"));
    QVERIFY(
        factsModel.valueOf(QStringLiteral("Missing for torch")).contains(QStringLiteral("python3 is not installed")));
    facts.python = "Python 3.11.2";
    facts.pythonTorch = "2.5.1";
    factsModel.setFacts(facts);
    QCOMPARE(factsModel.valueOf(QStringLiteral("Can run the torch backend")), QStringLiteral("yes"));
    QCOMPARE(factsModel.valueOf(QStringLiteral("PyTorch for python3")), QStringLiteral("2.5.1"));
    QVERIFY(factsModel.valueOf(QStringLiteral("Transformers")).startsWith(QStringLiteral("not installed")));
    facts.transformers = "4.46.3";
    factsModel.setFacts(facts);
    QCOMPARE(factsModel.valueOf(QStringLiteral("Transformers")), QStringLiteral("4.46.3"));
    facts.problems = { "cmake not found" };
    factsModel.setFacts(facts);
    QCOMPARE(factsModel.valueOf(QStringLiteral("Can build the runner")), QStringLiteral("no"));
    QCOMPARE(factsModel.valueOf(QStringLiteral("Problem")), QStringLiteral("cmake not found"));
    factsModel.clear();
    QCOMPARE(factsModel.rowCount(), 0);
}

void TestRunsModels::nodeFactsSurviveJsonRoundTrip()
{
    const dispatch::NodeFacts local = dispatch::discoverLocalNode();
    const dispatch::NodeFacts back = session::nodeFactsFromJson(session::nodeFactsToJson(local));
    QCOMPARE(back.hostname, local.hostname);
    QCOMPARE(back.cpuCores, local.cpuCores);
    QCOMPARE(back.ramBytes, local.ramBytes);
    QCOMPARE(back.gpus.size(), local.gpus.size());
    QCOMPARE(back.problems, local.problems);
    QCOMPARE(back.compiler, local.compiler);
    QCOMPARE(back.pythonTorch, local.pythonTorch);
    QCOMPARE(back.transformers, local.transformers);
    dispatch::NodeFacts torch;
    torch.python = "Python 3.11.2";
    torch.pythonTorch = "2.5.1";
    torch.transformers = "4.46.3";
    const dispatch::NodeFacts torchBack = session::nodeFactsFromJson(session::nodeFactsToJson(torch));
    QCOMPARE(torchBack.pythonTorch, std::string("2.5.1"));
    QCOMPARE(torchBack.transformers, std::string("4.46.3"));
    QVERIFY(torchBack.torchBackendProblems().empty());
    QVERIFY(session::nodeFactsFromJson(nlohmann::json::array()).hostname.empty());
}

void TestRunsModels::nodeFactsShowTheNewestProbeAfterTheFacts()
{
    dispatch::NodeFacts facts;
    facts.hostname = "gpu-box-1";
    facts.cpuCores = 64;
    store::StoredProbe probe;
    probe.id = 7;
    probe.node = "gpu-box-1";
    probe.measuredAt = 1.7e9;
    probe.event.rank = 0;
    probe.event.world = 8;
    probe.event.deviceName = "NVIDIA H200";
    // As the runner reports them: collectives at several sizes, the largest last.
    probe.event.results = { { "matmul_bf16", 0, 781.5, "TFLOP/s", 10 },
                            { "matmul_fp32", 0, 0.0123456, "TFLOP/s", 10 },
                            { "all_reduce", 1 << 20, 20.0, "GB/s", 10 },
                            { "all_reduce", 256 << 20, 361.0, "GB/s", 10 },
                            { "cpu_adamw", 256 << 20, 1.5e9, "params/s", 10 } };

    NodeFactsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setFacts(facts);
    const int factRows = model.rowCount();
    model.setProbe(probe);
    QCOMPARE(model.rowCount(), factRows + 5); // "Probed" + one row per kind
    QCOMPARE(model.index(factRows, NodeFactsModel::PropertyColumn).data().toString(), QStringLiteral("Probed"));
    QVERIFY(model.valueOf(QStringLiteral("Probed")).endsWith(QStringLiteral("NVIDIA H200 (rank 0 of 8)")));
    QCOMPARE(model.valueOf(QStringLiteral("Matmul rate (bf16)")),
             QStringLiteral("%1 TFLOP/s").arg(QLocale().toString(781.5, 'f', 0)));
    // A CPU's rate in hundredths of a TFLOP/s keeps three significant digits.
    QCOMPARE(model.valueOf(QStringLiteral("Matmul rate (fp32)")),
             QStringLiteral("%1 TFLOP/s").arg(QLocale().toString(0.0123, 'g', 3)));
    QCOMPARE(model.valueOf(QStringLiteral("All-reduce bus bandwidth")),
             QStringLiteral("%1 GB/s at %2").arg(QLocale().toString(361.0, 'f', 0), formatBytes(256 << 20)));
    QCOMPARE(model.valueOf(QStringLiteral("CPU AdamW rate")),
             QStringLiteral("%1 M parameters/s").arg(QLocale().toString(1500.0, 'f', 1)));
    // New facts keep the probe rows; no probe removes them.
    model.setFacts(facts);
    QCOMPARE(model.rowCount(), factRows + 5);
    model.setProbe(std::nullopt);
    QCOMPARE(model.rowCount(), factRows);
    QCOMPARE(model.valueOf(QStringLiteral("Probed")), QString());
}

// Torch chosen: the strategies PyTorch cannot express are disabled and say why, a chosen one moves
// to one it can run, CUDA graphs give way to torch.compile; native again: everything is back.
void TestRunsModels::requestFormOffersOnlyWhatTheBackendRuns()
{
    RunRequestForm form;
    auto* strategies = qobject_cast<QStandardItemModel*>(form.strategyBox()->model());
    QVERIFY(strategies);
    form.strategyBox()->setCurrentIndex(form.strategyBox()->findData(QStringLiteral("zero3")));
    form.cudaGraphsBox()->setChecked(true);
    QVERIFY(!form.torchCompileBox()->isEnabled());
    form.backendBox()->setCurrentIndex(form.backendBox()->findData(QStringLiteral("torch")));
    QCOMPARE(form.backend(), RunBackend::Torch);
    for (int i = 0; i < form.strategyBox()->count(); ++i) {
        const auto strategy = strategyFromId(form.strategyBox()->itemData(i).toString().toStdString());
        QVERIFY(strategy);
        const bool runnable = frameworkSupports(Framework::Fsdp2, *strategy);
        QCOMPARE(strategies->item(i)->isEnabled(), runnable);
        const QString tip = form.strategyBox()->itemData(i, Qt::ToolTipRole).toString();
        QCOMPARE(tip.contains(QStringLiteral("PyTorch cannot express")), !runnable);
    }
    // zero3 was chosen; the torch backend cannot run it, so the form took one it can.
    const auto chosen = strategyFromId(form.strategyBox()->currentData().toString().toStdString());
    QVERIFY(chosen && frameworkSupports(Framework::Fsdp2, *chosen));
    QVERIFY(!form.cudaGraphsBox()->isEnabled());
    QVERIFY(!form.cudaGraphsBox()->isChecked());
    QVERIFY(form.torchCompileBox()->isEnabled());
    form.strategyBox()->setCurrentIndex(form.strategyBox()->findData(QStringLiteral("fsdp2_reshard")));
    form.torchCompileBox()->setChecked(true);
    QString error;
    const std::optional<RunConfig> config = form.config(&error);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->backend, RunBackend::Torch);
    QVERIFY(config->torchCompile);
    QCOMPARE(config->strategy, Strategy::Fsdp2Reshard);

    form.backendBox()->setCurrentIndex(form.backendBox()->findData(QStringLiteral("native")));
    for (int i = 0; i < form.strategyBox()->count(); ++i)
        QVERIFY(strategies->item(i)->isEnabled());
    QVERIFY(!form.torchCompileBox()->isEnabled());
    QVERIFY(!form.torchCompileBox()->isChecked());
    QVERIFY(form.cudaGraphsBox()->isEnabled());
    const std::optional<RunConfig> native = form.config(&error);
    QVERIFY2(native, qPrintable(error));
    QCOMPARE(native->backend, RunBackend::Native);
    QVERIFY(!native->torchCompile);

    // The same rule for a run matrix (Validate): what torch cannot run is refused with the reason.
    RunConfig zero2 = *native;
    zero2.strategy = Strategy::Zero2;
    QString why;
    QVERIFY(!configForBackend(zero2, RunBackend::Torch, &why));
    QVERIFY2(why.contains(QStringLiteral("zero2")), qPrintable(why));
    RunConfig graphed = *native;
    graphed.training.cudaGraphs = true;
    const auto asTorch = configForBackend(graphed, RunBackend::Torch);
    QVERIFY(asTorch && asTorch->backend == RunBackend::Torch && !asTorch->training.cudaGraphs);
}

void TestRunsModels::historyModelShowsTheBackend()
{
    QTemporaryDir dir;
    store::Database db = store::Database::open(dir.filePath(QStringLiteral("runs.sqlite")).toStdString());
    RunConfig config;
    config.model = resolveModel("tiny");
    config.strategy = Strategy::Fsdp2Reshard;
    config.backend = RunBackend::Torch;
    {
        store::RunRecorder recorder(db, config, store::RunOrigin {});
        recorder.finish(store::RunStatus::Cancelled, "stopped");
    }
    RunHistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRuns(store::listRuns(db));
    QCOMPARE(model.index(0, RunHistoryModel::BackendColumn).data().toString(), QStringLiteral("torch"));
    QCOMPARE(model.headerData(RunHistoryModel::BackendColumn, Qt::Horizontal).toString(), QStringLiteral("Backend"));
    QVERIFY(model.index(0, RunHistoryModel::BackendColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("PyTorch")));
}

SHARDWISE_GUI_TEST_MAIN(TestRunsModels)
#include "test_runs_models.moc"
