// Run sessions end to end: real ranks on two "nodes" (127.0.0.2 and 127.0.0.3 of a real sshd on
// loopback), recorded into a real SQLite store file, concluded with a status and, for a failure, a
// stored diagnosis. The launch mechanics use sshd/fake_rank.sh; the CPU runs use the real
// shardwise-runner, through core/session directly and through `shardwise-cli run --node`.

#include "sshd/sshd_fixture.hpp"

#include "shardwise/session/remote_run_json.hpp"
#include "shardwise/session/run_session.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/nodes.hpp"
#include "shardwise/store/remote_follow.hpp"
#include "shardwise/store/run_recorder.hpp"
#include "shardwise/store/runs.hpp"

#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <csignal>
#include <nlohmann/json.hpp>
#include <set>

using namespace shardwise;
using shardwise::testing::SshdFixture;

namespace {
const std::string kFakeRank = std::string(SHARDWISE_SOURCE_DIR) + "/tests/dispatch/sshd/fake_rank.sh";
const std::string kRunner = std::string(SHARDWISE_BINARY_DIR) + "/bin/shardwise-runner";

// Why the CLI tests cannot run in this build, or null.
const char* cliAndRunnerMissing()
{
    if (QStringLiteral(SHARDWISE_CLI).isEmpty())
        return "shardwise-cli is not part of this build";
    if (!QFileInfo::exists(QString::fromStdString(kRunner)))
        return "shardwise-runner is not built in this build tree (configure with SHARDWISE_BUILD_RUNNER=ON and build "
               "it)";
    return nullptr;
}

RunConfig tinyCpuRun(int world)
{
    RunConfig c;
    c.model = resolveModel("tiny");
    c.strategy = Strategy::Zero2;
    c.device = DeviceKind::Cpu;
    c.worldSize = world;
    c.warmupSteps = 1;
    c.timedSteps = 2;
    c.training.seqLen = 32;
    c.training.microBatch = 1;
    return c;
}
} // namespace

