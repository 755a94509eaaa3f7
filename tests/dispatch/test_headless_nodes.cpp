// The headless workflow from the CLI alone, against real sshd instances on loopback: a node added as
// an ssh config alias reached through a bastion (ProxyJump), prepared, a CPU run on it detached
// mid-run, followed again with `runs attach`, detached again and abandoned; the node's NCCL setting
// reaches its ranks and is recorded with the run. Every step through the real shardwise-cli binary.
#include "sshd/sshd_fixture.hpp"

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/node.hpp"
#include "shardwise/session/prepared_runner.hpp"
#include "shardwise/session/remote_run_json.hpp"
#include "shardwise/store/nodes.hpp"
#include "shardwise/store/remote_follow.hpp"
#include "shardwise/store/runs.hpp"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <csignal>

using namespace shardwise;
using shardwise::testing::SshdFixture;

namespace {

const QString kRunner = QStringLiteral(SHARDWISE_BINARY_DIR "/bin/shardwise-runner");

void writeText(const QString& path, const QString& text)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY2(f.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
    f.write(text.toUtf8());
}

QString hostBlock(const QString& alias, const SshdFixture& sshd, const QString& address, const QString& extra = {})
{
    return QStringLiteral("Host %1\n  HostName %2\n  Port %3\n  IdentityFile %4\n%5\n")
        .arg(alias, address)
        .arg(sshd.port())
        .arg(sshd.path(QStringLiteral("user_key")), extra);
}

struct CliResult {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

} // namespace

class TestHeadlessNodes : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<SshdFixture> m_bastion;
    std::unique_ptr<SshdFixture> m_target;
    QString m_config;

    QString storePath() const { return m_dir.filePath(QStringLiteral("runs.sqlite")); }

    // The ssh config and the store come from the environment, as a user's shell would set them; no
    // agent, so the config's IdentityFile logs in (on the bastion too).
    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("SSH_AUTH_SOCK"));
        env.insert(QStringLiteral("SHARDWISE_SSH_CONFIG"), m_config);
        env.insert(QStringLiteral("SHARDWISE_DB"), storePath());
        return env;
    }

    QStringList knownHostsFlags() const
    {
        const auto o = m_target->options();
        return { QStringLiteral("--known-hosts"), QString::fromStdString(o.knownHosts.app.string()),
                 QStringLiteral("--user-known-hosts"), QString::fromStdString(o.knownHosts.user.string()) };
    }

    void startCli(QProcess& p, const QStringList& args) const
    {
        p.setProcessEnvironment(environment());
        p.setProcessChannelMode(QProcess::SeparateChannels);
        p.start(QStringLiteral(SHARDWISE_CLI), args);
    }

    CliResult cli(const QStringList& args, int timeoutMs = 120000) const
    {
        QProcess p;
        startCli(p, args);
        CliResult r;
        if (!p.waitForFinished(timeoutMs))
            return r;
        r.exitCode = p.exitCode();
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        return r;
    }

    // Reads stderr until `needle` shows (or the process ends), then sends SIGINT and waits.
    static QByteArray interruptAfter(QProcess& p, const QByteArray& needle)
    {
        QByteArray err;
        QElapsedTimer clock;
        clock.start();
        while (!err.contains(needle) && clock.elapsed() < 180000 && p.state() == QProcess::Running) {
            p.waitForReadyRead(1000);
            err += p.readAllStandardError();
        }
        if (err.contains(needle))
            ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        p.waitForFinished(120000);
        return err + p.readAllStandardError();
    }

    // A source tree with the entries a runner bundle holds, whose shardwise-runner target is this
    // build's runner: the upload, verification, remote configure and build of a preparation run for
    // real in seconds, and the prepared runner trains for real.
    QString standInSources() const
    {
        const QString root = m_dir.filePath(QStringLiteral("sources"));
        writeText(root + QStringLiteral("/CMakeLists.txt"),
                  QStringLiteral(
                      "cmake_minimum_required(VERSION 3.16)\nproject(StandInRunner NONE)\n"
                      "option(SHARDWISE_BUILD_APP \"unused\" ON)\noption(SHARDWISE_BUILD_TESTS \"unused\" ON)\n"
                      "add_custom_target(shardwise-runner ALL\n"
                      "  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/bin\n"
                      "  COMMAND ${CMAKE_COMMAND} -E create_symlink %1 ${CMAKE_BINARY_DIR}/bin/shardwise-runner)\n")
                      .arg(kRunner));
        writeText(root + QStringLiteral("/CMakePresets.json"), QStringLiteral("{\"version\": 3}\n"));
        for (const char* file :
             { "core/CMakeLists.txt", "core/spec/README", "core/protocol/README", "runner/CMakeLists.txt",
               "resources/presets/README", "app/CMakeLists.txt", "bench/CMakeLists.txt" })
            writeText(root + QLatin1Char('/') + QLatin1String(file), QStringLiteral("# stand-in\n"));
        return root;
    }

