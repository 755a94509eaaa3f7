// Files the CLI writes are replaced whole or not at all: a write that fails part-way (here: the file
// size limit, as a full disk would) leaves the previous file as it was and no stray temporary file.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

class TestCliFileOutput : public QObject {
    Q_OBJECT

private slots:
    void aFailedExportKeepsThePreviousFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString target = dir.filePath(QStringLiteral("ds_config.json"));
        {
            QFile f(target);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("previous\n");
        }
        const QString plan = QStringLiteral(SHARDWISE_CLI_PATH)
            + QStringLiteral(" plan --model qwen2.5-7b --gpu h100-80gb --gpus-per-node 8 --framework deepspeed "
                             "--export ds-config --output ")
            + target;
        // Every write fails with EFBIG (file size limit 0, SIGXFSZ ignored), as on a full disk.
        QProcess p;
        p.start(QStringLiteral("bash"),
                { QStringLiteral("-c"), QStringLiteral("trap '' XFSZ; ulimit -f 0; exec ") + plan });
        QVERIFY(p.waitForFinished(60000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() != 0, qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("previous file is kept")), qPrintable(err));
        QFile f(target);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("previous\n"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList { QStringLiteral("ds_config.json") });

        // Without the limit the same command replaces the file with the whole export.
        QProcess ok;
        ok.start(QStringLiteral("bash"), { QStringLiteral("-c"), QStringLiteral("exec ") + plan });
        QVERIFY(ok.waitForFinished(60000));
        QVERIFY2(ok.exitCode() == 0, qPrintable(QString::fromUtf8(ok.readAllStandardError())));
        f.close();
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.size() > 100);
        QVERIFY(text.contains("\"zero_optimization\""));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList { QStringLiteral("ds_config.json") });
    }
};

QTEST_GUILESS_MAIN(TestCliFileOutput)
#include "test_cli_file_output.moc"