class TestRunSession : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<SshdFixture> m_sshd;
    std::vector<std::unique_ptr<dispatch::SshSession>> m_sessions;
    QTemporaryDir m_dir;

    std::vector<dispatch::SshSession*> connect()
    {
        m_sessions = m_sshd->connectEach();
        std::vector<dispatch::SshSession*> raw;
        for (const auto& s : m_sessions)
            raw.push_back(s.get());
        return raw;
    }

    std::string storePath() const { return m_dir.filePath(QStringLiteral("runs.sqlite")).toStdString(); }

    session::RemoteTarget twoNodes(const std::string& runner, int ranksPerNode)
    {
        session::RemoteTarget target;
        target.sessions = connect();
        target.nodeNames = { "node-a", "node-b" };
        // Gloo picks the interface its peers reach; both "nodes" are on loopback here.
        target.launch.nodes = { { runner, ranksPerNode, "127.0.0.2", { { "GLOO_SOCKET_IFNAME", "lo" } } },
                                { runner, ranksPerNode, "127.0.0.3", { { "GLOO_SOCKET_IFNAME", "lo" } } } };
        target.launch.masterPort = dispatch::findFreePort();
        target.launch.runRoot = m_sshd->path(QStringLiteral("runs")).toStdString();
        target.follow.pollInterval = std::chrono::milliseconds(300);
        target.follow.timeout = std::chrono::seconds(300);
        return target;
    }

    session::SessionOptions recordInto(store::Database& db) const
    {
        session::SessionOptions options;
        options.db = &db;
        options.origin.launcher = "shardwise";
        options.origin.nodes = { { "node-a", std::nullopt }, { "node-b", std::nullopt } };
        return options;
    }

    static void verifyCompletedTwoRankRun(const store::Database& db, std::int64_t runId, const RunConfig& config)
    {
        const auto detail = store::runDetail(db, runId);
        QVERIFY(detail);
        QCOMPARE(QString::fromStdString(std::string(store::runStatusId(detail->summary.status))),
                 QStringLiteral("completed"));
        QCOMPARE(detail->summary.worldSize, 2);
        QCOMPARE(detail->summary.nodeCount, 2);
        QVERIFY(detail->summary.tokensPerS.has_value() && *detail->summary.tokensPerS > 0);
        QCOMPARE(detail->rankSummaries.size(), std::size_t(2));
        QVERIFY(detail->errors.empty());
        QVERIFY(!detail->versions.runner.empty());
        // Every step of every rank, warm-up included, is in the store.
        const int steps = config.warmupSteps + config.timedSteps;
        for (int rank = 0; rank < 2; ++rank) {
            const auto series = store::stepSeries(db, runId, rank);
            QCOMPARE(static_cast<int>(series.size()), steps);
            std::set<int> seen;
            for (const auto& s : series)
                seen.insert(s.step);
            QCOMPARE(static_cast<int>(seen.size()), steps);
        }
        QCOMPARE(detail->ranks.size(), std::size_t(2));
    }

    // The two "nodes" in the store's node registry, as the Nodes page would add and prepare them.
    void registerNodes() const
    {
        store::Database db = store::Database::open(storePath());
        for (const auto& [name, host] : { std::pair { "node-a", "127.0.0.2" }, std::pair { "node-b", "127.0.0.3" } }) {
            store::Node node;
            node.name = name;
            node.kind = store::NodeKind::Ssh;
            node.host = host;
            node.port = m_sshd->port();
            node.user = m_sshd->userName();
            node.auth = store::SshAuth::KeyFile;
            node.keyFile = m_sshd->keyCredentials().keyFile.string();
            // What the Nodes page's Prepare records: the runner it built on the node.
            node.facts = { { "prepared_runner", { { "path", kRunner } } } };
            store::addNode(db, node);
        }
    }

    QStringList sshAndStoreFlags() const
    {
        const dispatch::SshOptions ssh = m_sshd->options();
        return { QStringLiteral("--known-hosts"),
                 QString::fromStdString(ssh.knownHosts.app.string()),
                 QStringLiteral("--user-known-hosts"),
                 QString::fromStdString(ssh.knownHosts.user.string()),
                 QStringLiteral("--db"),
                 QString::fromStdString(storePath()) };
    }

