// The user's ssh client configuration: the fallback reader used where no ssh program is installed, on
// its own (first match wins, patterns, Include, errors naming FILE:LINE), then aliases and ProxyJump
// chains against real sshd instances on loopback, resolved as the connection resolves them (through
// `ssh -G` where ssh is installed: test_ssh_config_openssh.cpp).

#include "sshd/sshd_fixture.hpp"

#include "shardwise/dispatch/ssh_config.hpp"
#include "shardwise/dispatch/ssh_session.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <cstdlib>

using namespace shardwise::dispatch;
using shardwise::testing::SshdFixture;

namespace {

void writeText(const QString& file, const QString& text)
{
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text.toUtf8());
}

void appendText(const std::filesystem::path& file, const QString& text)
{
    QFile f(QString::fromStdString(file.string()));
    QVERIFY(f.open(QIODevice::Append));
    f.write(text.toUtf8());
}

// "Host NAME / HostName ADDRESS / Port P / IdentityFile KEY" for one fixture.
QString hostBlock(const QString& alias, const SshdFixture& sshd, const QString& address, const QString& extra = {})
{
    return QStringLiteral("Host %1\n  HostName %2\n  Port %3\n  IdentityFile %4\n%5\n")
        .arg(alias, address)
        .arg(sshd.port())
        .arg(sshd.path(QStringLiteral("user_key")), extra);
}

