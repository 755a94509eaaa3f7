// A run whose recording shardwise-cli is killed with SIGKILL cannot finish its row; readers see its
// writer is gone (same host, pid no longer alive) and show it 'interrupted' at once instead of
// 'running' until the heartbeat goes stale. Real CLI, real runner ranks, real store file.
#include "shardwise/store/database.hpp"
#include "shardwise/store/runs.hpp"

#include <QDeadlineTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <csignal>

using namespace shardwise::store;

namespace {

std::vector<RunSummary> runsIn(const QString& path)
{
    if (!QFile::exists(path))
        return {};
    OpenOptions options;
    options.readOnly = true;
    return listRuns(Database::open(path.toStdString(), options));
}

// The ranks the CLI started (its children), so the test can stop them once the CLI is dead.
QList<qint64> childrenOf(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/task/%1/children").arg(pid));
    QList<qint64> out;
    if (f.open(QIODevice::ReadOnly))
        for (const QByteArray& p : f.readAll().split(' '))
            if (!p.trimmed().isEmpty())
                out.push_back(p.trimmed().toLongLong());
    return out;
}

} // namespace

class TestStoreWriterLiveness : public QObject {
    Q_OBJECT

private slots:
    void killedRecorderShowsInterruptedAtOnce()
    {
        QTemporaryDir dir;
        const QString db = dir.filePath(QStringLiteral("runs.sqlite"));
        QProcess cli;
        cli.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        cli.start(QStringLiteral(SHARDWISE_CLI),
                  { QStringLiteral("run"), QStringLiteral("--local"), QStringLiteral("--runner"),
                    QStringLiteral(SHARDWISE_RUNNER), QStringLiteral("--model"), QStringLiteral("tiny"),
                    QStringLiteral("--strategy"), QStringLiteral("zero1"), QStringLiteral("--ranks"),
                    QStringLiteral("2"), QStringLiteral("--steps"), QStringLiteral("1000000"), QStringLiteral("--seq"),
                    QStringLiteral("32"), QStringLiteral("--db"), db, QStringLiteral("--log-dir"),
                    dir.filePath(QStringLiteral("logs")) });
        QVERIFY(cli.waitForStarted());

        // While the CLI lives its run reads 'running'.
        QDeadlineTimer deadline(60000);
        std::vector<RunSummary> runs;
        while (!deadline.hasExpired() && (runs = runsIn(db)).empty())
            QThread::msleep(100);
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs.front().status, RunStatus::Running);
        QList<qint64> ranks;
        while (!deadline.hasExpired() && (ranks = childrenOf(cli.processId())).size() < 2)
            QThread::msleep(100);

        ::kill(static_cast<pid_t>(cli.processId()), SIGKILL);
        QVERIFY(cli.waitForFinished(10000));
        for (const qint64 rank : ranks)
            ::kill(static_cast<pid_t>(rank), SIGKILL);

        // Judged now, not as of a stale heartbeat: the heartbeat is seconds old.
        runs = runsIn(db);
        QCOMPARE(runs.size(), std::size_t(1));
        QVERIFY(currentUnixTime() - runs.front().heartbeatAt < kStaleHeartbeatSeconds);
        QCOMPARE(runStatusId(runs.front().status), std::string_view("interrupted"));
        RunFilter interrupted;
        interrupted.status = RunStatus::Interrupted;
        OpenOptions options;
        options.readOnly = true;
        QCOMPARE(listRuns(Database::open(db.toStdString(), options), interrupted).size(), std::size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestStoreWriterLiveness)
#include "test_store_writer_liveness.moc"