private slots:
    void init()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QVERIFY(m_dir.isValid());
        QFile::remove(QString::fromStdString(storePath()));
        m_sshd
            = std::make_unique<SshdFixture>(QStringList { QStringLiteral("127.0.0.2"), QStringLiteral("127.0.0.3") });
        const QString error = m_sshd->start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        m_sshd->trustHostKey();
    }
    void cleanup()
    {
        m_sessions.clear();
        m_sshd.reset();
    }

    void twoNodeCpuRunOverSshLandsInTheStoreCompleted()
    {
        if (!QFileInfo::exists(QString::fromStdString(kRunner)))
            QSKIP("shardwise-runner is not built in this build tree (configure with SHARDWISE_BUILD_RUNNER=ON and "
                  "build it)");
        store::Database db = store::Database::open(storePath());
        const RunConfig config = tinyCpuRun(2);
        std::optional<std::int64_t> announced;
        std::string remoteDir;
        session::SessionCallbacks callbacks;
        callbacks.onRecorded = [&](std::int64_t id) { announced = id; };
        callbacks.onRemoteStarted = [&](const dispatch::RemoteRun& run) { remoteDir = run.runDir; };
        const session::SessionResult result
            = session::runRemote(config, twoNodes(kRunner, 1), recordInto(db), callbacks);
        QVERIFY2(result.outcome.ok(), result.outcome.reason.c_str());
        QVERIFY(result.runId && announced == result.runId);
        QVERIFY(result.storedStatus == store::RunStatus::Completed);
        QVERIFY(!result.diagnosis);
        QVERIFY(result.storeProblem.empty());
        // The runner read the config the session wrote into the run folder on each node.
        QVERIFY(QFileInfo::exists(QString::fromStdString(remoteDir + "/config.json")));
        verifyCompletedTwoRankRun(db, *result.runId, config);
        const auto stored = store::findRun(db, *result.runId);
        QCOMPARE(stored->nodes, (std::vector<std::string> { "node-a", "node-b" }));
    }

    void failingRanksAreRecordedFailedWithADiagnosis()
    {
        store::Database db = store::Database::open(storePath());
        session::RemoteTarget target = twoNodes(kFakeRank, 1);
        target.launch.args = { "2", "0", "2" }; // two steps, then exit code 2 on every rank
        const session::SessionResult result = session::runRemote(tinyCpuRun(2), std::move(target), recordInto(db));
        QVERIFY(!result.outcome.ok());
        QVERIFY(result.storedStatus == store::RunStatus::Failed);
        QVERIFY(result.diagnosis);
        QVERIFY(result.diagnosisId);
        const auto stored = store::diagnoses(db, *result.runId);
        QCOMPARE(stored.size(), std::size_t(1));
        QVERIFY(!stored.front().code.empty());
        // The ranks' stderr lines arrived in the store as they were written.
        const auto logs = store::rankLogs(db, *result.runId);
        int stderrLines = 0;
        for (const auto& line : logs)
            stderrLines += line.stream == "stderr" ? 1 : 0;
        QCOMPARE(stderrLines, 4);
        QCOMPARE(QString::fromStdString(std::string(store::runStatusId(store::findRun(db, *result.runId)->status))),
                 QStringLiteral("failed"));
    }

    void cancelStopsEveryRankAndIsRecordedCancelled()
    {
        store::Database db = store::Database::open(storePath());
        session::RemoteTarget target = twoNodes(kFakeRank, 1);
        target.launch.args = { "1000", "0.2", "0" };
        std::atomic<bool> cancel { false };
        std::set<int> ranksSeen;
        session::SessionCallbacks callbacks;
        callbacks.onEvent = [&](const protocol::Event& e) {
            ranksSeen.insert(protocol::eventRank(e));
            if (ranksSeen.size() == 2)
                cancel = true;
        };
        QElapsedTimer clock;
        clock.start();
        const session::SessionResult result
            = session::runRemote(tinyCpuRun(2), std::move(target), recordInto(db), callbacks, &cancel);
        QVERIFY2(clock.elapsed() < 90000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(result.outcome.status, dispatch::RunStatus::Cancelled);
        QVERIFY(result.storedStatus == store::RunStatus::Cancelled);
        QVERIFY(!result.diagnosis); // a cancel is the user's doing, not a failure to explain
        for (const auto& r : result.outcome.ranks)
            QCOMPARE(r.signal, SIGTERM);
    }

    void droppedConnectionKeepsTheRunDetachedAndReattachFinishesIt()
    {
        if (!QFileInfo::exists(QString::fromStdString(kRunner)))
            QSKIP("shardwise-runner is not built in this build tree (configure with SHARDWISE_BUILD_RUNNER=ON and "
                  "build it)");
        store::Database db = store::Database::open(storePath());
        RunConfig config = tinyCpuRun(2);
        config.timedSteps = 1500; // tiny CPU steps take milliseconds: long enough to lose the nodes mid-run
        bool dropped = false;
        session::SessionCallbacks callbacks;
        // Both nodes' SSH servers go away once rank 0 reported a step (a network outage, a laptop
        // asleep): every connection of the follower breaks while the ranks run on.
        callbacks.onEvent = [&](const protocol::Event& e) {
            if (!dropped && std::holds_alternative<protocol::StepEvent>(e)) {
                dropped = true;
                m_sshd->stop();
            }
        };
        const session::SessionResult result
            = session::runRemote(config, twoNodes(kRunner, 1), recordInto(db), callbacks);
        QVERIFY(dropped);
        QVERIFY2(result.detached, result.outcome.reason.c_str());
        QVERIFY(result.lost);
        QVERIFY2(result.outcome.reason.find("the connection to 'node-a', 'node-b' was lost") != std::string::npos,
                 result.outcome.reason.c_str());
        QVERIFY(!result.storedStatus);
        QVERIFY(result.runId);
        const std::int64_t id = *result.runId;
        QCOMPARE(store::findRun(db, id)->status, store::RunStatus::Detached);
        QCOMPARE(store::findRun(db, id)->note, result.outcome.reason); // the history says why
        QVERIFY(store::findRemoteFollow(db, id));
        QVERIFY2(static_cast<int>(store::stepSeries(db, id).size()) < 2 * (config.warmupSteps + config.timedSteps),
                 "the nodes were not lost mid-run");

        // The nodes answer again: the run is followed to its end into the same run, every step once.
        const QString restarted = m_sshd->start();
        QVERIFY2(restarted.isEmpty(), qPrintable(restarted));
        session::AttachTarget attach;
        attach.sessions = connect();
        attach.nodeNames = { "node-a", "node-b" };
        attach.follow.pollInterval = std::chrono::milliseconds(200);
        const session::SessionResult again = session::reattachRemote(id, std::move(attach), recordInto(db));
        QVERIFY2(again.outcome.ok(), again.outcome.reason.c_str());
        QVERIFY(again.storedStatus == store::RunStatus::Completed);
        verifyCompletedTwoRankRun(db, id, config);
    }

    void unreachableRunDirectoryFailsBeforeAnyRankStarts()
    {
        store::Database db = store::Database::open(storePath());
        session::RemoteTarget target = twoNodes(kFakeRank, 1);
        target.launch.runRoot = "/proc/shardwise-cannot-create-this";
        target.launch.args = { "1", "0", "0" };
        const session::SessionResult result = session::runRemote(tinyCpuRun(2), std::move(target), recordInto(db));
        QCOMPARE(result.outcome.status, dispatch::RunStatus::Failed);
        QVERIFY2(result.outcome.reason.find("could not start the ranks") != std::string::npos,
                 result.outcome.reason.c_str());
        QVERIFY(result.storedStatus == store::RunStatus::Failed);
        QCOMPARE(store::findRun(db, *result.runId)->note, result.outcome.reason);
    }

    void cliRunOnStoredSshNodesRecordsIntoTheStore()
    {
        if (QStringLiteral(SHARDWISE_CLI).isEmpty())
            QSKIP("shardwise-cli is not part of this build");
        if (!QFileInfo::exists(QString::fromStdString(kRunner)))
            QSKIP("shardwise-runner is not built in this build tree (configure with SHARDWISE_BUILD_RUNNER=ON and "
                  "build it)");
        registerNodes();
        const dispatch::SshOptions ssh = m_sshd->options();
        QProcess cli;
        cli.setProcessChannelMode(QProcess::SeparateChannels);
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  { QStringLiteral("run"),
                    QStringLiteral("--node"),
                    QStringLiteral("node-a,node-b"),
                    QStringLiteral("--model"),
                    QStringLiteral("tiny"),
                    QStringLiteral("--strategy"),
                    QStringLiteral("fsdp2_reshard"),
                    QStringLiteral("--steps"),
                    QStringLiteral("2"),
                    QStringLiteral("--warmup"),
                    QStringLiteral("1"),
                    QStringLiteral("--seq"),
                    QStringLiteral("32"),
                    QStringLiteral("--rank-env"),
                    QStringLiteral("GLOO_SOCKET_IFNAME=lo"),
                    QStringLiteral("--master-port"),
                    QString::number(dispatch::findFreePort()),
                    QStringLiteral("--run-root"),
                    m_sshd->path(QStringLiteral("cli-runs")),
                    QStringLiteral("--known-hosts"),
                    QString::fromStdString(ssh.knownHosts.app.string()),
                    QStringLiteral("--user-known-hosts"),
                    QString::fromStdString(ssh.knownHosts.user.string()),
                    QStringLiteral("--db"),
                    QString::fromStdString(storePath()),
                    QStringLiteral("--format"),
                    QStringLiteral("json") });
        QVERIFY(cli.waitForFinished(300000));
        const QByteArray err = cli.readAllStandardError();
        QCOMPARE(cli.exitCode(), 0);
        QVERIFY2(err.contains("recorded as run"), err.constData());
        store::Database db = store::Database::open(storePath());
        const auto runs = store::listRuns(db);
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs.front().strategy, Strategy::Fsdp2Reshard);
        QCOMPARE(runs.front().nodes, (std::vector<std::string> { "node-a", "node-b" }));
        verifyCompletedTwoRankRun(db, runs.front().id, tinyCpuRun(2));
    }

    // A torch config on SSH nodes prepared with the native runner starts the PyTorch harness beside
    // it on every node (two CPU ranks of DDP on two loopback "nodes"), recorded as a torch run.
    void torchRunOverSshStartsTheHarnessBesideThePreparedRunner()
    {
        if (const char* why = torchMissing())
            QSKIP(why);
        store::Database db = store::Database::open(storePath());
        RunConfig config = tinyCpuRun(2);
        config.strategy = Strategy::Zero0;
        config.backend = RunBackend::Torch;
        const session::SessionResult result = session::runRemote(config, twoNodes(kRunner, 1), recordInto(db));
        QVERIFY2(result.outcome.ok(),
                 (result.outcome.reason + "\n"
                  + (result.outcome.ranks.empty() ? std::string() : result.outcome.ranks[0].logTail))
                     .c_str());
        verifyCompletedTwoRankRun(db, *result.runId, config);
        const auto detail = store::runDetail(db, *result.runId);
        QCOMPARE(detail->summary.backend, RunBackend::Torch);
        QCOMPARE(detail->versions.backend, std::string("torch"));
        QVERIFY(!detail->versions.torch.empty());
    }

    // `run --node ... --backend torch` asks each node before any rank starts: a node whose prepared
    // runner has no harness beside it is refused by name, and a prepared one runs and is recorded.
    void cliTorchRunOnSshNodesChecksTheNodesFirst()
    {
        if (QStringLiteral(SHARDWISE_CLI).isEmpty())
            QSKIP("shardwise-cli is not part of this build");
        registerNodes();
        {
            store::Database db = store::Database::open(storePath());
            store::Node bare;
            bare.name = "bare";
            bare.kind = store::NodeKind::Ssh;
            bare.host = "127.0.0.2";
            bare.port = m_sshd->port();
            bare.user = m_sshd->userName();
            bare.auth = store::SshAuth::KeyFile;
            bare.keyFile = m_sshd->keyCredentials().keyFile.string();
            bare.facts
                = { { "prepared_runner",
                      { { "path", m_sshd->path(QStringLiteral("old-build/bin/shardwise-runner")).toStdString() } } } };
            store::addNode(db, bare);
        }
        const auto runCli = [&](const QString& nodes, int timeoutMs) {
            QProcess cli;
            cli.start(QStringLiteral(SHARDWISE_CLI),
                      QStringList { QStringLiteral("run"),
                                    QStringLiteral("--node"),
                                    nodes,
                                    QStringLiteral("--backend"),
                                    QStringLiteral("torch"),
                                    QStringLiteral("--model"),
                                    QStringLiteral("tiny"),
                                    QStringLiteral("--strategy"),
                                    QStringLiteral("zero0"),
                                    QStringLiteral("--steps"),
                                    QStringLiteral("2"),
                                    QStringLiteral("--warmup"),
                                    QStringLiteral("1"),
                                    QStringLiteral("--seq"),
                                    QStringLiteral("32"),
                                    QStringLiteral("--rank-env"),
                                    QStringLiteral("GLOO_SOCKET_IFNAME=lo"),
                                    QStringLiteral("--master-port"),
                                    QString::number(dispatch::findFreePort()),
                                    QStringLiteral("--run-root"),
                                    m_sshd->path(QStringLiteral("cli-runs")) }
                          + sshAndStoreFlags());
            cli.waitForFinished(timeoutMs);
            return std::pair { cli.exitCode(), QString::fromUtf8(cli.readAllStandardError()) };
        };
        const auto [refusedCode, refused] = runCli(QStringLiteral("bare"), 120000);
        QCOMPARE(refusedCode, 1);
        QVERIFY2(refused.contains(QStringLiteral("--backend torch: node 'bare' cannot run the torch backend")),
                 qPrintable(refused));
        QVERIFY2(refused.contains(QStringLiteral("old-build/bin/shardwise-torch-runner is not on the node")),
                 qPrintable(refused));
        QVERIFY(store::listRuns(store::Database::open(storePath())).empty());

        if (const char* why = torchMissing())
            QSKIP(why);
        const auto [code, err] = runCli(QStringLiteral("node-a,node-b"), 300000);
        QVERIFY2(code == 0, qPrintable(err));
        store::Database db = store::Database::open(storePath());
        const auto runs = store::listRuns(db);
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs.front().backend, RunBackend::Torch);
        QCOMPARE(runs.front().strategy, Strategy::Zero0);
    }

