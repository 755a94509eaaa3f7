// Files the CLI writes are replaced whole or not at all: a write that fails part-way (here: the file
// size limit, as a full disk would) leaves the previous file as it was and no stray temporary file.
// Every --out / --output (runs export, plan --export, compare) keeps an existing file's mode, writes a
// FIFO and a character device (/dev/null, /dev/stdout) in place, and refuses a symbolic link to a
// file; --log-dir refuses a planted link.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace {

// The three commands that write a file, each with `target` as its output file.
QStringList writer(int which, const QString& target)
{
    switch (which) {
    case 0:
        return { QStringLiteral("runs"), QStringLiteral("export"), QStringLiteral("--format"),
                 QStringLiteral("json"), QStringLiteral("--out"),  target };
    case 1:
        return { QStringLiteral("plan"),
                 QStringLiteral("--model"),
                 QStringLiteral("qwen2.5-7b"),
                 QStringLiteral("--gpu"),
                 QStringLiteral("h100-80gb"),
                 QStringLiteral("--gpus-per-node"),
                 QStringLiteral("8"),
                 QStringLiteral("--framework"),
                 QStringLiteral("deepspeed"),
                 QStringLiteral("--export"),
                 QStringLiteral("ds-config"),
                 QStringLiteral("--output"),
                 target };
    default:
        return { QStringLiteral("compare"), QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("--out"),
                 target };
    }
}

struct Ran {
    int exitCode = -1;
    QString err;
    QByteArray out;
};

Ran cli(const QStringList& args, const QString& store)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SHARDWISE_DB"), store);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SHARDWISE_CLI_PATH), args);
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return { -1, QStringLiteral("timed out"), {} };
    }
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardError()),
             p.readAllStandardOutput() };
}

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

