// shardwise-cli nodes add takes a name, host and user only of their documented character sets
// (session::checkNode): anything else, an option-like value, a user@host or a terminal escape
// included, is refused with exit 2 naming the value (control characters shown as \xNN), and nothing is
// stored. Through the real binary, into a store of its own.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Ran {
    int exitCode = -1;
    QString out;
    QString err;
};

Ran cli(const QStringList& args, const QString& db)
{
    QProcess p;
    p.start(QStringLiteral(SHARDWISE_CLI_PATH), QStringList(args) << QStringLiteral("--db") << db);
    if (!p.waitForFinished(60000))
        return {};
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
             QString::fromUtf8(p.readAllStandardError()) };
}

} // namespace

class TestCliNodesAdd : public QObject {
    Q_OBJECT

private slots:
    void badNamesHostsAndUsersAreRefusedNamingThem_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("host");
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("named"); // what the message must hold
        const QString ok = QStringLiteral("gpu-box");
        const QString host = QStringLiteral("10.0.0.7");
        const QString user = QStringLiteral("ml");
        QTest::newRow("name with a space") << QStringLiteral("gpu box") << host << user << QStringLiteral("'gpu box'");
        QTest::newRow("name with a semicolon")
            << QStringLiteral("box;reboot") << host << user << QStringLiteral("'box;reboot'");
        QTest::newRow("name like an option") << QStringLiteral("-box") << host << user << QStringLiteral("-box");
        QTest::newRow("name with an escape")
            << QStringLiteral("box\x1b[2J") << host << user << QStringLiteral("'box\\x1b[2J'");
        QTest::newRow("name too long") << QString(65, QLatin1Char('n')) << host << user
                                       << QString(65, QLatin1Char('n'));
        QTest::newRow("host like an option") << ok << QStringLiteral("-oProxyCommand=touch${IFS}PWNED") << user
                                             << QStringLiteral("'-oProxyCommand=touch${IFS}PWNED'");
        QTest::newRow("host with a user") << ok << QStringLiteral("root@gpu") << user << QStringLiteral("'root@gpu'");
        QTest::newRow("host with a space") << ok << QStringLiteral("gpu 2") << user << QStringLiteral("'gpu 2'");
        QTest::newRow("host with a newline")
            << ok << QStringLiteral("gpu\nProxyCommand x") << user << QStringLiteral("'gpu\\x0aProxyCommand x'");
        QTest::newRow("user like an option") << ok << host << QStringLiteral("-lroot") << QStringLiteral("'-lroot'");
        QTest::newRow("user with a space") << ok << host << QStringLiteral("ml user") << QStringLiteral("'ml user'");
        QTest::newRow("user with a tab") << ok << host << QStringLiteral("ml\tx") << QStringLiteral("'ml\\x09x'");
    }

    void badNamesHostsAndUsersAreRefusedNamingThem()
    {
        QFETCH(QString, name);
        QFETCH(QString, host);
        QFETCH(QString, user);
        QFETCH(QString, named);
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Ran r = cli({ QStringLiteral("nodes"), QStringLiteral("add"), name, QStringLiteral("--host"), host,
                            QStringLiteral("--user"), user, QStringLiteral("--ssh-config"), QStringLiteral("none") },
                          db);
        QVERIFY2(r.exitCode == 2, qPrintable(r.err));
        QVERIFY2(r.err.contains(named), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QChar(0x1b)) && r.err.count(QLatin1Char('\n')) == 1, qPrintable(r.err));
        const Ran listed
            = cli({ QStringLiteral("nodes"), QStringLiteral("list"), QStringLiteral("--format=json") }, db);
        QCOMPARE(listed.exitCode, 0);
        QCOMPARE(listed.out.trimmed(), QStringLiteral("[]"));
    }

    void namesHostsAndUsersOfTheSetsAreStored_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("host");
        QTest::addColumn<QString>("user");
        QTest::newRow("names") << QStringLiteral("gpu-box_1.a") << QStringLiteral("gpu-1.example.org")
                               << QStringLiteral("ml.user_1");
        QTest::newRow("IPv4") << QStringLiteral("box") << QStringLiteral("10.0.0.7") << QStringLiteral("ml");
        QTest::newRow("IPv6") << QStringLiteral("box6") << QStringLiteral("2001:db8::7") << QStringLiteral("ml");
        QTest::newRow("domain account") << QStringLiteral("box") << QStringLiteral("gpu")
                                        << QStringLiteral("ml@corp.example");
    }

    void namesHostsAndUsersOfTheSetsAreStored()
    {
        QFETCH(QString, name);
        QFETCH(QString, host);
        QFETCH(QString, user);
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        const Ran r = cli({ QStringLiteral("nodes"), QStringLiteral("add"), name, QStringLiteral("--host"), host,
                            QStringLiteral("--user"), user, QStringLiteral("--ssh-config"), QStringLiteral("none") },
                          db);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const Ran listed
            = cli({ QStringLiteral("nodes"), QStringLiteral("list"), QStringLiteral("--format=json") }, db);
        QCOMPARE(listed.exitCode, 0);
        QVERIFY2(listed.out.contains(QStringLiteral("\"%1\"").arg(name)), qPrintable(listed.out));
        QVERIFY2(listed.out.contains(QStringLiteral("\"%1\"").arg(host)), qPrintable(listed.out));
    }
};

QTEST_GUILESS_MAIN(TestCliNodesAdd)
#include "test_cli_nodes_add.moc"