private:
    // Why the torch backend cannot run here (no harness beside the runner, no python3 that imports
    // torch where the harness looks), or null.
    static const char* torchMissing()
    {
        if (!QFileInfo::exists(QString::fromStdString(kRunner))
            || !QFileInfo::exists(QStringLiteral(SHARDWISE_BINARY_DIR "/bin/shardwise-torch-runner")))
            return "shardwise-runner or shardwise-torch-runner is not built in this build tree";
        for (const QString& python : { QStringLiteral("python3"), QStringLiteral("/usr/bin/python3") }) {
            QProcess p;
            p.start(python, { QStringLiteral("-c"), QStringLiteral("import torch") });
            if (p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0)
                return nullptr;
        }
        return "python3 cannot import torch here (Debian: python3-torch); the torch backend cannot run";
    }

    // `shardwise-cli run --node node-a,node-b --detach-on-interrupt` with Ctrl-C once rank 0 reported
    // its first step: the run is left detached mid-run. Sets `id` to the run, `recordedBeforeDetach` to
    // rank 0's steps in the store then, `err` to what the CLI printed.
    void detachCliRunMidway(const RunConfig& config, std::int64_t& id, int& recordedBeforeDetach, QByteArray& err)
    {
        QProcess run;
        run.setProcessChannelMode(QProcess::SeparateChannels);
        run.start(QStringLiteral(SHARDWISE_CLI),
                  QStringList { QStringLiteral("run"),
                                QStringLiteral("--node"),
                                QStringLiteral("node-a,node-b"),
                                QStringLiteral("--model"),
                                QStringLiteral("tiny"),
                                QStringLiteral("--strategy"),
                                QStringLiteral("zero2"),
                                QStringLiteral("--steps"),
                                QString::number(config.timedSteps),
                                QStringLiteral("--warmup"),
                                QStringLiteral("1"),
                                QStringLiteral("--seq"),
                                QStringLiteral("32"),
                                QStringLiteral("--rank-env"),
                                QStringLiteral("GLOO_SOCKET_IFNAME=lo"),
                                QStringLiteral("--master-port"),
                                QString::number(dispatch::findFreePort()),
                                QStringLiteral("--run-root"),
                                m_sshd->path(QStringLiteral("cli-runs")),
                                QStringLiteral("--detach-on-interrupt") }
                      + sshAndStoreFlags());
        QVERIFY(run.waitForStarted(30000));
        QElapsedTimer clock;
        clock.start();
        while (!err.contains("step 1/") && clock.elapsed() < 120000 && run.state() == QProcess::Running) {
            run.waitForReadyRead(1000);
            err += run.readAllStandardError();
        }
        QVERIFY2(err.contains("step 1/"), err.constData());
        ::kill(static_cast<pid_t>(run.processId()), SIGINT);
        QVERIFY(run.waitForFinished(120000));
        err += run.readAllStandardError();
        QCOMPARE(run.exitCode(), 1);
        QVERIFY2(err.contains("detached from run"), err.constData());
        store::Database db = store::Database::open(storePath());
        const auto runs = store::listRuns(db);
        QVERIFY(!runs.empty());
        const auto newest
            = std::max_element(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
        id = newest->id;
        QCOMPARE(newest->status, store::RunStatus::Detached);
        QVERIFY2(static_cast<int>(store::stepSeries(db, id).size()) < 2 * (config.warmupSteps + config.timedSteps),
                 "the run was not detached mid-run");
        recordedBeforeDetach = 0;
        for (const protocol::StepEvent& step : store::stepSeries(db, id))
            if (step.rank == 0)
                recordedBeforeDetach = std::max(recordedBeforeDetach, step.step + 1);
    }

private slots:
    void cliDetachesOnInterruptAndRunsAttachFollowsToTheEnd()
    {
        if (const char* why = cliAndRunnerMissing())
            QSKIP(why);
        registerNodes();
        RunConfig config = tinyCpuRun(2);
        config.timedSteps = 1500; // tiny CPU steps take milliseconds: long enough to interrupt mid-run
        std::int64_t id = 0;
        int recordedBeforeDetach = 0;
        QByteArray err;
        detachCliRunMidway(config, id, recordedBeforeDetach, err);
        if (QTest::currentTestFailed())
            return;
        QVERIFY2(err.contains(QByteArray("shardwise-cli runs attach ") + QByteArray::number(static_cast<qint64>(id))),
                 err.constData());
        QProcess listed;
        listed.start(QStringLiteral(SHARDWISE_CLI),
                     { QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--status"),
                       QStringLiteral("detached"), QStringLiteral("--db"), QString::fromStdString(storePath()) });
        QVERIFY(listed.waitForFinished(60000));
        QVERIFY2(listed.readAllStandardOutput().contains("detached"), "runs list does not show the run as detached");

        QProcess attach;
        attach.setProcessChannelMode(QProcess::SeparateChannels);
        attach.start(QStringLiteral(SHARDWISE_CLI),
                     QStringList { QStringLiteral("runs"), QStringLiteral("attach"), QString::number(id) }
                         + sshAndStoreFlags());
        QVERIFY(attach.waitForFinished(300000));
        const QByteArray attachOut = attach.readAllStandardOutput();
        const QByteArray attachErr = attach.readAllStandardError();
        QCOMPARE(attach.exitCode(), 0);
        // Progress goes on from the steps recorded before the detach, and says so.
        QVERIFY(recordedBeforeDetach > 0);
        const QByteArray resumed = QByteArray::number(recordedBeforeDetach) + " of "
            + QByteArray::number(config.warmupSteps + config.timedSteps) + " steps were recorded before the detach";
        QVERIFY2(attachErr.contains(resumed), attachErr.constData());
        QVERIFY2(attachOut.contains("completed"), attachOut.constData());
        {
            store::Database db = store::Database::open(storePath());
            verifyCompletedTwoRankRun(db, id, config);
            QCOMPARE(store::listRuns(db).size(), std::size_t(1));
        }

        QProcess again;
        again.start(QStringLiteral(SHARDWISE_CLI),
                    QStringList { QStringLiteral("runs"), QStringLiteral("attach"), QString::number(id) }
                        + sshAndStoreFlags());
        QVERIFY(again.waitForFinished(60000));
        QCOMPARE(again.exitCode(), 2);
        const QByteArray refused = again.readAllStandardError();
        QVERIFY2(refused.contains("already finished (completed)"), refused.constData());
    }

    void cliAbandonStopsTheRanksOfADetachedRun()
    {
        if (const char* why = cliAndRunnerMissing())
            QSKIP(why);
        registerNodes();
        RunConfig config = tinyCpuRun(2);
        config.timedSteps = 100'000; // runs until it is stopped
        std::int64_t id = 0;
        int recordedBeforeDetach = 0;
        QByteArray err;
        detachCliRunMidway(config, id, recordedBeforeDetach, err);
        if (QTest::currentTestFailed())
            return;
        // The ranks go on after the detach; their pid files are in the run directory of the handle.
        std::vector<int> pids;
        {
            store::Database db = store::Database::open(storePath());
            const auto kept = store::findRemoteFollow(db, id);
            QVERIFY(kept);
            pids = testing::rankPidsIn(session::remoteRunFromJson(nlohmann::json::parse(kept->handleJson)).runDir);
        }
        QCOMPARE(pids.size(), std::size_t(2));
        for (const int pid : pids)
            QVERIFY2(testing::processRuns(pid), "a rank of the detached run is not running");

        QProcess abandon;
        abandon.start(QStringLiteral(SHARDWISE_CLI),
                      QStringList { QStringLiteral("runs"), QStringLiteral("abandon"), QString::number(id),
                                    QStringLiteral("--reason"), QStringLiteral("no longer needed") }
                          + sshAndStoreFlags());
        QVERIFY(abandon.waitForFinished(120000));
        const QByteArray out = abandon.readAllStandardOutput();
        QVERIFY2(abandon.exitCode() == 0, abandon.readAllStandardError().constData());
        QVERIFY2(out.contains("node-a: ranks still running in"), out.constData());
        QVERIFY2(out.contains("node-b: ranks still running in"), out.constData());
        QVERIFY2(!out.contains("not reached"), out.constData());
        // Stopped: SIGTERM, SIGKILL after the grace.
        for (const int pid : pids)
            QTRY_VERIFY2_WITH_TIMEOUT(!testing::processRuns(pid), "a rank still runs after abandon", 30000);
        store::Database db = store::Database::open(storePath());
        const auto run = store::findRun(db, id);
        QCOMPARE(run->status, store::RunStatus::Lost);
        QVERIFY2(run->note.find(
                     "abandoned while detached: no longer needed; ranks still running were stopped on node-a, node-b")
                     != std::string::npos,
                 run->note.c_str());
        QVERIFY(!store::findRemoteFollow(db, id));
    }

    void cliAttachRefusesARunThatIsNotRemote()
    {
        if (QStringLiteral(SHARDWISE_CLI).isEmpty())
            QSKIP("shardwise-cli is not part of this build");
        std::int64_t id = 0;
        {
            store::Database db = store::Database::open(storePath());
            store::RunOrigin origin;
            origin.nodes = { { "local", std::nullopt } };
            store::RunRecorder left(db, tinyCpuRun(2), origin);
            left.leaveRunning(); // a local run whose recorder stopped: interrupted, never re-attachable
            id = left.runId();
        }
        for (const auto& [runId, expected] : { std::pair { id, QByteArray("was not started on SSH nodes") },
                                               std::pair { id + 1, QByteArray("there is no run") } }) {
            QProcess attach;
            attach.start(QStringLiteral(SHARDWISE_CLI),
                         { QStringLiteral("runs"), QStringLiteral("attach"), QString::number(runId),
                           QStringLiteral("--db"), QString::fromStdString(storePath()) });
            QVERIFY(attach.waitForFinished(60000));
            QCOMPARE(attach.exitCode(), 2);
            const QByteArray err = attach.readAllStandardError();
            QVERIFY2(err.contains(expected), err.constData());
        }
    }

    void cliRefusesAnUnknownNodeByName()
    {
        if (QStringLiteral(SHARDWISE_CLI).isEmpty())
            QSKIP("shardwise-cli is not part of this build");
        QProcess cli;
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  { QStringLiteral("run"), QStringLiteral("--node"), QStringLiteral("nowhere"),
                    QStringLiteral("--model"), QStringLiteral("tiny"), QStringLiteral("--strategy"),
                    QStringLiteral("zero1"), QStringLiteral("--db"), QString::fromStdString(storePath()) });
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 1);
        const QByteArray err = cli.readAllStandardError();
        QVERIFY2(err.contains("no node named 'nowhere'"), err.constData());
    }
};

QTEST_GUILESS_MAIN(TestRunSession)
#include "test_run_session.moc"
