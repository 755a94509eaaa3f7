// POSIX single-quote quoting, checked by rule and by a real /bin/sh parsing the result.

#include "shardwise/dispatch/shell_quote.hpp"

#include <QProcess>
#include <QtTest>

using namespace shardwise::dispatch;

class TestSshShellQuote : public QObject {
    Q_OBJECT
private slots:
    void quotesOnlyWhatTheShellWouldInterpret_data()
    {
        QTest::addColumn<QByteArray>("argument");
        QTest::addColumn<QByteArray>("quoted");
        QTest::newRow("plain word") << QByteArray("shardwise-runner") << QByteArray("shardwise-runner");
        QTest::newRow("path and flag") << QByteArray("/opt/x/bin:--a,b+c@d%") << QByteArray("/opt/x/bin:--a,b+c@d%");
        QTest::newRow("empty") << QByteArray() << QByteArray("''");
        QTest::newRow("space") << QByteArray("a b") << QByteArray("'a b'");
        QTest::newRow("single quote") << QByteArray("it's") << QByteArray("'it'\\''s'");
        QTest::newRow("assignment") << QByteArray("A=1") << QByteArray("'A=1'");
        QTest::newRow("dollar") << QByteArray("$(x)") << QByteArray("'$(x)'");
        QTest::newRow("newline") << QByteArray("a\nb") << QByteArray("'a\nb'");
        QTest::newRow("non-ASCII") << QByteArray("\xc3\xa9") << QByteArray("'\xc3\xa9'");
    }
    void quotesOnlyWhatTheShellWouldInterpret()
    {
        QFETCH(QByteArray, argument);
        QFETCH(QByteArray, quoted);
        QCOMPARE(QByteArray::fromStdString(shellQuote(argument.toStdString())), quoted);
    }

    void localShellParsesQuotedWordsBackExactly()
    {
        const std::vector<std::string> argv { "printf", "[%s]", "",         "a'b",         "$(echo no)",
                                              "x\ny",   "\\",   "; exit 3", "\xe2\x9c\x93" };
        QProcess sh;
        sh.start(QStringLiteral("/bin/sh"), { QStringLiteral("-c"), QString::fromStdString(shellCommand(argv)) });
        QVERIFY(sh.waitForFinished(10000));
        QCOMPARE(sh.exitCode(), 0);
        QCOMPARE(sh.readAllStandardOutput(), QByteArray("[][a'b][$(echo no)][x\ny][\\][; exit 3][\xe2\x9c\x93]"));
    }
};

QTEST_GUILESS_MAIN(TestSshShellQuote)
#include "test_ssh_shell_quote.moc"
