// Host key pinning across key types, @revoked and @cert-authority lines, hashed names, and the RSA
// limitation, against real sshd instances on loopback whose host keys are switched between runs.

#include "sshd/sshd_fixture.hpp"

#include "shardwise/dispatch/known_hosts.hpp"
#include "shardwise/dispatch/ssh_session.hpp"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QtTest>

using namespace shardwise::dispatch;
using shardwise::testing::SshdFixture;

namespace {

void appendLine(const std::filesystem::path& file, const QString& line)
{
    QFile f(QString::fromStdString(file.string()));
    QVERIFY(f.open(QIODevice::Append));
    f.write((line + QLatin1Char('\n')).toUtf8());
}

QString readFile(const std::filesystem::path& file)
{
    QFile f(QString::fromStdString(file.string()));
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

} // namespace

class TestSshHostKeys : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<SshdFixture> m_sshd;

    // Opens a session; returns the refusal (or a "connected" marker) so each case states what it expects.
    SshError refusal(const SshOptions& options)
    {
        try {
            auto session = SshSession::open(m_sshd->endpoint(), m_sshd->keyCredentials(), options);
            return SshError(SshFailure::Cancelled, "connected with host key " + session->hostKey().type);
        } catch (const SshError& e) {
            return e;
        }
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

    void aSwitchedKeyTypeIsAChangedKey()
    {
        m_sshd->trustHostKey(QStringLiteral("ed25519"));
        QVERIFY(SshSession::open(m_sshd->endpoint(), m_sshd->keyCredentials(), m_sshd->options())
                    ->run(std::string("true"))
                    .succeeded());
        const QString error = m_sshd->restartWithHostKeys({ QStringLiteral("ecdsa") });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const qsizetype logBefore = m_sshd->log().size(); // the log holds the trusted login before the switch
        const SshError e = refusal(m_sshd->options());
        QCOMPARE(e.failure(), SshFailure::HostKeyChanged);
        const QString message = QString::fromUtf8(e.what());
        const QString name = QStringLiteral("[127.0.0.1]:%1").arg(m_sshd->port());
        QVERIFY2(message.contains(name), e.what());
        QVERIFY2(message.contains(QStringLiteral("ecdsa-sha2-nistp256")), e.what());
        QVERIFY2(message.contains(m_sshd->hostKeyFingerprint(QStringLiteral("ecdsa"))), e.what());
        QVERIFY2(message.contains(QStringLiteral("records only ssh-ed25519")), e.what());
        QCOMPARE(QString::fromStdString(e.hostKey()->host), QStringLiteral("127.0.0.1"));
        QCOMPARE(e.hostKey()->port, m_sshd->port());
        // Nothing that names a user reached the server.
        QVERIFY(m_sshd->waitForLog(QStringLiteral("Connection closed"), 5000));
        const QString after = m_sshd->log().mid(logBefore);
        QVERIFY2(after.contains(QStringLiteral("host key algorithm: ecdsa-sha2-nistp256")),
                 qPrintable(after.right(2000)));
        QVERIFY2(!after.contains(QStringLiteral("userauth")) && !after.contains(QStringLiteral("Accepted")),
                 qPrintable(after.right(2000)));
    }

    void theCliNeverAcceptsASwitchedKeyType()
    {
        const QString cli = QStringLiteral(SHARDWISE_BINARY_DIR "/bin/shardwise-cli");
        if (!QFileInfo::exists(cli))
            QSKIP("shardwise-cli is not built in this build tree");
        m_sshd->trustHostKey(QStringLiteral("ed25519"));
        const QString error = m_sshd->restartWithHostKeys({ QStringLiteral("ecdsa") });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const auto options = m_sshd->options();
        const QString before = readFile(options.knownHosts.app);
        QProcess p;
        p.start(cli,
                { QStringLiteral("nodes"), QStringLiteral("test"), QStringLiteral("--host"),
                  QStringLiteral("127.0.0.1"), QStringLiteral("--port"), QString::number(m_sshd->port()),
                  QStringLiteral("--user"), QString::fromStdString(m_sshd->userName()), QStringLiteral("--key"),
                  m_sshd->path(QStringLiteral("user_key")), QStringLiteral("--known-hosts"),
                  QString::fromStdString(options.knownHosts.app.string()), QStringLiteral("--user-known-hosts"),
                  QString::fromStdString(options.knownHosts.user.string()), QStringLiteral("--ssh-config"),
                  QStringLiteral("none"), QStringLiteral("--accept-new-host-key") });
        QVERIFY(p.waitForFinished(60000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QCOMPARE(p.exitCode(), 1);
        QVERIFY2(err.contains(QStringLiteral("HOST KEY CHANGED"))
                     && err.contains(m_sshd->hostKeyFingerprint(QStringLiteral("ecdsa"))),
                 qPrintable(err));
        QVERIFY2(!out.contains(QStringLiteral("accepting")), qPrintable(out));
        QCOMPARE(readFile(options.knownHosts.app), before);
    }

    void aServerWithSeveralKeysIsMetWithTheTrustedType_data()
    {
        QTest::addColumn<QString>("trusted");
        QTest::addColumn<QString>("expectedType");
        QTest::newRow("ed25519 trusted") << QStringLiteral("ed25519") << QStringLiteral("ssh-ed25519");
        QTest::newRow("ecdsa trusted") << QStringLiteral("ecdsa") << QStringLiteral("ecdsa-sha2-nistp256");
    }
    void aServerWithSeveralKeysIsMetWithTheTrustedType()
    {
        QFETCH(QString, trusted);
        QFETCH(QString, expectedType);
        // An ordinary sshd holds ed25519 and ECDSA keys; libssh2 on its own asks for ECDSA first.
        const QString error = m_sshd->restartWithHostKeys({ QStringLiteral("ecdsa"), QStringLiteral("ed25519") });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        m_sshd->trustHostKey(trusted);
        auto session = SshSession::open(m_sshd->endpoint(), m_sshd->keyCredentials(), m_sshd->options());
        QCOMPARE(QString::fromStdString(session->hostKey().type), expectedType);
        QCOMPARE(QString::fromStdString(session->hostKey().fingerprint), m_sshd->hostKeyFingerprint(trusted));
        QVERIFY(session->run(std::string("true")).succeeded());
    }

    void aRevokedKeyIsRefusedEvenWhenTrusted()
    {
        m_sshd->trustHostKey();
        const auto options = m_sshd->options();
        const QString keyPart = m_sshd->knownHostsLine().section(QLatin1Char(' '), 1);
        appendLine(options.knownHosts.user, QStringLiteral("@revoked * ") + keyPart);
        const SshError e = refusal(options);
        QCOMPARE(e.failure(), SshFailure::HostKeyRevoked);
        QVERIFY2(QString::fromUtf8(e.what()).contains(m_sshd->hostKeyFingerprint()), e.what());
        QVERIFY2(QString::fromUtf8(e.what()).contains(QString::fromStdString(options.knownHosts.user.string())
                                                      + QStringLiteral(":1")),
                 e.what());
        // A revoked line for another key does not touch this one.
        QFile::remove(QString::fromStdString(options.knownHosts.user.string()));
        appendLine(options.knownHosts.user,
                   QStringLiteral(
                       "@revoked * ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE8vGk9pJ5b0kA3pGzCj0z6hN2f8b6v0hM3yJp2yQ1xP"));
        QCOMPARE(refusal(options).failure(), SshFailure::Cancelled); // connected
    }

    void aCertificateAuthorityLineIsNoPlainKey()
    {
        // The host's own key written as a CA: read as a plain key, it would let the host in.
        const auto options = m_sshd->options();
        appendLine(options.knownHosts.user, QStringLiteral("@cert-authority ") + m_sshd->knownHostsLine());
        const SshError e = refusal(options);
        QCOMPARE(e.failure(), SshFailure::HostKeyUnknown);
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("certificate")), e.what());
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("cannot be verified with libssh2")), e.what());
    }

    void hashedAndWildcardEntriesAreHonoured()
    {
        const auto options = m_sshd->options();
        appendLine(options.knownHosts.user, m_sshd->knownHostsLine());
        const QString hashed = shardwise::testing::runTool(
            QStringLiteral("ssh-keygen"),
            { QStringLiteral("-H"), QStringLiteral("-f"), QString::fromStdString(options.knownHosts.user.string()) });
        QVERIFY2(!hashed.startsWith(QStringLiteral("ERROR:")), qPrintable(hashed));
        QVERIFY2(readFile(options.knownHosts.user).startsWith(QStringLiteral("|1|")),
                 qPrintable(readFile(options.knownHosts.user)));
        QCOMPARE(refusal(options).failure(), SshFailure::Cancelled); // connected through the hashed line

        // A wildcard entry with a negation that excludes this host is not a record for it.
        QFile::remove(QString::fromStdString(options.knownHosts.user.string()));
        const QString key = m_sshd->knownHostsLine().section(QLatin1Char(' '), 1);
        appendLine(options.knownHosts.user, QStringLiteral("[127.0.0.*]:*,![127.0.0.1]:%1 ").arg(m_sshd->port()) + key);
        QCOMPARE(refusal(options).failure(), SshFailure::HostKeyUnknown);
        QFile::remove(QString::fromStdString(options.knownHosts.user.string()));
        appendLine(options.knownHosts.user, QStringLiteral("[127.0.0.?]:%1 ").arg(m_sshd->port()) + key);
        QCOMPARE(refusal(options).failure(), SshFailure::Cancelled);
    }

    void anRsaOnlyServerIsExplained()
    {
        const QString error = m_sshd->restartWithHostKeys({ QStringLiteral("rsa") });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const SshError e = refusal(m_sshd->options());
        QCOMPARE(e.failure(), SshFailure::Protocol);
        const QString message = QString::fromUtf8(e.what());
        QVERIFY2(message.contains(QStringLiteral("only an RSA host key")), e.what());
        QVERIFY2(message.contains(QStringLiteral("SHA-1")) && message.contains(QStringLiteral("OpenSSH 8.8")),
                 e.what());
    }

    void anRsaPinnedHostServingEd25519IsChangedAndSaysWhy()
    {
        // known_hosts records only the RSA key; the server also holds ed25519, which libssh2 can use.
        const QString error = m_sshd->restartWithHostKeys({ QStringLiteral("rsa"), QStringLiteral("ed25519") });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const auto options = m_sshd->options();
        appendLine(options.knownHosts.user, m_sshd->knownHostsLine(QStringLiteral("rsa")));
        const SshError e = refusal(options);
        QCOMPARE(e.failure(), SshFailure::HostKeyChanged);
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("records only ssh-rsa")), e.what());
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("SHA-1")), e.what());
    }

    void patternListsMatchAsInOpenSsh()
    {
        QVERIFY(hostMatchesPatternList("gpu-1.lab", "*.lab"));
        QVERIFY(hostMatchesPatternList("gpu-1.lab", "web,gpu-?.lab"));
        QVERIFY(!hostMatchesPatternList("gpu-1.lab", "*.lab,!gpu-1.lab"));
        QVERIFY(!hostMatchesPatternList("gpu-1.lab", "!gpu-2.lab")); // a negation alone matches nothing
        QVERIFY(hostMatchesPatternList("GPU-1.LAB", "gpu-1.lab"));
        QVERIFY(!wildcardMatch("gpu-?", "gpu-10"));
        QVERIFY(wildcardMatch("*a*b*", "xxaxxbxx"));
    }
};

QTEST_GUILESS_MAIN(TestSshHostKeys)
#include "test_ssh_host_keys.moc"
