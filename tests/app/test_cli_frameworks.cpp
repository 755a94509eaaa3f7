// shardwise-cli plan with a framework target, run as a real process: --framework and its defaults,
// --inter-node-gbps / --inter-node, --export (of the recommendation or --strategy, to stdout or
// --output), --from (settings in, warnings on stderr naming the key, exit 2 naming the key).
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

#include <chrono>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};

CliResult runCli(QStringList args)
{
    args.prepend(QStringLiteral("plan"));
    QProcess p;
    p.start(QStringLiteral(SHARDWISE_CLI_PATH), args);
    if (!p.waitForFinished(60'000)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
             QString::fromUtf8(p.readAllStandardError()) };
}

QStringList base()
{
    return { QStringLiteral("--model"), QStringLiteral("qwen2.5-7b"),      QStringLiteral("--gpu"),
             QStringLiteral("h200"),    QStringLiteral("--gpus-per-node"), QStringLiteral("8") };
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(text);
    return path;
}

} // namespace

class TestCliFrameworks : public QObject {
    Q_OBJECT

private slots:
    void frameworkTargetAndItsDefaultsAreStated()
    {
        CliResult r = runCli(base() << QStringLiteral("--framework") << QStringLiteral("torchtitan")
                                    << QStringLiteral("--format") << QStringLiteral("json"));
        QCOMPARE(r.exitCode, 0);
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("target").at("framework").get<std::string>(), std::string("torchtitan"));
        QCOMPARE(j.at("target").at("version").get<std::string>(), std::string("0.2"));
        QCOMPARE(j.at("target").at("precision").get<std::string>(), std::string("bf16-fp32-master"));
        QCOMPARE(j.at("target").at("activation_checkpointing").get<std::string>(), std::string("selective"));
        QCOMPARE(j.at("target").at("from_defaults").size(), std::size_t(2));
        QCOMPARE(j.at("target").at("unsupported"),
                 json::array({ "zero1", "zero2", "zero3", "zero2_offload", "zero3_offload" }));