mode_t modeOf(const QString& path)
{
    struct stat st { };
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 ? st.st_mode : 0;
}

} // namespace

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

    void exportsKeepTheModeAndRefuseLinks()
    {
        QTemporaryDir dir;
        const QString store = dir.filePath(QStringLiteral("store.sqlite"));
        for (int which = 0; which < 3; ++which) {
            const QString name = writer(which, {}).first();
            // A 0600 file stays 0600 and gets the new contents.
            const QString file = dir.filePath(name + QStringLiteral("-private"));
            {
                QFile f(file);
                QVERIFY(f.open(QIODevice::WriteOnly));
                f.write("secret previous\n");
            }
            QCOMPARE(::chmod(QFile::encodeName(file).constData(), 0600), 0);
            Ran r = cli(writer(which, file), store);
            QVERIFY2(r.exitCode == 0, qPrintable(name + QStringLiteral(": ") + r.err));
            QCOMPARE(modeOf(file) & 07777, mode_t(0600));
            QVERIFY(!readFile(file).contains("secret previous"));
            QVERIFY(readFile(file).size() > 1);

            // A symbolic link to a file is refused, naming it; the file behind it is untouched.
            const QString victim = dir.filePath(name + QStringLiteral("-victim"));
            const QString link = dir.filePath(name + QStringLiteral("-link"));
            {
                QFile f(victim);
                QVERIFY(f.open(QIODevice::WriteOnly));
                f.write("keep me\n");
            }
            QVERIFY(QFile::link(victim, link));
            r = cli(writer(which, link), store);
            QVERIFY2(r.exitCode == 2,
                     qPrintable(name + QStringLiteral(": exit ") + QString::number(r.exitCode) + r.err));
            QVERIFY2(r.err.contains(QStringLiteral("symbolic link")), qPrintable(r.err));
            QCOMPARE(readFile(victim), QByteArray("keep me\n"));
            QVERIFY(S_ISLNK(modeOf(link)));
        }
    }

    void aFifoIsWrittenInPlace()
    {
        QTemporaryDir dir;
        const QString store = dir.filePath(QStringLiteral("store.sqlite"));
        for (int which = 0; which < 3; ++which) {
            const QString fifo = dir.filePath(QStringLiteral("pipe%1").arg(which));
            QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
            QByteArray received;
            // The reader opens the FIFO and reads to EOF; the CLI's open blocks until it is there.
            std::thread reader([&] {
                const int fd = ::open(QFile::encodeName(fifo).constData(), O_RDONLY);
                char buf[4096];
                ssize_t n;
                while (fd >= 0 && (n = ::read(fd, buf, sizeof buf)) > 0)
                    received.append(buf, n);
                if (fd >= 0)
                    ::close(fd);
            });
            const Ran r = cli(writer(which, fifo), store);
            if (r.exitCode != 0) {
                // Unblock the reader should the CLI never have opened the FIFO.
                const int fd = ::open(QFile::encodeName(fifo).constData(), O_WRONLY | O_NONBLOCK);
                if (fd >= 0)
                    ::close(fd);
            }
            reader.join();
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QVERIFY(S_ISFIFO(modeOf(fifo)));
            QVERIFY2(received.size() > 1, received.constData());
        }
    }

    void devNullAndStdoutStayWhatTheyAre()
    {
        QTemporaryDir dir;
        const QString store = dir.filePath(QStringLiteral("store.sqlite"));
        struct stat before { };
        QCOMPARE(::stat("/dev/null", &before), 0);
        QVERIFY(S_ISCHR(before.st_mode));
        for (int which = 0; which < 3; ++which) {
            const Ran r = cli(writer(which, QStringLiteral("/dev/null")), store);
            struct stat after { };
            const bool device = ::lstat("/dev/null", &after) == 0 && S_ISCHR(after.st_mode);
            if (!device && ::geteuid() == 0) {
                // Never leave the machine without /dev/null, even when the command under test replaced it.
                ::unlink("/dev/null");
                ::mknod("/dev/null", S_IFCHR | 0666, before.st_rdev);
                ::chmod("/dev/null", 0666);
            }
            QVERIFY2(device, "/dev/null is no longer a character device");
            QCOMPARE(after.st_rdev, before.st_rdev);
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        }
        // /dev/stdout (here a pipe to this test) and '-' are written to, not replaced.
        const Ran toStdout = cli(writer(0, QStringLiteral("/dev/stdout")), store);
        QVERIFY2(toStdout.exitCode == 0, qPrintable(toStdout.err));
        QVERIFY2(toStdout.out.contains("\"shardwise-runs\""), toStdout.out.constData());
        const Ran dash = cli(writer(1, QStringLiteral("-")), store);
        QVERIFY2(dash.exitCode == 0, qPrintable(dash.err));
        QVERIFY(dash.out.contains("\"zero_optimization\""));
    }

    void aPlantedLogDirLinkIsRefused()
    {
        // --log-dir logs puts a strategy's rank logs in logs/zero0: a link planted there is refused
        // before anything is written, and the folder it points to stays empty.
        QTemporaryDir dir;
        const QString elsewhere = dir.filePath(QStringLiteral("elsewhere"));
        const QString logs = dir.filePath(QStringLiteral("logs"));
        QVERIFY(QDir().mkpath(elsewhere));
        QVERIFY(QDir().mkpath(logs));
        QVERIFY(QFile::link(elsewhere, logs + QStringLiteral("/zero0")));
        const Ran r = cli({ QStringLiteral("run"), QStringLiteral("--local"), QStringLiteral("--ranks"),
                            QStringLiteral("1"), QStringLiteral("--device"), QStringLiteral("cpu"),
                            QStringLiteral("--model"), QStringLiteral("tiny"), QStringLiteral("--strategy"),
                            QStringLiteral("zero0"), QStringLiteral("--steps"), QStringLiteral("1"),
                            QStringLiteral("--seq"), QStringLiteral("16"), QStringLiteral("--runner"),
                            QStringLiteral(SHARDWISE_RUNNER_PATH), QStringLiteral("--log-dir"), logs },
                          dir.filePath(QStringLiteral("store.sqlite")));
        QVERIFY2(r.exitCode != 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("symbolic link")), qPrintable(r.err));
        QVERIFY(QDir(elsewhere).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCliFileOutput)
#include "test_cli_file_output.moc"
