// One launch for both faces: the same run asked of `shardwise-cli run` (its flags as parsed into a
// cli::RunRequest, through cli::launchRequest) and of the desktop app's run queue (a gui::RunRequest,
// through gui::launchRequestFor) becomes the same session::Launch: runner arguments, environment,
// port policy, peer grace, rank layout, CUDA graphs and what is recorded. Then both faces start the
// same run for real (the CLI binary and a RunJob, a stand-in runner that writes down its arguments
// and environment): the ranks get the same arguments, environment and config, and both runs are
// stored, in real SQLite files, with the inter-node bandwidth they were asked to assume.
#include "gui_test_main.hpp"

#include "jobs/run_job.hpp"
#include "jobs/run_launch.hpp"
#include "run_request.hpp"

#include "shardwise/session/launch_builder.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/runs.hpp"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <optional>

using namespace shardwise;

namespace {

struct Asked {
    Strategy strategy = Strategy::Zero2;
    DeviceKind device = DeviceKind::Cpu;
    int ranks = 2;
    int warmup = 1;
    int steps = 3;
    int seq = 32;
    bool expandable = false;
    bool cudaGraphs = false;
    RunBackend backend = RunBackend::Native;
    std::optional<std::string> node; // an SSH node; none = this machine
    std::optional<double> interNodeGBps;
};

store::Node sshNode(const std::string& name)
{
    store::Node n;
    n.id = 7;
    n.name = name;
    n.kind = store::NodeKind::Ssh;
    n.host = "gpu-a.example";
    n.ncclEnv = { { "NCCL_NVLS_ENABLE", "0" } };
    return n;
}

const std::string kRemoteRunner = "/home/u/.cache/shardwise/build/bin/shardwise-runner";
const std::filesystem::path kLocalRunner = "/opt/shardwise/bin/shardwise-runner";

// The request as `shardwise-cli run` parses it from the flags for `asked`.
cli::RunRequest cliRequest(const Asked& a)
{
    cli::RunRequest r;
    r.ranks = a.ranks;
    r.device = a.device;
    r.model = "tiny";
    r.modelSpec = resolveModel("tiny");
    r.strategies = { a.strategy };
    r.steps = a.steps;
    r.warmup = a.warmup;
    r.seq = a.seq;
    r.microBatch = 1;
    r.expandableSegments = a.expandable;
    r.cudaGraphs = a.cudaGraphs;
    r.backend = a.backend;
    if (a.node)
        r.nodes = { *a.node };
    r.interNodeGBps = a.interNodeGBps;
    return r;
}

session::Launch cliLaunch(const Asked& a)
{
    const cli::RunRequest r = cliRequest(a);
    if (a.node)
        return session::buildLaunch(cli::launchRequest(r, a.strategy, { sshNode(*a.node) }, { kRemoteRunner }));
    return session::buildLaunch(cli::launchRequest(r, a.strategy, {}, {}, kLocalRunner));
}

// The request as the Runs page's form and the run queue make it for `asked`.
gui::RunRequest guiRequest(const Asked& a)
{
    gui::RunRequest g;
    RunConfig& c = g.config;
    c.model = resolveModel("tiny");
    c.strategy = a.strategy;
    c.device = a.device;
    c.worldSize = a.ranks;
    c.warmupSteps = a.warmup;
    c.timedSteps = a.steps;
    c.training.seqLen = a.seq;
    c.training.microBatch = 1;
    c.training.expandableSegments = a.expandable;
    c.training.cudaGraphs = a.cudaGraphs;
    c.backend = a.backend;
    g.node = a.node ? QString::fromStdString(*a.node) : QStringLiteral("local");
    g.interNodeGBps = a.interNodeGBps;
    return g;
}

session::Launch guiLaunch(const Asked& a)
{
    const gui::RunRequest g = guiRequest(a);
    const std::optional<store::Node> node = a.node ? std::optional<store::Node>(sshNode(*a.node)) : std::nullopt;
    return session::buildLaunch(gui::launchRequestFor(g, node, kLocalRunner, kRemoteRunner, ".cache/shardwise/runs"));
}

using Env = std::map<std::string, std::string>;

QString describe(const Env& env)
{
    QStringList parts;
    for (const auto& [k, v] : env)
        parts << QString::fromStdString(k + "=" + v);
    return parts.join(QLatin1Char(' '));
}

void compareLaunches(const session::Launch& cli, const session::Launch& gui)
{
    QCOMPARE(toJson(gui.config).dump(), toJson(cli.config).dump());
    QCOMPARE(gui.args, cli.args);
    QCOMPARE(describe(gui.env), describe(cli.env));
    QCOMPARE(gui.masterPort, cli.masterPort);
    QCOMPARE(gui.peerGrace.count(), cli.peerGrace.count());
    QCOMPARE(gui.note, cli.note);
    QCOMPARE(gui.isRemote, cli.isRemote);
    // This machine's launch, field by field.
    QCOMPARE(gui.local.runner, cli.local.runner);
    QCOMPARE(gui.local.args, cli.local.args);
    QCOMPARE(gui.local.ranks, cli.local.ranks);
    QCOMPARE(describe(gui.local.env), describe(cli.local.env));
    QCOMPARE(gui.local.masterAddr, cli.local.masterAddr);
    QCOMPARE(gui.local.masterPort, cli.local.masterPort);
    QCOMPARE(gui.local.logDir, cli.local.logDir);
    QCOMPARE(gui.local.timeout.count(), cli.local.timeout.count());
    QCOMPARE(gui.local.peerGrace.count(), cli.local.peerGrace.count());
    QCOMPARE(gui.local.terminateGrace.count(), cli.local.terminateGrace.count());
    // SSH nodes' launch: the rank layout on each node, what every rank gets, where the run lives.
    QCOMPARE(gui.remote.nodes.size(), cli.remote.nodes.size());
    for (std::size_t i = 0; i < cli.remote.nodes.size(); ++i) {
        QCOMPARE(gui.remote.nodes[i].runnerPath, cli.remote.nodes[i].runnerPath);
        QCOMPARE(gui.remote.nodes[i].ranks, cli.remote.nodes[i].ranks);
        QCOMPARE(gui.remote.nodes[i].address, cli.remote.nodes[i].address);
        QCOMPARE(describe(gui.remote.nodes[i].env), describe(cli.remote.nodes[i].env));
    }
    QCOMPARE(gui.remote.args, cli.remote.args);
    QCOMPARE(describe(gui.remote.env), describe(cli.remote.env));
    QCOMPARE(gui.remote.masterPort, cli.remote.masterPort);
    QCOMPARE(gui.remote.runId, cli.remote.runId);
    QCOMPARE(gui.remote.runRoot, cli.remote.runRoot);
    QCOMPARE(gui.follow.pollInterval.count(), cli.follow.pollInterval.count());
    QCOMPARE(gui.follow.timeout.count(), cli.follow.timeout.count());
    QCOMPARE(gui.follow.cancelGrace.count(), cli.follow.cancelGrace.count());
    // What is recorded with the run.
    QCOMPARE(gui.origin.launcher, cli.origin.launcher);
    QCOMPARE(gui.origin.nodes.size(), cli.origin.nodes.size());
    for (std::size_t i = 0; i < cli.origin.nodes.size(); ++i) {
        QCOMPARE(gui.origin.nodes[i].name, cli.origin.nodes[i].name);
        QCOMPARE(gui.origin.nodes[i].nodeId, cli.origin.nodes[i].nodeId);
        QCOMPARE(describe(gui.origin.nodes[i].ncclEnv), describe(cli.origin.nodes[i].ncclEnv));
    }
    QCOMPARE(gui.origin.gpuId, cli.origin.gpuId);
    QCOMPARE(gui.origin.interconnect, cli.origin.interconnect);
    QCOMPARE(gui.origin.interNodeGBps, cli.origin.interNodeGBps);
    QCOMPARE(gui.origin.planId, cli.origin.planId);
}

nlohmann::json readReport(const QString& folder, int rank)
{
    QFile f(folder + QStringLiteral("/rank%1.json").arg(rank));
    if (!f.open(QIODevice::ReadOnly))
        return nullptr;
    return nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
}

} // namespace

