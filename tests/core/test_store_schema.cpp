// The store's file-level behaviour: pragmas, migrations from every earlier schema version, and a
// database from a newer Shardwise opened read-only with writes refused.
#include "shardwise/store/database.hpp"
#include "shardwise/store/exchange.hpp"
#include "shardwise/store/nodes.hpp"
#include "shardwise/store/run_recorder.hpp"
#include "shardwise/store/runs.hpp"
#include "shardwise/store/schema.hpp"
#include "store_fixtures/synthetic_run.hpp"

#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <sstream>

using namespace shardwise;
using namespace shardwise::store;

namespace {

// Stands in for a newer Shardwise that migrated the file past what this build knows.
void stampSchemaVersion(const QString& path, int version)
{
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
    const std::string sql = "PRAGMA user_version = " + std::to_string(version);
    QCOMPARE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
}

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

class TestStoreSchema : public QObject {
    Q_OBJECT

private slots:
    void freshStoreUsesWalForeignKeysAndCurrentVersion()
    {
        QTemporaryDir dir;
        const auto path = dir.filePath(QStringLiteral("nested/folder/runs.sqlite")).toStdString();
        const Database db = Database::open(path);
        QVERIFY(std::filesystem::exists(path));
        QCOMPARE(db.schemaVersion(), currentSchemaVersion());
        QCOMPARE(db.journalMode(), std::string("wal"));
        QVERIFY(db.foreignKeysEnforced());
        QVERIFY(!db.readOnly());
        QCOMPARE(db.integrityCheck(), std::string("ok"));
    }

    void migrationVersionsAreConsecutive()
    {
        int expected = 1;
        for (const auto& m : migrations()) {
            QCOMPARE(m.version, expected++);
            QVERIFY(!m.description.empty());
        }
        QCOMPARE(currentSchemaVersion(), expected - 1);
    }

    void foreignKeysRejectOrphans()
    {
        QTemporaryDir dir;
        Database db = Database::open(dir.filePath(QStringLiteral("runs.sqlite")).toStdString());
        Diagnosis d;
        d.runId = 4242;
        d.code = "oom-fragmentation";
        const QString error = storeErrorOf([&] { addDiagnosis(db, d); });
        QVERIFY2(error.contains(QStringLiteral("FOREIGN KEY")), qPrintable(error));
        QVERIFY(diagnoses(db, 4242).empty());
    }

    void migratesFromEveryEarlierVersion_data()
    {
        QTest::addColumn<int>("fromVersion");
        QTest::newRow("empty file (version 0)") << 0;
        for (const auto& m : migrations())
            if (m.version < currentSchemaVersion())
                QTest::newRow(qPrintable(QStringLiteral("version %1").arg(m.version))) << m.version;
    }
    void migratesFromEveryEarlierVersion()
    {
        QFETCH(int, fromVersion);
        QTemporaryDir dir;
        const auto path = dir.filePath(QStringLiteral("runs.sqlite")).toStdString();
        std::int64_t runId = 0;
        {
            OpenOptions old;
            old.targetVersion = fromVersion;
            Database db = Database::open(path, old);
            QCOMPARE(db.schemaVersion(), fromVersion);
            if (fromVersion >= 1) {
                // Data written while the file was at the old version must survive the upgrade.
                fixtures::SyntheticRun run;
                run.config = fixtures::syntheticConfig(Strategy::Zero3, 2, 2, 3);
                runId = fixtures::recordRun(db, run);
                Node n;
                n.name = "gpu-box";
                n.kind = NodeKind::Ssh;
                n.host = "10.0.0.7";
                n.user = "ml";
                addNode(db, n);
            }
        }
        Database db = Database::open(path);
        QCOMPARE(db.schemaVersion(), currentSchemaVersion());
        QCOMPARE(db.integrityCheck(), std::string("ok"));
        if (fromVersion >= 1) {
            const auto run = findRun(db, runId);
            QVERIFY(run);
            QCOMPARE(run->status, RunStatus::Completed);
            QCOMPARE(run->strategy, Strategy::Zero3);
            QVERIFY(run->tokensPerS);
            QCOMPARE(stepSeries(db, runId).size(), std::size_t(2 * 5));
            QVERIFY(findNodeByName(db, "gpu-box"));
            // What the newer versions added works on the upgraded file.
            Diagnosis d;
            d.runId = runId;
            d.code = "slow-pcie";
            d.title = "PCIe-bound all-gathers";
            addDiagnosis(db, d);
            QCOMPARE(diagnoses(db, runId).size(), std::size_t(1));
        }
    }

