// `shardwise-cli gke` as a user runs it: a real process, compared with golden files, one folder per
// case under tests/data/gke/<case>/ holding `args` (one argument per line), `exit` (the expected exit
// status) and the expected outputs (out.txt, out.json, out.yaml for --format text/json/yaml, or
// err.txt for a refusal).
//
// To regenerate after an intended change: SHARDWISE_REGENERATE_GOLDEN=1 ctest -R test_cloud_cli
// (rewrites the outputs from the current binary; review the diff before committing).
#include "shardwise/interruption/checkpoint_interval.hpp"
#include "shardwise/interruption/save_cost.hpp"
#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/run_recorder.hpp"
#include "shardwise/store/runs.hpp"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QtTest>

namespace {

struct CliResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

CliResult runCli(const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SHARDWISE_CLI), args);
    CliResult r;
    if (!p.waitForFinished(60000))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QString caseDir(const QString& name)
{
    return QStringLiteral(SHARDWISE_TEST_DATA_DIR "/gke/") + name;
}

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool regenerate()
{
    return qEnvironmentVariableIntValue("SHARDWISE_REGENERATE_GOLDEN") == 1;
}

void writeFile(const QString& path, const QByteArray& data)
{
    QFile f(path);
    QVERIFY2(f.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
    f.write(data);
}

QStringList caseArgs(const QString& name)
{
    QStringList args;
    const QList<QByteArray> lines = readFile(caseDir(name) + QStringLiteral("/args")).split('\n');
    for (const QByteArray& l : lines)
        if (!l.trimmed().isEmpty())
            args << QString::fromUtf8(l.trimmed());
    return args;
}

} // namespace

class TestCloudCli : public QObject {
    Q_OBJECT

private slots:
    void outputMatchesGoldenFile_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("format");
        const QStringList cases
            = QDir(QStringLiteral(SHARDWISE_TEST_DATA_DIR "/gke")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QVERIFY(!cases.isEmpty());
        for (const QString& c : cases) {
            if (QFile::exists(caseDir(c) + QStringLiteral("/err.txt"))) {
                QTest::newRow(qPrintable(c + QStringLiteral(" refusal"))) << c << QString();
                continue;
            }
            for (const QString& f : { QStringLiteral("text"), QStringLiteral("json"), QStringLiteral("yaml") })
                QTest::newRow(qPrintable(c + QLatin1Char(' ') + f)) << c << f;
        }
    }
    void outputMatchesGoldenFile()
    {
        QFETCH(QString, name);
        QFETCH(QString, format);
        QStringList args { QStringLiteral("gke") };
        args << caseArgs(name);
        if (!format.isEmpty())
            args << QStringLiteral("--format") << format;
        const CliResult r = runCli(args);
        const bool refusal = format.isEmpty();
        const QString golden = caseDir(name)
            + (refusal ? QStringLiteral("/err.txt")
                       : QStringLiteral("/out.") + (format == QLatin1String("text") ? QStringLiteral("txt") : format));
        const QByteArray actual = refusal ? r.err : r.out;
        const int expectedExit = refusal ? 2 : 0;
        QVERIFY2(r.exitCode == expectedExit, r.err.constData());
        if (regenerate()) {
            writeFile(golden, actual);
            return;
        }
        const QByteArray expected = readFile(golden);
        QVERIFY2(!expected.isEmpty(), qPrintable(golden + QStringLiteral(" is missing")));
        QCOMPARE(QString::fromUtf8(actual), QString::fromUtf8(expected));
    }