QString configError(const QString& file, const std::string& host = "anything")
{
    try {
        lookupSshConfigByParsing(file.toStdString(), host);
    } catch (const SshConfigError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class TestSshConfig : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString file(const QString& name) const { return m_dir.filePath(name); }

    // A session whose credentials hold nothing of their own: everything comes from the configuration.
    static SshCredentials configOnlyCredentials(const SshdFixture& sshd)
    {
        SshCredentials c;
        c.method = SshAuthMethod::Agent;
        c.agentSocket = sshd.path(QStringLiteral("no-agent.sock")).toStdString();
        return c;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void firstObtainedValueWinsAndPatternsMatchAsInSsh()
    {
        const QString cfg = file(QStringLiteral("first_match"));
        writeText(cfg,
                  QStringLiteral("# comment\n"
                                 "Host gpu-? !gpu-9\n"
                                 "  HostName 10.0.0.%h\n"
                                 "  Port=2201\n"
                                 "  IdentityFile ~/.ssh/gpu_key\n"
                                 "Host gpu-1 other\n"
                                 "  Port 2299\n"
                                 "  User alice\n"
                                 "  IdentityFile \"/keys/with space\"\n"
                                 "Match host gpu-1\n"
                                 "  User mallory\n"
                                 "Host *\n"
                                 "  User bob\n"
                                 "  IdentitiesOnly yes\n"
                                 "  ServerAliveInterval 1m30s\n"
                                 "  ProxyJump jump@bastion:2022,[::1]:23\n"));
        const auto gpu1 = lookupSshConfigByParsing(cfg.toStdString(), "gpu-1");
        QCOMPARE(gpu1.hostName, std::string("10.0.0.gpu-1"));
        QCOMPARE(gpu1.port, std::optional<int>(2201));            // the first Port obtained, not the later 2299
        QCOMPARE(gpu1.user, std::optional<std::string>("alice")); // Match blocks are not evaluated
        QCOMPARE(gpu1.identityFiles, (std::vector<std::string> { "~/.ssh/gpu_key", "/keys/with space" }));
        QCOMPARE(gpu1.identitiesOnly, std::optional<bool>(true));
        QCOMPARE(gpu1.serverAliveInterval, std::optional<int>(90));
        QVERIFY(gpu1.proxyJump && gpu1.proxyJump->size() == 2);
        QCOMPARE((*gpu1.proxyJump)[0].user, std::optional<std::string>("jump"));
        QCOMPARE((*gpu1.proxyJump)[0].host, std::string("bastion"));
        QCOMPARE((*gpu1.proxyJump)[0].port, std::optional<int>(2022));
        QCOMPARE((*gpu1.proxyJump)[1].host, std::string("::1"));
        QCOMPARE((*gpu1.proxyJump)[1].port, std::optional<int>(23));

        const auto gpu9 = lookupSshConfigByParsing(cfg.toStdString(), "gpu-9"); // negated: only Host * applies
        QCOMPARE(gpu9.hostName, std::string("gpu-9"));
        QVERIFY(!gpu9.port);
        QCOMPARE(gpu9.user, std::optional<std::string>("bob"));
        const auto gpu10 = lookupSshConfigByParsing(cfg.toStdString(), "gpu-10"); // ? is one character
        QCOMPARE(gpu10.hostName, std::string("gpu-10"));
        const auto other = lookupSshConfigByParsing(cfg.toStdString(), "other");
        QCOMPARE(other.port, std::optional<int>(2299));
    }

    void includeAppliesInPlaceAndAMissingFileIsEmpty()
    {
        QDir(m_dir.path()).mkpath(QStringLiteral("conf.d"));
        writeText(file(QStringLiteral("conf.d/10-lab.conf")),
                  QStringLiteral("Host lab\n  HostName lab.example\nHost *\n  User fromincluded\n"));
        writeText(file(QStringLiteral("with_include")),
                  QStringLiteral("Include conf.d/*.conf\nHost lab\n  HostName ignored\n"
                                 "Host nothing\n  Include conf.d/*.conf\n"));
        const auto lab = lookupSshConfigByParsing(file(QStringLiteral("with_include")).toStdString(), "lab");
        QCOMPARE(lab.hostName, std::string("lab.example"));
        QCOMPARE(lab.user, std::optional<std::string>("fromincluded"));
        const auto none = lookupSshConfigByParsing(file(QStringLiteral("does_not_exist")).toStdString(), "lab");
        QCOMPARE(none.hostName, std::string("lab"));
        QVERIFY(!none.user);
    }

    void badLinesNameFileAndLine_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("says");
        QTest::newRow("unknown keyword") << QStringLiteral("Host a\n  HostNmae b\n") << 2
                                         << QStringLiteral("Bad configuration option: HostNmae");
        QTest::newRow("port not a number")
            << QStringLiteral("\n\nHost x\n Port 22x\n") << 4 << QStringLiteral("Port '22x'");
        QTest::newRow("two ports") << QStringLiteral("Host *\n  Port 22 23\n") << 2
                                   << QStringLiteral("takes one argument");
        QTest::newRow("port out of range") << QStringLiteral("Port 70000\n") << 1 << QStringLiteral("1..65535");
        QTest::newRow("missing argument") << QStringLiteral("User\n") << 1 << QStringLiteral("User needs an argument");
        QTest::newRow("bad yes/no") << QStringLiteral("IdentitiesOnly maybe\n") << 1 << QStringLiteral("yes or no");
        QTest::newRow("bad ProxyJump port")
            << QStringLiteral("Host *\nProxyJump a:b\n") << 2 << QStringLiteral("ProxyJump port");
        QTest::newRow("bad keepalive") << QStringLiteral("ServerAliveInterval soon\n") << 1
                                       << QStringLiteral("not a time");
        QTest::newRow("unterminated quote")
            << QStringLiteral("IdentityFile \"/a b\n") << 1 << QStringLiteral("unterminated");
        QTest::newRow("bad line in a block that does not apply")
            << QStringLiteral("Host elsewhere\n  Prot 22\n") << 2 << QStringLiteral("Prot");
    }
    void badLinesNameFileAndLine()
    {
        QFETCH(QString, text);
        QFETCH(int, line);
        QFETCH(QString, says);
        const QString cfg = file(QStringLiteral("bad_%1")
                                     .arg(QString::fromUtf8(QTest::currentDataTag()))
                                     .replace(QLatin1Char(' '), QLatin1Char('_'))
                                     .replace(QLatin1Char('/'), QLatin1Char('_')));
        writeText(cfg, text);
        const QString error = configError(cfg);
        QVERIFY2(error.startsWith(cfg + QStringLiteral(":%1: ").arg(line)), qPrintable(error));
        QVERIFY2(error.contains(says), qPrintable(error));
    }

    void ignoreUnknownAndKnownButUnusedKeywordsAreAccepted()
    {
        const QString cfg = file(QStringLiteral("ignore_unknown"));
        writeText(
            cfg,
            QStringLiteral("IgnoreUnknown UseFancyThing,Other*\nUseFancyThing yes\nOtherStuff 1\nForwardAgent yes\n"
                           "ControlMaster auto\nHost x\n  StrictHostKeyChecking no\n  SendEnv LANG LC_*\n"
                           "  LocalForward 8080 localhost:80\n  ProxyCommand none\n"));
        QVERIFY2(configError(cfg).isEmpty(), qPrintable(configError(cfg)));
    }

    void aProxyCommandThatAppliesIsRefusedNotBypassed()
    {
        const QString cfg = file(QStringLiteral("proxy_command"));
        writeText(cfg,
                  QStringLiteral("Host other\n  ProxyCommand nc other 22\nHost via-proxy\n  HostName 127.0.0.1\n"
                                 "  ProxyCommand ssh -W %h:%p bastion\n"));
        SshOptions options;
        options.sshConfig = cfg.toStdString();
        options.knownHosts = {};
        try {
            SshSession::open({ "via-proxy", 22, "someone" }, SshCredentials {}, options);
            QFAIL("a ProxyCommand host was connected to directly");
        } catch (const SshError& e) {
            QCOMPARE(e.failure(), SshFailure::Config);
            // FILE:LINE from the fallback reader; the file and how `ssh -G` resolved the host from ssh.
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.startsWith(cfg
                                        + (findSshProgram().empty() ? QStringLiteral(":5: ProxyCommand")
                                                                    : QStringLiteral(" (as `ssh -G via-proxy`"))),
                     e.what());
            QVERIFY2(message.contains(QStringLiteral("ProxyCommand (for via-proxy)")), e.what());
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("ProxyJump")), e.what());
        }
    }

    void identityFileTokensExpand()
    {
        const std::string home = std::getenv("HOME") ? std::getenv("HOME") : "/";
        QCOMPARE(expandIdentityFile("~/k-%h-%r-%p-%n-%%", "alias", "10.1.2.3", 2222, "ops", "f:1"),
                 home + "/k-10.1.2.3-ops-2222-alias-%");
        QCOMPARE(expandIdentityFile("%d/x", "a", "h", 22, "u", "f:1"), home + "/x");
        try {
            expandIdentityFile("/k-%C", "a", "h", 22, "u", "cfg:7");
            QFAIL("an unsupported token was accepted");
        } catch (const SshConfigError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(QStringLiteral("cfg:7: ")), e.what());
        }
    }

    void anAliasBringsHostPortUserAndIdentityFile()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        SshdFixture sshd;
        QString error = sshd.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        sshd.trustHostKey();
        // The key under a name only the tokens produce: %h the HostName, %r the User.
        const QString user = QString::fromStdString(sshd.userName());
        const QString tokenKey = sshd.path(QStringLiteral("key-127.0.0.1-%1").arg(user));
        QVERIFY(QFile::copy(sshd.path(QStringLiteral("user_key")), tokenKey));
        QFile::setPermissions(tokenKey, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        auto options = sshd.options();
        writeText(
            QString::fromStdString(options.sshConfig.string()),
            QStringLiteral("Host gpu-box\n  HostName 127.0.0.1\n  Port %1\n  User %2\n  IdentityFile %3/key-%h-%r\n")
                .arg(sshd.port())
                .arg(user, sshd.dir()));
        auto session = SshSession::open({ "gpu-box", 22, "" }, configOnlyCredentials(sshd), options);
        QCOMPARE(session->endpoint().host, std::string("127.0.0.1"));
        QCOMPARE(session->endpoint().port, sshd.port());
        QCOMPARE(session->endpoint().user, sshd.userName());
        const auto out = session->run(std::vector<std::string> { "id", "-un" });
        QCOMPARE(out.stdoutData, sshd.userName() + "\n");

        // The User line really is the one used: a user that does not exist is what sshd sees.
        writeText(
            QString::fromStdString(options.sshConfig.string()),
            QStringLiteral(
                "Host gpu-box\n  HostName 127.0.0.1\n  Port %1\n  User shardwise-no-such-user\n  IdentityFile %2\n")
                .arg(sshd.port())
                .arg(sshd.path(QStringLiteral("user_key"))));
        try {
            SshSession::open({ "gpu-box", 22, "" }, configOnlyCredentials(sshd), options);
            QFAIL("logged in as a user that does not exist");
        } catch (const SshError& e) {
            QCOMPARE(e.failure(), SshFailure::AuthFailed);
        }
        QVERIFY2(sshd.waitForLog(QStringLiteral("Invalid user shardwise-no-such-user"), 5000),
                 qPrintable(sshd.log().right(2000)));

        // A node's own port (not 22) and user win over the configuration's.
        writeText(
            QString::fromStdString(options.sshConfig.string()),
            QStringLiteral(
                "Host gpu-box\n  HostName 127.0.0.1\n  Port 1\n  User shardwise-no-such-user\n  IdentityFile %1\n")
                .arg(sshd.path(QStringLiteral("user_key"))));
        auto explicitSession
            = SshSession::open({ "gpu-box", sshd.port(), sshd.userName() }, configOnlyCredentials(sshd), options);
        QVERIFY(explicitSession->run(std::string("true")).succeeded());

        // A bad line is refused before any connection, naming the file and line.
        writeText(QString::fromStdString(options.sshConfig.string()),
                  QStringLiteral("Host gpu-box\n  Port twenty-two\n"));
        try {
            SshSession::open({ "gpu-box", 22, "" }, configOnlyCredentials(sshd), options);
            QFAIL("a malformed configuration was used");
        } catch (const SshError& e) {
            QCOMPARE(e.failure(), SshFailure::Config);
            QVERIFY2(QString::fromUtf8(e.what()).contains(QString::fromStdString(options.sshConfig.string())
                                                          + QStringLiteral(":2")),
                     e.what());
        }
    }

    void identitiesOnlyFiltersTheAgentsKeys()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        SshdFixture sshd;
        QString error = sshd.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        sshd.trustHostKey();
        const QString otherKey = sshd.path(QStringLiteral("other_key")); // not authorized
        const QString made
            = shardwise::testing::runTool(QStringLiteral("ssh-keygen"),
                                          { QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                                            QStringLiteral("-N"), QString(), QStringLiteral("-f"), otherKey });
        QVERIFY2(!made.startsWith(QStringLiteral("ERROR:")), qPrintable(made));
        shardwise::testing::SshAgentFixture agent(sshd.path(QStringLiteral("agent.sock")));
        error = agent.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        error = agent.add(sshd.path(QStringLiteral("user_key"))); // the authorized key, in the agent only
        QVERIFY2(error.isEmpty(), qPrintable(error));
        SshCredentials viaAgent;
        viaAgent.method = SshAuthMethod::Agent;
        viaAgent.agentSocket = agent.socketPath().toStdString();
        auto options = sshd.options();
        const QString block = QStringLiteral("Host box\n  HostName 127.0.0.1\n  Port %1\n  IdentityFile %2\n")
                                  .arg(sshd.port())
                                  .arg(otherKey);
        writeText(QString::fromStdString(options.sshConfig.string()), block);
        QVERIFY(SshSession::open({ "box", 22, "" }, viaAgent, options)->run(std::string("true")).succeeded());
        writeText(QString::fromStdString(options.sshConfig.string()), block + QStringLiteral("  IdentitiesOnly yes\n"));
        try {
            SshSession::open({ "box", 22, "" }, viaAgent, options);
            QFAIL("IdentitiesOnly let an agent key that matches no IdentityFile log in");
        } catch (const SshError& e) {
            QCOMPARE(e.failure(), SshFailure::AuthFailed);
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.contains(QStringLiteral("IdentitiesOnly")) && message.contains(otherKey), e.what());
        }
    }

    void serverAliveSettingsDriveStallDetection()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        SshdFixture sshd;
        const QString error = sshd.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        sshd.trustHostKey();
        auto options = sshd.options(); // Shardwise's own default would wait 30 s
        writeText(QString::fromStdString(options.sshConfig.string()),
                  hostBlock(QStringLiteral("box"), sshd, QStringLiteral("127.0.0.1"),
                            QStringLiteral("  ServerAliveInterval 1\n  ServerAliveCountMax 2")));
        auto session = SshSession::open({ "box", 22, "" }, configOnlyCredentials(sshd), options);
        std::vector<int> stopped;
        QElapsedTimer sinceFreeze;
        CommandIo io;
        io.onStdout = [&](std::string_view) {
            if (!stopped.empty())
                return;
            stopped = sshd.sessionProcesses();
            for (int pid : stopped)
                ::kill(pid, SIGSTOP);
            sinceFreeze.start();
        };
        QString failure;
        try {
            session->run(std::string("echo running; exec sleep 30"), io);
        } catch (const SshError& e) {
            failure = QString::fromUtf8(e.what());
            QCOMPARE(e.failure(), SshFailure::PeerStalled);
        }
        const qint64 elapsed = sinceFreeze.isValid() ? sinceFreeze.elapsed() : -1;
        for (int pid : stopped)
            ::kill(pid, SIGCONT);
        QVERIFY(!stopped.empty());
        QVERIFY2(failure.contains(QStringLiteral("limit 2000 ms")), qPrintable(failure));
        QVERIFY2(elapsed >= 0 && elapsed < 8000, qPrintable(QString::number(elapsed)));
    }

    void proxyJumpGoesThroughTheBastion()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        SshdFixture bastion;
        SshdFixture target({ QStringLiteral("127.0.0.2") });
        QString error = bastion.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        error = target.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        auto options = target.options();
        writeText(QString::fromStdString(options.sshConfig.string()),
                  hostBlock(QStringLiteral("bastion"), bastion, QStringLiteral("127.0.0.1"))
                      + hostBlock(QStringLiteral("gpu"), target, QStringLiteral("127.0.0.2"),
                                  QStringLiteral("  ProxyJump bastion")));

        // The bastion's key is checked too: unknown, it is refused by its own name before any login.
        try {
            SshSession::open({ "gpu", 22, "" }, configOnlyCredentials(target), options);
            QFAIL("an unknown jump host was used");
        } catch (const SshError& e) {
            QCOMPARE(e.failure(), SshFailure::HostKeyUnknown);
            QCOMPARE(QString::fromStdString(e.hostKey()->host), QStringLiteral("127.0.0.1"));
            QCOMPARE(e.hostKey()->port, bastion.port());
            QVERIFY(e.hostKey()->jumpHost);
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("jump host")), e.what());
        }
        appendText(options.knownHosts.user, bastion.knownHostsLine() + QLatin1Char('\n'));
        target.trustHostKey();

        auto session = SshSession::open({ "gpu", 22, "" }, configOnlyCredentials(target), options);
        const auto out = session->run(std::string("echo through; cat"), [] {
            CommandIo io;
            io.stdinData = std::string(200000, 'x'); // more than one channel window each way
            return io;
        }());
        QVERIFY2(out.succeeded(), out.describe().c_str());
        QCOMPARE(out.stdoutData.size(), std::size_t(8 + 200000));
        QCOMPARE(session->endpoint().host, std::string("127.0.0.2"));
        // The bastion opened the forward to the target: the jump really happened.
        const QString forward = QStringLiteral("target 127.0.0.2 port %1").arg(target.port());
        QVERIFY2(bastion.waitForLog(forward, 5000), qPrintable(bastion.log().right(3000)));
        session.reset();

        // A changed target key behind the bastion is refused like any other.
        error = target.restartWithHostKeys({ QStringLiteral("ecdsa") });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        try {
            SshSession::open({ "gpu", 22, "" }, configOnlyCredentials(target), options);
            QFAIL("a changed key behind a jump host was accepted");
        } catch (const SshError& e) {
            QCOMPARE(e.failure(), SshFailure::HostKeyChanged);
            QVERIFY(!e.hostKey()->jumpHost);
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("[127.0.0.2]:%1").arg(target.port())),
                     e.what());
        }
    }

    void aTwoHopChainTakesEachHopsOwnSettings()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        SshdFixture first;
        SshdFixture second({ QStringLiteral("127.0.0.2") });
        SshdFixture target({ QStringLiteral("127.0.0.3") });
        for (SshdFixture* s : { &first, &second, &target }) {
            const QString error = s->start();
            QVERIFY2(error.isEmpty(), qPrintable(error));
        }
        auto options = target.options();
        writeText(QString::fromStdString(options.sshConfig.string()),
                  hostBlock(QStringLiteral("hop1"), first, QStringLiteral("127.0.0.1"))
                      + hostBlock(QStringLiteral("hop2"), second, QStringLiteral("127.0.0.2"))
                      + hostBlock(QStringLiteral("gpu"), target, QStringLiteral("127.0.0.3"),
                                  QStringLiteral("  ProxyJump hop1,hop2")));
        appendText(options.knownHosts.user,
                   first.knownHostsLine() + QLatin1Char('\n')
                       + second.knownHostsLine(QStringLiteral("ed25519"), QStringLiteral("127.0.0.2"))
                       + QLatin1Char('\n'));
        target.trustHostKey();
        auto session = SshSession::open({ "gpu", 22, "" }, configOnlyCredentials(target), options);
        QVERIFY(session->run(std::string("true")).succeeded());
        QVERIFY2(first.waitForLog(QStringLiteral("target 127.0.0.2 port %1").arg(second.port()), 5000),
                 qPrintable(first.log().right(3000)));
        QVERIFY2(second.waitForLog(QStringLiteral("target 127.0.0.3 port %1").arg(target.port()), 5000),
                 qPrintable(second.log().right(3000)));
        QVERIFY(!first.log().contains(QStringLiteral("target 127.0.0.3")));
    }

    void theCliResolvesAnAliasThroughAJumpHostAndAcceptsEachNewKeyByName()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        const QString cli = QStringLiteral(SHARDWISE_BINARY_DIR "/bin/shardwise-cli");
        if (!QFileInfo::exists(cli))
            QSKIP("shardwise-cli is not built in this build tree");
        SshdFixture bastion;
        SshdFixture target({ QStringLiteral("127.0.0.2") });
        for (SshdFixture* s : { &bastion, &target }) {
            const QString error = s->start();
            QVERIFY2(error.isEmpty(), qPrintable(error));
        }
        const auto options = target.options();
        const QString config = QString::fromStdString(options.sshConfig.string());
        writeText(config,
                  hostBlock(QStringLiteral("bastion"), bastion, QStringLiteral("127.0.0.1"))
                      + hostBlock(QStringLiteral("gpu"), target, QStringLiteral("127.0.0.2"),
                                  QStringLiteral("  ProxyJump bastion")));
        const QString appKnownHosts = QString::fromStdString(options.knownHosts.app.string());
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("SSH_AUTH_SOCK"));
        p.setProcessEnvironment(env);
        p.start(cli,
                { QStringLiteral("nodes"), QStringLiteral("test"), QStringLiteral("--host"), QStringLiteral("gpu"),
                  QStringLiteral("--ssh-config"), config, QStringLiteral("--known-hosts"), appKnownHosts,
                  QStringLiteral("--user-known-hosts"), QString::fromStdString(options.knownHosts.user.string()),
                  QStringLiteral("--accept-new-host-key") });
        QVERIFY(p.waitForFinished(120000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(p.exitCode() == 0, qPrintable(out + QString::fromUtf8(p.readAllStandardError())));
        QVERIFY2(out.contains(QStringLiteral("accepting new host key for [127.0.0.1]:%1").arg(bastion.port())),
                 qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("accepting new host key for [127.0.0.2]:%1").arg(target.port())),
                 qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("connected to %1@[127.0.0.2]:%2")
                                  .arg(QString::fromStdString(target.userName()))
                                  .arg(target.port())),
                 qPrintable(out));
        QFile known(appKnownHosts);
        QVERIFY(known.open(QIODevice::ReadOnly));
        const QString recorded = QString::fromUtf8(known.readAll());
        QVERIFY2(!recorded.contains(QStringLiteral("gpu")) && !recorded.contains(QStringLiteral("bastion")),
                 qPrintable(recorded));

        // A bad configuration line: refused, naming FILE:LINE.
        writeText(config, QStringLiteral("Host gpu\n  ProxyJump\n"));
        QProcess bad;
        bad.start(cli,
                  { QStringLiteral("nodes"), QStringLiteral("test"), QStringLiteral("--host"), QStringLiteral("gpu"),
                    QStringLiteral("--ssh-config"), config });
        QVERIFY(bad.waitForFinished(30000));
        QCOMPARE(bad.exitCode(), 1);
        const QString err = QString::fromUtf8(bad.readAllStandardError());
        QVERIFY2(err.contains(config + QStringLiteral(":2: "))
                     && err.contains(QStringLiteral("proxyjump"), Qt::CaseInsensitive),
                 qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestSshConfig)
#include "test_ssh_config.moc"
