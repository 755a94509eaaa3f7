// Every Shardwise program answers --version with the same version, without a display and without the
// launch environment a rank needs.
#include <QProcess>
#include <QProcessEnvironment>
#include <QtTest>

class TestVersions : public QObject {
    Q_OBJECT

private slots:
    void everyProgramPrintsTheProjectVersion_data()
    {
        QTest::addColumn<QString>("program");
        QTest::addColumn<QString>("prefix");
        QTest::newRow("desktop app") << QStringLiteral(SHARDWISE_BIN_DIR "/shardwise") << QStringLiteral("shardwise ");
        QTest::newRow("cli") << QStringLiteral(SHARDWISE_BIN_DIR "/shardwise-cli") << QStringLiteral("shardwise-cli ");
        QTest::newRow("runner") << QStringLiteral(SHARDWISE_BIN_DIR "/shardwise-runner")
                                << QStringLiteral("shardwise-runner ");
        QTest::newRow("torch harness") << QStringLiteral(SHARDWISE_BIN_DIR "/shardwise-torch-runner")
                                       << QStringLiteral("shardwise-torch ");
        QTest::newRow("planner benchmark") << QStringLiteral(SHARDWISE_BIN_DIR "/shardwise-bench-planner")
                                           << QStringLiteral("shardwise-bench-planner ");
        QTest::newRow("fidelity benchmark") << QStringLiteral(SHARDWISE_BIN_DIR "/shardwise-bench-fidelity")
                                            << QStringLiteral("shardwise-bench-fidelity ");
    }
    void everyProgramPrintsTheProjectVersion()
    {
        QFETCH(QString, program);
        QFETCH(QString, prefix);
        QVERIFY2(QFileInfo::exists(program), qPrintable(program + QStringLiteral(" is not built")));
        auto env = QProcessEnvironment::systemEnvironment();
        for (const char* v : { "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM" })
            env.remove(QString::fromLatin1(v));
        env.remove(QStringLiteral("RANK"));
        env.remove(QStringLiteral("MASTER_ADDR"));
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(program, { QStringLiteral("--version") });
        QVERIFY(p.waitForFinished(60000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                 qPrintable(out + QString::fromUtf8(p.readAllStandardError())));
        QVERIFY2(out.startsWith(prefix + QStringLiteral(SHARDWISE_VERSION)), qPrintable(out));
    }

    // The desktop app's --help prints its options without a display.
    void desktopHelpNeedsNoDisplay()
    {
        auto env = QProcessEnvironment::systemEnvironment();
        for (const char* v : { "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM" })
            env.remove(QString::fromLatin1(v));
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(SHARDWISE_BIN_DIR "/shardwise"), { QStringLiteral("--help") });
        QVERIFY(p.waitForFinished(60000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                 qPrintable(QString::fromUtf8(p.readAllStandardError())));
        QVERIFY2(out.contains(QStringLiteral("--version")), qPrintable(out));
    }
};

QTEST_GUILESS_MAIN(TestVersions)
#include "test_versions.moc"
