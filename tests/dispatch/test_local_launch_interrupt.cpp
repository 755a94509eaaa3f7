// `shardwise-cli run --local` as a user stops it: a rank count beyond this machine's cores is refused
// before anything starts, SIGTERM while the ranks start ends every rank already started, and SIGKILL
// of the command ends its ranks too (no runner process outlives the command), also through a --runner
// wrapper that does not exec the runner (as /usr/bin/time and perf stat do), which must not end a
// healthy run either. Real CLI, real runner processes.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QUuid>
#include <QtTest>

#include <csignal>
#include <sched.h>

namespace {

int cpuCores()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    return ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

// Processes whose environment carries `marker`: the ranks of one command, wherever they were reparented.
QStringList processesMarked(const QByteArray& marker)
{
    QStringList found;
    for (const QString& pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool numeric = false;
        pid.toLongLong(&numeric);
        if (!numeric)
            continue;
        QFile environ(QStringLiteral("/proc/") + pid + QStringLiteral("/environ"));
        if (environ.open(QIODevice::ReadOnly) && environ.readAll().split('\0').contains(marker))
            found << pid;
    }
    return found;
}

// A --runner wrapper that starts the runner as its child and waits for it, as /usr/bin/time does.
QString nonExecWrapper(const QTemporaryDir& dir)
{
    const QString path = dir.filePath(QStringLiteral("wrapper.sh"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write("#!/bin/sh\n" SHARDWISE_RUNNER_PATH " \"$@\"\nstatus=$?\necho \"wrapper: runner ended with $status\" >&2\n"
            "exit $status\n");
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

QStringList runArgs(const QString& runner, const QString& strategy, const QString& steps, const QByteArray& marker,
                    const QString& logs)
{
    return { QStringLiteral("run"),
             QStringLiteral("--local"),
             QStringLiteral("--runner"),
             runner,
             QStringLiteral("--model"),
             QStringLiteral("tiny"),
             QStringLiteral("--device"),
             QStringLiteral("cpu"),
             QStringLiteral("--strategy"),
             strategy,
             QStringLiteral("--ranks"),
             QStringLiteral("2"),
             QStringLiteral("--oversubscribe"),
             QStringLiteral("--seq"),
             QStringLiteral("32"),
             QStringLiteral("--steps"),
             steps,
             QStringLiteral("--no-store"),
             QStringLiteral("--rank-env"),
             QString::fromUtf8(marker),
             QStringLiteral("--log-dir"),
             logs };
}

} // namespace

class TestLocalLaunchInterrupt : public QObject {
    Q_OBJECT

private slots:
    void ranksBeyondTheCoresAreRefusedNamingBoth()
    {
        const int ranks = cpuCores() + 1;
        QProcess cli;
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  { QStringLiteral("run"), QStringLiteral("--local"), QStringLiteral("--runner"),
                    QStringLiteral(SHARDWISE_RUNNER_PATH), QStringLiteral("--model"), QStringLiteral("tiny"),
                    QStringLiteral("--strategy"), QStringLiteral("zero1"), QStringLiteral("--ranks"),
                    QString::number(ranks), QStringLiteral("--no-store") });
        QVERIFY(cli.waitForFinished(30000));
        QCOMPARE(cli.exitCode(), 2);
        const QString err = QString::fromUtf8(cli.readAllStandardError());
        QVERIFY2(
            err.contains(
                QStringLiteral("--ranks %1: more ranks than this machine's %2 CPU cores").arg(ranks).arg(cpuCores())),
            qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("--oversubscribe")), qPrintable(err));
    }

    void sigtermWhileRanksStartLeavesNoRunner()
    {
        if (!QFile::exists(QStringLiteral(SHARDWISE_RUNNER_PATH)))
            QSKIP("shardwise-runner is not part of this build");
        QTemporaryDir logs;
        const QByteArray marker = "SHARDWISE_TEST_MARK=" + QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
        constexpr int kRanks = 16;
        QProcess cli;
        cli.setProcessChannelMode(QProcess::MergedChannels);
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  { QStringLiteral("run"),
                    QStringLiteral("--local"),
                    QStringLiteral("--runner"),
                    QStringLiteral(SHARDWISE_RUNNER_PATH),
                    QStringLiteral("--model"),
                    QStringLiteral("tiny"),
                    QStringLiteral("--strategy"),
                    QStringLiteral("zero1"),
                    QStringLiteral("--ranks"),
                    QString::number(kRanks),
                    QStringLiteral("--oversubscribe"),
                    QStringLiteral("--seq"),
                    QStringLiteral("32"),
                    QStringLiteral("--steps"),
                    QStringLiteral("100000"),
                    QStringLiteral("--no-store"),
                    QStringLiteral("--rank-env"),
                    QString::fromUtf8(marker),
                    QStringLiteral("--log-dir"),
                    logs.path() });
        QVERIFY(cli.waitForStarted());
        // SIGTERM as soon as the first rank exists, while the others are being started.
        const QString firstLog = logs.filePath(QStringLiteral("zero1/rank0.log"));
        QElapsedTimer clock;
        clock.start();
        while (!QFile::exists(firstLog) && clock.elapsed() < 60000)
            QThread::msleep(1);
        QVERIFY2(QFile::exists(firstLog), "no rank started");
        ::kill(static_cast<pid_t>(cli.processId()), SIGTERM);

        QVERIFY2(cli.waitForFinished(60000), "the command did not end after SIGTERM");
        const QString output = QString::fromUtf8(cli.readAll());
        QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
        QCOMPARE(cli.exitCode(), 1);
        QVERIFY2(output.contains(QStringLiteral("cancelled")), qPrintable(output));
        const QStringList survivors = processesMarked(marker);
        for (const QString& pid : survivors)
            ::kill(static_cast<pid_t>(pid.toLongLong()), SIGKILL);
        QVERIFY2(
            survivors.isEmpty(),
            qPrintable(QStringLiteral("runner processes outlived the command: ") + survivors.join(QLatin1Char(' '))));
    }

