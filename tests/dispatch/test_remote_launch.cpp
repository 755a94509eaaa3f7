// Multi-node launch over SSH against a real sshd listening on two loopback addresses (127.0.0.2 and
// 127.0.0.3 stand for two nodes): start, collect, exit statuses, cancel, survive a disconnect and
// re-attach. The mechanics use sshd/fake_rank.sh; the last test runs the real shardwise-runner.

#include "sshd/sshd_fixture.hpp"

#include "shardwise/dispatch/remote_launch.hpp"

#include <QDir>
#include <QFileInfo>
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <map>
#include <set>
#include <thread>

using namespace shardwise::dispatch;
using shardwise::testing::SshdFixture;

namespace {
const std::string kFakeRank = std::string(SHARDWISE_SOURCE_DIR) + "/tests/dispatch/sshd/fake_rank.sh";
const std::string kSplitLineRank = std::string(SHARDWISE_SOURCE_DIR) + "/tests/dispatch/sshd/split_line_rank.sh";

std::string logMessage(const shardwise::protocol::Event& e)
{
    const auto* log = std::get_if<shardwise::protocol::LogEvent>(&e);
    return log ? log->message : std::string();
}
} // namespace

class TestRemoteLaunch : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<SshdFixture> m_sshd;
    std::vector<std::unique_ptr<SshSession>> m_sessions;

    std::vector<SshSession*> connect()
    {
        m_sessions = m_sshd->connectEach();
        std::vector<SshSession*> raw;
        for (const auto& s : m_sessions)
            raw.push_back(s.get());
        return raw;
    }

    RemoteLaunch fakeLaunch(const std::vector<std::string>& args) const
    {
        RemoteLaunch launch;
        launch.nodes = { { kFakeRank, 2, {}, {} }, { kFakeRank, 1, {}, {} } };
        launch.args = args;
        launch.masterPort = 29611;
        launch.runRoot = m_sshd->path(QStringLiteral("runs")).toStdString();
        return launch;
    }