    // Schema 9: a run records the inter-node bandwidth its plan assumed; runs stored before read as
    // not recorded, and a file at version 8 records it once upgraded.
    void interNodeBandwidthIsRecordedFromVersion9()
    {
        QTemporaryDir dir;
        const auto path = dir.filePath(QStringLiteral("runs.sqlite")).toStdString();
        RunOrigin origin;
        origin.interNodeGBps = 200.0;
        const auto config = fixtures::syntheticConfig(Strategy::Zero3, 2, 1, 1);
        std::int64_t before = 0;
        {
            OpenOptions old;
            old.targetVersion = 8;
            Database db = Database::open(path, old);
            RunRecorder r(db, config, origin); // an older file has no column for it: not recorded
            r.finish(RunStatus::Failed, "stopped");
            before = r.runId();
            QVERIFY(!findRun(db, before)->interNodeGBps);
        }
        Database db = Database::open(path);
        QCOMPARE(db.schemaVersion(), currentSchemaVersion());
        QVERIFY(!findRun(db, before)->interNodeGBps);
        RunRecorder r(db, config, origin);
        r.finish(RunStatus::Failed, "stopped");
        QCOMPARE(findRun(db, r.runId())->interNodeGBps, std::optional<double>(200.0));
        // The column refuses a bandwidth of zero or less.
        const std::string update = "UPDATE runs SET inter_node_gbps = 0 WHERE id = " + std::to_string(r.runId());
        QCOMPARE(sqlite3_exec(db.handle(), update.c_str(), nullptr, nullptr, nullptr) & 0xff, SQLITE_CONSTRAINT);
    }

