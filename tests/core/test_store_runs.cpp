// Runs through their life in the store (RunRecorder) and the queries the faces use: list filters,
// details, step series, logs, diagnoses; nodes and plans.
#include "shardwise/store/nodes.hpp"
#include "shardwise/store/plans.hpp"
#include "shardwise/store/run_recorder.hpp"
#include "shardwise/store/runs.hpp"
#include "store_fixtures/run_invariants.hpp"
#include "store_fixtures/synthetic_run.hpp"

#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <memory>

using namespace shardwise;
using namespace shardwise::store;

namespace {
template <typename F> QString storeErrorOf(F&& f)
{
    try {
        f();
    } catch (const StoreError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}
} // namespace

class TestStoreRuns : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<Database> m_db;

private slots:
    void launchOutcomesMapToStoredStatuses_data()
    {
        QTest::addColumn<QString>("outcome");
        QTest::addColumn<QString>("stored");
        QTest::newRow("ok") << QStringLiteral("ok") << QStringLiteral("completed");
        QTest::newRow("oom") << QStringLiteral("oom") << QStringLiteral("oom");
        QTest::newRow("comm") << QStringLiteral("comm") << QStringLiteral("failed");
        QTest::newRow("config") << QStringLiteral("config") << QStringLiteral("failed");
        QTest::newRow("failed") << QStringLiteral("failed") << QStringLiteral("failed");
        QTest::newRow("timeout") << QStringLiteral("timeout") << QStringLiteral("timeout");
        QTest::newRow("cancelled") << QStringLiteral("cancelled") << QStringLiteral("cancelled");
        QTest::newRow("unknown") << QStringLiteral("exploded") << QStringLiteral("failed");
    }
    void launchOutcomesMapToStoredStatuses()
    {
        QFETCH(QString, outcome);
        QFETCH(QString, stored);
        QCOMPARE(
            QString::fromUtf8(std::string(store::runStatusId(store::statusForOutcome(outcome.toStdString()))).c_str()),
            stored);
    }

    void init()
    {
        static int n = 0;
        m_db = std::make_unique<Database>(
            Database::open(m_dir.filePath(QStringLiteral("runs-%1.sqlite").arg(++n)).toStdString()));
    }
    void cleanup() { m_db.reset(); }

    void runIsStoredAsRunningFromTheStart()
    {
        const auto config = fixtures::syntheticConfig(Strategy::Zero2, 2, 1, 2);
        RunOrigin origin;
        origin.nodes = { { "gpu-box", std::nullopt } };
        origin.launcher = "shardwise";
        RunRecorder recorder(*m_db, config, origin);
        const auto run = findRun(*m_db, recorder.runId());
        QVERIFY(run);
        QCOMPARE(run->status, RunStatus::Running);
        QVERIFY(!run->finishedAt);
        QCOMPARE(run->worldSize, 2);
        QCOMPARE(run->nodes, std::vector<std::string> { "gpu-box" });
        const auto detail = runDetail(*m_db, recorder.runId());
        QCOMPARE(strategyOf(detail->config), std::string("zero2"));
        recorder.finish(RunStatus::Cancelled, "stopped by the user");
        QCOMPARE(findRun(*m_db, recorder.runId())->status, RunStatus::Cancelled);
        QCOMPARE(findRun(*m_db, recorder.runId())->note, std::string("stopped by the user"));
    }

    void completedRunCarriesHeadlineNumbers()
    {
        fixtures::SyntheticRun run;
        run.config = fixtures::syntheticConfig(Strategy::Fsdp2Reshard, 4, 2, 3);
        run.gpuName = "NVIDIA L4";
        const auto id = fixtures::recordRun(*m_db, run);
        const auto r = findRun(*m_db, id);
        QCOMPARE(r->status, RunStatus::Completed);
        QCOMPARE(*r->tokensPerS, 4 * 64 / 0.25);
        QCOMPARE(*r->medianStepS, 0.25);
        QCOMPARE(*r->ncclShare, 0.2);
        // The largest peak over ranks: rank 3's summary sample.
        QCOMPARE(*r->peakAllocated, fixtures::memoryAt(3, 5).peakAllocated);
        QCOMPARE(r->gpuName, std::string("NVIDIA L4"));
        const auto d = runDetail(*m_db, id);
        QCOMPARE(d->rankSummaries.size(), std::size_t(4));
        QCOMPARE(d->ranks.size(), std::size_t(4));
        QCOMPARE(d->versions.libtorch, std::string("1.13.1"));
        QCOMPARE(d->rankSummaries[2].losses.size(), std::size_t(5));
        QVERIFY(fixtures::halfRecordedProblems(*m_db, *r).empty());
    }

