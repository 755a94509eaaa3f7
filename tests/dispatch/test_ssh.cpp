// SSH nodes against a real OpenSSH sshd on loopback (see sshd/sshd_fixture.hpp).

#include "sshd/sshd_fixture.hpp"

#include "shardwise/dispatch/shell_quote.hpp"
#include "shardwise/dispatch/ssh_session.hpp"

#include <QFile>
#include <QtTest>

#include <csignal>
#include <thread>

using namespace shardwise::dispatch;
using shardwise::testing::SshAgentFixture;
using shardwise::testing::SshdFixture;

Q_DECLARE_METATYPE(CommandEnding)

class TestSsh : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<SshdFixture> m_sshd;

    std::unique_ptr<SshSession> openTrusted(const SshOptions& options)
    {
        return SshSession::open(m_sshd->endpoint(), m_sshd->keyCredentials(), options);
    }

private slots:
    void init()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        m_sshd = std::make_unique<SshdFixture>();
        const QString error = m_sshd->start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
    void cleanup() { m_sshd.reset(); }

    void unknownHostIsRefusedBeforeAnyAuthentication()
    {
        try {
            SshSession::open(m_sshd->endpoint(), m_sshd->keyCredentials(), m_sshd->options());
            QFAIL("an unknown host was accepted");
        } catch (const SshError& e) {
            QCOMPARE(e.failure(), SshFailure::HostKeyUnknown);
            QVERIFY(e.hostKey().has_value());
            QCOMPARE(QString::fromStdString(e.hostKey()->fingerprint), m_sshd->hostKeyFingerprint());
            QVERIFY2(QString::fromUtf8(e.what()).contains(m_sshd->hostKeyFingerprint()), e.what());
        }
        // sshd logs the end of the pre-authentication phase; by then any auth request would be logged.
        QVERIFY2(m_sshd->waitForLog(QStringLiteral("[preauth]"), 5000), qPrintable(m_sshd->log().right(3000)));
        const QString log = m_sshd->log();
        QVERIFY2(!log.contains(QStringLiteral("userauth")), qPrintable(log.right(3000)));
        QVERIFY2(!log.contains(QStringLiteral("Accepted")), qPrintable(log.right(3000)));
    }

    void acceptedHostKeyIsWrittenToTheAppKnownHostsAndTrusted()
    {
        const auto options = m_sshd->options();
        const HostKey presented = SshSession::presentedHostKey(m_sshd->endpoint(), options);
        QCOMPARE(QString::fromStdString(presented.fingerprint), m_sshd->hostKeyFingerprint());
        acceptHostKey(m_sshd->endpoint().host, m_sshd->port(), presented, options.knownHosts.app);
        QFile app(QString::fromStdString(options.knownHosts.app.string()));
        QVERIFY(app.open(QIODevice::ReadOnly));
        const QString line = QString::fromUtf8(app.readAll());
        QVERIFY2(line.startsWith(QStringLiteral("[127.0.0.1]:%1 ssh-ed25519 ").arg(m_sshd->port())), qPrintable(line));
        QVERIFY(QFile(QString::fromStdString(options.knownHosts.user.string())).size() == 0); // user's file untouched
        auto session = openTrusted(options);
        QVERIFY(session->run(std::string("true")).succeeded());
    }

    void changedHostKeyIsRefused()
    {
        m_sshd->trustHostKey();
        openTrusted(m_sshd->options()); // trusted before the change
        const QString error = m_sshd->replaceHostKey();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        try {
            openTrusted(m_sshd->options());
            QFAIL("a changed host key was accepted");
        } catch (const SshError& e) {
            QCOMPARE(e.failure(), SshFailure::HostKeyChanged);
            QCOMPARE(QString::fromStdString(e.hostKey()->fingerprint), m_sshd->hostKeyFingerprint());
        }
    }

    void keyFileAuthenticationLogsIn()
    {
        m_sshd->trustHostKey();
        auto session = openTrusted(m_sshd->options());
        const auto out = session->run(std::vector<std::string> { "id", "-un" });
        QVERIFY2(out.succeeded(), out.describe().c_str());
        QCOMPARE(out.stdoutData, m_sshd->userName() + "\n");
    }

    void encryptedKeyAsksForThePassphraseOnce()
    {
        m_sshd->trustHostKey();
        const QString key = m_sshd->path(QStringLiteral("locked_key"));
        const QString made = shardwise::testing::runTool(
            QStringLiteral("ssh-keygen"),
            { QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"),
              QStringLiteral("correct horse"), QStringLiteral("-f"), key });
        QVERIFY2(!made.startsWith(QStringLiteral("ERROR:")), qPrintable(made));
        m_sshd->authorize(key + QStringLiteral(".pub"));
        SshCredentials cred;
        cred.method = SshAuthMethod::KeyFile;
        cred.keyFile = key.toStdString();
        int asked = 0;
        cred.askPassphrase = [&](const std::filesystem::path& file) -> std::optional<std::string> {
            ++asked;
            if (file != cred.keyFile)
                return std::nullopt;
            return std::string("correct horse");
        };
        auto session = SshSession::open(m_sshd->endpoint(), cred, m_sshd->options());
        QCOMPARE(asked, 1);
        QVERIFY(session->run(std::string("true")).succeeded());

        cred.askPassphrase
            = [](const std::filesystem::path&) -> std::optional<std::string> { return std::string("wrong"); };
        try {
            SshSession::open(m_sshd->endpoint(), cred, m_sshd->options());
            QFAIL("a wrong passphrase logged in");
        } catch (const SshError& e) {
            QCOMPARE(e.failure(), SshFailure::AuthFailed);
            QVERIFY2(!QString::fromUtf8(e.what()).contains(QStringLiteral("wrong"))
                         || QString::fromUtf8(e.what()).contains(QStringLiteral("wrong passphrase")),
                     e.what());
        }
    }

    void agentAuthenticationLogsIn()
    {
        m_sshd->trustHostKey();
        SshAgentFixture agent(m_sshd->path(QStringLiteral("agent.sock")));
        QString error = agent.start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        error = agent.add(m_sshd->path(QStringLiteral("user_key")));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        SshCredentials cred;
        cred.method = SshAuthMethod::Agent;
        cred.agentSocket = agent.socketPath().toStdString();
        auto session = SshSession::open(m_sshd->endpoint(), cred, m_sshd->options());
        const auto out = session->run(std::vector<std::string> { "id", "-un" });
        QCOMPARE(out.stdoutData, m_sshd->userName() + "\n");
    }

    void argumentsArriveByteExact_data()
    {
        QTest::addColumn<QByteArray>("argument");
        QTest::newRow("command substitution") << QByteArray("$(touch /tmp/shardwise-pwned)");
        QTest::newRow("backticks") << QByteArray("`id`");
        QTest::newRow("semicolon") << QByteArray("a; echo injected");
        QTest::newRow("single quotes") << QByteArray("it's 'quoted'");
        QTest::newRow("double quotes") << QByteArray("say \"hi\" $HOME");
        QTest::newRow("backslashes") << QByteArray("a\\b\\\\c\\'");
        QTest::newRow("newlines") << QByteArray("line one\nline two\n\n");
        QTest::newRow("non-ASCII") << QByteArray("Gr\xc3\xbc\xc3\x9f"
                                                 "e \xe2\x9c\x93 \xff\xfe");
        QTest::newRow("glob and tilde") << QByteArray("* ~ ?[a]");
        QTest::newRow("leading dash") << QByteArray("-n");
        QTest::newRow("assignment") << QByteArray("PATH=/nowhere");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("tab and redirections") << QByteArray("\t> /tmp/x < /etc/passwd | cat &");
    }
    void argumentsArriveByteExact()
    {
        QFETCH(QByteArray, argument);
        m_sshd->trustHostKey();
        auto session = openTrusted(m_sshd->options());
        const std::string arg(argument.constData(), static_cast<std::size_t>(argument.size()));
        const auto out = session->run(std::vector<std::string> { "printf", "%s", arg });
        QVERIFY2(out.succeeded(), (out.describe() + " " + out.stderrData).c_str());
        QCOMPARE(QByteArray::fromStdString(out.stdoutData), argument);
        QVERIFY(!QFile::exists(QStringLiteral("/tmp/shardwise-pwned")));
    }

    void exitStatusAndSignalAreRead_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<CommandEnding>("ending");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("signal");
        QTest::newRow("exit 0") << QStringLiteral("true") << CommandEnding::Exited << 0 << QString();
        QTest::newRow("exit 2") << QStringLiteral("exit 2") << CommandEnding::Exited << 2 << QString();
        QTest::newRow("killed by SIGKILL")
            << QStringLiteral("kill -KILL $$") << CommandEnding::Signalled << -1 << QStringLiteral("KILL");
        QTest::newRow("killed by SIGTERM")
            << QStringLiteral("kill -TERM $$") << CommandEnding::Signalled << -1 << QStringLiteral("TERM");
    }
    void exitStatusAndSignalAreRead()
    {
        QFETCH(QString, command);
        QFETCH(CommandEnding, ending);
        QFETCH(int, exitCode);
        QFETCH(QString, signal);
        m_sshd->trustHostKey();
        auto session = openTrusted(m_sshd->options());
        const auto out = session->run(command.toStdString());
        QCOMPARE(out.ending, ending);
        QCOMPARE(out.exitCode, exitCode);
        QCOMPARE(QString::fromStdString(out.signal), signal);
        QCOMPARE(out.succeeded(), ending == CommandEnding::Exited && exitCode == 0);
    }

    void stdinIsDeliveredAndLargeOutputReadCompletely()
    {
        m_sshd->trustHostKey();
        auto session = openTrusted(m_sshd->options());
        std::string payload;
        for (int i = 0; i < 300000; ++i)
            payload += static_cast<char>('a' + i % 26);
        CommandIo io;
        io.stdinData = payload;
        const auto out = session->run(std::string("cat; echo done >&2"), io);
        QVERIFY(out.succeeded());
        QCOMPARE(out.stdoutData.size(), payload.size());
        QVERIFY(out.stdoutData == payload);
        QCOMPARE(out.stderrData, std::string("done\n"));
    }

    void commandTimeoutIsReportedAsTimedOut()
    {
        m_sshd->trustHostKey();
        auto session = openTrusted(m_sshd->options());
        CommandIo io;
        io.timeout = std::chrono::milliseconds(500);
        QElapsedTimer t;
        t.start();
        const auto out = session->run(std::string("sleep 20"), io);
        QCOMPARE(out.ending, CommandEnding::TimedOut);
        QVERIFY(!out.succeeded());
        QVERIFY2(t.elapsed() < 3000, qPrintable(QString::number(t.elapsed())));
    }

    void stalledPeerIsDetectedWithinTheKeepaliveWindow()
    {
        m_sshd->trustHostKey();
        auto options = m_sshd->options();
        // Wide enough that a healthy sshd on a loaded 2-core CI machine always answers in time.
        options.timeouts.keepaliveInterval = std::chrono::seconds(2);
        options.timeouts.keepaliveCountMax = 3;
        auto session = openTrusted(options);
        QVERIFY(session->run(std::string("true")).succeeded());
        // Freeze only once the remote command runs, so no login-shell start-up is caught mid-way.
        std::vector<int> stopped;
        std::atomic<std::int64_t> frozenAtMs { -1 };
        QElapsedTimer t;
        std::thread freezer;
        CommandIo io;
        io.onStdout = [&](std::string_view) {
            if (freezer.joinable())
                return;
            freezer = std::thread([&] {
                std::this_thread::sleep_for(std::chrono::milliseconds(300));
                stopped = m_sshd->sessionProcesses();
                for (int pid : stopped)
                    ::kill(pid, SIGSTOP);
                frozenAtMs = t.elapsed();
            });
        };
        t.start();
        bool detected = false;
        qint64 elapsed = 0;
        try {
            session->run(std::string("echo running; exec sleep 30"), io);
        } catch (const SshError& e) {
            detected = e.failure() == SshFailure::PeerStalled;
            if (freezer.joinable())
                freezer.join();
            elapsed = t.elapsed() - frozenAtMs;
            qInfo("%s; %lld ms after the freeze", e.what(), static_cast<long long>(elapsed));
        }
        if (freezer.joinable())
            freezer.join();
        for (int pid : stopped)
            ::kill(pid, SIGCONT);
        QVERIFY(!stopped.empty());
        QVERIFY(detected);
        QVERIFY(frozenAtMs >= 0);
        // The window is 6 s of silence; the last bytes may predate the freeze by up to one keepalive
        // interval (2 s), and a loaded machine adds scheduling slack.
        QVERIFY2(elapsed >= 4000 && elapsed < 9000, qPrintable(QString::number(elapsed)));
        QVERIFY(!session->usable());
    }
};

QTEST_GUILESS_MAIN(TestSsh)
#include "test_ssh.moc"
