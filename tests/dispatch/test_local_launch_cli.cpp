// Behaviour of `shardwise-cli run --local` as a user meets it: a real shardwise-cli process, with the
// scripted launch_fixture as its runner (flags, result rows, logs, allocator setting, Ctrl-C) and,
// once it is built, the real shardwise-runner end to end.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <csignal>
#include <filesystem>

using nlohmann::json;

namespace {

QString toQString(const char* s)
{
    return QString::fromUtf8(s);
}
QString toQString(const QString& s)
{
    return s;
}

template <typename... Items> QStringList arguments(const Items&... items)
{
    return QStringList { toQString(items)... };
}

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
};

CliResult runCli(const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
                 int timeoutMs = 120000)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SHARDWISE_CLI), QStringList { QStringLiteral("run") } + args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return { -1, QString::fromUtf8(p.readAllStandardOutput()), QStringLiteral("timed out") };
    }
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
             QString::fromUtf8(p.readAllStandardError()) };
}

QStringList fixtureRun(const QStringList& extra)
{
    return QStringList { QStringLiteral("--local"), QStringLiteral("--runner"), QStringLiteral(LAUNCH_FIXTURE),
                         QStringLiteral("--model"), QStringLiteral("tiny") }
    + extra;
}

// The runner of this build tree, or $SHARDWISE_RUNNER when the runner is built elsewhere.
QString realRunner()
{
    return qEnvironmentVariable("SHARDWISE_RUNNER", QStringLiteral(SHARDWISE_RUNNER_PATH));
}

json parseOutput(const CliResult& r)
{
    return json::parse(r.out.toStdString());
}

const json* runFor(const json& doc, const std::string& strategy)
{
    for (const auto& run : doc.at("runs"))
        if (run.at("strategy") == strategy)
            return &run;
    return nullptr;
}

} // namespace

class TestLocalLaunchCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp; // TMPDIR of every run here: a folder a run keeps goes with it