Q_DECLARE_METATYPE(Asked)

class TestLaunchParity : public QObject {
    Q_OBJECT

private slots:
    void sameRequestSameLaunch_data()
    {
        QTest::addColumn<Asked>("asked");
        QTest::newRow("cpu, this machine") << Asked {};
        Asked expandable;
        expandable.strategy = Strategy::Zero3;
        expandable.expandable = true;
        expandable.interNodeGBps = 50.0;
        QTest::newRow("expandable segments, a network to record") << expandable;
        Asked graphs;
        graphs.device = DeviceKind::Cuda;
        graphs.cudaGraphs = true;
        graphs.warmup = 3;
        QTest::newRow("cuda graphs") << graphs;
        Asked torch;
        torch.strategy = Strategy::Fsdp2Reshard;
        torch.backend = RunBackend::Torch;
        QTest::newRow("torch backend") << torch;
        Asked remote;
        remote.node = "gpu-a";
        remote.device = DeviceKind::Cuda;
        remote.ranks = 4;
        QTest::newRow("one SSH node") << remote;
    }

    void sameRequestSameLaunch()
    {
        QFETCH(Asked, asked);
        const session::Launch cli = cliLaunch(asked);
        const session::Launch gui = guiLaunch(asked);
        compareLaunches(cli, gui);
        if (QTest::currentTestFailed())
            return;
        // The former drifts, each with its one rule.
        QCOMPARE(cli.args, (std::vector<std::string> { "--config", "config.json" }));
        QCOMPARE(cli.masterPort, 0); // a free port on the rendezvous host when the ranks start
        QCOMPARE(cli.peerGrace.count(), session::kPeerGrace.count());
        QCOMPARE(cli.config.worldSize, asked.ranks);
        if (asked.node) {
            QCOMPARE(cli.remote.nodes.size(), std::size_t(1));
            QCOMPARE(cli.remote.nodes[0].address, std::string("127.0.0.1"));
            QCOMPARE(cli.remote.nodes[0].env.at("GLOO_SOCKET_IFNAME"), std::string("lo"));
            QCOMPARE(cli.remote.nodes[0].ranks, asked.ranks);
            QCOMPARE(cli.origin.nodes.front().ncclEnv.at("NCCL_NVLS_ENABLE"), std::string("0"));
        } else {
            QCOMPARE(cli.local.ranks, asked.ranks);
            QCOMPARE(cli.local.runner, kLocalRunner);
        }
        QCOMPARE(cli.origin.interNodeGBps, asked.interNodeGBps);
    }