private slots:
    void init()
    {
        if (const QString why = SshdFixture::unavailableReason(); !why.isEmpty())
            QSKIP(qPrintable(why));
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

    void twoNodeRunCompletesAndIsCollected()
    {
        const auto sessions = connect();
        const RemoteRun run = startRemoteRun(fakeLaunch({ "3", "0.1", "0" }), sessions);
        QCOMPARE(run.world, 3);
        QCOMPARE(run.ranks.at(2).node, 1);
        RemoteRunOffsets offsets;
        int logLines = 0;
        RemoteRunCallbacks callbacks;
        callbacks.onLog = [&](int, const std::string&) { ++logLines; };
        const RemoteRunResult result
            = followRemoteRun(run, sessions, offsets, callbacks, nullptr, { std::chrono::milliseconds(200) });
        QVERIFY(result.success());
        QCOMPARE(result.ranks.size(), std::size_t(3));
        QCOMPARE(result.merged.size(), std::size_t(9));
        QCOMPARE(logLines, 9);
        for (const auto& r : result.ranks) {
            QCOMPARE(r.ending, CommandEnding::Exited);
            QCOMPARE(r.exitCode, 0);
            QCOMPARE(r.events.size(), std::size_t(3));
            // Ranks of several nodes meet over TCP: no rendezvous file.
            const std::string expected = "world 3 master 127.0.0.2:29611 local "
                + std::to_string(r.rank == 2 ? 0 : r.rank) + " of " + std::to_string(r.node == 0 ? 2 : 1)
                + " rendezvous none";
            QVERIFY2(logMessage(r.events.back()).find(expected) != std::string::npos,
                     logMessage(r.events.back()).c_str());
            QVERIFY(r.logTail.find("stderr line 2") != std::string::npos);
        }
        // The run directory stays on each node with per-rank logs and exit statuses.
        QVERIFY(QFileInfo::exists(
            m_sshd->path(QStringLiteral("runs/%1/rank2.log")).arg(QString::fromStdString(run.runId))));
        QVERIFY(QFileInfo::exists(
            m_sshd->path(QStringLiteral("runs/%1/rank0.exit")).arg(QString::fromStdString(run.runId))));
    }

    // One node's ranks meet through a file in their run directory, not a TCP store on the node's
    // interfaces; a rendezvous file asked for through the launch's environment is the launcher's to set.
    void oneNodeRanksAreGivenARendezvousFile()
    {
        const auto sessions = connect();
        RemoteLaunch launch = fakeLaunch({ "1", "0", "0" });
        launch.nodes = { { kFakeRank, 2, {}, {} } };
        launch.env["SHARDWISE_RENDEZVOUS_FILE"] = "/tmp/planted";
        const std::vector<SshSession*> one { sessions.front() };
        const RemoteRun run = startRemoteRun(launch, one);
        RemoteRunOffsets offsets;
        const RemoteRunResult result
            = followRemoteRun(run, one, offsets, {}, nullptr, { std::chrono::milliseconds(200) });
        QVERIFY(result.success());
        QCOMPARE(result.ranks.size(), std::size_t(2));
        for (const auto& r : result.ranks) {
            QCOMPARE(r.events.size(), std::size_t(1));
            const std::string message = logMessage(r.events.front());
            QVERIFY2(message.find(" of 2 rendezvous rendezvous.store") != std::string::npos, message.c_str());
        }
    }

    void linesWrittenInPiecesArriveWholeAndOnce()
    {
        const auto sessions = connect();
        RemoteLaunch launch = fakeLaunch({ "4", "0.7" });
        launch.nodes = { { kSplitLineRank, 1, {}, {} }, { kSplitLineRank, 1, {}, {} } };
        const RemoteRun run = startRemoteRun(launch, sessions);
        RemoteRunOffsets offsets;
        std::vector<std::string> logLines;
        RemoteRunCallbacks callbacks;
        callbacks.onLog
            = [&](int rank, const std::string& line) { logLines.push_back(std::to_string(rank) + ": " + line); };
        // Polls every 200 ms find each line unfinished for 700 ms.
        const RemoteRunResult result
            = followRemoteRun(run, sessions, offsets, callbacks, nullptr, { std::chrono::milliseconds(200) });
        QVERIFY(result.success());
        QCOMPARE(result.merged.size(), std::size_t(8));
        for (const auto& r : result.ranks) {
            QVERIFY2(r.protocolErrors.empty(), r.protocolErrors.empty() ? "" : r.protocolErrors.front().c_str());
            QCOMPARE(r.events.size(), std::size_t(4));
            for (std::size_t i = 0; i < r.events.size(); ++i)
                QCOMPARE(QString::fromStdString(logMessage(r.events[i])),
                         QStringLiteral("line %1 of rank %2").arg(i).arg(r.rank));
        }
        QCOMPARE(logLines.size(), std::size_t(8));
        for (int rank = 0; rank < 2; ++rank)
            for (int i = 0; i < 4; ++i) {
                const std::string expected
                    = std::to_string(rank) + ": rank " + std::to_string(rank) + " stderr line " + std::to_string(i);
                QVERIFY2(std::count(logLines.begin(), logLines.end(), expected) == 1, expected.c_str());
            }
        // The offsets end at the files' sizes: a re-attach would start exactly after the last line.
        for (int rank = 0; rank < 2; ++rank)
            for (const char* kind : { "out", "log" }) {
                const std::string file = "rank" + std::to_string(rank) + "." + kind;
                const QString path = m_sshd->path(QStringLiteral("runs/%1/%2"))
                                         .arg(QString::fromStdString(run.runId), QString::fromStdString(file));
                QCOMPARE(offsets.at(file), static_cast<std::uint64_t>(QFileInfo(path).size()));
            }
    }

    void lostNodeLeavesItsUnfinishedLineForTheReattach()
    {
        auto sessions = connect();
        RemoteLaunch launch = fakeLaunch({ "4", "0.7" });
        launch.nodes = { { kSplitLineRank, 1, {}, {} }, { kSplitLineRank, 1, {}, {} } };
        const RemoteRun run = startRemoteRun(launch, sessions);
        RemoteRunOffsets offsets;
        bool dropped = false;
        RemoteRunCallbacks callbacks;
        // Each rank starts its next line as soon as one is done: when the first line arrives, the
        // start of the second is already in the file. Both nodes' connections go away then.
        callbacks.onEvent = [&](const shardwise::protocol::Event&) {
            if (!dropped) {
                dropped = true;
                m_sshd->stop();
            }
        };
        const RemoteRunResult first
            = followRemoteRun(run, sessions, offsets, callbacks, nullptr, { std::chrono::milliseconds(200) });
        QVERIFY(dropped);
        QCOMPARE(first.lostNodes.size(), std::size_t(2));
        for (const auto& r : first.ranks)
            QVERIFY2(r.protocolErrors.empty(), r.protocolErrors.empty() ? "" : r.protocolErrors.front().c_str());

        QVERIFY(m_sshd->start().isEmpty());
        sessions = connect();
        const RemoteRunResult later
            = followRemoteRun(run, sessions, offsets, {}, nullptr, { std::chrono::milliseconds(200) });
        QVERIFY(later.success());
        std::map<int, std::vector<std::string>> messages;
        for (const auto* part : { &first, &later })
            for (const auto& r : part->ranks) {
                QVERIFY2(r.protocolErrors.empty(), r.protocolErrors.empty() ? "" : r.protocolErrors.front().c_str());
                for (const auto& e : r.events)
                    messages[r.rank].push_back(logMessage(e));
            }
        for (int rank = 0; rank < 2; ++rank) {
            QCOMPARE(messages[rank].size(), std::size_t(4));
            for (int i = 0; i < 4; ++i)
                QCOMPARE(QString::fromStdString(messages[rank][static_cast<std::size_t>(i)]),
                         QStringLiteral("line %1 of rank %2").arg(i).arg(rank));
        }
    }

    void aMomentaryCollectionFailureIsNotALostNode()
    {
        const auto sessions = connect();
        const RemoteRun run = startRemoteRun(fakeLaunch({ "12", "0.2", "0" }), sessions);
        const QString dir = QString::fromStdString(run.runDir);
        const QString away = dir + QStringLiteral(".away");
        std::thread moveBack;
        bool moved = false;
        RemoteRunCallbacks callbacks;
        // The run directory disappears for less than one poll interval, so one or two polls fail on a
        // working connection, then comes back; the ranks write on through their open files meanwhile.
        callbacks.onEvent = [&](const shardwise::protocol::Event&) {
            if (moved)
                return;
            moved = true;
            QVERIFY(QDir().rename(dir, away));
            moveBack = std::thread([dir, away] {
                std::this_thread::sleep_for(std::chrono::milliseconds(300));
                QDir().rename(away, dir);
            });
        };
        RemoteRunOffsets offsets;
        const RemoteRunResult result
            = followRemoteRun(run, sessions, offsets, callbacks, nullptr, { std::chrono::milliseconds(500) });
        if (moveBack.joinable())
            moveBack.join();
        QVERIFY(moved);
        QVERIFY2(result.lostNodes.empty(), "a node was lost over a momentary failure");
        QVERIFY(result.success());
        QCOMPARE(result.merged.size(), std::size_t(36));
    }

    void freePortOnTheNodeAvoidsPortsInUse()
    {
        const auto sessions = connect();
        // A listener on the loopback node (this machine) holds a port.
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        QVERIFY(fd >= 0);
        sockaddr_in address {};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        QCOMPARE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
        QCOMPARE(::listen(fd, 1), 0);
        socklen_t length = sizeof address;
        QCOMPARE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
        const int held = ntohs(address.sin_port);
        const int low = std::max(1, held - 5), high = std::min(65535, held + 5);
        for (int i = 0; i < 30; ++i) {
            const int port = pickFreeRemotePort(*sessions[0], low, high);
            QVERIFY(port >= low && port <= high);
            QVERIFY2(port != held, qPrintable(QStringLiteral("picked %1, which a listener holds").arg(port)));
        }
        try {
            pickFreeRemotePort(*sessions[0], held, held);
            QFAIL("a port in use was picked");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("is in use") != std::string::npos, e.what());
        }
        ::close(fd);
    }

    void failingRanksAreNotASuccess()
    {
        const auto sessions = connect();
        const RemoteRun run = startRemoteRun(fakeLaunch({ "1", "0", "2" }), sessions);
        RemoteRunOffsets offsets;
        const RemoteRunResult result
            = followRemoteRun(run, sessions, offsets, {}, nullptr, { std::chrono::milliseconds(200) });
        QVERIFY(!result.success());
        for (const auto& r : result.ranks) {
            QCOMPARE(r.ending, CommandEnding::Exited);
            QCOMPARE(r.exitCode, 2);
        }
    }

    // A rank failing on one node stops the others once the peer grace has passed: they would otherwise
    // wait on their missing peer until a collective timeout, or for ever. The failed rank keeps its own
    // exit status; only the stopped ones are marked as stopped after a peer's failure.
    void aFailedRankStopsItsPeersOnTheOtherNodesAfterTheGrace()
    {
        const auto sessions = connect();
        RemoteLaunch launch = fakeLaunch({ "1000", "0.2", "0" });
        launch.nodes[1].env = { { "FAKE_RANK_ARGS", "2 0.2 7" } };
        const RemoteRun run = startRemoteRun(launch, sessions);
        RemoteRunOffsets offsets;
        FollowOptions options;
        options.pollInterval = std::chrono::milliseconds(200);
        options.cancelGrace = std::chrono::seconds(5);
        options.peerGrace = std::chrono::seconds(1);
        QElapsedTimer t;
        t.start();
        const RemoteRunResult result = followRemoteRun(run, sessions, offsets, {}, nullptr, options);
        QVERIFY2(t.elapsed() < 60000, qPrintable(QString::number(t.elapsed())));
        QVERIFY(result.peersStopped);
        QVERIFY(!result.cancelled && !result.timedOut && !result.success());
        for (const auto& r : result.ranks) {
            if (r.node == 1) {
                QCOMPARE(r.ending, CommandEnding::Exited);
                QCOMPARE(r.exitCode, 7);
                QVERIFY(!r.stoppedAfterPeerFailure);
            } else {
                QCOMPARE(r.ending, CommandEnding::Signalled);
                QCOMPARE(QString::fromStdString(r.signal), QStringLiteral("TERM"));
                QVERIFY(r.stoppedAfterPeerFailure);
            }
        }
    }

    // With the peer grace off, nothing is stopped: the follower waits for every rank.
    void noPeerGraceLeavesThePeersRunning()
    {
        const auto sessions = connect();
        RemoteLaunch launch = fakeLaunch({ "8", "0.2", "0" });
        launch.nodes[1].env = { { "FAKE_RANK_ARGS", "1 0 7" } };
        const RemoteRun run = startRemoteRun(launch, sessions);
        RemoteRunOffsets offsets;
        FollowOptions options;
        options.pollInterval = std::chrono::milliseconds(200);
        options.peerGrace = std::chrono::seconds(0);
        const RemoteRunResult result = followRemoteRun(run, sessions, offsets, {}, nullptr, options);
        QVERIFY(!result.peersStopped);
        for (const auto& r : result.ranks) {
            QCOMPARE(r.ending, CommandEnding::Exited);
            QCOMPARE(r.exitCode, r.node == 1 ? 7 : 0);
            QCOMPARE(r.events.size(), std::size_t(r.node == 1 ? 1 : 8));
        }
    }

    void cancelStopsEveryRankOnEveryNode()
    {
        const auto sessions = connect();
        const RemoteRun run = startRemoteRun(fakeLaunch({ "1000", "0.2", "0" }), sessions);
        std::atomic<bool> cancel { false };
        RemoteRunCallbacks callbacks;
        std::set<int> seen;
        callbacks.onEvent = [&](const shardwise::protocol::Event& e) {
            seen.insert(shardwise::protocol::eventRank(e));
            if (seen.size() == 3)
                cancel = true;
        };
        RemoteRunOffsets offsets;
        QElapsedTimer t;
        t.start();
        const RemoteRunResult result
            = followRemoteRun(run, sessions, offsets, callbacks, &cancel,
                              { std::chrono::milliseconds(200), std::chrono::seconds(0), std::chrono::seconds(5) });
        QVERIFY(result.cancelled);
        QVERIFY(!result.success());
        QVERIFY2(t.elapsed() < 60000, qPrintable(QString::number(t.elapsed())));
        for (const auto& r : result.ranks) {
            QCOMPARE(r.ending, CommandEnding::Signalled);
            QCOMPARE(QString::fromStdString(r.signal), QStringLiteral("TERM"));
        }
    }

    void runSurvivesDisconnectAndReattachCollectsWhatWasMissed()
    {
        auto sessions = connect();
        const RemoteRun run = startRemoteRun(fakeLaunch({ "40", "0.3", "0" }), sessions);
        std::atomic<bool> detach { false };
        RemoteRunCallbacks callbacks;
        callbacks.onEvent = [&](const shardwise::protocol::Event&) { detach = true; };
        RemoteRunOffsets offsets;
        FollowOptions follow;
        follow.pollInterval = std::chrono::milliseconds(200);
        follow.detach = &detach;
        const RemoteRunResult first = followRemoteRun(run, sessions, offsets, callbacks, nullptr, follow);
        QVERIFY(first.detached);
        QVERIFY(!first.success());
        const std::size_t collectedBefore = first.merged.size();
        QVERIFY2(collectedBefore >= 1 && collectedBefore < 120, qPrintable(QString::number(collectedBefore)));

        // The app goes away: every SSH connection closes while the ranks keep running.
        m_sessions.clear();
        QThread::msleep(1500);
        sessions = connect();
        RemoteRunOffsets fromScratch;
        const RemoteRunResult later
            = followRemoteRun(run, sessions, offsets, {}, nullptr, { std::chrono::milliseconds(200) });
        QVERIFY(later.success());
        QCOMPARE(collectedBefore + later.merged.size(), std::size_t(120)); // nothing lost, nothing twice
        std::set<std::string> messages;
        for (const auto& e : first.merged)
            messages.insert(std::to_string(shardwise::protocol::eventRank(e)) + logMessage(e));
        for (const auto& e : later.merged)
            QVERIFY(messages.insert(std::to_string(shardwise::protocol::eventRank(e)) + logMessage(e)).second);
        // Re-attaching with no offsets collects the whole run again from the node's files.
        const RemoteRunResult all
            = followRemoteRun(run, sessions, fromScratch, {}, nullptr, { std::chrono::milliseconds(200) });
        QCOMPARE(all.merged.size(), std::size_t(120));
    }

    void twoNodeCpuRunOfTheRunnerCompletes()
    {
        const std::string runner = std::string(SHARDWISE_BINARY_DIR) + "/bin/shardwise-runner";
        if (!QFileInfo::exists(QString::fromStdString(runner)))
            QSKIP("shardwise-runner is not built in this build tree (configure with SHARDWISE_BUILD_RUNNER=ON and "
                  "build it)");
        const auto sessions = connect();
        RemoteLaunch launch;
        launch.nodes = { { runner, 1, "127.0.0.2", { { "GLOO_SOCKET_IFNAME", "lo" } } },
                         { runner, 1, "127.0.0.3", { { "GLOO_SOCKET_IFNAME", "lo" } } } };
        launch.args = { "--model", "tiny", "--strategy", "zero2", "--device", "cpu",
                        "--steps", "2",    "--warmup",   "1",     "--seq",    "32" };
        launch.env = { { "SHARDWISE_PRESETS", std::string(SHARDWISE_SOURCE_DIR) + "/resources/presets" } };
        launch.masterPort = 29623;
        launch.runRoot = m_sshd->path(QStringLiteral("runs")).toStdString();
        const RemoteRun run = startRemoteRun(launch, sessions);
        RemoteRunOffsets offsets;
        const RemoteRunResult result
            = followRemoteRun(run, sessions, offsets, {}, nullptr,
                              { std::chrono::milliseconds(500), std::chrono::seconds(240), std::chrono::seconds(5) });
        std::string logs;
        for (const auto& r : result.ranks)
            logs += "rank " + std::to_string(r.rank) + " (" + r.lostReason + "): " + r.logTail + "\n";
        QVERIFY2(result.success(), logs.c_str());
        for (const auto& r : result.ranks) {
            bool summary = false;
            for (const auto& e : r.events)
                summary = summary || std::holds_alternative<shardwise::protocol::SummaryEvent>(e);
            QVERIFY2(summary, logs.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestRemoteLaunch)
#include "test_remote_launch.moc"