    void manifestParsesAsKubernetesObjects_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString& c :
             QDir(QStringLiteral(SHARDWISE_TEST_DATA_DIR "/gke")).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            if (QFile::exists(caseDir(c) + QStringLiteral("/out.yaml")))
                QTest::newRow(qPrintable(c)) << c;
    }
    void manifestParsesAsKubernetesObjects()
    {
        // python3-yaml is in packaging/bootstrap.sh's package list; a real YAML parser reads the
        // manifest back and checks the objects' shape against the case's arguments.
        QFETCH(QString, name);
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (python.isEmpty())
            QSKIP("python3 is not installed (packaging/bootstrap.sh installs it)");
        const QString script = QStringLiteral(SHARDWISE_TEST_DATA_DIR "/gke/check_manifest.py");

        const QStringList args = caseArgs(name);
        const auto valueOf = [&](const QString& flag, const QString& fallback) {
            const qsizetype i = args.indexOf(flag);
            return i >= 0 && i + 1 < args.size() ? args[i + 1] : fallback;
        };
        QProcess p;
        p.start(python,
                { script, valueOf(QStringLiteral("--nodes"), QStringLiteral("1")),
                  valueOf(QStringLiteral("--gpus-per-node"), QStringLiteral("1")) });
        QVERIFY(p.waitForStarted());
        p.write(readFile(caseDir(name) + QStringLiteral("/out.yaml")));
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(30000));
        const QByteArray err = p.readAllStandardError();
        if (err.contains("No module named 'yaml'"))
            QSKIP("python3-yaml is not installed (packaging/bootstrap.sh installs it)");
        QVERIFY2(p.exitCode() == 0, err.constData());
        QCOMPARE(p.readAllStandardOutput().trimmed(), QByteArray("ok"));
    }

    void badRegionNamesTheAllowedRegions()
    {
        const CliResult r = runCli({ QStringLiteral("gke"), QStringLiteral("--model"), QStringLiteral("qwen2.5-0.5b"),
                                     QStringLiteral("--gpu"), QStringLiteral("l4"), QStringLiteral("--gpus-per-node"),
                                     QStringLiteral("4"), QStringLiteral("--region"), QStringLiteral("moon-1") });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith("shardwise-cli gke: --region: 'moon-1'"), r.err.constData());
        QVERIFY(r.err.contains("us-central1"));
    }

    // --cuda-graphs reaches the Job's runner command for a strategy the runner can capture; an offload
    // strategy's Job runs eager rather than failing at its first step.
    void cudaGraphsReachTheJobOnlyForAGpuResidentStrategy_data()
    {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<bool>("graphed");
        QTest::newRow("the recommendation") << QString() << true;
        QTest::newRow("zero3") << QStringLiteral("zero3") << true;
        QTest::newRow("zero2_offload") << QStringLiteral("zero2_offload") << false;
        QTest::newRow("zero3_offload") << QStringLiteral("zero3_offload") << false;
        QTest::newRow("fsdp2_reshard_offload") << QStringLiteral("fsdp2_reshard_offload") << false;
    }
    void cudaGraphsReachTheJobOnlyForAGpuResidentStrategy()
    {
        QFETCH(QString, strategy);
        QFETCH(bool, graphed);
        QStringList args { QStringLiteral("gke"),
                           QStringLiteral("--model"),
                           QStringLiteral("qwen2.5-0.5b"),
                           QStringLiteral("--gpu"),
                           QStringLiteral("h100-80gb"),
                           QStringLiteral("--gpus-per-node"),
                           QStringLiteral("8"),
                           QStringLiteral("--region"),
                           QStringLiteral("us-central1"),
                           QStringLiteral("--cuda-graphs"),
                           QStringLiteral("--format"),
                           QStringLiteral("yaml") };
        if (!strategy.isEmpty())
            args << QStringLiteral("--strategy") << strategy;
        const CliResult r = runCli(args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.out.contains("--cuda-graphs"), graphed);
    }

    void planRecommendsTheCheckpointIntervalOfTheLibrary()
    {
        // `plan --interruptions-per-hour` end to end: the numbers the CLI prints are core/interruption's
        // for the recommended strategy's predicted step time and estimated save cost.
        const CliResult r
            = runCli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("qwen2.5-7b"),
                       QStringLiteral("--gpu"), QStringLiteral("a100-80gb"), QStringLiteral("--gpus-per-node"),
                       QStringLiteral("8"), QStringLiteral("--interruptions-per-hour"), QStringLiteral("0.5"),
                       QStringLiteral("--checkpoint-write-gbps"), QStringLiteral("2"), QStringLiteral("--restart-s"),
                       QStringLiteral("120"), QStringLiteral("--format"), QStringLiteral("json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject c = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("checkpoint")).toObject();
        QVERIFY(!c.isEmpty());

        using namespace shardwise;
        EstimateInput in;
        in.model = resolveModel("qwen2.5-7b");
        in.gpu = resolveGpu("a100-80gb");
        in.cluster.gpusPerNode = 8;
        const Plan plan = makePlan(in);
        QVERIFY(plan.recommendation.strategy.has_value());
        const Strategy s = *plan.recommendation.strategy;
        QCOMPARE(c.value(QStringLiteral("strategy")).toString(), QString::fromLatin1(strategyId(s)));
        const interruption::SaveCostEstimate save = interruption::estimateSaveCost(
            s, static_cast<double>(in.model.parameterCount()), in.training.precision, in.cluster, 2.0);
        const interruption::CheckpointRecommendation rec = interruption::recommendCheckpointInterval(
            { 0.5, plan.candidate(s).estimate.throughput.stepTimeS, save.saveS, save.saveS + 120.0 });
        QCOMPARE(c.value(QStringLiteral("interval_steps")).toInt(), rec.intervalSteps);
        QVERIFY(qAbs(c.value(QStringLiteral("save_s")).toDouble() - save.saveS) < 1e-9);
        QVERIFY(qAbs(c.value(QStringLiteral("restart_s")).toDouble() - (save.saveS + 120.0)) < 1e-9);
        QVERIFY(qAbs(c.value(QStringLiteral("expected_overhead_fraction")).toDouble() - rec.expectedOverheadFraction)
                < 1e-12);
        QCOMPARE(c.value(QStringLiteral("save_measured")).toBool(), false);
    }

    void planTakesTheSaveCostOfAStoredRun()
    {
        // A run of the recommended strategy that wrote checkpoints: its measured save cost replaces the
        // estimate, and the output names the run.
        using namespace shardwise;
        EstimateInput in;
        in.model = resolveModel("qwen2.5-7b");
        in.gpu = resolveGpu("a100-80gb");
        in.cluster.gpusPerNode = 8;
        const Plan plan = makePlan(in);
        QVERIFY(plan.recommendation.strategy.has_value());
        QTemporaryDir dir;
        const QString dbPath = dir.filePath(QStringLiteral("store.sqlite"));
        std::int64_t runId = 0;
        {
            auto db = store::Database::open(dbPath.toStdString());
            RunConfig config;
            config.model = in.model;
            config.strategy = *plan.recommendation.strategy;
            config.worldSize = 8;
            store::RunOrigin origin;
            origin.nodes = { store::RunNodeRef { "local", std::nullopt } };
            origin.gpuId = "a100-80gb";
            store::RunRecorder recorder(db, config, origin);
            for (int rank = 0; rank < 8; ++rank) {
                protocol::SummaryEvent s;
                s.rank = rank;
                s.world = 8;
                s.medianStepS = 1.0;
                s.tokensPerS = 16384;
                s.checkpointSaveS = rank == 3 ? 42.5 : 40.0; // the slowest rank sets the cost
                s.checkpointsWritten = 2;
                recorder.record(s);
            }
            recorder.finish(store::RunStatus::Completed, {});
            runId = recorder.runId();
        }
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SHARDWISE_DB"), dbPath);
        const CliResult r
            = runCli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("qwen2.5-7b"),
                       QStringLiteral("--gpu"), QStringLiteral("a100-80gb"), QStringLiteral("--gpus-per-node"),
                       QStringLiteral("8"), QStringLiteral("--interruptions-per-hour"), QStringLiteral("0.5"),
                       QStringLiteral("--format"), QStringLiteral("json") },
                     env);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject c = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("checkpoint")).toObject();
        QCOMPARE(c.value(QStringLiteral("save_measured")).toBool(), true);
        QCOMPARE(c.value(QStringLiteral("save_s")).toDouble(), 42.5);
        QCOMPARE(c.value(QStringLiteral("save_from_run")).toInteger(), runId);

        // Another world size has no measurement: back to the estimate.
        const CliResult other
            = runCli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("qwen2.5-7b"),
                       QStringLiteral("--gpu"), QStringLiteral("a100-80gb"), QStringLiteral("--gpus-per-node"),
                       QStringLiteral("4"), QStringLiteral("--interruptions-per-hour"), QStringLiteral("0.5"),
                       QStringLiteral("--format"), QStringLiteral("json") },
                     env);
        QVERIFY2(other.exitCode == 0, other.err.constData());
        const QJsonObject o
            = QJsonDocument::fromJson(other.out).object().value(QStringLiteral("checkpoint")).toObject();
        QCOMPARE(o.value(QStringLiteral("save_measured")).toBool(), false);
    }

    void checkpointOptionsNeedAnInterruptionRate()
    {
        const CliResult r = runCli({ QStringLiteral("plan"), QStringLiteral("--model"), QStringLiteral("tiny"),
                                     QStringLiteral("--gpu"), QStringLiteral("l4"),
                                     QStringLiteral("--checkpoint-save-s"), QStringLiteral("5") });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--interruptions-per-hour: required"), r.err.constData());
    }

    void offloadOnOneL4GetsAG2TypeWhoseRamHoldsIt()
    {
        // qwen2.5-7b zero3_offload on one L4: the plan (512 GiB of host RAM by default) has room for its
        // host state (about 57 GiB), the g2-standard-4 GKE gives one L4 by default (16 GB) has not;
        // g2-standard-32 (128 GB, 102.4 GiB usable) has, and the node pool uses it.
        const CliResult r = runCli({ QStringLiteral("gke"), QStringLiteral("--model"), QStringLiteral("qwen2.5-7b"),
                                     QStringLiteral("--gpu"), QStringLiteral("l4"), QStringLiteral("--gpus-per-node"),
                                     QStringLiteral("1"), QStringLiteral("--region"), QStringLiteral("us-central1"),
                                     QStringLiteral("--strategy"), QStringLiteral("zero3_offload"),
                                     QStringLiteral("--format"), QStringLiteral("json") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject p = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(p.value(QStringLiteral("machine_type")).toString(), QStringLiteral("g2-standard-32"));
        QJsonObject host;
        for (const QJsonValue& i : p.value(QStringLiteral("checklist")).toArray())
            if (i.toObject().value(QStringLiteral("id")).toString() == QLatin1String("host_memory"))
                host = i.toObject();
        QVERIFY2(!host.isEmpty(), r.out.constData());
        QCOMPARE(host.value(QStringLiteral("status")).toString(), QStringLiteral("pass"));
        const QString title = host.value(QStringLiteral("title")).toString();
        QVERIFY2(title.startsWith(QStringLiteral("zero3_offload fits in host RAM")), qPrintable(title));
        QVERIFY2(title.contains(QStringLiteral("g2-standard-32 has 128 GB"))
                     && title.contains(QStringLiteral("chosen over g2-standard-4, the default for 1 GPU per node")),
                 qPrintable(title));
        QVERIFY2(r.out.contains("--machine-type g2-standard-32 --accelerator type=nvidia-l4,count=1"),
                 r.out.constData());

        // qwen2.5-14b zero3_offload does not fit even the largest one-L4 type.
        const CliResult big = runCli({ QStringLiteral("gke"), QStringLiteral("--model"), QStringLiteral("qwen2.5-14b"),
                                       QStringLiteral("--gpu"), QStringLiteral("l4"), QStringLiteral("--gpus-per-node"),
                                       QStringLiteral("1"), QStringLiteral("--region"), QStringLiteral("us-central1"),
                                       QStringLiteral("--strategy"), QStringLiteral("zero3_offload") });
        QVERIFY2(big.exitCode == 0, big.err.constData());
        QVERIFY2(big.out.contains("[warn]  zero3_offload does not fit in host RAM")
                     && big.out.contains("g2-standard-32 has 128 GB")
                     && big.out.contains("GiB short; g2-standard-32 is the largest machine type with 1 GPU per node"),
                 big.out.constData());

        // The same plan on an A100 80GB: a2-ultragpu-1g has 170 GB.
        const CliResult a100
            = runCli({ QStringLiteral("gke"), QStringLiteral("--model"), QStringLiteral("qwen2.5-7b"),
                       QStringLiteral("--gpu"), QStringLiteral("a100-80gb"), QStringLiteral("--gpus-per-node"),
                       QStringLiteral("1"), QStringLiteral("--region"), QStringLiteral("us-central1"),
                       QStringLiteral("--strategy"), QStringLiteral("zero3_offload") });
        QVERIFY2(a100.exitCode == 0, a100.err.constData());
        QVERIFY2(a100.out.contains("[pass]  zero3_offload fits in host RAM")
                     && !a100.out.contains("does not fit in host RAM"),
                 a100.out.constData());
    }

    void missingRegionIsAUsageError()
    {
        const CliResult r = runCli({ QStringLiteral("gke"), QStringLiteral("--model"), QStringLiteral("qwen2.5-7b"),
                                     QStringLiteral("--gpu"), QStringLiteral("l4") });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--region: required"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCloudCli)
#include "test_cloud_cli.moc"