    // What the CLI's flags name explicitly overrides the rules, and nothing else does.
    void explicitOverridesAreTheOnlyDifference()
    {
        cli::RunRequest r = cliRequest(Asked {});
        r.masterPort = 29777;
        r.peerGraceS = 60;
        r.collectiveTimeoutS = 30;
        const session::Launch l = session::buildLaunch(cli::launchRequest(r, Strategy::Zero2, {}, {}, kLocalRunner));
        QCOMPARE(l.local.masterPort, 29777);
        QCOMPARE(l.local.peerGrace.count(), 60);
        QCOMPARE(l.args, (std::vector<std::string> { "--config", "config.json", "--timeout-s", "30" }));
        r.masterPort = 70000;
        try {
            session::buildLaunch(cli::launchRequest(r, Strategy::Zero2, {}, {}, kLocalRunner));
            QFAIL("a port beyond 65535 was accepted");
        } catch (const SpecError& e) {
            QCOMPARE(e.field(), std::string("master_port"));
        }
    }

    // CUDA graphs a run cannot capture: refused for a run asked alone, by both faces in validate's
    // words; in a series (--strategy all) the offload strategies run eager and the note says so.
    void oneCudaGraphRule()
    {
        Asked offload;
        offload.strategy = Strategy::Zero3Offload;
        offload.device = DeviceKind::Cuda;
        offload.cudaGraphs = true;
        offload.warmup = 3;
        for (const bool fromCli : { true, false }) {
            try {
                const session::Launch launched = fromCli ? cliLaunch(offload) : guiLaunch(offload);
                Q_UNUSED(launched);
                QFAIL(fromCli ? "the CLI's path launched graphs it cannot capture"
                              : "the GUI's path launched graphs it cannot capture");
            } catch (const SpecError& e) {
                QCOMPARE(e.field(), std::string("training.cuda_graphs"));
                QVERIFY2(std::string(e.what()).find("cannot capture zero3_offload") != std::string::npos, e.what());
            }
        }
        cli::RunRequest series = cliRequest(offload);
        series.everyStrategy = true;
        const session::Launch eager
            = session::buildLaunch(cli::launchRequest(series, Strategy::Zero3Offload, {}, {}, kLocalRunner));
        QVERIFY(!eager.config.training.cudaGraphs);
        QVERIFY2(eager.note.find("zero3_offload runs eager") != std::string::npos, eager.note.c_str());
        const session::Launch graphed
            = session::buildLaunch(cli::launchRequest(series, Strategy::Zero2, {}, {}, kLocalRunner));
        QVERIFY(graphed.config.training.cudaGraphs);
        QVERIFY(graphed.note.empty());
    }