        // A flag the user gives wins over the framework's default, and the text says which came from where.
        r = runCli(base() << QStringLiteral("--framework=deepspeed") << QStringLiteral("--framework-version")
                          << QStringLiteral("0.15") << QStringLiteral("--precision") << QStringLiteral("bf16"));
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral(
                     "Framework: DeepSpeed 0.15 (no activation checkpointing from DeepSpeed's defaults)")),
                 qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("fsdp2_reshard *")));

        r = runCli(base() << QStringLiteral("--framework") << QStringLiteral("megatron"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("--framework:")));
        r = runCli(base() << QStringLiteral("--compile"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--compile:")), qPrintable(r.err));
    }

    // Pure bf16 under DeepSpeed is planned with DeepSpeed's fp32 master, and the plan says so in its
    // text and its JSON; the ds_config it exports enables bf16 and records bf16-fp32-master.
    void deepSpeedPureBf16SaysItKeepsAnFp32Master()
    {
        const QStringList args = base() << QStringLiteral("--framework") << QStringLiteral("deepspeed")
                                        << QStringLiteral("--precision") << QStringLiteral("bf16");
        const QString note = QStringLiteral(
            "DeepSpeed 0.16 keeps fp32 master weights, fp32 Adam moments and an fp32 gradient partition in zero1, "
            "zero2, zero3, zero2_offload, zero3_offload whatever bf16.enabled says: pure bf16 is planned there as "
            "bf16 with an fp32 master.");
        CliResult r = runCli(args);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("  - ") + note), qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("DeepSpeed 0.18.3 and later keep them in bf16")));

        r = runCli(QStringList(args) << QStringLiteral("--format") << QStringLiteral("json"));
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(QString::fromStdString(json::parse(r.out.toStdString()).dump()).contains(note), qPrintable(r.out));

        r = runCli(QStringList(args) << QStringLiteral("--export") << QStringLiteral("ds-config")
                                     << QStringLiteral("--strategy") << QStringLiteral("zero2"));
        QCOMPARE(r.exitCode, 0);
        const json ds = json::parse(r.out.toStdString());
        QCOMPARE(ds.at("bf16").at("enabled").get<bool>(), true);
        QCOMPARE(ds.at("_shardwise").at("precision").get<std::string>(), std::string("bf16-fp32-master"));
        QVERIFY(ds.at("_shardwise").at("note").get<std::string>().rfind("pure bf16 was asked for", 0) == 0);
        QVERIFY(ds.at("_shardwise").at("plan").get<std::string>().find("pure bf16 asked for") != std::string::npos);
    }

    void interNodeBandwidthIsStatedAndNamed()
    {
        CliResult r
            = runCli(base() << QStringLiteral("--nodes") << QStringLiteral("2") << QStringLiteral("--inter-node")
                            << QStringLiteral("ib-8x400") << QStringLiteral("--format") << QStringLiteral("json"));
        QCOMPARE(r.exitCode, 0);
        json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("inter_node").at("gbps").get<double>(), 400.0);
        QCOMPARE(j.at("inter_node").at("preset").get<std::string>(), std::string("ib-8x400"));

        r = runCli(base() << QStringLiteral("--nodes") << QStringLiteral("2") << QStringLiteral("--inter-node-gbps")
                          << QStringLiteral("25"));
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("Inter-node network: 25 GB/s per node per direction")),
                 qPrintable(r.out));

        r = runCli(base() << QStringLiteral("--inter-node-gbps") << QStringLiteral("-3"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("--inter-node-gbps:")));
        r = runCli(base() << QStringLiteral("--inter-node") << QStringLiteral("carrier-pigeon"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("--inter-node:")));
    }

    void exportWritesTheRecommendationOrTheChosenCandidate()
    {
        // The recommendation (zero0 for 7B on eight H200s) as a ds_config on stdout.
        CliResult r = runCli(base() << QStringLiteral("--framework") << QStringLiteral("deepspeed")
                                    << QStringLiteral("--export") << QStringLiteral("ds-config"));
        QCOMPARE(r.exitCode, 0);
        json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("zero_optimization").at("stage").get<int>(), 0);
        QCOMPARE(j.at("_shardwise").at("world").get<int>(), 8);
        QVERIFY2(!r.err.contains(QStringLiteral("note:")), qPrintable(r.err));
        // An export read by another framework than the plan's target says so.
        r = runCli(base() << QStringLiteral("--export") << QStringLiteral("ds-config"));
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains(QStringLiteral("--export: note: ds-config is read by DeepSpeed")), qPrintable(r.err));

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("accelerate.yaml"));
        r = runCli(base() << QStringLiteral("--framework") << QStringLiteral("fsdp2") << QStringLiteral("--export")
                          << QStringLiteral("accelerate") << QStringLiteral("--strategy")
                          << QStringLiteral("fsdp2_reshard") << QStringLiteral("--output") << path);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("Recommendation:"))); // the plan is printed as usual
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString yaml = QString::fromUtf8(f.readAll());
        QVERIFY(yaml.contains(QStringLiteral("fsdp_reshard_after_forward: true")));
        QVERIFY(yaml.contains(QStringLiteral("fsdp_transformer_layer_cls_to_wrap: Qwen2DecoderLayer")));
        QVERIFY(yaml.contains(QStringLiteral("# Shardwise plan: qwen2.5-7b on 8 x h200")));

        // A strategy the export's framework cannot express: exit 2, naming the framework to use.
        r = runCli(base() << QStringLiteral("--export") << QStringLiteral("torchtitan") << QStringLiteral("--strategy")
                          << QStringLiteral("zero2"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--export:")) && r.err.contains(QStringLiteral("--framework deepspeed")),
                 qPrintable(r.err));
        r = runCli(base() << QStringLiteral("--export") << QStringLiteral("yaml"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("--export:")));
        r = runCli(base() << QStringLiteral("--output") << path);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("--output:")));
    }

    void fromReadsAConfigIntoThePlan()
    {
        QTemporaryDir dir;
        const QString ds = writeFile(dir, QStringLiteral("ds_config.json"), R"({
            "train_batch_size": 64, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4,
            "bf16": {"enabled": true}, "optimizer": {"type": "AdamW"},
            "zero_optimization": {"stage": 3, "stage3_max_live_parameters": "auto"}, "mystery_knob": 1})");
        CliResult r = runCli({ QStringLiteral("--model"), QStringLiteral("qwen2.5-7b"), QStringLiteral("--gpu"),
                               QStringLiteral("h200"), QStringLiteral("--from"), ds, QStringLiteral("--format"),
                               QStringLiteral("json") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains(QStringLiteral("warning: mystery_knob:")), qPrintable(r.err));
        json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("target").at("framework").get<std::string>(), std::string("deepspeed"));
        QCOMPARE(j.at("imported").at("strategy").get<std::string>(), std::string("zero3"));
        QCOMPARE(j.at("imported").at("auto"), json::array({ "zero_optimization.stage3_max_live_parameters" }));
        QCOMPARE(j.at("imported").at("warnings").size(), std::size_t(1));

        // The file's world (64 / (2 x 4) = 8 GPUs) and strategy reach the export; a typed flag wins.
        r = runCli({ QStringLiteral("--model"), QStringLiteral("qwen2.5-7b"), QStringLiteral("--gpu"),
                     QStringLiteral("h200"), QStringLiteral("--from"), ds, QStringLiteral("--micro-batch"),
                     QStringLiteral("1"), QStringLiteral("--export"), QStringLiteral("ds-config") });
        QCOMPARE(r.exitCode, 0);
        j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("zero_optimization").at("stage").get<int>(), 3);
        QCOMPARE(j.at("train_micro_batch_size_per_gpu").get<int>(), 1);
        QCOMPARE(j.at("gradient_accumulation_steps").get<int>(), 4);
        QCOMPARE(j.at("train_batch_size").get<int>(), 32);

        const QString yaml
            = writeFile(dir, QStringLiteral("accelerate.yaml"),
                        "distributed_type: FSDP\nmixed_precision: bf16\nnum_machines: 2\nnum_processes: 16\n"
                        "fsdp_config:\n  fsdp_version: 2\n  fsdp_reshard_after_forward: false\n");
        r = runCli({ QStringLiteral("--model"), QStringLiteral("qwen2.5-7b"), QStringLiteral("--gpu"),
                     QStringLiteral("h200"), QStringLiteral("--from"), yaml, QStringLiteral("--format"),
                     QStringLiteral("json") });
        QCOMPARE(r.exitCode, 0);
        j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("target").at("framework").get<std::string>(), std::string("fsdp2"));
        QCOMPARE(j.at("imported").at("strategy").get<std::string>(), std::string("fsdp2_noreshard"));

        // A bad value: exit 2 naming the key.
        const QString bad = writeFile(dir, QStringLiteral("bad.json"), R"({"zero_optimization": {"stage": "three"}})");
        r = runCli(base() << QStringLiteral("--from") << bad);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("zero_optimization.stage:")), qPrintable(r.err));
        const QString badYaml
            = writeFile(dir, QStringLiteral("bad.yaml"), "distributed_type: FSDP\nnum_machines: two\n");
        r = runCli(base() << QStringLiteral("--from") << badYaml);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("num_machines:")), qPrintable(r.err));
        // A torchtitan job config: its settings in, a bad value exits 2 naming the key.
        const QString toml
            = writeFile(dir, QStringLiteral("job.toml"),
                        "[training]\nlocal_batch_size = 2\nglobal_batch_size = 64\nseq_len = 4096\n"
                        "[parallelism]\ndata_parallel_shard_degree = 16\nfsdp_reshard_after_forward = \"never\"\n"
                        "[activation_checkpoint]\nmode = \"full\"\nwhatever = 1\n");
        r = runCli({ QStringLiteral("--model"), QStringLiteral("qwen2.5-7b"), QStringLiteral("--gpu"),
                     QStringLiteral("h200"), QStringLiteral("--gpus-per-node"), QStringLiteral("8"),
                     QStringLiteral("--nodes"), QStringLiteral("2"), QStringLiteral("--from"), toml,
                     QStringLiteral("--export"), QStringLiteral("torchtitan") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains(QStringLiteral("warning: activation_checkpoint.whatever:")), qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("fsdp_reshard_after_forward = \"never\"")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("global_batch_size = 64")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("seq_len = 4096")), qPrintable(r.out));
        const QString badToml
            = writeFile(dir, QStringLiteral("bad.toml"), "[parallelism]\ntensor_parallel_degree = 8\n");
        r = runCli(base() << QStringLiteral("--from") << badToml);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("parallelism.tensor_parallel_degree:")), qPrintable(r.err));
        r = runCli(base() << QStringLiteral("--from") << dir.filePath(QStringLiteral("missing.json")));
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QStringLiteral("--from")));
    }

    // Files a framework would refuse, or that no config is: exit 2 with one line naming the key or the
    // file, never a crash, a hang, a raw library exception or the file echoed back.
    void fromRefusesWhatTheFrameworksRefuseAndHostileFiles()
    {
        QTemporaryDir dir;
        const auto refused = [&](const QString& path, const QString& expected) {
            const auto start = std::chrono::steady_clock::now();
            const CliResult r = runCli(base() << QStringLiteral("--from") << path);
            QVERIFY2(std::chrono::steady_clock::now() - start < std::chrono::seconds(20), qPrintable(path));
            QVERIFY2(r.exitCode == 2, qPrintable(path + QStringLiteral(": exit ") + QString::number(r.exitCode)));
            QVERIFY2(r.err.contains(expected), qPrintable(r.err.left(600)));
            QVERIFY2(r.err.size() < 1500, qPrintable(r.err.left(600)));
            QVERIFY2(r.err.startsWith(QStringLiteral("shardwise-cli plan: --from ")), qPrintable(r.err.left(600)));
        };
        const QString big(900 * 1024, QLatin1Char('x'));
        refused(writeFile(dir, QStringLiteral("deep.json"), QByteArray(100000, '[')),
                QStringLiteral("nests deeper than"));
        QByteArray dotted("a");
        for (int i = 0; i < 50000; ++i)
            dotted += ".a";
        refused(writeFile(dir, QStringLiteral("dotted.toml"), dotted + " = 1\n"), QStringLiteral("nests deeper than"));
        refused(writeFile(dir, QStringLiteral("deep.yaml"), "a: " + QByteArray(100000, '[')),
                QStringLiteral("nests deeper than"));
        refused(QStringLiteral("/dev/zero"), QStringLiteral("not a regular file"));
        QFile sparse(writeFile(dir, QStringLiteral("huge.json"), "{}"));
        QVERIFY(sparse.resize(50LL * 1024 * 1024));
        refused(sparse.fileName(), QStringLiteral("Shardwise reads configs of at most"));
        refused(writeFile(dir, QStringLiteral("overflow.json"),
                          R"({"zero_optimization": {"stage": 3, "reduce_bucket_size": 1e400}})"),
                QStringLiteral(": zero_optimization.reduce_bucket_size: number out of range"));
        refused(writeFile(dir, QStringLiteral("long.json"),
                          "{\"train_micro_batch_size_per_gpu\": \"" + big.toUtf8() + "\"}"),
                QStringLiteral("train_micro_batch_size_per_gpu: expected an integer"));
        refused(writeFile(dir, QStringLiteral("twice.json"), R"({"train_batch_size": 8, "train_batch_size": 16})"),
                QStringLiteral("train_batch_size: duplicate key"));
        refused(writeFile(dir, QStringLiteral("twice.yaml"), "distributed_type: FSDP\ndistributed_type: NO\n"),
                QStringLiteral("distributed_type: stated twice"));
        refused(writeFile(dir, QStringLiteral("two.yaml"), "distributed_type: NO\n---\ndistributed_type: NO\n"),
                QStringLiteral("2 YAML documents"));
        refused(writeFile(dir, QStringLiteral("twice.toml"), "[training]\nsteps = 1\nsteps = 2\n"),
                QStringLiteral("training.steps: not valid TOML"));
        refused(writeFile(dir, QStringLiteral("empty.toml"), ""), QStringLiteral("is empty"));
        refused(writeFile(dir, QStringLiteral("empty.json"), "\n"), QStringLiteral("is empty"));
        refused(writeFile(dir, QStringLiteral("list.json"), "[1, 2"), QStringLiteral("is not valid JSON"));
        refused(writeFile(dir, QStringLiteral("yaml.json"), "zero_optimization:\n  stage: 2\n"),
                QStringLiteral("is not valid JSON"));
        // What the frameworks themselves refuse.
        refused(
            writeFile(dir, QStringLiteral("forbid.json"), R"({"zero_optimization": {"stage": 2, "mystery_knob": 1}})"),
            QStringLiteral("zero_optimization.mystery_knob: DeepSpeed refuses this file"));
        refused(writeFile(dir, QStringLiteral("tp.yaml"),
                          "distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\nnum_processes: 8\n"
                          "parallelism_config:\n  parallelism_config_tp_size: 2\n"),
                QStringLiteral("parallelism_config.parallelism_config_tp_size:"));
        refused(writeFile(dir, QStringLiteral("fsdp1.yaml"),
                          "distributed_type: FSDP\nfsdp_config:\n  fsdp_offload_params: false\n"),
                QStringLiteral("fsdp_config.fsdp_version: not stated: Accelerate then runs FSDP1"));
        const CliResult yaml
            = runCli(base() << QStringLiteral("--from")
                            << writeFile(dir, QStringLiteral("long.yaml"), "distributed_type: " + big.toUtf8() + "\n"));
        QCOMPARE(yaml.exitCode, 2);
        QVERIFY2(yaml.err.size() < 1500, qPrintable(yaml.err.left(600)));
    }

    // torchtitan after 0.2.2 reads no TOML: the export is refused naming the release.
    void torchtitanExportAfter022IsRefused()
    {
        CliResult r = runCli(base() << QStringLiteral("--framework") << QStringLiteral("torchtitan")
                                    << QStringLiteral("--framework-version") << QStringLiteral("0.3")
                                    << QStringLiteral("--export") << QStringLiteral("torchtitan"));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("torchtitan 0.3 has no TOML job config")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("PR #2386")), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
        r = runCli(base() << QStringLiteral("--framework") << QStringLiteral("torchtitan")
                          << QStringLiteral("--framework-version") << QStringLiteral("0.2.2")
                          << QStringLiteral("--export") << QStringLiteral("torchtitan"));
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QStringLiteral("[parallelism]")));
    }

    // A 2-node torchtitan export, read back with no cluster flags, is the same 2 x 8 cluster.
    void torchtitanTwoNodeExportReadsBackAsTwoNodes()
    {
        QTemporaryDir dir;
        const QString toml = dir.filePath(QStringLiteral("shardwise.toml"));
        CliResult r = runCli(base() << QStringLiteral("--nodes") << QStringLiteral("2") << QStringLiteral("--framework")
                                    << QStringLiteral("torchtitan") << QStringLiteral("--strategy")
                                    << QStringLiteral("fsdp2_reshard") << QStringLiteral("--export")
                                    << QStringLiteral("torchtitan") << QStringLiteral("--output") << toml);
        QCOMPARE(r.exitCode, 0);
        r = runCli({ QStringLiteral("--model"), QStringLiteral("qwen2.5-7b"), QStringLiteral("--gpu"),
                     QStringLiteral("h200"), QStringLiteral("--from"), toml, QStringLiteral("--export"),
                     QStringLiteral("torchtitan") });
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QStringLiteral("on 16 x h200 (2 nodes x 8)")), qPrintable(r.out.left(400)));
        QVERIFY2(r.out.contains(QStringLiteral("nodes=2")), qPrintable(r.out.left(400)));
    }
};

QTEST_GUILESS_MAIN(TestCliFrameworks)
#include "test_cli_frameworks.moc"