    void sigkillOfTheCommandEndsItsRanks()
    {
        // SIGKILL leaves the command no chance to stop its ranks; they must end with it all the same
        // rather than train on as orphans.
        if (!QFile::exists(QStringLiteral(SHARDWISE_RUNNER_PATH)))
            QSKIP("shardwise-runner is not part of this build");
        QTemporaryDir logs;
        const QByteArray marker = "SHARDWISE_TEST_MARK=" + QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
        QProcess cli;
        cli.setProcessChannelMode(QProcess::MergedChannels);
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  { QStringLiteral("run"),
                    QStringLiteral("--local"),
                    QStringLiteral("--runner"),
                    QStringLiteral(SHARDWISE_RUNNER_PATH),
                    QStringLiteral("--model"),
                    QStringLiteral("tiny"),
                    QStringLiteral("--strategy"),
                    QStringLiteral("zero0"),
                    QStringLiteral("--ranks"),
                    QStringLiteral("2"),
                    QStringLiteral("--oversubscribe"),
                    QStringLiteral("--seq"),
                    QStringLiteral("32"),
                    QStringLiteral("--steps"),
                    QStringLiteral("100000"),
                    QStringLiteral("--no-store"),
                    QStringLiteral("--rank-env"),
                    QString::fromUtf8(marker),
                    QStringLiteral("--log-dir"),
                    logs.path() });
        QVERIFY(cli.waitForStarted());
        QElapsedTimer clock;
        clock.start();
        while (processesMarked(marker).size() < 2 && clock.elapsed() < 60000)
            QThread::msleep(20);
        QCOMPARE(processesMarked(marker).size(), 2);
        ::kill(static_cast<pid_t>(cli.processId()), SIGKILL);
        QVERIFY(cli.waitForFinished(10000));