    // Both faces start the same run for real, each into its own SQLite store.
    void bothFacesStartTheRanksAlikeAndRecordTheNetwork()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString cliReport = dir.filePath(QStringLiteral("cli-report"));
        const QString guiReport = dir.filePath(QStringLiteral("gui-report"));
        QVERIFY(QDir().mkpath(cliReport) && QDir().mkpath(guiReport));
        const QString cliDb = dir.filePath(QStringLiteral("cli/shardwise.sqlite"));
        const QString guiDb = dir.filePath(QStringLiteral("gui/shardwise.sqlite"));
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("cli")))
                && QDir().mkpath(dir.filePath(QStringLiteral("gui"))));
        // Both faces find the runner the same way: $SHARDWISE_RUNNER.
        qputenv("SHARDWISE_RUNNER", QByteArrayLiteral(LAUNCH_FIXTURE));

        qputenv("FIXTURE_LAUNCH_REPORT", cliReport.toUtf8());
        QProcess cli;
        cli.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  { QStringLiteral("run"),
                    QStringLiteral("--local"),
                    QStringLiteral("--ranks"),
                    QStringLiteral("2"),
                    QStringLiteral("--model"),
                    QStringLiteral("tiny"),
                    QStringLiteral("--strategy"),
                    QStringLiteral("zero2"),
                    QStringLiteral("--steps"),
                    QStringLiteral("3"),
                    QStringLiteral("--warmup"),
                    QStringLiteral("1"),
                    QStringLiteral("--seq"),
                    QStringLiteral("32"),
                    QStringLiteral("--micro-batch"),
                    QStringLiteral("1"),
                    QStringLiteral("--inter-node-gbps"),
                    QStringLiteral("50"),
                    QStringLiteral("--db"),
                    cliDb });
        QVERIFY(cli.waitForFinished(120000));
        QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());

        qputenv("FIXTURE_LAUNCH_REPORT", guiReport.toUtf8());
        Asked asked;
        asked.interNodeGBps = 50.0;
        gui::RunJob job(guiDb);
        QSignalSpy finished(&job, &gui::RunJob::runFinished);
        QSignalSpy failed(&job, &gui::RunJob::runFailed);
        job.enqueue(guiRequest(asked));
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() + failed.count() > 0, 120000);
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().at(1).toString()));
        QCOMPARE(finished.front().at(2).toString(), QStringLiteral("completed"));
        qunsetenv("FIXTURE_LAUNCH_REPORT");
        qunsetenv("SHARDWISE_RUNNER");

        for (int rank : { 0, 1 }) {
            nlohmann::json a = readReport(cliReport, rank);
            nlohmann::json b = readReport(guiReport, rank);
            QVERIFY2(a.is_object() && b.is_object(), "a rank wrote no launch report");
            QCOMPARE(a.at("args").dump(), std::string(R"(["--config","config.json"])"));
            QCOMPARE(b.at("args").dump(), a.at("args").dump());
            QCOMPARE(b.at("config").dump(), a.at("config").dump());
            // The port is each launch's own free one, the launcher's pid its own process, the rendezvous
            // file its own run folder's; the report folder is the test's.
            for (nlohmann::json* report : { &a, &b }) {
                QVERIFY(std::stoi(report->at("env").at("MASTER_PORT").get<std::string>()) > 0);
                const QString rendezvous
                    = QString::fromStdString(report->at("env").at("SHARDWISE_RENDEZVOUS_FILE").get<std::string>());
                QVERIFY2(rendezvous.endsWith(QStringLiteral("/rendezvous.store")), qPrintable(rendezvous));
                report->at("env").erase("SHARDWISE_RENDEZVOUS_FILE");
                report->at("env").erase("MASTER_PORT");
                report->at("env").erase("SHARDWISE_LAUNCHER_PID");
                report->at("env").erase("FIXTURE_LAUNCH_REPORT");
            }
            QStringList differing;
            for (const auto& [key, value] : a.at("env").items())
                if (!b.at("env").contains(key) || b.at("env").at(key) != value)
                    differing << QString::fromStdString(key + "=" + value.dump());
            for (const auto& [key, value] : b.at("env").items())
                if (!a.at("env").contains(key))
                    differing << QString::fromStdString("only the app's: " + key + "=" + value.dump());
            QVERIFY2(differing.isEmpty(), qPrintable(differing.join(QStringLiteral("; "))));
        }

        for (const QString& path : { cliDb, guiDb }) {
            store::Database db = store::Database::open(path.toStdString());
            const std::vector<store::RunSummary> runs = store::listRuns(db);
            QCOMPARE(runs.size(), std::size_t(1));
            QCOMPARE(runs.front().status, store::RunStatus::Completed);
            QVERIFY2(runs.front().interNodeGBps.has_value(), qPrintable(path));
            QCOMPARE(*runs.front().interNodeGBps, 50.0);
        }
    }
};

SHARDWISE_GUI_TEST_MAIN(TestLaunchParity)
#include "test_launch_parity.moc"