    // Schema 10: a rehearsal records the world it stands for. A file at version 9 keeps its runs; a
    // rehearsal recorded there (known by its configuration) reads as one once upgraded, with no
    // throughput; a new rehearsal records its world, and the column refuses a world below 1.
    void rehearsedWorldIsRecordedFromVersion10()
    {
        QTemporaryDir dir;
        const auto path = dir.filePath(QStringLiteral("runs.sqlite")).toStdString();
        fixtures::SyntheticRun real;
        real.config = fixtures::syntheticConfig(Strategy::Zero3, 2, 1, 2);
        fixtures::SyntheticRun rehearsal;
        rehearsal.config = fixtures::syntheticConfig(Strategy::Zero3, 1, 1, 2);
        rehearsal.config.device = DeviceKind::Cuda;
        rehearsal.config.rehearseWorld = 16;
        std::int64_t realBefore = 0, rehearsalBefore = 0;
        {
            OpenOptions old;
            old.targetVersion = 9;
            Database db = Database::open(path, old);
            realBefore = fixtures::recordRun(db, real);
            rehearsalBefore = fixtures::recordRun(db, rehearsal); // no column for it yet
            QVERIFY(!findRun(db, rehearsalBefore)->rehearsedWorld);
            QVERIFY(!findRun(db, rehearsalBefore)->tokensPerS);
            // As a recorder from before schema 10 kept it: with its summary's throughput.
            const std::string older = "UPDATE runs SET tokens_per_s = 0, median_step_s = 0.25, nccl_share = 0 "
                                      "WHERE id = "
                + std::to_string(rehearsalBefore);
            QCOMPARE(sqlite3_exec(db.handle(), older.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
        }
        Database db = Database::open(path);
        QCOMPARE(db.schemaVersion(), currentSchemaVersion());
        QCOMPARE(db.integrityCheck(), std::string("ok"));
        const auto before = findRun(db, realBefore);
        QVERIFY(!before->rehearsedWorld);
        QVERIFY(before->tokensPerS);
        QCOMPARE(before->effectiveWorld(), 2);
        const auto rehearsedBefore = findRun(db, rehearsalBefore);
        QCOMPARE(rehearsedBefore->rehearsedWorld, std::optional<int>(16));
        QVERIFY(!rehearsedBefore->tokensPerS && !rehearsedBefore->medianStepS && !rehearsedBefore->ncclShare);
        QVERIFY(rehearsedBefore->peakAllocated);
        const auto id = fixtures::recordRun(db, rehearsal);
        const auto after = findRun(db, id);
        QCOMPARE(after->rehearsedWorld, std::optional<int>(16));
        QCOMPARE(after->effectiveWorld(), 16);
        QVERIFY(!after->tokensPerS);
        QVERIFY(after->peakAllocated);
        for (const char* world : { "0", "-3" }) {
            const std::string update
                = "UPDATE runs SET rehearsed_world = " + std::string(world) + " WHERE id = " + std::to_string(id);
            QCOMPARE(sqlite3_exec(db.handle(), update.c_str(), nullptr, nullptr, nullptr) & 0xff, SQLITE_CONSTRAINT);
        }
    }

    void runsFromBeforeVersion6ReadWithAnEmptyRunnerBehaviour()
    {
        QTemporaryDir dir;
        const auto path = dir.filePath(QStringLiteral("runs.sqlite")).toStdString();
        const auto config = fixtures::syntheticConfig(Strategy::Zero3Offload, 1, 1, 1);
        protocol::StartEvent start;
        start.config = config;
        start.versions.runner = "0.1.0";
        start.versions.libtorch = "1.13.1";
        start.versions.kernels = "fused rotary + SwiGLU";
        start.versions.activations = protocol::kNormInputsRecomputed;
        start.versions.offloadStaging = protocol::kOffloadStagingInPlace;
        const auto recordStart = [&](Database& db) {
            RunRecorder recorder(db, config, RunOrigin {});
            recorder.record(start);
            recorder.finish(RunStatus::Cancelled, "stopped by the user");
            return recorder.runId();
        };
        std::int64_t before = 0;
        {
            OpenOptions old;
            old.targetVersion = kRunnerBehaviourSchema - 1;
            Database db = Database::open(path, old);
            before = recordStart(db);
            // An older file has nowhere to keep them: they read as not reported.
            QCOMPARE(runDetail(db, before)->versions.activations, std::string());
        }
        Database db = Database::open(path);
        QCOMPARE(db.schemaVersion(), currentSchemaVersion());
        const auto old = runDetail(db, before)->versions;
        QCOMPARE(old.runner, std::string("0.1.0"));
        QCOMPARE(old.kernels, std::string());
        QCOMPARE(old.activations, std::string());
        QCOMPARE(old.offloadStaging, std::string());
        const auto fresh = runDetail(db, recordStart(db))->versions;
        QCOMPARE(fresh.kernels, std::string("fused rotary + SwiGLU"));
        QCOMPARE(fresh.activations, std::string(protocol::kNormInputsRecomputed));
        QCOMPARE(fresh.offloadStaging, std::string(protocol::kOffloadStagingInPlace));
    }

    // Version 6 -> 7: a file from before the backend column keeps its runs as native runs with no
    // framework versions; on the upgraded file a torch run keeps its backend and the versions its
    // start event reported, and the backend filter tells them apart.
    void runsFromBeforeVersion7ReadAsNativeAndTorchRunsKeepTheirFramework()
    {
        QTemporaryDir dir;
        const auto path = dir.filePath(QStringLiteral("runs.sqlite")).toStdString();
        RunFilter torchOnly;
        torchOnly.backend = RunBackend::Torch;
        RunFilter nativeOnly;
        nativeOnly.backend = RunBackend::Native;
        std::int64_t before = 0;
        {
            OpenOptions old;
            old.targetVersion = kRunBackendSchema - 1;
            Database db = Database::open(path, old);
            QCOMPARE(db.schemaVersion(), 6);
            fixtures::SyntheticRun run;
            run.config = fixtures::syntheticConfig(Strategy::Fsdp2Reshard, 2, 1, 2);
            before = fixtures::recordRun(db, run);
            // Queries on the old file work and see a native run.
            QCOMPARE(findRun(db, before)->backend, RunBackend::Native);
            QCOMPARE(listRuns(db, nativeOnly).size(), std::size_t(1));
            QVERIFY(listRuns(db, torchOnly).empty());
        }
        Database db = Database::open(path);
        QCOMPARE(db.schemaVersion(), currentSchemaVersion());
        QVERIFY(db.schemaVersion() >= kRunBackendSchema);
        const auto old = runDetail(db, before);
        QVERIFY(old);
        QCOMPARE(old->summary.backend, RunBackend::Native);
        QVERIFY(old->versions.backend.empty());
        QVERIFY(old->versions.python.empty());
        QVERIFY(old->versions.torch.empty());
        QVERIFY(old->versions.transformers.empty());
        QVERIFY(old->versions.modelImpl.empty());

        RunConfig config = fixtures::syntheticConfig(Strategy::Fsdp2Reshard, 1, 1, 1);
        config.backend = RunBackend::Torch;
        protocol::StartEvent start;
        start.config = config;
        start.versions.runner = "shardwise-torch 0.1.0";
        start.versions.libtorch = "2.5.1";
        start.versions.backend = protocol::kTorchBackend;
        start.versions.python = "3.11.2";
        start.versions.torch = "2.5.1";
        start.versions.modelImpl = "plain"; // Transformers not installed: reported empty
        std::int64_t torchRun = 0;
        {
            RunRecorder recorder(db, config, RunOrigin {});
            torchRun = recorder.runId();
            // From the config, before any rank reports.
            QCOMPARE(findRun(db, torchRun)->backend, RunBackend::Torch);
            recorder.record(start);
            recorder.finish(RunStatus::Cancelled, "stopped by the user");
        }
        const auto fresh = runDetail(db, torchRun);
        QCOMPARE(fresh->summary.backend, RunBackend::Torch);
        QCOMPARE(fresh->versions.backend, std::string("torch"));
        QCOMPARE(fresh->versions.python, std::string("3.11.2"));
        QCOMPARE(fresh->versions.torch, std::string("2.5.1"));
        QVERIFY(fresh->versions.transformers.empty());
        QCOMPARE(fresh->versions.modelImpl, std::string("plain"));
        QCOMPARE(fresh->config.value("backend", std::string()), std::string("torch"));

        const auto torchRuns = listRuns(db, torchOnly);
        QCOMPARE(torchRuns.size(), std::size_t(1));
        QCOMPARE(torchRuns.front().id, torchRun);
        const auto nativeRuns = listRuns(db, nativeOnly);
        QCOMPARE(nativeRuns.size(), std::size_t(1));
        QCOMPARE(nativeRuns.front().id, before);
        QCOMPARE(listRuns(db).size(), std::size_t(2));
    }

    void newerDatabaseOpensReadOnlyWithClearMessage()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
        std::int64_t runId = 0;
        {
            Database db = Database::open(path.toStdString());
            fixtures::SyntheticRun run;
            run.config = fixtures::syntheticConfig(Strategy::Fsdp2Reshard, 1, 1, 2);
            runId = fixtures::recordRun(db, run);
        }
        const int future = currentSchemaVersion() + 3;
        stampSchemaVersion(path, future);

        Database db = Database::open(path.toStdString());
        QVERIFY(db.readOnly());
        QCOMPARE(db.schemaVersion(), future);
        const QString reason = QString::fromStdString(db.readOnlyReason());
        QVERIFY2(reason.contains(QStringLiteral("schema version %1").arg(future)), qPrintable(reason));
        QVERIFY2(reason.contains(QStringLiteral("newer")), qPrintable(reason));
        QVERIFY2(reason.contains(QStringLiteral("read-only")), qPrintable(reason));
        // Reading still works.
        QCOMPARE(listRuns(db).size(), std::size_t(1));
        QVERIFY(runDetail(db, runId));
    }

    void newerDatabaseRefusesEveryWrite_data()
    {
        QTest::addColumn<int>("write");
        QTest::newRow("record a run") << 0;
        QTest::newRow("add a node") << 1;
        QTest::newRow("import runs") << 2;
        QTest::newRow("add a diagnosis") << 3;
        QTest::newRow("remove a run") << 4;
    }
    void newerDatabaseRefusesEveryWrite()
    {
        QFETCH(int, write);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("runs.sqlite"));
        std::int64_t runId = 0;
        {
            Database db = Database::open(path.toStdString());
            fixtures::SyntheticRun run;
            run.config = fixtures::syntheticConfig(Strategy::Zero1, 1, 1, 1);
            runId = fixtures::recordRun(db, run);
        }
        stampSchemaVersion(path, currentSchemaVersion() + 1);
        Database db = Database::open(path.toStdString());
        const QString error = storeErrorOf([&] {
            switch (write) {
            case 0: {
                RunRecorder recorder(db, fixtures::syntheticConfig(Strategy::Zero2, 1, 1, 1), RunOrigin {});
                break;
            }
            case 1: {
                Node n;
                n.name = "local-2";
                addNode(db, n);
                break;
            }
            case 2: {
                std::istringstream csv("model,gpu_name,strategy,world_size,status\nx,L4,zero3,4,oom\n");
                importRunsCsv(db, csv, "table");
                break;
            }
            case 3: {
                Diagnosis d;
                d.runId = runId;
                d.code = "x";
                addDiagnosis(db, d);
                break;
            }
            default:
                removeRun(db, runId);
            }
        });
        QVERIFY2(error.startsWith(QStringLiteral("cannot write:")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("newer than this Shardwise")), qPrintable(error));
        QCOMPARE(listRuns(db).size(), std::size_t(1));
    }

    void garbageFileIsNamedInTheError()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("not-a-db.sqlite"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(4096, 'x'));
        f.close();
        const QString error = storeErrorOf([&] { Database::open(path.toStdString()); });
        QVERIFY2(error.contains(path), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("not a database")), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestStoreSchema)
#include "test_store_schema.moc"