    void startEventVersionsRoundTripWithTheFirstRankWinning()
    {
        const auto config = fixtures::syntheticConfig(Strategy::Fsdp2ReshardOffload, 2, 1, 1);
        RunOrigin origin;
        origin.nodes = { { "gpu-box", std::nullopt } };
        RunRecorder recorder(*m_db, config, origin);
        protocol::SoftwareVersions v;
        v.runner = "0.1.0";
        v.libtorch = "2.11.0";
        v.cuda = "12.8";
        v.nccl = "2.27.3";
        v.driver = "580.159.04";
        v.compiler = "GCC 12.2.0";
        v.kernels = "fused rotary + SwiGLU";
        v.activations = protocol::kNormInputsRecomputed;
        v.offloadStaging = protocol::kOffloadStagingInPlace;
        protocol::StartEvent first;
        first.config = config;
        first.versions = v;
        recorder.record(first);
        protocol::StartEvent second = first;
        second.rank = 1;
        second.versions.kernels = "eager";
        second.versions.activations.clear();
        second.versions.offloadStaging.clear();
        recorder.record(second);
        recorder.finish(RunStatus::Cancelled, "stopped by the user");
        for (const protocol::SoftwareVersions& got :
             { runDetail(*m_db, recorder.runId())->versions, findRun(*m_db, recorder.runId())->versions }) {
            QCOMPARE(got.runner, v.runner);
            QCOMPARE(got.libtorch, v.libtorch);
            QCOMPARE(got.cuda, v.cuda);
            QCOMPARE(got.nccl, v.nccl);
            QCOMPARE(got.driver, v.driver);
            QCOMPARE(got.compiler, v.compiler);
            QCOMPARE(got.kernels, v.kernels);
            QCOMPARE(got.activations, v.activations);
            QCOMPARE(got.offloadStaging, v.offloadStaging);
        }
    }

    // The backend is the config's until a rank says otherwise: a start event naming the torch
    // backend is what ran, whatever was asked; one without it (the native runner) leaves the config's.
    void backendComesFromTheConfigAndTheStartEvent()
    {
        const auto nativeConfig = fixtures::syntheticConfig(Strategy::Zero0, 1, 1, 1);
        RunRecorder native(*m_db, nativeConfig, RunOrigin {});
        protocol::StartEvent nativeStart;
        nativeStart.config = nativeConfig;
        nativeStart.versions.runner = "0.9.0";
        nativeStart.versions.libtorch = "2.11.0";
        native.record(nativeStart);
        native.finish(RunStatus::Cancelled, "stopped");
        QCOMPARE(findRun(*m_db, native.runId())->backend, RunBackend::Native);
        QVERIFY(findRun(*m_db, native.runId())->versions.backend.empty());

        RunRecorder reported(*m_db, nativeConfig, RunOrigin {});
        protocol::StartEvent torchStart = nativeStart;
        torchStart.versions.runner = "shardwise-torch 0.1.0";
        torchStart.versions.backend = protocol::kTorchBackend;
        torchStart.versions.torch = "2.5.1";
        torchStart.versions.transformers = "4.46.3";
        torchStart.versions.modelImpl = "transformers";
        torchStart.versions.python = "3.11.2";
        reported.record(torchStart);
        reported.finish(RunStatus::Cancelled, "stopped");
        const auto r = findRun(*m_db, reported.runId());
        QCOMPARE(r->backend, RunBackend::Torch);
        QCOMPARE(r->versions.transformers, std::string("4.46.3"));
        QCOMPARE(r->versions.modelImpl, std::string("transformers"));

        // An unknown backend id from a later harness keeps the config's.
        auto torchConfig = fixtures::syntheticConfig(Strategy::Fsdp2NoReshard, 1, 1, 1);
        torchConfig.backend = RunBackend::Torch;
        RunRecorder unknown(*m_db, torchConfig, RunOrigin {});
        torchStart.versions.backend = "jax";
        torchStart.config = torchConfig;
        unknown.record(torchStart);
        unknown.finish(RunStatus::Cancelled, "stopped");
        QCOMPARE(findRun(*m_db, unknown.runId())->backend, RunBackend::Torch);
    }

