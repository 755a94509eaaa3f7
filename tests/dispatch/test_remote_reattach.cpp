// Detaching from and re-attaching to remote runs, end to end: ranks on two "nodes" (127.0.0.2 and
// 127.0.0.3 of a real sshd on loopback), recorded into a real SQLite store file. A run is detached
// mid-run, shown as detached, re-attached from its stored offsets and recorded to its end into the
// same run with every line exactly once. The line mechanics use sshd/fake_rank.sh; the measured run
// uses the real CPU shardwise-runner.

#include "sshd/sshd_fixture.hpp"

#include "shardwise/session/remote_run_json.hpp"
#include "shardwise/session/run_session.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/remote_follow.hpp"
#include "shardwise/store/runs.hpp"

#include <QFileInfo>
#include <QtTest>

#include <map>
#include <set>

using namespace shardwise;
using shardwise::testing::SshdFixture;

namespace {
const std::string kFakeRank = std::string(SHARDWISE_SOURCE_DIR) + "/tests/dispatch/sshd/fake_rank.sh";
const std::string kRunner = std::string(SHARDWISE_BINARY_DIR) + "/bin/shardwise-runner";

RunConfig tinyCpuRun(int timedSteps)
{
    RunConfig c;
    c.model = resolveModel("tiny");
    c.strategy = Strategy::Zero3;
    c.device = DeviceKind::Cpu;
    c.worldSize = 2;
    c.warmupSteps = 1;
    c.timedSteps = timedSteps;
    c.training.seqLen = 32;
    c.training.microBatch = 1;
    return c;
}

QString shownStatus(const store::Database& db, std::int64_t runId)
{
    return QString::fromStdString(std::string(store::runStatusId(store::findRun(db, runId)->status)));
}

// How often each (rank, stream, text) line is in the store.
std::map<std::tuple<int, std::string, std::string>, int> logCounts(const store::Database& db, std::int64_t runId)
{
    std::map<std::tuple<int, std::string, std::string>, int> counts;
    for (const auto& line : store::rankLogs(db, runId))
        ++counts[{ line.rank, line.stream, line.text }];
    return counts;
}
} // namespace

class TestRemoteReattach : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<SshdFixture> m_sshd;
    std::vector<std::unique_ptr<dispatch::SshSession>> m_sessions;
    QTemporaryDir m_dir;

    std::vector<dispatch::SshSession*> connect()
    {
        m_sessions = m_sshd->connectEach();
        std::vector<dispatch::SshSession*> raw;
        for (const auto& s : m_sessions)
            raw.push_back(s.get());
        return raw;
    }

    std::string storePath() const { return m_dir.filePath(QStringLiteral("runs.sqlite")).toStdString(); }

    session::RemoteTarget twoNodes(const std::string& runner)
    {
        session::RemoteTarget target;
        target.sessions = connect();
        target.nodeNames = { "node-a", "node-b" };
        // Gloo picks the interface its peers reach; both "nodes" are on loopback here.
        target.launch.nodes = { { runner, 1, "127.0.0.2", { { "GLOO_SOCKET_IFNAME", "lo" } } },
                                { runner, 1, "127.0.0.3", { { "GLOO_SOCKET_IFNAME", "lo" } } } };
        target.launch.masterPort = dispatch::findFreePort();
        target.launch.runRoot = m_sshd->path(QStringLiteral("runs")).toStdString();
        target.follow.pollInterval = std::chrono::milliseconds(200);
        target.follow.timeout = std::chrono::seconds(300);
        return target;
    }

    session::AttachTarget attachBothNodes()
    {
        session::AttachTarget target;
        target.sessions = connect(); // fresh connections, as a later program would open them
        target.nodeNames = { "node-a", "node-b" };
        target.follow.pollInterval = std::chrono::milliseconds(200);
        target.follow.timeout = std::chrono::seconds(300);
        return target;
    }

    session::SessionOptions recordInto(store::Database& db, const std::atomic<bool>* detach = nullptr) const
    {
        session::SessionOptions options;
        options.db = &db;
        options.origin.launcher = "shardwise";
        options.origin.nodes = { { "node-a", std::nullopt }, { "node-b", std::nullopt } };
        options.detach = detach;
        return options;
    }

    // Starts a fake-rank run of `steps` lines per rank and detaches after the first event.
    std::int64_t detachedFakeRun(store::Database& db, int steps, const char* pause)
    {
        session::RemoteTarget target = twoNodes(kFakeRank);
        target.launch.args = { std::to_string(steps), pause, "0" };
        std::atomic<bool> detach { false };
        session::SessionCallbacks callbacks;
        callbacks.onEvent = [&](const protocol::Event&) { detach = true; };
        const session::SessionResult result
            = session::runRemote(tinyCpuRun(1), std::move(target), recordInto(db, &detach), callbacks);
        [&] {
            QVERIFY(result.detached);
            QVERIFY(result.runId);
            QVERIFY(!result.storedStatus);
        }();
        return result.runId.value_or(0);
    }