        clock.restart();
        QStringList survivors = processesMarked(marker);
        while (!survivors.isEmpty() && clock.elapsed() < 20000) {
            QThread::msleep(50);
            survivors = processesMarked(marker);
        }
        for (const QString& pid : survivors)
            ::kill(static_cast<pid_t>(pid.toLongLong()), SIGKILL);
        QVERIFY2(survivors.isEmpty(),
                 qPrintable(QStringLiteral("ranks outlived the killed command: ") + survivors.join(QLatin1Char(' '))));
    }

    void aWrapperThatDoesNotExecTheRunnerCompletes()
    {
        // The wrapper is the launcher's child and the runner its grandchild: the launcher-death check
        // must see the launcher among the runner's ancestors, not demand it as the parent.
        if (!QFile::exists(QStringLiteral(SHARDWISE_RUNNER_PATH)))
            QSKIP("shardwise-runner is not part of this build");
        QTemporaryDir dir;
        const QString wrapper = nonExecWrapper(dir);
        const QByteArray marker = "SHARDWISE_TEST_MARK=" + QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
        QProcess cli;
        cli.setProcessChannelMode(QProcess::MergedChannels);
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  runArgs(wrapper, QStringLiteral("zero3"), QStringLiteral("2"), marker,
                          dir.filePath(QStringLiteral("logs"))));
        QVERIFY(cli.waitForFinished(240000));
        const QString output = QString::fromUtf8(cli.readAll());
        QVERIFY2(cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 0, qPrintable(output));
        for (const char* rank : { "logs/zero3/rank0.log", "logs/zero3/rank1.log" }) {
            QFile log(dir.filePath(QString::fromLatin1(rank)));
            QVERIFY(log.open(QIODevice::ReadOnly));
            const QByteArray text = log.readAll();
            QVERIFY2(text.contains("wrapper: runner ended with 0"), text.constData());
        }
    }

    void sigkillOfTheCommandEndsRanksBehindAWrapper()
    {
        if (!QFile::exists(QStringLiteral(SHARDWISE_RUNNER_PATH)))
            QSKIP("shardwise-runner is not part of this build");
        QTemporaryDir dir;
        const QString wrapper = nonExecWrapper(dir);
        const QByteArray marker = "SHARDWISE_TEST_MARK=" + QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
        QProcess cli;
        cli.setProcessChannelMode(QProcess::MergedChannels);
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  runArgs(wrapper, QStringLiteral("zero0"), QStringLiteral("100000"), marker,
                          dir.filePath(QStringLiteral("logs"))));
        QVERIFY(cli.waitForStarted());
        // Two wrappers and two runners carry the marker.
        QElapsedTimer clock;
        clock.start();
        while (processesMarked(marker).size() < 4 && clock.elapsed() < 60000)
            QThread::msleep(20);
        QCOMPARE(processesMarked(marker).size(), 4);
        // Still running a moment later: the wrapper alone does not end the ranks.
        QThread::msleep(1500);
        QCOMPARE(processesMarked(marker).size(), 4);
        ::kill(static_cast<pid_t>(cli.processId()), SIGKILL);
        QVERIFY(cli.waitForFinished(10000));

        clock.restart();
        QStringList survivors = processesMarked(marker);
        while (!survivors.isEmpty() && clock.elapsed() < 20000) {
            QThread::msleep(50);
            survivors = processesMarked(marker);
        }
        for (const QString& pid : survivors)
            ::kill(static_cast<pid_t>(pid.toLongLong()), SIGKILL);
        QVERIFY2(survivors.isEmpty(),
                 qPrintable(QStringLiteral("ranks outlived the killed command behind a wrapper: ")
                            + survivors.join(QLatin1Char(' '))));
    }
};

QTEST_GUILESS_MAIN(TestLocalLaunchInterrupt)
#include "test_local_launch_interrupt.moc"