    void oomIsAResultWithMemoryButNoThroughput()
    {
        fixtures::SyntheticRun run;
        run.config = fixtures::syntheticConfig(Strategy::Zero3, 2, 1, 3);
        run.outcome = fixtures::Outcome::Oom;
        run.failingRank = 1;
        run.failingStep = 2;
        const auto id = fixtures::recordRun(*m_db, run);
        const auto r = findRun(*m_db, id);
        QCOMPARE(r->status, RunStatus::Oom);
        QVERIFY(!r->tokensPerS);
        QCOMPARE(*r->peakAllocated, fixtures::memoryAt(1, 2).peakAllocated);
        QVERIFY2(r->note.find("rank 1: oom: CUDA out of memory") == 0, r->note.c_str());
        const auto d = runDetail(*m_db, id);
        QCOMPARE(d->errors.size(), std::size_t(1));
        QCOMPARE(d->errors[0].step, std::optional<int>(2));
        QCOMPARE(d->errors[0].reservedUnallocated, std::int64_t(3LL << 30));
        const auto logs = rankLogs(*m_db, id, 1);
        QCOMPARE(logs.size(), std::size_t(1));
        QCOMPARE(logs[0].stream, std::string("stderr"));
    }

    void statusFromEventsFollowsTheWorstRank_data()
    {
        QTest::addColumn<int>("outcome");
        QTest::addColumn<int>("expected");
        QTest::newRow("every rank summarised") << int(fixtures::Outcome::Completed) << int(RunStatus::Completed);
        QTest::newRow("one rank ran out of memory") << int(fixtures::Outcome::Oom) << int(RunStatus::Oom);
        QTest::newRow("one rank lost a collective") << int(fixtures::Outcome::CommFailure) << int(RunStatus::Failed);
    }
    void statusFromEventsFollowsTheWorstRank()
    {
        QFETCH(int, outcome);
        QFETCH(int, expected);
        fixtures::SyntheticRun run;
        run.config = fixtures::syntheticConfig(Strategy::Zero1, 3, 1, 1);
        run.outcome = static_cast<fixtures::Outcome>(outcome);
        const auto id = fixtures::recordRun(*m_db, run);
        QCOMPARE(int(findRun(*m_db, id)->status), expected);
    }

    void checkpointCostIsKeptPerRank()
    {
        RunRecorder recorder(*m_db, fixtures::syntheticConfig(Strategy::Fsdp2Reshard, 1, 1, 1), RunOrigin {});
        protocol::SummaryEvent summary;
        summary.world = 1;
        summary.medianStepS = 0.5;
        summary.tokensPerS = 4096;
        summary.checkpointSaveS = 2.25;
        summary.checkpointsWritten = 3;
        summary.resumedFromStep = 20;
        recorder.record(summary);
        recorder.finish(RunStatus::Completed, {});
        const auto d = runDetail(*m_db, recorder.runId());
        QVERIFY(d);
        QCOMPARE(d->rankSummaries.size(), std::size_t(1));
        QCOMPARE(d->rankSummaries[0].checkpointSaveS, 2.25);
        QCOMPARE(d->rankSummaries[0].checkpointsWritten, 3);
        QCOMPARE(d->rankSummaries[0].resumedFromStep, 20);
    }

    void missingSummaryMeansFailed()
    {
        RunRecorder recorder(*m_db, fixtures::syntheticConfig(Strategy::Zero0, 2, 1, 1), RunOrigin {});
        protocol::SummaryEvent only;
        only.rank = 0;
        only.world = 2;
        recorder.record(only);
        QCOMPARE(recorder.statusFromEvents(), RunStatus::Failed);
        recorder.finish(RunStatus::Lost, "node gpu-box stopped answering");
        const auto r = findRun(*m_db, recorder.runId());
        QCOMPARE(r->status, RunStatus::Lost);
        QVERIFY2(!r->tokensPerS, "one rank's numbers must not pass for the run's throughput");
    }