private slots:
    void init()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        if (!QFileInfo::exists(kRunner))
            QSKIP("shardwise-runner is not built in this build tree");
        if (!dispatch::discoverLocalNode().canBuildRunner())
            QSKIP("this machine lacks cmake, a compiler or LibTorch, which node preparation checks for");
        QVERIFY(m_dir.isValid());
        QFile::remove(storePath());
        m_bastion = std::make_unique<SshdFixture>();
        m_target = std::make_unique<SshdFixture>(QStringList { QStringLiteral("127.0.0.2") });
        for (SshdFixture* s : { m_bastion.get(), m_target.get() }) {
            const QString error = s->start();
            QVERIFY2(error.isEmpty(), qPrintable(error));
        }
        m_config = m_dir.filePath(QStringLiteral("ssh_config"));
        writeText(m_config,
                  hostBlock(QStringLiteral("bastion"), *m_bastion, QStringLiteral("127.0.0.1"))
                      + hostBlock(QStringLiteral("gpu"), *m_target, QStringLiteral("127.0.0.2"),
                                  QStringLiteral("  User %1\n  ProxyJump bastion")
                                      .arg(QString::fromStdString(m_target->userName()))));
    }
    void cleanup()
    {
        m_target.reset();
        m_bastion.reset();
    }

    void badNodesAreNamedErrorsAndNothingIsStored()
    {
        const QString db = storePath();
        struct Case {
            QStringList args;
            QByteArray named;
        };
        const QList<Case> cases {
            { { QStringLiteral("box"), QStringLiteral("--host"), QStringLiteral("bastion") },
              "node.user" }, // the config gives no User
            { { QStringLiteral("box"), QStringLiteral("--host"), QStringLiteral("gpu"), QStringLiteral("--nccl-env"),
                QStringLiteral("RANK=1") },
              "node.nccl_env" },
            { { QStringLiteral("box"), QStringLiteral("--host"), QStringLiteral("gpu"), QStringLiteral("--nccl-env"),
                QStringLiteral("NCCL_X") },
              "--nccl-env" },
            { { QStringLiteral("box"), QStringLiteral("--host"), QStringLiteral("gpu"), QStringLiteral("--port"),
                QStringLiteral("0") },
              "--port" },
            { { QStringLiteral("--host"), QStringLiteral("gpu") }, "NAME" },
            { { QStringLiteral("box"), QStringLiteral("--host"), QStringLiteral("gpu"), QStringLiteral("--ssh-config"),
                m_dir.filePath(QStringLiteral("missing")) },
              "--ssh-config" },
        };
        for (const Case& c : cases) {
            const CliResult r = cli(QStringList { QStringLiteral("nodes"), QStringLiteral("add") } + c.args);
            QVERIFY2(r.exitCode == 2,
                     qPrintable(c.args.join(QLatin1Char(' ')) + QStringLiteral(": ") + QString::fromUtf8(r.err)));
            QVERIFY2(r.err.contains(c.named), r.err.constData());
        }
        const CliResult listed
            = cli({ QStringLiteral("nodes"), QStringLiteral("list"), QStringLiteral("--format=json") });
        QCOMPARE(listed.exitCode, 0);
        QCOMPARE(nlohmann::json::parse(listed.out.toStdString()).size(), std::size_t(0));
        Q_UNUSED(db);
    }

    // nodes test NAME of a stored node nothing answers for: exit 1, said unreachable; of a name the
    // store does not hold: exit 2.
    void testOfAStoredNodeReportsItUnreachable()
    {
        const int closedPort = dispatch::findFreePort();
        CliResult r = cli({ QStringLiteral("nodes"), QStringLiteral("add"), QStringLiteral("down"),
                            QStringLiteral("--host=127.0.0.1"), QStringLiteral("--port"), QString::number(closedPort),
                            QStringLiteral("--user"), QStringLiteral("nobody"), QStringLiteral("--ssh-config=none") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = cli(QStringList { QStringLiteral("nodes"), QStringLiteral("test"), QStringLiteral("down") }
                + knownHostsFlags());
        QVERIFY2(r.exitCode == 1, (r.out + r.err).constData());
        QVERIFY2(r.out.contains("node 'down': unreachable"), r.out.constData());
        r = cli({ QStringLiteral("nodes"), QStringLiteral("test"), QStringLiteral("elsewhere") });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("elsewhere"), r.err.constData());
    }

    void addPrepareRunAttachAbandonThroughABastion()
    {
        // nodes add: the alias only; User, HostName, Port and the bastion come from the ssh config.
        CliResult r
            = cli({ QStringLiteral("nodes"), QStringLiteral("add"), QStringLiteral("gpu-box"), QStringLiteral("--host"),
                    QStringLiteral("gpu"), QStringLiteral("--ssh-config"), m_config, QStringLiteral("--nccl-env"),
                    QStringLiteral("NCCL_DEBUG=WARN"), QStringLiteral("--nccl-env=NCCL_SOCKET_IFNAME=lo") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        {
            store::Database db = store::Database::open(storePath().toStdString());
            const auto node = store::findNodeByName(db, "gpu-box");
            QVERIFY(node);
            QCOMPARE(node->host, std::string("gpu"));
            QVERIFY(node->user.empty());
            QCOMPARE(node->ncclEnv.size(), std::size_t(2));
        }
        r = cli({ QStringLiteral("nodes"), QStringLiteral("add"), QStringLiteral("gpu-box"), QStringLiteral("--host"),
                  QStringLiteral("gpu") });
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("already exists"), r.err.constData());

        // nodes prepare: each unknown host key on the way is accepted by name, the runner built there.
        r = cli(QStringList { QStringLiteral("nodes"), QStringLiteral("prepare"), QStringLiteral("gpu-box"),
                              QStringLiteral("--sources"), standInSources(), QStringLiteral("--remote-root"),
                              m_target->path(QStringLiteral("remote-cache")), QStringLiteral("--jobs"),
                              QStringLiteral("1"), QStringLiteral("--accept-new-host-key") }
                    + knownHostsFlags(),
                300000);
        QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
        QVERIFY2(
            r.out.contains(QStringLiteral("accepting new host key for [127.0.0.1]:%1").arg(m_bastion->port()).toUtf8()),
            r.out.constData());
        QVERIFY2(
            r.out.contains(QStringLiteral("accepting new host key for [127.0.0.2]:%1").arg(m_target->port()).toUtf8()),
            r.out.constData());
        QVERIFY2(r.out.contains("prepared 'gpu-box': runner built at"), r.out.constData());
        std::string runner;
        {
            store::Database db = store::Database::open(storePath().toStdString());
            const auto node = store::findNodeByName(db, "gpu-box");
            runner = session::preparedRunnerPath(node->facts);
            QVERIFY(!runner.empty());
            QVERIFY2(runner.rfind(m_target->path(QStringLiteral("remote-cache")).toStdString(), 0) == 0,
                     runner.c_str());
            QCOMPARE(QString::fromStdString(node->hostKeyFingerprint), m_target->hostKeyFingerprint());
            QVERIFY(node->facts.contains("cpu_cores"));
        }
        const CliResult listed = cli({ QStringLiteral("nodes"), QStringLiteral("list") });
        QVERIFY2(listed.out.contains(QByteArray("runner: ") + QByteArray::fromStdString(runner)),
                 listed.out.constData());
        QVERIFY2(listed.out.contains("NCCL: NCCL_DEBUG=WARN NCCL_SOCKET_IFNAME=lo"), listed.out.constData());

        // nodes test NAME: reachable through the bastion, the prepared runner's version, the GPUs.
        const CliResult tested
            = cli(QStringList { QStringLiteral("nodes"), QStringLiteral("test"), QStringLiteral("gpu-box") }
                  + knownHostsFlags());
        QVERIFY2(tested.exitCode == 0, (tested.out + tested.err).constData());
        QVERIFY2(tested.out.contains(QStringLiteral("node 'gpu-box': reachable as %1@[127.0.0.2]:%2")
                                         .arg(QString::fromStdString(m_target->userName()))
                                         .arg(m_target->port())
                                         .toUtf8()),
                 tested.out.constData());
        QVERIFY2(
            tested.out.contains(QByteArray("runner: ") + QByteArray::fromStdString(runner) + ": shardwise-runner "),
            tested.out.constData());
        QVERIFY2(tested.out.contains("  GPUs: "), tested.out.constData());

        // run --node: two CPU ranks of the tiny model with the prepared runner, detached mid-run.
        QProcess run;
        startCli(run,
                 QStringList { QStringLiteral("run"),
                               QStringLiteral("--node"),
                               QStringLiteral("gpu-box"),
                               QStringLiteral("--ranks"),
                               QStringLiteral("2"),
                               QStringLiteral("--model"),
                               QStringLiteral("tiny"),
                               QStringLiteral("--strategy"),
                               QStringLiteral("zero2"),
                               QStringLiteral("--steps"),
                               QStringLiteral("100000"),
                               QStringLiteral("--warmup"),
                               QStringLiteral("1"),
                               QStringLiteral("--seq"),
                               QStringLiteral("32"),
                               QStringLiteral("--rank-env"),
                               QStringLiteral("GLOO_SOCKET_IFNAME=lo"),
                               QStringLiteral("--master-port"),
                               QString::number(dispatch::findFreePort()),
                               QStringLiteral("--run-root"),
                               m_target->path(QStringLiteral("runs")),
                               QStringLiteral("--detach-on-interrupt") }
                     + knownHostsFlags());
        QVERIFY(run.waitForStarted(30000));
        QByteArray err = interruptAfter(run, "step 1/");
        QVERIFY2(err.contains("detached from run"), err.constData());
        QCOMPARE(run.exitCode(), 1);

        std::int64_t id = 0;
        std::vector<int> pids;
        {
            store::Database db = store::Database::open(storePath().toStdString());
            const auto runs = store::listRuns(db);
            QCOMPARE(runs.size(), std::size_t(1));
            id = runs.front().id;
            QCOMPARE(runs.front().status, store::RunStatus::Detached);
            QCOMPARE(runs.front().nodes, std::vector<std::string> { "gpu-box" });
            // The node's NCCL setting is recorded with the run ...
            const auto detail = store::runDetail(db, id);
            const std::map<std::string, std::string> nccl { { "NCCL_DEBUG", "WARN" }, { "NCCL_SOCKET_IFNAME", "lo" } };
            QCOMPARE(detail->ncclEnv.at("gpu-box"), nccl);
            const auto kept = store::findRemoteFollow(db, id);
            QVERIFY(kept);
            pids = testing::rankPidsIn(session::remoteRunFromJson(nlohmann::json::parse(kept->handleJson)).runDir);
        }
        // ... shown by runs show, as text and as JSON ...
        CliResult shown = cli({ QStringLiteral("runs"), QStringLiteral("show"), QString::number(id) });
        QVERIFY2(shown.exitCode == 0, shown.err.constData());
        QVERIFY2(shown.out.contains("NCCL settings")
                     && shown.out.contains("gpu-box: NCCL_DEBUG=WARN NCCL_SOCKET_IFNAME=lo"),
                 shown.out.constData());
        shown = cli({ QStringLiteral("runs"), QStringLiteral("show"), QString::number(id), QStringLiteral("--format"),
                      QStringLiteral("json") });
        QVERIFY2(shown.exitCode == 0, shown.err.constData());
        QCOMPARE(nlohmann::json::parse(shown.out.toStdString()).at("nccl_env").at("gpu-box"),
                 nlohmann::json({ { "NCCL_DEBUG", "WARN" }, { "NCCL_SOCKET_IFNAME", "lo" } }));
        QCOMPARE(pids.size(), std::size_t(2));
        // ... and reached the ranks (the loopback "node" is this machine: their environment is readable here).
        for (const int pid : pids) {
            QFile environ(QStringLiteral("/proc/%1/environ").arg(pid));
            QVERIFY(environ.open(QIODevice::ReadOnly));
            const QList<QByteArray> vars = environ.readAll().split('\0');
            QVERIFY(vars.contains("NCCL_DEBUG=WARN"));
            QVERIFY(vars.contains("NCCL_SOCKET_IFNAME=lo"));
            QVERIFY(!vars.contains("NCCL_NVLS_ENABLE=0")); // nothing forced beside the node's setting
        }

        // runs attach: followed again through the bastion, then detached once more.
        QProcess attach;
        startCli(attach,
                 QStringList { QStringLiteral("runs"), QStringLiteral("attach"), QString::number(id),
                               QStringLiteral("--detach-on-interrupt") }
                     + knownHostsFlags());
        QVERIFY(attach.waitForStarted(30000));
        err = interruptAfter(attach, QByteArray("[run ") + QByteArray::number(static_cast<qint64>(id)) + "] step ");
        QVERIFY2(err.contains("attached to 1 node;"), err.constData());
        QVERIFY2(attach.readAllStandardOutput().contains("detached again"), err.constData());
        for (const int pid : pids)
            QVERIFY2(testing::processRuns(pid), "a rank stopped when runs attach detached");

        // runs abandon: the ranks are stopped on the node and the run ends as lost.
        r = cli(QStringList { QStringLiteral("runs"), QStringLiteral("abandon"), QString::number(id),
                              QStringLiteral("--reason"), QStringLiteral("done with it") }
                + knownHostsFlags());
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(r.out.contains("gpu-box: ranks still running in"), r.out.constData());
        for (const int pid : pids)
            QTRY_VERIFY2_WITH_TIMEOUT(!testing::processRuns(pid), "a rank still runs after abandon", 30000);
        store::Database db = store::Database::open(storePath().toStdString());
        QCOMPARE(store::findRun(db, id)->status, store::RunStatus::Lost);

        // nodes remove: gone from the store; the run keeps the node's name.
        r = cli({ QStringLiteral("nodes"), QStringLiteral("remove"), QStringLiteral("gpu-box") });
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(!store::findNodeByName(db, "gpu-box"));
        QCOMPARE(store::findRun(db, id)->nodes, std::vector<std::string> { "gpu-box" });
        r = cli({ QStringLiteral("nodes"), QStringLiteral("remove"), QStringLiteral("gpu-box") });
        QCOMPARE(r.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestHeadlessNodes)
#include "test_headless_nodes.moc"
