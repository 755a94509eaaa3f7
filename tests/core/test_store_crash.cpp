// A writer killed with SIGKILL at random moments never corrupts the store and never leaves a run half
// recorded: after each kill the file passes integrity_check and foreign_key_check, and every run the
// writer touched is either finished with all its records or still 'running' (shown as interrupted
// once its heartbeat is stale).
#include "shardwise/store/runs.hpp"
#include "shardwise/store/schema.hpp"
#include "store_fixtures/run_invariants.hpp"

#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace shardwise::store;

class TestStoreCrash : public QObject {
    Q_OBJECT

private slots:
    void killedWriterLeavesNoHalfRecordedRun()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString dbPath = dir.filePath(QStringLiteral("runs.sqlite"));
        constexpr int kKills = 200;
        // Fixed seed so a failure can be replayed; the writer's own seed varies per round.
        QRandomGenerator random(20261202);
        std::int64_t checkedUpTo = 0;
        int killedMidRun = 0;
        int finishedRuns = 0;

        for (int round = 0; round < kKills; ++round) {
            QProcess writer;
            writer.setProgram(QStringLiteral(STORE_RUN_WRITER));
            writer.setArguments({ QStringLiteral("loop"), dbPath, QString::number(round + 1) });
            writer.start();
            QVERIFY2(writer.waitForStarted(5000), qPrintable(writer.errorString()));
            // One round in ten kills the writer while it may still be opening (and, in the first round,
            // creating and migrating) the file; the rest kill it at a random moment of recording.
            if (random.bounded(10) != 0)
                QVERIFY2(writer.waitForReadyRead(20000), "the writer never started recording");
            QThread::usleep(random.bounded(2000, 80000));
            ::kill(static_cast<pid_t>(writer.processId()), SIGKILL);
            QVERIFY(writer.waitForFinished(5000));
            QCOMPARE(writer.exitStatus(), QProcess::CrashExit);
            const QByteArray err = writer.readAllStandardError();
            QVERIFY2(err.isEmpty(), err.constData());

            if (!QFile::exists(dbPath))
                continue; // killed before it created the file
            const Database db = Database::open(dbPath.toStdString());
            QCOMPARE(db.schemaVersion(), currentSchemaVersion());
            QCOMPARE(QString::fromStdString(db.integrityCheck()), QStringLiteral("ok"));

            // The dead writer's heartbeats are all in the past: judge them as of ten minutes from now.
            const double later = currentUnixTime() + 2 * kStaleHeartbeatSeconds;
            for (const auto& run : listRuns(db, {}, later)) {
                if (run.id <= checkedUpTo)
                    continue;
                QVERIFY2(run.status != RunStatus::Running, "a dead writer's run must show as interrupted");
                const auto problems = fixtures::halfRecordedProblems(db, run);
                QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
                checkedUpTo = std::max(checkedUpTo, run.id);
                if (run.status == RunStatus::Interrupted)
                    ++killedMidRun;
                else
                    ++finishedRuns;
            }
        }
        qInfo("%d kills: %d runs interrupted mid-way, %d finished runs checked", kKills, killedMidRun, finishedRuns);
        // Guards against a test that never hits a write: a good part of the kills must land inside a run
        // (not all can: some land while the writer opens the file or between two runs).
        QVERIFY2(killedMidRun > kKills / 4, "too few kills landed while a run was being recorded");
    }
};

QTEST_GUILESS_MAIN(TestStoreCrash)
#include "test_store_crash.moc"