    void staleHeartbeatShowsAsInterrupted()
    {
        RunRecorder recorder(*m_db, fixtures::syntheticConfig(Strategy::Zero3Offload, 1, 1, 1), RunOrigin {});
        const double now = currentUnixTime();
        QCOMPARE(findRun(*m_db, recorder.runId(), now)->status, RunStatus::Running);
        const double muchLater = now + kStaleHeartbeatSeconds + 10;
        QCOMPARE(findRun(*m_db, recorder.runId(), muchLater)->status, RunStatus::Interrupted);
        RunFilter interrupted;
        interrupted.status = RunStatus::Interrupted;
        QCOMPARE(listRuns(*m_db, interrupted, muchLater).size(), std::size_t(1));
        QCOMPARE(listRuns(*m_db, interrupted, now).size(), std::size_t(0));
        recorder.finish(RunStatus::Timeout, "wall-clock limit of 600 s");
    }

    // Runs are stored by strategy id (no list of ids in the schema): every strategy of the table,
    // zero2_offload too, is found again by id and by the strategy filter.
    void everyStrategyIsStoredAndFilteredById()
    {
        std::map<Strategy, std::int64_t> ids;
        for (const auto& t : allStrategies()) {
            RunRecorder recorder(*m_db, fixtures::syntheticConfig(t.strategy, 1, 1, 1), RunOrigin {});
            recorder.finish(RunStatus::Completed);
            ids[t.strategy] = recorder.runId();
        }
        for (const auto& t : allStrategies()) {
            QCOMPARE(findRun(*m_db, ids.at(t.strategy))->strategy, t.strategy);
            RunFilter only;
            only.strategy = t.strategy;
            const auto runs = listRuns(*m_db, only);
            QCOMPARE(runs.size(), std::size_t(1));
            QCOMPARE(runs.front().id, ids.at(t.strategy));
        }
    }

    void abandonedRecorderFinishesAsFailed()
    {
        std::int64_t id = 0;
        {
            RunRecorder recorder(*m_db, fixtures::syntheticConfig(Strategy::Zero1, 1, 1, 1), RunOrigin {});
            id = recorder.runId();
        }
        const auto r = findRun(*m_db, id);
        QCOMPARE(r->status, RunStatus::Failed);
        QVERIFY(r->finishedAt);
        QVERIFY(!r->note.empty());
    }

    void finishingTwiceOrAsRunningIsRefused()
    {
        RunRecorder recorder(*m_db, fixtures::syntheticConfig(Strategy::Zero1, 1, 1, 1), RunOrigin {});
        QVERIFY(
            storeErrorOf([&] { recorder.finish(RunStatus::Interrupted); }).contains(QStringLiteral("cannot finish")));
        recorder.finish(RunStatus::Completed);
        QVERIFY(storeErrorOf([&] { recorder.finish(RunStatus::Failed); }).contains(QStringLiteral("already finished")));
    }

    void predictionsAreKeptBesideTheMeasurement()
    {
        StoredPlan plan;
        plan.modelId = "synthetic-2l";
        plan.gpuId = "l4";
        plan.worldSize = 4;
        plan.recommended = Strategy::Zero2;
        plan.document = { { "recommendation", "zero2" }, { "deciding_step", 1 } };
        const auto planId = savePlan(*m_db, plan);
        RunOrigin origin;
        origin.planId = planId;
        origin.predicted = RunPrediction { 1000.0, 0.5, 3LL << 30, { { "fits", true } } };
        RunRecorder recorder(*m_db, fixtures::syntheticConfig(Strategy::Zero2, 1, 1, 1), origin);
        recorder.finish(RunStatus::Failed, "test");
        const auto r = findRun(*m_db, recorder.runId());
        QCOMPARE(r->planId, std::optional<std::int64_t>(planId));
        QCOMPARE(*r->predicted.tokensPerS, 1000.0);
        QCOMPARE(*r->predicted.peakBytes, std::int64_t(3LL << 30));
        QCOMPARE(r->predicted.document.at("fits"), nlohmann::json(true));
        RunFilter byPlan;
        byPlan.planId = planId;
        QCOMPARE(listRuns(*m_db, byPlan).size(), std::size_t(1));
    }