private slots:
    void init()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
        QVERIFY(m_dir.isValid());
        QFile::remove(QString::fromStdString(storePath()));
        m_sshd
            = std::make_unique<SshdFixture>(QStringList { QStringLiteral("127.0.0.2"), QStringLiteral("127.0.0.3") });
        const QString error = m_sshd->start();
        QVERIFY2(error.isEmpty(), qPrintable(error));
        m_sshd->trustHostKey();
    }
    void cleanup()
    {
        m_sessions.clear();
        m_sshd.reset();
    }

    void detachedRunIsShownDetachedWithItsHandleAndOffsets()
    {
        store::Database db = store::Database::open(storePath());
        const std::int64_t id = detachedFakeRun(db, 20, "0.2");
        QVERIFY(id > 0);
        QCOMPARE(shownStatus(db, id), QStringLiteral("detached"));
        const auto kept = store::findRemoteFollow(db, id);
        QVERIFY(kept);
        QVERIFY(kept->detachedAt);
        const dispatch::RemoteRun handle = session::remoteRunFromJson(nlohmann::json::parse(kept->handleJson));
        QCOMPARE(handle.world, 2);
        QCOMPARE(handle.nodeCount, 2);
        // The rendezvous port is kept for the re-attached run's outcome; handles stored before it
        // was kept read as 0, and a number that is no TCP port is refused by name.
        QVERIFY(handle.masterPort > 0 && handle.masterPort <= 65535);
        auto older = nlohmann::json::parse(kept->handleJson);
        older.erase("master_port");
        QCOMPARE(session::remoteRunFromJson(older).masterPort, 0);
        older["master_port"] = 70000;
        try {
            session::remoteRunFromJson(older);
            QFAIL("a handle with port 70000 was read");
        } catch (const session::RemoteRunJsonError& e) {
            QVERIFY2(std::string(e.what()).find("master_port") != std::string::npos, e.what());
        }
        QVERIFY(QFileInfo::exists(QString::fromStdString(handle.runDir + "/rank0.pid")));
        // What was recorded is accounted for in the offsets.
        const auto offsets = session::remoteRunOffsetsFromJson(nlohmann::json::parse(kept->offsetsJson));
        QVERIFY(offsets.count("rank0.out") || offsets.count("rank1.out"));
        QVERIFY(!store::rankLogs(db, id).empty());
    }

    void reattachRecordsEveryLineExactlyOnceIntoTheSameRun()
    {
        store::Database db = store::Database::open(storePath());
        constexpr int kSteps = 40;
        const std::int64_t id = detachedFakeRun(db, kSteps, "0.25");
        QVERIFY(id > 0);
        const std::size_t before = store::rankLogs(db, id).size();
        QVERIFY2(before < std::size_t(4 * kSteps),
                 qPrintable(QStringLiteral("%1 lines before the detach").arg(before)));

        std::optional<std::int64_t> announced;
        session::SessionCallbacks callbacks;
        callbacks.onRecorded = [&](std::int64_t runId) { announced = runId; };
        const session::SessionResult result = session::reattachRemote(id, attachBothNodes(), recordInto(db), callbacks);
        QVERIFY(!result.detached);
        QCOMPARE(result.runId, std::optional<std::int64_t>(id));
        QCOMPARE(announced, std::optional<std::int64_t>(id));
        QVERIFY(result.storedStatus);
        QCOMPARE(store::listRuns(db).size(), std::size_t(1));
        // One event line and one stderr line per step and rank, each exactly once.
        const auto counts = logCounts(db, id);
        QCOMPARE(counts.size(), std::size_t(4 * kSteps));
        for (const auto& [line, n] : counts)
            QVERIFY2(n == 1, (std::get<2>(line) + " is stored " + std::to_string(n) + " times").c_str());
        for (int rank = 0; rank < 2; ++rank)
            for (int step = 0; step < kSteps; ++step)
                QVERIFY(counts.count(
                    { rank, "stderr", "rank " + std::to_string(rank) + " stderr line " + std::to_string(step) }));
        // The ranks exited 0 but never sent a summary: concluded as the fresh run would be.
        QCOMPARE(*result.storedStatus, store::RunStatus::Failed);
        QCOMPARE(shownStatus(db, id), QStringLiteral("failed"));
        QVERIFY(!store::findRemoteFollow(db, id));
    }

    void realRunnerDetachedAfterItsFirstStepCompletesAfterReattach()
    {
        if (!QFileInfo::exists(QString::fromStdString(kRunner)))
            QSKIP("shardwise-runner is not built in this build tree (configure with SHARDWISE_BUILD_RUNNER=ON and "
                  "build it)");
        store::Database db = store::Database::open(storePath());
        const RunConfig config = tinyCpuRun(400); // tiny CPU steps take milliseconds: long enough to detach mid-run
        std::atomic<bool> detach { false };
        session::SessionCallbacks callbacks;
        callbacks.onEvent = [&](const protocol::Event& e) {
            if (std::holds_alternative<protocol::StepEvent>(e))
                detach = true;
        };
        const session::SessionResult first
            = session::runRemote(config, twoNodes(kRunner), recordInto(db, &detach), callbacks);
        QVERIFY(first.detached);
        QVERIFY(first.runId);
        const std::int64_t id = *first.runId;
        QCOMPARE(shownStatus(db, id), QStringLiteral("detached"));
        const int total = config.warmupSteps + config.timedSteps;
        QVERIFY2(static_cast<int>(store::stepSeries(db, id).size()) < 2 * total, "the run was not detached mid-run");

        std::map<std::pair<int, int>, int> delivered; // (rank, step) -> how often this follower saw it
        session::SessionCallbacks again;
        again.onEvent = [&](const protocol::Event& e) {
            if (const auto* step = std::get_if<protocol::StepEvent>(&e))
                ++delivered[{ step->rank, step->step }];
        };
        const session::SessionResult result = session::reattachRemote(id, attachBothNodes(), recordInto(db), again);
        QVERIFY2(result.outcome.ok(), result.outcome.reason.c_str());
        QCOMPARE(result.storedStatus, std::optional<store::RunStatus>(store::RunStatus::Completed));
        for (const auto& [key, n] : delivered)
            QCOMPARE(n, 1);
        const auto detail = store::runDetail(db, id);
        QCOMPARE(shownStatus(db, id), QStringLiteral("completed"));
        QVERIFY(detail->summary.tokensPerS && *detail->summary.tokensPerS > 0);
        QCOMPARE(detail->rankSummaries.size(), std::size_t(2));
        QVERIFY(detail->errors.empty());
        QVERIFY(!detail->versions.runner.empty()); // from the start events recorded before the detach
        for (int rank = 0; rank < 2; ++rank) {
            const auto series = store::stepSeries(db, id, rank);
            QCOMPARE(static_cast<int>(series.size()), total);
            std::set<int> seen;
            for (const auto& s : series)
                seen.insert(s.step);
            QCOMPARE(static_cast<int>(seen.size()), total);
        }
        QVERIFY(!store::findRemoteFollow(db, id));
        QCOMPARE(store::listRuns(db).size(), std::size_t(1));
    }

    void reattachToAFinishedRunIsRefused()
    {
        store::Database db = store::Database::open(storePath());
        session::RemoteTarget target = twoNodes(kFakeRank);
        target.launch.args = { "2", "0", "0" };
        const session::SessionResult done = session::runRemote(tinyCpuRun(1), std::move(target), recordInto(db));
        QVERIFY(done.storedStatus);
        try {
            session::reattachRemote(*done.runId, attachBothNodes(), recordInto(db));
            QFAIL("a finished run was re-attached");
        } catch (const session::ReattachError& e) {
            QCOMPARE(e.reason(), session::ReattachError::Reason::Finished);
            QVERIFY2(std::string(e.what()).find("already finished (failed)") != std::string::npos, e.what());
        }
        try {
            session::reattachRemote(*done.runId + 1, attachBothNodes(), recordInto(db));
            QFAIL("a run that does not exist was re-attached");
        } catch (const session::ReattachError& e) {
            QCOMPARE(e.reason(), session::ReattachError::Reason::UnknownRun);
        }
    }

    void reattachToARunBeingFollowedIsRefused()
    {
        store::Database db = store::Database::open(storePath());
        session::RemoteTarget target = twoNodes(kFakeRank);
        target.launch.args = { "3", "0.2", "0" };
        store::Database other = store::Database::open(storePath());
        std::optional<session::ReattachError::Reason> refused;
        std::vector<std::unique_ptr<dispatch::SshSession>> otherSessions = m_sshd->connectEach();
        session::SessionCallbacks callbacks;
        callbacks.onEvent = [&](const protocol::Event&) {
            if (refused)
                return;
            session::AttachTarget attach;
            for (const auto& s : otherSessions)
                attach.sessions.push_back(s.get());
            session::SessionOptions options;
            options.db = &other;
            try {
                session::reattachRemote(store::listRuns(other).front().id, attach, options);
            } catch (const session::ReattachError& e) {
                refused = e.reason();
            }
        };
        const session::SessionResult result
            = session::runRemote(tinyCpuRun(1), std::move(target), recordInto(db), callbacks);
        QVERIFY(result.storedStatus);
        QCOMPARE(refused, std::optional(session::ReattachError::Reason::Followed));
    }

    void reattachWithAnUnreachableNodeNamesItAndKeepsTheRunDetached()
    {
        store::Database db = store::Database::open(storePath());
        const std::int64_t id = detachedFakeRun(db, 10, "0.2");
        QVERIFY(id > 0);
        const auto keptBefore = store::findRemoteFollow(db, id);
        const std::size_t logsBefore = store::rankLogs(db, id).size();
        session::AttachTarget target = attachBothNodes();
        m_sshd->stop(); // both "nodes" are gone; the sessions opened before break on first use
        try {
            session::reattachRemote(id, target, recordInto(db));
            QFAIL("a run was re-attached with its nodes unreachable");
        } catch (const session::ReattachError& e) {
            QCOMPARE(e.reason(), session::ReattachError::Reason::NodeUnreachable);
            QVERIFY2(std::string(e.what()).find("node 'node-a'") != std::string::npos, e.what());
        }
        QCOMPARE(shownStatus(db, id), QStringLiteral("detached"));
        const auto keptAfter = store::findRemoteFollow(db, id);
        QVERIFY(keptAfter);
        QCOMPARE(keptAfter->offsetsJson, keptBefore->offsetsJson);
        QCOMPARE(keptAfter->detachedAt, keptBefore->detachedAt);
        QCOMPARE(store::rankLogs(db, id).size(), logsBefore);
    }
};

QTEST_GUILESS_MAIN(TestRemoteReattach)
#include "test_remote_reattach.moc"