private slots:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        qputenv("TMPDIR", m_tmp.path().toLocal8Bit());
    }

    void badFlagExitsTwoNamingIt_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        const QString fixture = QStringLiteral(LAUNCH_FIXTURE);
        const QStringList base { QStringLiteral("--local"), QStringLiteral("--runner"), fixture,
                                 QStringLiteral("--model"), QStringLiteral("tiny") };
        QTest::newRow("ranks not a number")
            << base + arguments("--strategy", "zero2", "--ranks", "two") << QStringLiteral("--ranks");
        QTest::newRow("zero ranks") << base + arguments("--strategy", "zero2", "--ranks", "0")
                                    << QStringLiteral("--ranks");
        QTest::newRow("unknown strategy lists ids")
            << base + arguments("--strategy", "zero9")
            << QStringLiteral("allowed: zero0, zero1, zero2, zero3, zero2_offload, zero3_offload");
        QTest::newRow("unknown device") << base + arguments("--strategy", "zero2", "--device", "tpu")
                                        << QStringLiteral("--device");
        QTest::newRow("unknown precision")
            << base + arguments("--strategy", "zero2", "--precision", "fp8") << QStringLiteral("--precision");
        QTest::newRow("unknown format") << base + arguments("--strategy", "zero2", "--format", "xml")
                                        << QStringLiteral("--format");
        QTest::newRow("unknown flag") << base + arguments("--strategy", "zero2", "--frobnicate")
                                      << QStringLiteral("--frobnicate");
        QTest::newRow("missing value") << base + arguments("--strategy", "zero2", "--steps")
                                       << QStringLiteral("--steps");
        QTest::newRow("negative timeout")
            << base + arguments("--strategy", "zero2", "--timeout-s", "-1") << QStringLiteral("--timeout-s");
        QTest::newRow("unknown model") << arguments("--local", "--runner", fixture, "--model", "no-such-model",
                                                    "--strategy", "zero2")
                                       << QStringLiteral("--model");
        QTest::newRow("without --local") << arguments("--runner", fixture, "--model", "tiny", "--strategy", "zero2")
                                         << QStringLiteral("--local");
        // CUDA graphs the runner could not capture are refused before any rank starts, in validate's words.
        QTest::newRow("cuda graphs for an offload strategy")
            << base + arguments("--strategy", "zero3_offload", "--device", "cuda", "--cuda-graphs")
            << QStringLiteral("--cuda-graphs: CUDA graphs cannot capture zero3_offload");
        QTest::newRow("cuda graphs for the parameter-offload shard")
            << base + arguments("--strategy", "fsdp2_reshard_offload", "--device", "cuda", "--cuda-graphs")
            << QStringLiteral("--cuda-graphs: CUDA graphs cannot capture fsdp2_reshard_offload");
        QTest::newRow("cuda graphs on the cpu") << base + arguments("--strategy", "zero2", "--cuda-graphs")
                                                << QStringLiteral("--cuda-graphs: CUDA graphs need device cuda");
        QTest::newRow("cuda graphs of every strategy on the cpu")
            << base + arguments("--strategy", "all", "--cuda-graphs")
            << QStringLiteral("--cuda-graphs: CUDA graphs need device cuda");
        QTest::newRow("cuda graphs with fp32 master weights") << base
                + arguments("--strategy", "zero2", "--device", "cuda", "--precision", "bf16-fp32-master",
                            "--cuda-graphs") << QStringLiteral("--cuda-graphs: CUDA graphs need precision bf16");
        QTest::newRow("cuda graphs with two warm-up steps")
            << base + arguments("--strategy", "zero2", "--device", "cuda", "--warmup", "2", "--cuda-graphs")
            << QStringLiteral("--cuda-graphs: CUDA graphs need at least 3 warm-up steps");
        // The torch backend: what PyTorch cannot express, and what only one backend has, name the flag.
        QTest::newRow("torch cannot run zero1") << base + arguments("--backend", "torch", "--strategy", "zero1")
                                                << QStringLiteral("--strategy: the torch backend cannot run zero1");
        QTest::newRow("torch cannot run zero3_offload")
            << base + arguments("--backend", "torch", "--strategy", "zero3_offload")
            << QStringLiteral("--strategy: the torch backend cannot run zero3_offload");
        QTest::newRow("unknown backend") << base + arguments("--backend", "jax", "--strategy", "zero0")
                                         << QStringLiteral("--backend: unknown backend 'jax'; allowed: native, torch");
        QTest::newRow("torch.compile without torch")
            << base + arguments("--strategy", "zero0", "--torch-compile")
            << QStringLiteral("--torch-compile: torch.compile needs backend torch");
        QTest::newRow("torch with cuda graphs")
            << base + arguments("--backend", "torch", "--strategy", "zero0", "--device", "cuda", "--cuda-graphs")
            << QStringLiteral("--cuda-graphs: the torch backend runs eager or compiled steps");
        QTest::newRow("torch with a collective timeout")
            << base + arguments("--backend", "torch", "--strategy", "zero0", "--collective-timeout-s", "30")
            << QStringLiteral("--collective-timeout-s: only with --backend native");
        QTest::newRow("torch harness missing")
            << arguments("--local", "--runner", "/nonexistent/shardwise-runner", "--model", "tiny", "--strategy",
                         "zero0", "--backend", "torch")
            << QStringLiteral("--backend torch: '/nonexistent/shardwise-torch-runner' is not an executable file");
        // A rehearsal: N in [1, 65536], one rank on one node, a CUDA device, no CUDA graphs; each named.
        const QStringList rehearse = base + arguments("--strategy", "zero3", "--device", "cuda");
        QTest::newRow("rehearsal of world 0")
            << rehearse + arguments("--rehearse-world", "0")
            << QStringLiteral("--rehearse-world: the world to rehearse must be in [1, 65536] ranks, got 0");
        QTest::newRow("rehearsal past the largest world")
            << rehearse + arguments("--rehearse-world", "65537")
            << QStringLiteral("--rehearse-world: the world to rehearse must be in [1, 65536] ranks, got 65537");
        QTest::newRow("rehearsal of a world past 64 bits")
            << rehearse + arguments("--rehearse-world", "99999999999999999999999")
            << QStringLiteral("must be in [1, 65536] ranks, got 99999999999999999999999");
        QTest::newRow("rehearsal of a world that is no number")
            << rehearse + arguments("--rehearse-world", "eight")
            << QStringLiteral("--rehearse-world: expected a whole number of ranks in [1, 65536], got 'eight'");
        QTest::newRow("rehearsal of a fractional world")
            << rehearse + arguments("--rehearse-world", "8.5")
            << QStringLiteral("--rehearse-world: expected a whole number of ranks in [1, 65536], got '8.5'");
        QTest::newRow("rehearsal with several ranks")
            << rehearse + arguments("--rehearse-world", "64", "--ranks", "2")
            << QStringLiteral("--rehearse-world 64: a rehearsal runs one rank (rank 0 of world 64) in one process; "
                              "--ranks 2");
        QTest::newRow("rehearsal on several nodes")
            << arguments("--node", "gpu-a,gpu-b", "--model", "tiny", "--strategy", "zero3", "--device", "cuda",
                         "--rehearse-world", "64")
            << QStringLiteral("--rehearse-world 64: a rehearsal runs one rank in one process on one node; --node "
                              "names 2 nodes");
        QTest::newRow("rehearsal on the cpu")
            << base + arguments("--strategy", "zero3", "--rehearse-world", "64")
            << QStringLiteral("--rehearse-world 64: a rehearsal needs a CUDA device (--device cuda): it measures one "
                              "rank's allocator peaks at world 64, and an emulated CPU run measures state bytes only, "
                              "no allocator peaks");
        QTest::newRow("rehearsal with cuda graphs")
            << rehearse + arguments("--rehearse-world", "64", "--warmup", "3", "--cuda-graphs")
            << QStringLiteral("--cuda-graphs: not with --rehearse-world 64: a rehearsal measures memory");
        QTest::newRow("runner not executable") << arguments("--local", "--runner", "/nonexistent/shardwise-runner",
                                                            "--model", "tiny", "--strategy", "zero2")
                                               << QStringLiteral("--runner");
    }

    void badFlagExitsTwoNamingIt()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const CliResult r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    void strategyAllMakesOomOneResultRowAmongNine()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("FIXTURE_OOM_STRATEGY"), QStringLiteral("zero3"));
        const CliResult r = runCli(fixtureRun(arguments("--ranks", "2", "--strategy", "all", "--format", "json")), env);
        QCOMPARE(r.exitCode, 1);
        const json doc = parseOutput(r);
        QVERIFY(!doc.at("succeeded").get<bool>());
        QCOMPARE(doc.at("runs").size(), std::size_t(9));
        for (const auto& run : doc.at("runs")) {
            const std::string strategy = run.at("strategy").get<std::string>();
            QCOMPARE(run.at("outcome").get<std::string>(), std::string(strategy == "zero3" ? "oom" : "ok"));
            QCOMPARE(run.at("config").at("strategy").get<std::string>(), strategy);
            QCOMPARE(run.at("ranks").size(), std::size_t(2));
        }
        const json* oom = runFor(doc, "zero3");
        QVERIFY(oom);
        QCOMPARE(oom->at("first_error").at("kind").get<std::string>(), std::string("oom"));
        QVERIFY(oom->at("tokens_per_s").is_null());
    }

    // --backend torch --strategy all runs the four strategies PyTorch expresses, each through the
    // harness beside the runner (stand-ins here: the harness says how it was started and reports a
    // start naming its framework and a summary), recorded into a real store file that `runs list
    // --backend torch`, `runs show` and `runs export` then show with their backend.
    void torchBackendRunsTheHarnessForEveryStrategyPyTorchExpresses()
    {
        QTemporaryDir dir;
        const QString bin = dir.filePath(QStringLiteral("bin"));
        QVERIFY(QDir().mkpath(bin));
        const QString marker = dir.filePath(QStringLiteral("ran.txt"));
        const auto script = [](const QString& path, const QByteArray& body) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("#!/bin/sh\n" + body);
            f.close();
            f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        };
        script(bin + QStringLiteral("/shardwise-runner"), "echo \"native $*\" >> \"$MARKER\"\nexit 7\n");
        script(
            bin + QStringLiteral("/shardwise-torch-runner"),
            "strategy=$(tr -d ' \\n' < \"$2\" | sed 's/.*\"strategy\":\"\\([a-z0-9_]*\\)\".*/\\1/')\n"
            "echo \"torch $RANK $strategy $*\" >> \"$MARKER\"\n"
            "config=$(tr -d '\\n' < \"$2\")\n"
            "printf "
            "'{\"v\":1,\"event\":\"start\",\"rank\":%s,\"world\":%s,\"host\":\"h\",\"config\":%s,\"versions\":{"
            "\"runner\":"
            "\"shardwise-torch "
            "0.0.1\",\"backend\":\"torch\",\"python\":\"3.11.2\",\"torch\":\"2.5.1\",\"transformers\":"
            "\"4.46.3\",\"model_impl\":\"transformers\"},\"device_name\":\"cpu\"}\\n' \"$RANK\" \"$WORLD_SIZE\" "
            "\"$config\"\n"
            "printf "
            "'{\"v\":1,\"event\":\"summary\",\"rank\":%s,\"world\":%s,\"median_step_s\":0.5,\"tokens_per_s\":64}\\n' "
            "\"$RANK\" \"$WORLD_SIZE\"\n");
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("MARKER"), marker);
        env.remove(QStringLiteral("SHARDWISE_TORCH_RUNNER"));
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const CliResult r = runCli(arguments("--local", "--runner", bin + QStringLiteral("/shardwise-runner"),
                                             "--model", "tiny", "--backend", "torch", "--strategy", "all", "--ranks",
                                             "2", "--db", db, "--format", "json"),
                                   env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json doc = parseOutput(r);
        QCOMPARE(doc.at("backend").get<std::string>(), std::string("torch"));
        std::vector<std::string> strategies;
        for (const auto& run : doc.at("runs")) {
            strategies.push_back(run.at("strategy").get<std::string>());
            QCOMPARE(run.at("backend").get<std::string>(), std::string("torch"));
            QCOMPARE(run.at("config").at("backend").get<std::string>(), std::string("torch"));
            QCOMPARE(run.at("versions").at("torch").get<std::string>(), std::string("2.5.1"));
        }
        QCOMPARE(strategies,
                 (std::vector<std::string> { "zero0", "fsdp2_noreshard", "fsdp2_reshard", "fsdp2_reshard_offload" }));
        QFile ran(marker);
        QVERIFY(ran.open(QIODevice::ReadOnly));
        const QString lines = QString::fromUtf8(ran.readAll());
        QVERIFY2(!lines.contains(QStringLiteral("native")), qPrintable(lines));
        // Each rank read the strategy from the config the session wrote, and got only --config.
        for (const char* s : { "zero0", "fsdp2_noreshard", "fsdp2_reshard", "fsdp2_reshard_offload" })
            for (const char* rank : { "0", "1" })
                QVERIFY2(
                    lines.contains(QStringLiteral("torch %1 %2 --config ").arg(QLatin1String(rank), QLatin1String(s))),
                    qPrintable(lines));
        QCOMPARE(lines.count(QLatin1Char('\n')), 8);

        const auto runsCli = [&](const QStringList& args) {
            QProcess p;
            p.start(QStringLiteral(SHARDWISE_CLI),
                    QStringList { QStringLiteral("runs") } + args + arguments("--db", db));
            p.waitForFinished(60000);
            return CliResult { p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                               QString::fromUtf8(p.readAllStandardError()) };
        };
        const CliResult listed = runsCli(arguments("list", "--backend", "torch"));
        QCOMPARE(listed.exitCode, 0);
        QVERIFY2(listed.out.startsWith(QStringLiteral("ID")) && listed.out.contains(QStringLiteral("BACKEND")),
                 qPrintable(listed.out));
        QCOMPARE(listed.out.count(QStringLiteral(" torch ")), 4);
        const CliResult none = runsCli(arguments("list", "--backend", "native"));
        QVERIFY2(none.out.startsWith(QStringLiteral("no runs match")), qPrintable(none.out));
        const CliResult badFilter = runsCli(arguments("list", "--backend", "tpu"));
        QCOMPARE(badFilter.exitCode, 2);
        QVERIFY2(badFilter.err.contains(QStringLiteral("--backend: expected native or torch")),
                 qPrintable(badFilter.err));
        const CliResult shown = runsCli(arguments("show", "1"));
        QVERIFY2(shown.out.contains(QStringLiteral("torch (PyTorch harness, shardwise-torch-runner)")),
                 qPrintable(shown.out));
        QVERIFY2(
            shown.out.contains(QStringLiteral("Python 3.11.2, torch 2.5.1, Transformers 4.46.3, model transformers")),
            qPrintable(shown.out));
        const CliResult exported = runsCli(arguments("export", "--format", "csv"));
        const QStringList rows = exported.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(rows.size(), 5);
        const QStringList header = rows[0].split(QLatin1Char(','));
        const qsizetype backendColumn = header.indexOf(QStringLiteral("backend"));
        QVERIFY2(backendColumn >= 0, qPrintable(rows[0]));
        QCOMPARE(rows[1].split(QLatin1Char(','))[backendColumn], QStringLiteral("torch"));
    }

    void tableShowsEachFigureWithItsUnitAndProgressGoesToStderr()
    {
        const CliResult r = runCli(fixtureRun(arguments("--ranks", "2", "--strategy", "zero1")));
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.split(QLatin1Char('\n'));
        QVERIFY2(lines.size() > 2, qPrintable(r.out));
        QVERIFY(lines[0].startsWith(QStringLiteral("strategy")));
        const QString row = lines[1];
        QVERIFY2(row.startsWith(QStringLiteral("zero1")) && row.contains(QStringLiteral(" ok ")), qPrintable(row));
        QVERIFY2(row.contains(QStringLiteral(" ms")), qPrintable(row));
        QVERIFY2(row.contains(QStringLiteral("tokens/s")), qPrintable(row));
        QVERIFY2(row.contains(QStringLiteral(" %")), qPrintable(row));
        QVERIFY2(r.err.contains(QStringLiteral("[zero1] step 3/")), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("tokens/s so far")), qPrintable(r.err));
    }

    // A rehearsal through the CLI (the fixture stands in for a CUDA runner and claims a throughput in
    // its summary): the runner gets rehearse_world with world size 1, and neither the result nor the
    // store shows a throughput; the table says why.
    void rehearsalRunsOneRankAndShowsNoThroughput()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const CliResult r = runCli(fixtureRun(arguments("--device", "cuda", "--strategy", "zero3", "--rehearse-world",
                                                        "8", "--db", db, "--format", "json")));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("[zero3] starting 1 rank on cuda, rehearsing rank 0 of world 8")),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("compute only (rehearsal)")), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("tokens/s so far")), qPrintable(r.err));
        const json doc = parseOutput(r);
        QCOMPARE(doc.at("rehearsed_world").get<int>(), 8);
        const json& run = doc.at("runs").at(0);
        QCOMPARE(run.at("config").at("rehearse_world").get<int>(), 8);
        QCOMPARE(run.at("config").at("world_size").get<int>(), 1);
        QCOMPARE(run.at("rehearsed_world").get<int>(), 8);
        QVERIFY(run.at("tokens_per_s").is_null());
        QVERIFY(run.at("median_step_s").is_null());
        QVERIFY(run.at("nccl_share").is_null());
        QCOMPARE(run.at("compute_only_step_s").get<double>(), 0.01);

        QProcess list;
        list.start(QStringLiteral(SHARDWISE_CLI), arguments("runs", "list", "--db", db, "--format", "json"));
        QVERIFY(list.waitForFinished(60000));
        const json stored = json::parse(list.readAllStandardOutput().toStdString());
        QCOMPARE(stored.size(), std::size_t(1));
        QCOMPARE(stored.at(0).at("rehearsed_world").get<int>(), 8);
        QVERIFY(stored.at(0).at("tokens_per_s").is_null());
        QCOMPARE(stored.at(0).at("status").get<std::string>(), std::string("completed"));

        const CliResult table = runCli(
            fixtureRun(arguments("--device", "cuda", "--strategy", "zero3", "--rehearse-world", "8", "--no-store")));
        QVERIFY2(table.exitCode == 0, qPrintable(table.err));
        const QString row = table.out.split(QLatin1Char('\n')).value(1);
        QVERIFY2(row.startsWith(QStringLiteral("zero3")) && !row.contains(QStringLiteral("tokens/s")), qPrintable(row));
        QVERIFY2(table.out.contains(QStringLiteral("zero3: rehearsal of world 8 (peaks are one rank's at that world; "
                                                   "compute-only step 10.0 ms)")),
                 qPrintable(table.out));
        QVERIFY2(table.out.contains(QStringLiteral("so it has no median step, throughput or NCCL share (-)")),
                 qPrintable(table.out));
    }

    // Without --log-dir each run gets a temporary folder; once the store holds the run and its logs
    // the folder is gone, unless --keep-run-folder keeps it. An unrecorded run keeps it (its only
    // copy of the logs) and names it.
    void temporaryRunFoldersGoOnceTheStoreHoldsTheirLogs()
    {
        QTemporaryDir tmp;
        QTemporaryDir store;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TMPDIR"), tmp.path());
        const QString db = store.filePath(QStringLiteral("runs.sqlite"));
        auto folders = [&] {
            return QDir(tmp.path()).entryList({ QStringLiteral("shardwise-run-*") }, QDir::Dirs | QDir::NoDotAndDotDot);
        };

        CliResult r = runCli(fixtureRun(arguments("--strategy", "zero2", "--ranks", "2", "--db", db)), env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(folders().isEmpty(), qPrintable(folders().join(QLatin1Char(' '))));
        QVERIFY2(r.out.contains(QStringLiteral("zero2: logs stored with run 1 (shardwise-cli runs show 1 --logs)")),
                 qPrintable(r.out));

        r = runCli(fixtureRun(arguments("--strategy", "zero2", "--db", db, "--keep-run-folder", "--format", "json")),
                   env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(folders().size(), 1);
        const QString kept = tmp.filePath(folders().front());
        QCOMPARE(QString::fromStdString(parseOutput(r).at("runs").at(0).at("log_dir").get<std::string>()), kept);
        QVERIFY(QFileInfo::exists(kept + QStringLiteral("/rank0.log")));
        QVERIFY(QDir(kept).removeRecursively());

        r = runCli(fixtureRun(arguments("--strategy", "zero2", "--no-store")), env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(folders().size(), 1);
        QVERIFY2(r.out.contains(QStringLiteral("zero2: logs in ") + tmp.filePath(folders().front())),
                 qPrintable(r.out));
    }

    void logDirHoldsOneFolderPerStrategy()
    {
        QTemporaryDir logs;
        const CliResult r = runCli(fixtureRun(
            arguments("--ranks", "2", "--strategy", "fsdp2_reshard", "--log-dir", logs.path(), "--format", "json")));
        QCOMPARE(r.exitCode, 0);
        const std::filesystem::path dir = std::filesystem::path(logs.path().toStdString()) / "fsdp2_reshard";
        QVERIFY(std::filesystem::is_regular_file(dir / "rank0.log"));
        QVERIFY(std::filesystem::is_regular_file(dir / "rank1.log"));
        QCOMPARE(parseOutput(r).at("runs").at(0).at("log_dir").get<std::string>(), dir.string());
    }

    void expandableSegmentsReachEveryRank()
    {
        const CliResult r
            = runCli(fixtureRun(arguments("--strategy", "zero3", "--expandable-segments", "--format", "json")));
        QCOMPARE(r.exitCode, 0);
        const json run = parseOutput(r).at("runs").at(0);
        QCOMPARE(run.at("allocator").at("conf").get<std::string>(), std::string("expandable_segments:True"));
        QVERIFY(run.at("allocator").at("expandable_segments").get<bool>());
    }

    void cudaGraphsReachTheRunner()
    {
        const CliResult r = runCli(fixtureRun(arguments("--device", "cuda", "--strategy", "zero2", "--warmup", "3",
                                                        "--cuda-graphs", "--format", "json")));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json config = parseOutput(r).at("runs").at(0).at("config");
        QVERIFY(config.at("training").value("cuda_graphs", false));
        QCOMPARE(config.at("warmup_steps").get<int>(), 3);
        QVERIFY2(r.err.contains(QStringLiteral("[zero2] starting 1 rank on cuda with CUDA graphs")), qPrintable(r.err));
    }

    // With --strategy all the three offload strategies cannot be captured: they run eager, the six
    // GPU-resident ones with graphs, and none is refused.
    void cudaGraphsOfEveryStrategyLeaveTheOffloadOnesEager()
    {
        const CliResult r = runCli(
            fixtureRun(arguments("--device", "cuda", "--strategy", "all", "--cuda-graphs", "--format", "json")));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json doc = parseOutput(r);
        QCOMPARE(doc.at("runs").size(), std::size_t(9));
        for (const auto& run : doc.at("runs")) {
            const std::string strategy = run.at("strategy").get<std::string>();
            const bool offload = strategy.find("offload") != std::string::npos;
            QCOMPARE(run.at("config").at("training").value("cuda_graphs", false), !offload);
        }
    }

    void interruptCancelsTheRunAndReportsIt()
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("FIXTURE_HANG"), QStringLiteral("1"));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(SHARDWISE_CLI),
                QStringList { QStringLiteral("run") }
                    + fixtureRun(arguments("--ranks", "2", "--strategy", "all", "--format", "json")));
        QVERIFY(p.waitForStarted());
        QByteArray err;
        QTRY_VERIFY_WITH_TIMEOUT((err += p.readAllStandardError()).contains("starting 2 ranks"), 10000);
        QTest::qWait(500);
        QElapsedTimer timer;
        timer.start();
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(10000));
        QVERIFY2(timer.elapsed() < 8000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 1);
        const json doc = json::parse(p.readAllStandardOutput().toStdString());
        QVERIFY(doc.at("cancelled").get<bool>());
        // The remaining strategies are not started after a cancel.
        QCOMPARE(doc.at("runs").size(), std::size_t(1));
        QCOMPARE(doc.at("runs").at(0).at("outcome").get<std::string>(), std::string("cancelled"));
        for (const auto& rank : doc.at("runs").at(0).at("ranks"))
            QVERIFY(rank.at("killed_by_launcher").get<bool>());
    }

    void realRunnerTrainsTwoRanksEndToEnd()
    {
        if (!std::filesystem::exists(realRunner().toStdString()))
            QSKIP("shardwise-runner is not built in this tree and SHARDWISE_RUNNER is not set");
        const CliResult r = runCli(arguments("--local", "--runner", realRunner(), "--ranks", "2", "--device", "cpu",
                                             "--model", "tiny", "--strategy", "zero2", "--steps", "2", "--warmup", "1",
                                             "--seq", "32", "--format", "json"),
                                   QProcessEnvironment::systemEnvironment(), 300000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        const json doc = parseOutput(r);
        QVERIFY(doc.at("succeeded").get<bool>());
        QCOMPARE(doc.at("runs").size(), std::size_t(1));
        const json& run = doc.at("runs").at(0);
        QCOMPARE(run.at("outcome").get<std::string>(), std::string("ok"));
        QCOMPARE(run.at("config_source").get<std::string>(), std::string("runner"));
        QCOMPARE(run.at("config").at("strategy").get<std::string>(), std::string("zero2"));
        QCOMPARE(run.at("config").at("world_size").get<int>(), 2);
        QCOMPARE(run.at("config").at("timed_steps").get<int>(), 2);
        QCOMPARE(run.at("config").at("warmup_steps").get<int>(), 1);
        QCOMPARE(run.at("config").at("training").at("seq_len").get<int>(), 32);
        QVERIFY(run.at("median_step_s").get<double>() > 0);
        QVERIFY(run.at("tokens_per_s").get<double>() > 0);
        QVERIFY(run.at("errors").empty());
        QCOMPARE(run.at("ranks").size(), std::size_t(2));
        for (const auto& rank : run.at("ranks")) {
            QCOMPARE(rank.at("exit_code").get<int>(), 0);
            QVERIFY(!rank.at("summary").is_null());
            QCOMPARE(rank.at("summary").at("timed_steps").get<int>(), 2);
            QVERIFY(rank.at("protocol_errors").empty());
        }
        QCOMPARE(run.at("launcher").get<std::string>(), std::string("shardwise"));
    }
};

QTEST_GUILESS_MAIN(TestLocalLaunchCli)
#include "test_local_launch_cli.moc"
