// Re-attachable remote runs in the store: the handle and offsets kept beside a run, how such a run
// is shown (detached, not interrupted), a recorder that continues a run and keeps its follower's
// offsets in the same transaction as each line, the migration that adds the table, and the cascade
// when the run is removed.
#include "shardwise/store/database.hpp"
#include "shardwise/store/remote_follow.hpp"
#include "shardwise/store/run_recorder.hpp"
#include "shardwise/store/runs.hpp"
#include "shardwise/store/schema.hpp"
#include "store_fixtures/synthetic_run.hpp"

#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

using namespace shardwise;
using namespace shardwise::store;

namespace {

const std::string kHandle = R"({"run_id":"run-7","run_dir":"runs/run-7","world":2,"node_count":2})";

RunOrigin twoNodes()
{
    RunOrigin origin;
    origin.nodes = { { "node-a", std::nullopt }, { "node-b", std::nullopt } };
    origin.launcher = "shardwise";
    return origin;
}

protocol::StepEvent stepOf(int rank, int step)
{
    protocol::StepEvent e;
    e.rank = rank;
    e.step = step;
    e.timed = true;
    e.loss = 5.0;
    e.stepTimeS = 0.1;
    e.tokens = 64;
    e.memory = fixtures::memoryAt(rank, step);
    return e;
}

protocol::SummaryEvent summaryOf(int rank, int world)
{
    protocol::SummaryEvent su;
    su.rank = rank;
    su.world = world;
    su.timedSteps = 1;
    su.medianStepS = 0.1;
    su.p10StepS = 0.1;
    su.p90StepS = 0.1;
    su.tokensPerS = 640;
    su.memory = fixtures::memoryAt(rank, 1);
    return su;
}

// Makes the run's heartbeat as old as a follower that died `age` seconds ago would leave it.
void ageHeartbeat(const std::string& path, std::int64_t runId, double age)
{
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const std::string sql = "UPDATE runs SET heartbeat_at = heartbeat_at - " + std::to_string(age)
        + " WHERE id = " + std::to_string(runId);
    QCOMPARE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
}

QString shownStatus(const Database& db, std::int64_t runId)
{
    return QString::fromStdString(std::string(runStatusId(findRun(db, runId)->status)));
}

} // namespace

class TestStoreRemoteFollow : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::string path() const { return m_dir.filePath(QStringLiteral("runs.sqlite")).toStdString(); }

