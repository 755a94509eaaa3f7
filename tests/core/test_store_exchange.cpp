// Runs in and out of the store: exported CSV and JSON import back as the same runs (marked imported,
// with their source), and bad import input is named by line/field and stores nothing.
#include "shardwise/store/exchange.hpp"
#include "shardwise/store/run_recorder.hpp"
#include "shardwise/store/runs.hpp"
#include "shardwise/store/timestamps.hpp"
#include "store_fixtures/synthetic_run.hpp"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <memory>
#include <sstream>

using namespace shardwise;
using namespace shardwise::store;

namespace {

// A published comparison table in the shape users paste from reports: one OOM row, one that only
// completed with the allocator flag.
const char* const kPublishedCsv
    = "model,gpu_name,strategy,world_size,status,tokens_per_s,median_step_s,peak_allocated_bytes,interconnect,note\n"
      "llama-3b,NVIDIA L4,zero3,4,completed,2150.5,7.62,20401094656,pcie,\"expandable_segments:True, needed\"\n"
      "llama-3b,NVIDIA L4,fsdp2_reshard,4,oom,,,23622320128,pcie,\n";

} // namespace

class TestStoreExchange : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<Database> m_db;

    std::size_t runCount() const { return listRuns(*m_db).size(); }

private slots:
    void init()
    {
        static int n = 0;
        m_db = std::make_unique<Database>(
            Database::open(m_dir.filePath(QStringLiteral("runs-%1.sqlite").arg(++n)).toStdString()));
    }
    void cleanup() { m_db.reset(); }

    void publishedTableImportsAsImportedRuns()
    {
        std::istringstream in(kPublishedCsv);
        const auto result = importRunsCsv(*m_db, in, "reference benchmark, 2025");
        QCOMPARE(result.runIds.size(), std::size_t(2));
        const auto first = findRun(*m_db, result.runIds[0]);
        QCOMPARE(first->source, RunSource::Imported);
        QCOMPARE(first->importSource, std::string("reference benchmark, 2025"));
        QCOMPARE(first->status, RunStatus::Completed);
        QCOMPARE(*first->tokensPerS, 2150.5);
        QCOMPARE(*first->peakAllocated, std::int64_t(20401094656));
        QCOMPARE(first->note, std::string("expandable_segments:True, needed"));
        const auto oom = findRun(*m_db, result.runIds[1]);
        QCOMPARE(oom->status, RunStatus::Oom);
        QVERIFY(!oom->tokensPerS);
        RunFilter imported;
        imported.source = RunSource::Imported;
        QCOMPARE(listRuns(*m_db, imported).size(), std::size_t(2));
    }

    // Runs that started in the same instant list in the file's order after an import, as they listed
    // before the export (newest first, ties by the later record first).
    void runsOfEqualStartKeepTheFilesOrder()
    {
        QTemporaryDir dir;
        Database source = Database::open(dir.filePath(QStringLiteral("source.sqlite")).toStdString());
        fixtures::SyntheticRun first;
        first.config = fixtures::syntheticConfig(Strategy::Zero1, 2, 1, 2);
        fixtures::recordRun(source, first);
        fixtures::SyntheticRun second = first;
        second.config = fixtures::syntheticConfig(Strategy::Zero3, 2, 1, 2);
        fixtures::recordRun(source, second);
        std::stringstream exported;
        exportRunsJson(listRuns(source), exported);
        nlohmann::json document = nlohmann::json::parse(exported.str());
        QCOMPARE(document.at("runs").size(), std::size_t(2));
        // Both start at the earlier of the two instants, which neither run finished before.
        const auto earlier = std::min(document["runs"][0]["started_at"], document["runs"][1]["started_at"]);
        document["runs"][0]["started_at"] = earlier;
        document["runs"][1]["started_at"] = earlier;
        std::stringstream tied(document.dump());
        Database target = Database::open(dir.filePath(QStringLiteral("target.sqlite")).toStdString());
        const auto result = importRunsJson(target, tied, "tied");
        const auto copies = listRuns(target);
        QCOMPARE(copies.size(), std::size_t(2));
        QCOMPARE(std::string(strategyId(copies[0].strategy)), document["runs"][0].at("strategy").get<std::string>());
        QCOMPARE(std::string(strategyId(copies[1].strategy)), document["runs"][1].at("strategy").get<std::string>());
        QCOMPARE(result.runIds.size(), std::size_t(2));
        QCOMPARE(findRun(target, result.runIds[0])->strategy, copies[0].strategy);
    }

    void exportedRunsImportBackUnchanged_data()
    {
        QTest::addColumn<QString>("format");
        QTest::newRow("csv") << QStringLiteral("csv");
        QTest::newRow("json") << QStringLiteral("json");
    }
    void exportedRunsImportBackUnchanged()
    {
        QFETCH(QString, format);
        fixtures::SyntheticRun completed;
        completed.config = fixtures::syntheticConfig(Strategy::Fsdp2NoReshard, 2, 1, 2);
        completed.node = "box, \"quoted\"";
        fixtures::recordRun(*m_db, completed);
        fixtures::SyntheticRun oom = completed;
        oom.outcome = fixtures::Outcome::Oom;
        fixtures::recordRun(*m_db, oom);
        const auto original = listRuns(*m_db);

        std::stringstream buffer;
        if (format == QStringLiteral("csv"))
            exportRunsCsv(original, buffer);
        else
            exportRunsJson(original, buffer);

        QTemporaryDir other;
        Database target = Database::open(other.filePath(QStringLiteral("copy.sqlite")).toStdString());
        const auto result = format == QStringLiteral("csv") ? importRunsCsv(target, buffer, "lab export")
                                                            : importRunsJson(target, buffer, "lab export");
        QCOMPARE(result.runIds.size(), original.size());
        const auto copies = listRuns(target);
        QCOMPARE(copies.size(), original.size());
        for (std::size_t i = 0; i < copies.size(); ++i) {
            const auto& a = original[i];
            const auto& b = copies[i];
            QCOMPARE(b.source, RunSource::Imported);
            QCOMPARE(b.importSource, std::string("lab export"));
            QCOMPARE(b.status, a.status);
            QCOMPARE(b.strategy, a.strategy);
            QCOMPARE(b.modelId, a.modelId);
            QCOMPARE(b.gpuName, a.gpuName);
            QCOMPARE(b.nodes, a.nodes);
            QCOMPARE(b.tokensPerS, a.tokensPerS);
            QCOMPARE(b.medianStepS, a.medianStepS);
            QCOMPARE(b.peakAllocated, a.peakAllocated);
            QCOMPARE(b.ncclShare, a.ncclShare);
            QCOMPARE(b.note, a.note);
            QCOMPARE(b.versions.runner, a.versions.runner);
            QCOMPARE(b.versions.libtorch, a.versions.libtorch);
            QVERIFY(std::abs(b.startedAt - a.startedAt) < 0.001);
        }
    }

    void runnerBehaviourTravelsWithExportedRuns_data()
    {
        QTest::addColumn<QString>("format");
        QTest::newRow("csv") << QStringLiteral("csv");
        QTest::newRow("json") << QStringLiteral("json");
    }
    void runnerBehaviourTravelsWithExportedRuns()
    {
        QFETCH(QString, format);
        const auto config = fixtures::syntheticConfig(Strategy::Zero3Offload, 1, 1, 1);
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
        {
            RunOrigin origin;
            origin.gpuName = "NVIDIA H200";
            RunRecorder recorder(*m_db, config, origin);
            protocol::StartEvent start;
            start.config = config;
            start.versions = v;
            recorder.record(start);
            recorder.finish(RunStatus::Failed, "rank 0 exited with 1");
        }
        std::stringstream buffer;
        if (format == QStringLiteral("csv"))
            exportRunsCsv(listRuns(*m_db), buffer);
        else
            exportRunsJson(listRuns(*m_db), buffer);
        QTemporaryDir other;
        Database target = Database::open(other.filePath(QStringLiteral("copy.sqlite")).toStdString());
        const auto result = format == QStringLiteral("csv") ? importRunsCsv(target, buffer, "lab export")
                                                            : importRunsJson(target, buffer, "lab export");
        QCOMPARE(result.runIds.size(), std::size_t(1));
        const auto got = runDetail(target, result.runIds[0])->versions;
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

    // A torch run's backend and framework versions leave in the export and come back on import,
    // beside a native run that stays native.
    void backendAndFrameworkVersionsTravelWithExportedRuns_data() { runnerBehaviourTravelsWithExportedRuns_data(); }
    void backendAndFrameworkVersionsTravelWithExportedRuns()
    {
        QFETCH(QString, format);
        auto torchConfig = fixtures::syntheticConfig(Strategy::Fsdp2Reshard, 1, 1, 1);
        torchConfig.backend = RunBackend::Torch;
        protocol::SoftwareVersions v;
        v.runner = "shardwise-torch 0.1.0";
        v.libtorch = "2.5.1";
        v.backend = protocol::kTorchBackend;
        v.python = "3.11.2";
        v.torch = "2.5.1";
        v.transformers = "4.46.3";
        v.modelImpl = "transformers";
        for (const RunConfig& config : { fixtures::syntheticConfig(Strategy::Zero3, 1, 1, 1), torchConfig }) {
            RunOrigin origin;
            origin.gpuName = "NVIDIA H200";
            RunRecorder recorder(*m_db, config, origin);
            protocol::StartEvent start;
            start.config = config;
            if (config.backend == RunBackend::Torch)
                start.versions = v;
            else
                start.versions.runner = "0.9.0";
            recorder.record(start);
            recorder.finish(RunStatus::Cancelled, "stopped");
        }
        std::stringstream buffer;
        if (format == QStringLiteral("csv"))
            exportRunsCsv(listRuns(*m_db), buffer);
        else
            exportRunsJson(listRuns(*m_db), buffer);
        const std::string text = buffer.str();
        QVERIFY2(text.find("backend") != std::string::npos, text.c_str());
        QVERIFY2(text.find("transformers_version") != std::string::npos, text.c_str());
        QTemporaryDir other;
        Database target = Database::open(other.filePath(QStringLiteral("copy.sqlite")).toStdString());
        const auto result = format == QStringLiteral("csv") ? importRunsCsv(target, buffer, "lab export")
                                                            : importRunsJson(target, buffer, "lab export");
        QCOMPARE(result.runIds.size(), std::size_t(2));
        // Newest first on export: the torch run, then the native one.
        const auto torch = runDetail(target, result.runIds[0]);
        QCOMPARE(torch->summary.backend, RunBackend::Torch);
        QCOMPARE(torch->versions.python, v.python);
        QCOMPARE(torch->versions.torch, v.torch);
        QCOMPARE(torch->versions.transformers, v.transformers);
        QCOMPARE(torch->versions.modelImpl, v.modelImpl);
        QCOMPARE(torch->versions.runner, v.runner);
        const auto native = runDetail(target, result.runIds[1]);
        QCOMPARE(native->summary.backend, RunBackend::Native);
        QVERIFY(native->versions.torch.empty());
        RunFilter torchOnly;
        torchOnly.backend = RunBackend::Torch;
        QCOMPARE(listRuns(target, torchOnly).size(), std::size_t(1));
    }

    void unknownBackendIsRefusedNamingTheField()
    {
        std::istringstream csv("model,gpu_name,strategy,world_size,status,backend\nm,L4,zero1,4,completed,native\n"
                               "m,L4,zero1,4,completed,deepspeed\n");
        try {
            importRunsCsv(*m_db, csv, "table");
            QFAIL("an unknown backend was imported");
        } catch (const ImportError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(
                         QStringLiteral("line 3, column 'backend': unknown backend 'deepspeed'")),
                     e.what());
        }
        QCOMPARE(runCount(), std::size_t(0));
    }

    void filesWithoutVersionsImportAsRunsOfUnreportedBehaviour()
    {
        // kPublishedCsv predates the version fields, like every file exported before them.
        std::istringstream csv(kPublishedCsv);
        const auto fromCsv = importRunsCsv(*m_db, csv, "reference benchmark, 2025");
        std::istringstream json(R"({"format": "shardwise-runs", "version": 1, "runs": [
            {"model": "llama-3b", "gpu_name": "NVIDIA L4", "strategy": "zero2", "world_size": 2,
             "status": "completed", "tokens_per_s": 1200.0}]})");
        const auto fromJson = importRunsJson(*m_db, json, "older export");
        QCOMPARE(fromCsv.runIds.size() + fromJson.runIds.size(), std::size_t(3));
        for (const auto& run : listRuns(*m_db)) {
            QCOMPARE(run.versions.runner, std::string());
            QCOMPARE(run.versions.activations, std::string());
            QCOMPARE(run.versions.offloadStaging, std::string());
            // Files from before the backend field hold native runs.
            QCOMPARE(run.backend, RunBackend::Native);
            QVERIFY(run.versions.torch.empty());
        }
    }

    void utcTimesParseStrictly_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("expected"); // -1 = rejected
        QTest::newRow("date") << QStringLiteral("2026-01-31") << 1769817600.0;
        QTest::newRow("date and time") << QStringLiteral("2026-01-31T14:05:00Z") << 1769868300.0;
        QTest::newRow("space, no zone") << QStringLiteral("2026-01-31 14:05:00") << 1769868300.0;
        QTest::newRow("milliseconds") << QStringLiteral("2026-01-31T14:05:00.250Z") << 1769868300.25;
        QTest::newRow("leap day") << QStringLiteral("2024-02-29") << 1709164800.0;
        QTest::newRow("no leap day") << QStringLiteral("2026-02-29") << -1.0;
        QTest::newRow("month 13") << QStringLiteral("2026-13-01") << -1.0;
        QTest::newRow("words") << QStringLiteral("yesterday") << -1.0;
        QTest::newRow("trailing text") << QStringLiteral("2026-01-31T14:05:00Zoo") << -1.0;
    }
    void utcTimesParseStrictly()
    {
        QFETCH(QString, text);
        QFETCH(double, expected);
        const auto parsed = parseUtc(text.toStdString());
        if (expected < 0) {
            QVERIFY(!parsed);
            return;
        }
        QVERIFY(parsed);
        QCOMPARE(*parsed, expected);
        QCOMPARE(*parseUtc(formatUtc(*parsed, true)), expected);
    }

    // The inter-node bandwidth a run's plan assumed travels with exported runs; a run without one
    // stays without one.
    void interNodeBandwidthTravelsWithExportedRuns()
    {
        fixtures::SyntheticRun plain;
        plain.config = fixtures::syntheticConfig(Strategy::Zero3, 2, 1, 1);
        fixtures::recordRun(*m_db, plain);
        RunOrigin origin;
        origin.interNodeGBps = 400.0;
        origin.gpuId = "h200";
        {
            RunRecorder recorder(*m_db, fixtures::syntheticConfig(Strategy::Fsdp2Reshard, 2, 1, 1), origin);
            recorder.finish(RunStatus::Failed, "stopped");
        }
        std::ostringstream csv;
        exportRunsCsv(listRuns(*m_db), csv);
        QVERIFY2(csv.str().find("inter_node_gbps") != std::string::npos, csv.str().c_str());
        init();
        std::istringstream in(csv.str());
        const auto result = importRunsCsv(*m_db, in, "copy");
        QCOMPARE(result.runIds.size(), std::size_t(2));
        int with = 0;
        for (const RunSummary& r : listRuns(*m_db)) {
            if (r.strategy == Strategy::Fsdp2Reshard) {
                QCOMPARE(r.interNodeGBps, std::optional<double>(400.0));
                ++with;
            } else {
                QVERIFY(!r.interNodeGBps);
            }
        }
        QCOMPARE(with, 1);
    }

    // A rehearsal travels with exported runs as what it is: rehearsed_world, world_size 1, its memory and
    // memory prediction, no throughput; a real run has none.
    void rehearsedWorldTravelsWithExportedRuns_data() { exportedRunsImportBackUnchanged_data(); }
    void rehearsedWorldTravelsWithExportedRuns()
    {
        QFETCH(QString, format);
        fixtures::SyntheticRun real;
        real.config = fixtures::syntheticConfig(Strategy::Zero2, 2, 1, 1);
        fixtures::recordRun(*m_db, real);
        RunConfig config = fixtures::syntheticConfig(Strategy::Zero3, 1, 1, 1);
        config.device = DeviceKind::Cuda;
        config.rehearseWorld = 256;
        RunOrigin origin;
        origin.gpuId = "h200";
        origin.predicted = RunPrediction { 5000.0, 1.0, 7LL << 30, {} };
        {
            RunRecorder recorder(*m_db, config, origin);
            protocol::SummaryEvent summary;
            summary.medianStepS = 0.5;
            summary.memory = fixtures::memoryAt(0, 1);
            summary.rehearsedWorld = 256;
            recorder.record(summary);
            recorder.finish(recorder.statusFromEvents());
        }
        std::ostringstream out;
        if (format == QStringLiteral("csv"))
            exportRunsCsv(listRuns(*m_db), out);
        else
            exportRunsJson(listRuns(*m_db), out);
        QVERIFY2(out.str().find("rehearsed_world") != std::string::npos, out.str().c_str());
        init();
        std::istringstream in(out.str());
        const auto result
            = format == QStringLiteral("csv") ? importRunsCsv(*m_db, in, "copy") : importRunsJson(*m_db, in, "copy");
        QCOMPARE(result.runIds.size(), std::size_t(2));
        int rehearsals = 0;
        for (const RunSummary& r : listRuns(*m_db)) {
            if (r.strategy != Strategy::Zero3) {
                QVERIFY(!r.rehearsedWorld);
                QVERIFY(r.tokensPerS);
                continue;
            }
            ++rehearsals;
            QCOMPARE(r.rehearsedWorld, std::optional<int>(256));
            QCOMPARE(r.worldSize, 1);
            QVERIFY(!r.tokensPerS && !r.medianStepS && !r.predicted.tokensPerS && !r.predicted.stepS);
            QCOMPARE(r.peakAllocated, std::optional<std::int64_t>(fixtures::memoryAt(0, 1).peakAllocated));
            QCOMPARE(r.predicted.peakBytes, std::optional<std::int64_t>(7LL << 30));
        }
        QCOMPARE(rehearsals, 1);
    }

    void badImportNamesTheProblemAndStoresNothing_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("mentions");
        const QString header = QStringLiteral("model,gpu_name,strategy,world_size,status\n");
        const QString good = QStringLiteral("m,L4,zero1,4,completed\n");
        QTest::newRow("csv unknown strategy")
            << QStringLiteral("csv") << header + good + QStringLiteral("m,L4,zero4,4,completed\n")
            << QStringLiteral("line 3, column 'strategy': unknown strategy 'zero4'");
        QTest::newRow("csv missing column")
            << QStringLiteral("csv") << QStringLiteral("model,gpu_name,world_size,status\nm,L4,4,oom\n")
            << QStringLiteral("line 1: missing the required field 'strategy'");
        QTest::newRow("csv unknown column")
            << QStringLiteral("csv") << QStringLiteral("model,gpu_name,strategy,world_size,status,tokens\n")
            << QStringLiteral("line 1, column 'tokens': unknown field");
        QTest::newRow("csv unclosed quote")
            << QStringLiteral("csv") << header + good + QStringLiteral("\"m,L4,zero1,4,completed\n")
            << QStringLiteral("line 3: a quoted field is never closed");
        QTest::newRow("csv field count") << QStringLiteral("csv") << header + good + QStringLiteral("m,L4,zero1\n")
                                         << QStringLiteral("line 3: expected 5 fields as in the header, found 3");
        QTest::newRow("csv bad number") << QStringLiteral("csv")
                                        << header + QStringLiteral("m,L4,zero1,four,completed\n")
                                        << QStringLiteral(
                                               "line 2, column 'world_size': expected a whole number, got 'four'");
        QTest::newRow("csv running is not a result")
            << QStringLiteral("csv") << header + QStringLiteral("m,L4,zero1,4,running\n")
            << QStringLiteral("line 2, column 'status': 'running' is not a final status");
        QTest::newRow("csv empty required value")
            << QStringLiteral("csv") << header + QStringLiteral(",L4,zero1,4,completed\n")
            << QStringLiteral("line 2, column 'model': a value is required");
        QTest::newRow("csv share above one")
            << QStringLiteral("csv")
            << QStringLiteral("model,gpu_name,strategy,world_size,status,nccl_share\nm,L4,zero1,4,completed,35\n")
            << QStringLiteral("line 2, column 'nccl_share': must be in [0, 1]");
        QTest::newRow("csv inter-node zero")
            << QStringLiteral("csv")
            << QStringLiteral("model,gpu_name,strategy,world_size,status,inter_node_gbps\nm,L4,zero1,4,completed,0\n")
            << QStringLiteral("line 2, column 'inter_node_gbps': must be in [");
        QTest::newRow("csv inter-node text")
            << QStringLiteral("csv")
            << QStringLiteral(
                   "model,gpu_name,strategy,world_size,status,inter_node_gbps\nm,L4,zero1,4,completed,fast\n")
            << QStringLiteral("line 2, column 'inter_node_gbps': expected a number, got 'fast'");
        const QString rehearsal = QStringLiteral("model,gpu_name,strategy,world_size,status,rehearsed_world");
        QTest::newRow("csv rehearsed world zero")
            << QStringLiteral("csv") << rehearsal + QStringLiteral("\nm,H100,zero3,1,completed,0\n")
            << QStringLiteral("line 2, column 'rehearsed_world': must be in [1, 65536], got 0");
        QTest::newRow("csv rehearsed world text")
            << QStringLiteral("csv") << rehearsal + QStringLiteral("\nm,H100,zero3,1,completed,many\n")
            << QStringLiteral("line 2, column 'rehearsed_world': expected a whole number, got 'many'");
        QTest::newRow("csv rehearsal of several ranks")
            << QStringLiteral("csv") << rehearsal + QStringLiteral("\nm,H100,zero3,8,completed,64\n")
            << QStringLiteral("line 2, column 'world_size': must be 1 for a rehearsal of world 64");
        QTest::newRow("csv rehearsal with a throughput")
            << QStringLiteral("csv") << rehearsal + QStringLiteral(",tokens_per_s\nm,H100,zero3,1,completed,64,900\n")
            << QStringLiteral("line 2, column 'tokens_per_s': must be empty for a rehearsal of world 64");
        QTest::newRow("json rehearsal with a predicted throughput")
            << QStringLiteral("json")
            << QStringLiteral(R"([{"model": "m", "gpu_name": "H100", "strategy": "zero3", "world_size": 1,
                                   "status": "completed", "rehearsed_world": 64, "predicted_tokens_per_s": 900}])")
            << QStringLiteral("runs[0].predicted_tokens_per_s: must be empty for a rehearsal of world 64");
        QTest::newRow("csv empty file") << QStringLiteral("csv") << QString()
                                        << QStringLiteral("line 1: the file is empty");
        QTest::newRow("json not json") << QStringLiteral("json") << QStringLiteral("{\"runs\": [")
                                       << QStringLiteral("not valid JSON");
        QTest::newRow("json unknown strategy")
            << QStringLiteral("json")
            << QStringLiteral(
                   R"({"runs": [{"model": "m", "gpu_name": "L4", "strategy": "zero1", "world_size": 2, "status": "oom"},
                                            {"model": "m", "gpu_name": "L4", "strategy": "ddp", "world_size": 2, "status": "oom"}]})")
            << QStringLiteral("runs[1].strategy: unknown strategy 'ddp'");
        QTest::newRow("json missing field")
            << QStringLiteral("json")
            << QStringLiteral(R"([{"model": "m", "gpu_name": "L4", "strategy": "zero1", "status": "oom"}])")
            << QStringLiteral("runs[0]: missing the required field 'world_size'");
        QTest::newRow("json wrong type")
            << QStringLiteral("json")
            << QStringLiteral(
                   R"([{"model": "m", "gpu_name": "L4", "strategy": "zero1", "world_size": [2], "status": "oom"}])")
            << QStringLiteral("runs[0].world_size: expected a string or a number");
        QTest::newRow("json no gpu") << QStringLiteral(
            "json") << QStringLiteral(R"([{"model": "m", "strategy": "zero1", "world_size": 2, "status": "oom"}])")
                                     << QStringLiteral("runs[0]: needs gpu_id or gpu_name");
    }
    void badImportNamesTheProblemAndStoresNothing()
    {
        QFETCH(QString, format);
        QFETCH(QString, input);
        QFETCH(QString, mentions);
        fixtures::SyntheticRun existing;
        existing.config = fixtures::syntheticConfig(Strategy::Zero2, 1, 1, 1);
        fixtures::recordRun(*m_db, existing);
        std::istringstream in(input.toStdString());
        try {
            if (format == QStringLiteral("csv"))
                importRunsCsv(*m_db, in, "bad file");
            else
                importRunsJson(*m_db, in, "bad file");
            QFAIL("expected ImportError");
        } catch (const ImportError& e) {
            QVERIFY2(QString::fromStdString(e.what()).contains(mentions), e.what());
        }
        QCOMPARE(runCount(), std::size_t(1));
        QCOMPARE(m_db->integrityCheck(), std::string("ok"));
    }
};

QTEST_GUILESS_MAIN(TestStoreExchange)
#include "test_store_exchange.moc"