    // A rehearsal of one rank of world 64 recorded from its event lines as a runner writes them: the
    // row keeps the world it stands for, its memory and its memory prediction, and no throughput, step
    // time, communication share or predicted tokens/s, even where a line claims one. The runner's own
    // word counts: a start event's config or a summary's rehearsed_world makes a rehearsal of a run
    // asked for as a real one.
    void rehearsalKeepsMemoryButNoThroughput_data()
    {
        QTest::addColumn<int>("requested");     // the config's rehearse_world; 0 asks for a real run
        QTest::addColumn<int>("started");       // rehearse_world in the start line's config; 0: none
        QTest::addColumn<int>("summarised");    // rehearsed_world on the summary line; 0: absent
        QTest::addColumn<double>("tokensPerS"); // the summary line's tokens_per_s
        QTest::newRow("as the runner reports it") << 64 << 64 << 64 << 0.0;
        QTest::newRow("a summary claiming a throughput") << 64 << 64 << 0 << 12345.0;
        QTest::newRow("said by the start line only") << 0 << 64 << 0 << 12345.0;
        QTest::newRow("said by the summary only") << 0 << 0 << 64 << 0.0;
    }
    void rehearsalKeepsMemoryButNoThroughput()
    {
        QFETCH(int, requested);
        QFETCH(int, started);
        QFETCH(int, summarised);
        QFETCH(double, tokensPerS);
        RunConfig config = fixtures::syntheticConfig(Strategy::Zero3, 1, 1, 2);
        config.device = DeviceKind::Cuda;
        config.rehearseWorld = requested;
        RunOrigin origin;
        origin.gpuId = "h100";
        origin.predicted = RunPrediction { 9000.0, 0.4, 5LL << 30, { { "fits", true } } };
        RunRecorder recorder(*m_db, config, origin);

        RunConfig ran = config;
        ran.rehearseWorld = started;
        protocol::StartEvent start;
        start.config = ran;
        start.deviceName = "NVIDIA H100 80GB HBM3";
        start.versions.runner = "0.1.0";
        std::vector<std::string> lines { protocol::serialize(start) };
        for (int step = 0; step < 3; ++step) {
            protocol::StepEvent st;
            st.step = step;
            st.timed = step > 0;
            st.stepTimeS = 0.125;
            st.tokens = 64;
            st.memory = fixtures::memoryAt(0, step);
            lines.push_back(protocol::serialize(st));
        }
        protocol::SummaryEvent summary;
        summary.warmupSteps = 1;
        summary.timedSteps = 2;
        summary.medianStepS = 0.125;
        summary.p10StepS = 0.12;
        summary.p90StepS = 0.13;
        summary.tokensPerS = tokensPerS;
        summary.ncclShare = 0.0;
        summary.memory = fixtures::memoryAt(0, 3);
        summary.rehearsedWorld = summarised;
        lines.push_back(protocol::serialize(summary));
        for (const std::string& line : lines)
            recorder.record(protocol::parseEvent(line));
        QCOMPARE(recorder.statusFromEvents(), RunStatus::Completed);
        recorder.finish(recorder.statusFromEvents());

        const auto r = findRun(*m_db, recorder.runId());
        QCOMPARE(r->rehearsedWorld, std::optional<int>(64));
        QCOMPARE(r->worldSize, 1);
        QCOMPARE(r->effectiveWorld(), 64);
        QCOMPARE(r->status, RunStatus::Completed);
        QVERIFY(!r->tokensPerS);
        QVERIFY(!r->medianStepS && !r->p10StepS && !r->p90StepS);
        QVERIFY(!r->ncclShare && !r->exposedCommShare);
        QCOMPARE(r->peakAllocated, std::optional<std::int64_t>(fixtures::memoryAt(0, 3).peakAllocated));
        QCOMPARE(r->peakReserved, std::optional<std::int64_t>(fixtures::memoryAt(0, 3).peakReserved));
        QVERIFY(!r->predicted.tokensPerS && !r->predicted.stepS);
        QCOMPARE(r->predicted.peakBytes, std::optional<std::int64_t>(5LL << 30));
        // Rank 0's summary keeps its compute-only step time as the runner measured it.
        const auto d = runDetail(*m_db, recorder.runId());
        QCOMPARE(d->rankSummaries.size(), std::size_t(1));
        QCOMPARE(d->rankSummaries.front().medianStepS, 0.125);
        QVERIFY(fixtures::halfRecordedProblems(*m_db, *r).empty());
    }

    void realRunHasNoRehearsedWorld()
    {
        const auto id = fixtures::recordRun(
            *m_db, fixtures::SyntheticRun { fixtures::syntheticConfig(Strategy::Zero2, 2, 1, 2) });
        const auto r = findRun(*m_db, id);
        QVERIFY(!r->rehearsedWorld);
        QCOMPARE(r->effectiveWorld(), 2);
        QVERIFY(r->tokensPerS);
    }