private slots:
    void init()
    {
        QVERIFY(m_dir.isValid());
        QFile::remove(QString::fromStdString(path()));
    }

    void handleAndOffsetsRoundTrip()
    {
        Database db = Database::open(path());
        RunRecorder recorder(db, fixtures::syntheticConfig(Strategy::Zero3, 2, 1, 1), twoNodes());
        saveRemoteFollow(db, recorder.runId(), kHandle);
        auto kept = findRemoteFollow(db, recorder.runId());
        QVERIFY(kept);
        QCOMPARE(kept->handleJson, kHandle);
        QCOMPARE(kept->offsetsJson, std::string("{}"));
        QVERIFY(!kept->detachedAt);
        markRemoteDetached(db, recorder.runId(), R"({"rank0.out":120})", "the connection to 'gpu-b' was lost");
        kept = findRemoteFollow(db, recorder.runId());
        QCOMPARE(kept->offsetsJson, std::string(R"({"rank0.out":120})"));
        QVERIFY(kept->detachedAt);
        QCOMPARE(findRun(db, recorder.runId())->note, std::string("the connection to 'gpu-b' was lost"));
        QVERIFY(markRemoteAttached(db, recorder.runId(), kept->savedAt));
        QVERIFY(!findRemoteFollow(db, recorder.runId())->detachedAt);
        QCOMPARE(findRun(db, recorder.runId())->note, std::string()); // followed again: the why no longer holds
        // Taken: a second attach with the same reading, or any while the new follower's heartbeat is
        // fresh, is refused.
        QVERIFY(!markRemoteAttached(db, recorder.runId(), kept->savedAt));
        QVERIFY(!markRemoteAttached(db, recorder.runId(), findRemoteFollow(db, recorder.runId())->savedAt));
        QVERIFY(removeRemoteFollow(db, recorder.runId()));
        QVERIFY(!findRemoteFollow(db, recorder.runId()));
        QVERIFY(!removeRemoteFollow(db, recorder.runId()));
        recorder.finish(RunStatus::Cancelled);
    }

    void handleForAMissingRunIsRefusedNamingTheRun()
    {
        Database db = Database::open(path());
        try {
            saveRemoteFollow(db, 4242, kHandle);
            QFAIL("a handle for a run that does not exist was stored");
        } catch (const StoreError& e) {
            QVERIFY2(std::string(e.what()).find("4242") != std::string::npos, e.what());
        }
    }

    void shownStatusOfARunningRun_data()
    {
        QTest::addColumn<bool>("handle");
        QTest::addColumn<bool>("detached");
        QTest::addColumn<double>("heartbeatAge");
        QTest::addColumn<QString>("shown");
        QTest::newRow("followed, fresh heartbeat") << true << false << 0.0 << QStringLiteral("running");
        QTest::newRow("detached on purpose, fresh heartbeat") << true << true << 0.0 << QStringLiteral("detached");
        QTest::newRow("follower died, stale heartbeat")
            << true << false << 2 * kStaleHeartbeatSeconds << QStringLiteral("detached");
        QTest::newRow("local writer died, stale heartbeat")
            << false << false << 2 * kStaleHeartbeatSeconds << QStringLiteral("interrupted");
        QTest::newRow("local run, fresh heartbeat") << false << false << 0.0 << QStringLiteral("running");
    }
    void shownStatusOfARunningRun()
    {
        QFETCH(bool, handle);
        QFETCH(bool, detached);
        QFETCH(double, heartbeatAge);
        QFETCH(QString, shown);
        Database db = Database::open(path());
        RunRecorder recorder(db, fixtures::syntheticConfig(Strategy::Zero2, 2, 1, 1), twoNodes());
        recorder.leaveRunning();
        const std::int64_t id = recorder.runId();
        if (handle)
            saveRemoteFollow(db, id, kHandle);
        if (detached)
            markRemoteDetached(db, id, "{}");
        if (heartbeatAge > 0)
            ageHeartbeat(path(), id, heartbeatAge);
        QCOMPARE(shownStatus(db, id), shown);
        const auto status = runStatusFromId(shown.toStdString());
        QVERIFY(status);
        RunFilter filter;
        filter.status = *status;
        const auto listed = listRuns(db, filter);
        QCOMPARE(listed.size(), std::size_t(1));
        QCOMPARE(listed.front().id, id);
        // The other shown states of a 'running' row do not list it.
        for (RunStatus other : { RunStatus::Running, RunStatus::Detached, RunStatus::Interrupted }) {
            if (other == *status)
                continue;
            filter.status = other;
            QVERIFY(listRuns(db, filter).empty());
        }
        QVERIFY(!isFinal(*status));
        // Only a run shown as detached can be taken up; a followed one stays with its follower.
        if (handle)
            QCOMPARE(markRemoteAttached(db, id, findRemoteFollow(db, id)->savedAt),
                     shown == QStringLiteral("detached"));
    }

    void finishedRunIsShownByItsStatusAndDropsItsHandle()
    {
        Database db = Database::open(path());
        RunRecorder recorder(db, fixtures::syntheticConfig(Strategy::Zero1, 2, 1, 1), twoNodes());
        saveRemoteFollow(db, recorder.runId(), kHandle);
        markRemoteDetached(db, recorder.runId(), "{}");
        recorder.finish(RunStatus::Cancelled);
        QCOMPARE(shownStatus(db, recorder.runId()), QStringLiteral("cancelled"));
        QVERIFY(!findRemoteFollow(db, recorder.runId()));
        QVERIFY(!markRemoteAttached(db, recorder.runId(), 0.0));
    }

    void abandonedDetachedRunIsLostWithoutItsHandle()
    {
        Database db = Database::open(path());
        std::int64_t id = 0;
        {
            RunRecorder recorder(db, fixtures::syntheticConfig(Strategy::Zero3, 2, 1, 1), twoNodes());
            id = recorder.runId();
            saveRemoteFollow(db, id, kHandle);
            markRemoteDetached(db, id, R"({"rank0.out":120})");
            recorder.leaveRunning();
        }
        QCOMPARE(shownStatus(db, id), QStringLiteral("detached"));
        abandonDetachedRun(db, id, "node gpu-b was re-imaged");
        const auto run = findRun(db, id);
        QCOMPARE(run->status, RunStatus::Lost);
        QVERIFY(run->finishedAt);
        QVERIFY2(run->note.find("abandoned") != std::string::npos, run->note.c_str());
        QVERIFY2(run->note.find("node gpu-b was re-imaged") != std::string::npos, run->note.c_str());
        QVERIFY(!findRemoteFollow(db, id));
        QVERIFY(!markRemoteAttached(db, id, 0.0));
    }

    void abandoningARunThatIsNotDetachedIsRefusedNamingTheRun_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown run") << QStringLiteral("unknown") << QStringLiteral("no such run");
        QTest::newRow("followed remote run") << QStringLiteral("followed") << QStringLiteral("it is running");
        QTest::newRow("finished run") << QStringLiteral("finished") << QStringLiteral("it is cancelled");
        QTest::newRow("local run, writer gone") << QStringLiteral("interrupted") << QStringLiteral("it is interrupted");
    }
    void abandoningARunThatIsNotDetachedIsRefusedNamingTheRun()
    {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        Database db = Database::open(path());
        std::int64_t id = 4242;
        if (kind != QStringLiteral("unknown")) {
            RunRecorder recorder(db, fixtures::syntheticConfig(Strategy::Zero2, 2, 1, 1), twoNodes());
            id = recorder.runId();
            if (kind == QStringLiteral("followed"))
                saveRemoteFollow(db, id, kHandle);
            if (kind == QStringLiteral("finished"))
                recorder.finish(RunStatus::Cancelled);
            else
                recorder.leaveRunning();
        }
        if (kind == QStringLiteral("interrupted"))
            ageHeartbeat(path(), id, 2 * kStaleHeartbeatSeconds);
        const std::string before
            = std::string(runStatusId(findRun(db, id) ? findRun(db, id)->status : RunStatus::Lost));
        try {
            abandonDetachedRun(db, id);
            QFAIL("a run that is not detached was abandoned");
        } catch (const StoreError& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.contains(QStringLiteral("run %1").arg(id)), e.what());
            QVERIFY2(message.contains(expected), e.what());
        }
        if (kind != QStringLiteral("unknown"))
            QCOMPARE(std::string(runStatusId(findRun(db, id)->status)), before);
        if (kind == QStringLiteral("followed"))
            QVERIFY(findRemoteFollow(db, id));
    }

    void offsetsAreWrittenWithEachRecordedLine()
    {
        Database db = Database::open(path());
        RunRecorder recorder(db, fixtures::syntheticConfig(Strategy::Zero2, 2, 0, 1), twoNodes());
        saveRemoteFollow(db, recorder.runId(), kHandle);
        std::uint64_t consumed = 0;
        recorder.keepFollowerOffsets([&] { return R"({"rank0.out":)" + std::to_string(consumed) + "}"; });
        consumed = 57;
        recorder.record(stepOf(0, 0));
        QCOMPARE(findRemoteFollow(db, recorder.runId())->offsetsJson, std::string(R"({"rank0.out":57})"));
        consumed = 90;
        recorder.recordLog(1, "a stderr line");
        QCOMPARE(findRemoteFollow(db, recorder.runId())->offsetsJson, std::string(R"({"rank0.out":90})"));
        recorder.finish(RunStatus::Cancelled);
    }

    void offsetsWithoutAHandleFailTheWriteAndStoreNothing()
    {
        Database db = Database::open(path());
        RunRecorder recorder(db, fixtures::syntheticConfig(Strategy::Zero2, 2, 0, 1), twoNodes());
        recorder.keepFollowerOffsets([] { return std::string("{}"); });
        QVERIFY_THROWS_EXCEPTION(StoreError, recorder.record(stepOf(0, 0)));
        // The step and its offsets are one transaction: neither is kept.
        QVERIFY(stepSeries(db, recorder.runId()).empty());
        recorder.finish(RunStatus::Cancelled);
    }

    void continuedRecorderCountsWhatWasRecordedBefore()
    {
        Database db = Database::open(path());
        std::int64_t id = 0;
        {
            RunRecorder first(db, fixtures::syntheticConfig(Strategy::Zero3, 2, 0, 1), twoNodes());
            id = first.runId();
            saveRemoteFollow(db, id, kHandle);
            first.record(stepOf(0, 0));
            first.record(stepOf(1, 0));
            first.record(summaryOf(0, 2));
            markRemoteDetached(db, id, R"({"rank0.out":300})");
            first.leaveRunning();
        }
        QCOMPARE(shownStatus(db, id), QStringLiteral("detached"));
        RunRecorder second(db, id);
        QCOMPARE(second.runId(), id);
        // Rank 1's summary is still missing.
        QCOMPARE(second.statusFromEvents(), RunStatus::Failed);
        second.record(stepOf(1, 0)); // a line delivered again is stored once (keyed by rank and step)
        second.record(summaryOf(1, 2));
        QCOMPARE(second.statusFromEvents(), RunStatus::Completed);
        second.finish(second.statusFromEvents());
        QCOMPARE(shownStatus(db, id), QStringLiteral("completed"));
        QCOMPARE(stepSeries(db, id).size(), std::size_t(2));
        QVERIFY(findRun(db, id)->tokensPerS);
        QVERIFY(!findRemoteFollow(db, id));
    }

    void continuingAFinishedOrMissingRunIsRefused()
    {
        Database db = Database::open(path());
        fixtures::SyntheticRun run;
        run.config = fixtures::syntheticConfig(Strategy::Zero1, 1, 0, 1);
        const std::int64_t id = fixtures::recordRun(db, run);
        try {
            RunRecorder again(db, id);
            QFAIL("a finished run was continued");
        } catch (const StoreError& e) {
            QVERIFY2(std::string(e.what()).find("already finished (completed)") != std::string::npos, e.what());
        }
        try {
            RunRecorder missing(db, id + 100);
            QFAIL("a missing run was continued");
        } catch (const StoreError& e) {
            QVERIFY2(std::string(e.what()).find("not in the store") != std::string::npos, e.what());
        }
    }

    void removingTheRunRemovesItsHandle()
    {
        Database db = Database::open(path());
        std::int64_t id = 0;
        {
            RunRecorder recorder(db, fixtures::syntheticConfig(Strategy::Zero2, 2, 0, 1), twoNodes());
            id = recorder.runId();
            recorder.leaveRunning();
        }
        saveRemoteFollow(db, id, kHandle);
        QVERIFY(removeRun(db, id));
        QVERIFY(!findRemoteFollow(db, id));
        QCOMPARE(db.integrityCheck(), std::string("ok"));
    }

    void migrationFromVersion4KeepsRunningRunsAndAddsTheTable()
    {
        std::int64_t id = 0;
        {
            OpenOptions old;
            old.targetVersion = 4;
            Database db = Database::open(path(), old);
            QCOMPARE(db.schemaVersion(), 4);
            RunRecorder recorder(db, fixtures::syntheticConfig(Strategy::Zero2, 2, 0, 1), twoNodes());
            id = recorder.runId();
            recorder.record(stepOf(0, 0));
            recorder.leaveRunning();
            // Without the table a running run is shown as before.
            QCOMPARE(shownStatus(db, id), QStringLiteral("running"));
            recorder.finish(RunStatus::Completed); // finishing at version 4 has no handle to drop
            QCOMPARE(shownStatus(db, id), QStringLiteral("completed"));
        }
        std::int64_t running = 0;
        {
            OpenOptions old;
            old.targetVersion = 4;
            Database db = Database::open(path(), old);
            RunRecorder recorder(db, fixtures::syntheticConfig(Strategy::Zero3, 2, 0, 1), twoNodes());
            running = recorder.runId();
            recorder.leaveRunning();
        }
        ageHeartbeat(path(), running, 2 * kStaleHeartbeatSeconds);
        Database db = Database::open(path());
        QCOMPARE(db.schemaVersion(), currentSchemaVersion());
        QCOMPARE(db.integrityCheck(), std::string("ok"));
        QCOMPARE(shownStatus(db, id), QStringLiteral("completed"));
        QCOMPARE(stepSeries(db, id).size(), std::size_t(1));
        // A run left running before the upgrade has no handle: it stays interrupted.
        QCOMPARE(shownStatus(db, running), QStringLiteral("interrupted"));
        saveRemoteFollow(db, running, kHandle);
        QCOMPARE(shownStatus(db, running), QStringLiteral("detached"));
    }
};

QTEST_GUILESS_MAIN(TestStoreRemoteFollow)
#include "test_store_remote_follow.moc"