    void listFiltersSelectMatchingRuns_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<int>("expected");
        QTest::newRow("model, case ignored") << QStringLiteral("model") << QStringLiteral("SYNTHETIC-2L") << 4;
        QTest::newRow("model, no match") << QStringLiteral("model") << QStringLiteral("llama-3.1-8b") << 0;
        QTest::newRow("gpu by device name part") << QStringLiteral("gpu") << QStringLiteral("h200") << 2;
        QTest::newRow("gpu by other name") << QStringLiteral("gpu") << QStringLiteral("L4") << 2;
        QTest::newRow("strategy") << QStringLiteral("strategy") << QStringLiteral("zero3") << 1;
        QTest::newRow("node") << QStringLiteral("node") << QStringLiteral("box-b") << 2;
        QTest::newRow("status oom") << QStringLiteral("status") << QStringLiteral("oom") << 1;
        QTest::newRow("status completed") << QStringLiteral("status") << QStringLiteral("completed") << 3;
        QTest::newRow("started from now") << QStringLiteral("from") << QString() << 4;
        QTest::newRow("started until now") << QStringLiteral("until") << QString() << 0;
    }
    void listFiltersSelectMatchingRuns()
    {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(int, expected);
        const double before = currentUnixTime() - 1;
        const Strategy strategies[]
            = { Strategy::Zero1, Strategy::Zero3, Strategy::Fsdp2Reshard, Strategy::Fsdp2NoReshard };
        for (int i = 0; i < 4; ++i) {
            fixtures::SyntheticRun run;
            run.config = fixtures::syntheticConfig(strategies[i], 2, 1, 1);
            run.gpuName = i % 2 ? "NVIDIA H200" : "NVIDIA L4";
            run.node = i < 2 ? "box-a" : "box-b";
            run.outcome = i == 1 ? fixtures::Outcome::Oom : fixtures::Outcome::Completed;
            fixtures::recordRun(*m_db, run);
        }
        RunFilter f;
        const std::string v = value.toStdString();
        if (field == QStringLiteral("model"))
            f.model = v;
        else if (field == QStringLiteral("gpu"))
            f.gpu = v;
        else if (field == QStringLiteral("strategy"))
            f.strategy = strategyFromId(v);
        else if (field == QStringLiteral("node"))
            f.node = v;
        else if (field == QStringLiteral("status"))
            f.status = runStatusFromId(v);
        else if (field == QStringLiteral("from"))
            f.startedFrom = before;
        else if (field == QStringLiteral("until"))
            f.startedUntil = before;
        const auto runs = listRuns(*m_db, f);
        QCOMPARE(static_cast<int>(runs.size()), expected);
        for (std::size_t i = 1; i < runs.size(); ++i)
            QVERIFY2(runs[i - 1].startedAt >= runs[i].startedAt, "newest first");
    }

    void stepSeriesAndLogsComeInRankAndStepOrder()
    {
        fixtures::SyntheticRun run;
        run.config = fixtures::syntheticConfig(Strategy::Zero2, 2, 2, 2);
        const auto id = fixtures::recordRun(*m_db, run);
        const auto all = stepSeries(*m_db, id);
        QCOMPARE(all.size(), std::size_t(8));
        QCOMPARE(all.front().rank, 0);
        QCOMPARE(all.back().rank, 1);
        QCOMPARE(all.back().step, 3);
        QVERIFY(!all.front().timed);
        QVERIFY(all.back().timed);
        const auto rank1 = stepSeries(*m_db, id, 1);
        QCOMPARE(rank1.size(), std::size_t(4));
        QCOMPARE(rank1[2].memory.peakAllocated, fixtures::memoryAt(1, 2).peakAllocated);
    }

    void diagnosesAttachToTheirRun()
    {
        fixtures::SyntheticRun run;
        run.config = fixtures::syntheticConfig(Strategy::Zero3, 2, 1, 1);
        run.outcome = fixtures::Outcome::Oom;
        const auto id = fixtures::recordRun(*m_db, run);
        Diagnosis d;
        d.runId = id;
        d.code = "oom-fragmentation";
        d.title = "Out of memory with 3.0 GiB reserved but unallocated";
        d.detail = "Rerun with expandable_segments:True as a diagnostic.";
        d.firstFailureRank = 0;
        d.document = { { "reserved_unallocated", 3LL << 30 } };
        addDiagnosis(*m_db, d);
        const auto list = diagnoses(*m_db, id);
        QCOMPARE(list.size(), std::size_t(1));
        QCOMPARE(list[0].code, d.code);
        QCOMPARE(list[0].firstFailureRank, std::optional<int>(0));
        QCOMPARE(runDetail(*m_db, id)->diagnoses.size(), std::size_t(1));
        QVERIFY(removeRun(*m_db, id));
        QVERIFY(diagnoses(*m_db, id).empty());
        QVERIFY(stepSeries(*m_db, id).empty());
        QCOMPARE(m_db->integrityCheck(), std::string("ok"));
    }

    void nodesRoundTripAndKeepRunsWhenRemoved()
    {
        Node n;
        n.name = "gpu-box";
        n.kind = NodeKind::Ssh;
        n.host = "10.1.2.3";
        n.port = 2222;
        n.user = "ml";
        n.auth = SshAuth::KeyFile;
        n.keyFile = "/home/ml/.ssh/id_ed25519";
        const auto id = addNode(*m_db, n);
        setNodeFacts(*m_db, id, { { "gpus", { { { "name", "NVIDIA H200" }, { "memory_mib", 143771 } } } } });
        acceptHostKey(*m_db, id, "SHA256:abc");
        auto stored = findNode(*m_db, id);
        QVERIFY(stored);
        QCOMPARE(stored->port, 2222);
        QCOMPARE(stored->auth, SshAuth::KeyFile);
        QCOMPARE(stored->hostKeyFingerprint, std::string("SHA256:abc"));
        QCOMPARE(stored->facts["gpus"][0]["memory_mib"], nlohmann::json(143771));
        stored->port = 22;
        updateNode(*m_db, *stored);
        QCOMPARE(findNodeByName(*m_db, "gpu-box")->port, 22);

        RunOrigin origin;
        origin.nodes = { { "gpu-box", id } };
        RunRecorder recorder(*m_db, fixtures::syntheticConfig(Strategy::Zero1, 1, 1, 1), origin);
        recorder.finish(RunStatus::Cancelled);
        QVERIFY(removeNode(*m_db, id));
        QVERIFY(listNodes(*m_db).empty());
        QCOMPARE(findRun(*m_db, recorder.runId())->nodes, std::vector<std::string> { "gpu-box" });
        QCOMPARE(m_db->integrityCheck(), std::string("ok"));
    }

    void invalidNodesAreRefusedNamingTheField_data()
    {
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("field");
        QTest::newRow("empty name") << QStringLiteral("name") << QStringLiteral("node.name");
        QTest::newRow("name with '+'") << QStringLiteral("plus") << QStringLiteral("node.name: 'a+b' contains '+'");
        QTest::newRow("ssh without host") << QStringLiteral("host") << QStringLiteral("node.host");
        QTest::newRow("nccl setting not a variable name")
            << QStringLiteral("nccl-name") << QStringLiteral("node.nccl_env");
        QTest::newRow("nccl setting the launcher owns")
            << QStringLiteral("nccl-rank") << QStringLiteral("node.nccl_env");
        QTest::newRow("nccl setting of two lines") << QStringLiteral("nccl-value") << QStringLiteral("node.nccl_env");
        QTest::newRow("port out of range") << QStringLiteral("port") << QStringLiteral("node.port");
        QTest::newRow("key file missing") << QStringLiteral("key") << QStringLiteral("node.key_file");
        QTest::newRow("duplicate name") << QStringLiteral("duplicate") << QStringLiteral("already exists");
    }
    void invalidNodesAreRefusedNamingTheField()
    {
        QFETCH(QString, problem);
        QFETCH(QString, field);
        Node n;
        n.name = "box";
        n.kind = NodeKind::Ssh;
        n.host = "h";
        n.user = "u";
        if (problem == QStringLiteral("name"))
            n.name.clear();
        else if (problem == QStringLiteral("plus"))
            n.name = "a+b";
        else if (problem == QStringLiteral("host"))
            n.host.clear();
        else if (problem == QStringLiteral("nccl-name"))
            n.ncclEnv["NCCL-NVLS"] = "0";
        else if (problem == QStringLiteral("nccl-rank"))
            n.ncclEnv["MASTER_PORT"] = "1";
        else if (problem == QStringLiteral("nccl-value"))
            n.ncclEnv["NCCL_DEBUG"] = "INFO\nWARN";
        else if (problem == QStringLiteral("port"))
            n.port = 70000;
        else if (problem == QStringLiteral("key"))
            n.auth = SshAuth::KeyFile;
        else
            addNode(*m_db, n);
        const QString error = storeErrorOf([&] { addNode(*m_db, n); });
        QVERIFY2(error.contains(field), qPrintable(error));
    }

    // A node's NCCL setting is kept with it (none by default), and each run records what every node
    // of it gave its ranks; an SSH node may leave its user to the ssh client configuration.
    void nodeNcclSettingsAreKeptAndRecordedWithEachRun()
    {
        Node bare;
        bare.name = "alias-box";
        bare.kind = NodeKind::Ssh;
        bare.host = "gpu-alias"; // the ssh config's User applies: nothing stored
        const auto bareId = addNode(*m_db, bare);
        QVERIFY(findNode(*m_db, bareId)->user.empty());
        QVERIFY(findNode(*m_db, bareId)->ncclEnv.empty());

        Node n = bare;
        n.name = "nvls-box";
        n.ncclEnv = { { "NCCL_NVLS_ENABLE", "0" }, { "TORCH_SYMM_MEM_DISABLE_MULTICAST", "1" } };
        const auto id = addNode(*m_db, n);
        const std::map<std::string, std::string> expected { { "NCCL_NVLS_ENABLE", "0" },
                                                            { "TORCH_SYMM_MEM_DISABLE_MULTICAST", "1" } };
        QCOMPARE(findNode(*m_db, id)->ncclEnv, expected);
        setNodeNcclEnv(*m_db, id, { { "NCCL_DEBUG", "WARN" } });
        QCOMPARE(findNodeByName(*m_db, "nvls-box")->ncclEnv,
                 (std::map<std::string, std::string> { { "NCCL_DEBUG", "WARN" } }));
        QVERIFY(storeErrorOf([&] {
                    setNodeNcclEnv(*m_db, id, { { "RANK", "3" } });
                }).contains(QStringLiteral("node.nccl_env")));
        QCOMPARE(findNode(*m_db, id)->ncclEnv.size(), std::size_t(1));

        RunOrigin origin;
        origin.nodes = { { "nvls-box", id, { { "NCCL_DEBUG", "WARN" } } }, { "alias-box", bareId } };
        RunRecorder recorder(*m_db, fixtures::syntheticConfig(Strategy::Zero1, 2, 1, 1), origin);
        recorder.finish(RunStatus::Cancelled);
        const auto detail = runDetail(*m_db, recorder.runId());
        QVERIFY(detail);
        QCOMPARE(detail->ncclEnv.size(), std::size_t(1)); // a node without settings is left out
        QCOMPARE(detail->ncclEnv.at("nvls-box"), (std::map<std::string, std::string> { { "NCCL_DEBUG", "WARN" } }));
    }

    void plansRoundTripAsDocuments()
    {
        StoredPlan p;
        p.title = "8B on four L4";
        p.modelId = "llama-3.1-8b";
        p.gpuId = "l4";
        p.worldSize = 4;
        p.document = { { "candidates", nlohmann::json::array({ { { "strategy", "zero3" }, { "fits", false } } }) } };
        const auto id = savePlan(*m_db, p);
        StoredPlan nothingFits = p;
        nothingFits.title = "70B on four L4";
        savePlan(*m_db, nothingFits);
        const auto back = findPlan(*m_db, id);
        QVERIFY(back);
        QCOMPARE(back->document, p.document);
        QVERIFY(!back->recommended);
        const auto all = listPlans(*m_db);
        QCOMPARE(all.size(), std::size_t(2));
        QVERIFY(all[0].document.is_null());
        QVERIFY(listPlans(*m_db, true)[1].document.is_object());
        p.worldSize = 0;
        QVERIFY(storeErrorOf([&] { savePlan(*m_db, p); }).contains(QStringLiteral("plan.world_size")));
    }

private:
    static std::string strategyOf(const nlohmann::json& config) { return config.value("strategy", std::string()); }
};

QTEST_GUILESS_MAIN(TestStoreRuns)
#include "test_store_runs.moc"
