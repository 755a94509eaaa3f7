// Behaviour of the local launcher against real processes: the scripted launch_fixture stands in for
// the runner so each behaviour (environment, merge, exit codes, signals, cancel, timeout, peer grace,
// floods, logs, cleanup) is provoked on purpose.
#include "shardwise/dispatch/local_launch.hpp"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <fstream>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace shardwise;
using namespace shardwise::dispatch;
using Clock = std::chrono::steady_clock;

namespace {

LocalLaunch fixtureLaunch(std::vector<std::string> args, int ranks, const QTemporaryDir& logs)
{
    LocalLaunch l;
    l.runner = LAUNCH_FIXTURE;
    l.args = std::move(args);
    l.ranks = ranks;
    l.logDir = logs.path().toStdString();
    l.peerGrace = std::chrono::seconds(30);
    l.terminateGrace = std::chrono::milliseconds(1000);
    // A safety net so a launcher bug fails the test instead of hanging it; tests of the timeout
    // itself set their own.
    l.timeout = std::chrono::seconds(60);
    return l;
}

double secondsSince(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string readFile(const std::filesystem::path& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

int countOpenFds()
{
    return static_cast<int>(
        std::distance(std::filesystem::directory_iterator("/proc/self/fd"), std::filesystem::directory_iterator {}));
}

// True once `pid` is gone or only a zombie waiting for its (non-us) parent to reap it.
bool processIsDead(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    if (!stat)
        return true;
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

template <typename T> std::size_t countOf(const std::vector<protocol::Event>& events)
{
    return static_cast<std::size_t>(std::count_if(
        events.begin(), events.end(), [](const protocol::Event& e) { return std::holds_alternative<T>(e); }));
}

// Cancels once `needed` start events have arrived, i.e. once every rank is certainly running.
struct CancelAfterStarts {
    std::atomic<bool> flag { false };
    int seen = 0;
    int needed = 1;
    LaunchCallbacks callbacks()
    {
        LaunchCallbacks cb;
        cb.onEvent = [this](const protocol::Event& e) {
            if (std::holds_alternative<protocol::StartEvent>(e) && ++seen >= needed)
                flag = true;
        };
        return cb;
    }
};

} // namespace

class TestLocalLaunch : public QObject {
    Q_OBJECT

private slots:
    void ranksSeeTheTorchrunEnvironment()
    {
        QTemporaryDir logs;
        LocalLaunch l = fixtureLaunch({ "env" }, 3, logs);
        l.env["FIXTURE_EXTRA"] = "from-the-caller";
        const LaunchResult r = launchLocal(l);
        QVERIFY(r.success());
        QVERIFY(r.masterPort > 0);
        QCOMPARE(r.ranks.size(), std::size_t(3));
        for (const auto& rank : r.ranks) {
            QCOMPARE(rank.events.size(), std::size_t(1));
            const auto& log = std::get<protocol::LogEvent>(rank.events.front());
            const auto env = nlohmann::json::parse(log.message);
            QCOMPARE(env.at("RANK").get<std::string>(), std::to_string(rank.rank));
            QCOMPARE(env.at("LOCAL_RANK").get<std::string>(), std::to_string(rank.rank));
            QCOMPARE(env.at("WORLD_SIZE").get<std::string>(), std::string("3"));
            QCOMPARE(env.at("LOCAL_WORLD_SIZE").get<std::string>(), std::string("3"));
            QCOMPARE(env.at("MASTER_ADDR").get<std::string>(), std::string("127.0.0.1"));
            QCOMPARE(env.at("MASTER_PORT").get<std::string>(), std::to_string(r.masterPort));
            QCOMPARE(env.at("SHARDWISE_LAUNCHER").get<std::string>(), std::string("shardwise"));
            // NCCL's settings are the user's: nothing forces NVLink multicast off.
            QVERIFY(env.at("NCCL_NVLS_ENABLE").is_null());
            QVERIFY(env.at("TORCH_SYMM_MEM_DISABLE_MULTICAST").is_null());
            QVERIFY(env.at("NVSHMEM_DISABLE_NVLS").is_null());
            QCOMPARE(env.at("FIXTURE_EXTRA").get<std::string>(), std::string("from-the-caller"));
        }
    }

    // The torch backend's ranks meet through a FileStore, not a TCP store on every interface: each
    // rank is given one fresh file in the run folder, readable by this user only while the ranks run
    // (a leftover of an earlier run there, or a link planted in its place, is replaced), removed after.
    void ranksShareAPrivateRendezvousFileInTheRunFolder()
    {
        QTemporaryDir logs;
        const std::filesystem::path planted = std::filesystem::path(logs.path().toStdString()) / "rendezvous.store";
        const std::filesystem::path target = std::filesystem::path(logs.path().toStdString()) / "elsewhere";
        std::ofstream(target) << "keys of an earlier run\n";
        std::filesystem::create_symlink(target, planted);
        const LaunchResult r = launchLocal(fixtureLaunch({ "env" }, 2, logs));
        QVERIFY(r.success());
        for (const auto& rank : r.ranks) {
            const auto env = nlohmann::json::parse(std::get<protocol::LogEvent>(rank.events.front()).message);
            QCOMPARE(env.at("SHARDWISE_RENDEZVOUS_FILE").get<std::string>(), planted.string());
            QCOMPARE(env.at("rendezvous_mode").get<int>(), 0600);
        }
        QCOMPARE(readFile(target), std::string("keys of an earlier run\n"));
        QVERIFY(!std::filesystem::exists(std::filesystem::symlink_status(planted)));
    }

    void ranksInheritOnlyStandardDescriptorsAndLeadTheirOwnGroup()
    {
        QTemporaryDir logs;
        const LaunchResult r = launchLocal(fixtureLaunch({ "env" }, 2, logs));
        QVERIFY(r.success());
        for (const auto& rank : r.ranks) {
            const auto env = nlohmann::json::parse(std::get<protocol::LogEvent>(rank.events.front()).message);
            QCOMPARE(env.at("open_fds").get<std::vector<int>>(), (std::vector<int> { 0, 1, 2 }));
            QVERIFY(env.at("pgid_is_pid").get<bool>());
        }
    }

    void eventsOfEveryRankAreMergedInArrivalOrder()
    {
        QTemporaryDir logs;
        std::vector<protocol::Event> seen;
        int logLines = 0;
        LaunchCallbacks cb;
        cb.onEvent = [&](const protocol::Event& e) { seen.push_back(e); };
        cb.onLog = [&](int, const std::string&) { ++logLines; };
        const LaunchResult r = launchLocal(fixtureLaunch({ "report", "4", "0" }, 2, logs), cb);
        QVERIFY(r.success());
        QCOMPARE(r.merged.size(), std::size_t(12)); // per rank: start, 4 steps, summary
        QCOMPARE(seen.size(), r.merged.size());
        for (std::size_t i = 0; i < seen.size(); ++i)
            QCOMPARE(protocol::serialize(seen[i]), protocol::serialize(r.merged[i]));
        QCOMPARE(logLines, 8);
        for (const auto& rank : r.ranks) {
            QCOMPARE(rank.events.size(), std::size_t(6));
            QVERIFY(std::holds_alternative<protocol::StartEvent>(rank.events.front()));
            QVERIFY(std::holds_alternative<protocol::SummaryEvent>(rank.events.back()));
            int expectedStep = 0;
            for (const auto& e : rank.events)
                if (const auto* st = std::get_if<protocol::StepEvent>(&e)) {
                    QCOMPARE(st->rank, rank.rank);
                    QCOMPARE(st->step, expectedStep++);
                }
        }
    }

    void stderrIsWrittenToOneLogPerRankAndTailed()
    {
        QTemporaryDir logs;
        const LaunchResult r = launchLocal(fixtureLaunch({ "report", "3", "0" }, 2, logs));
        QVERIFY(r.success());
        QCOMPARE(r.logDir, std::filesystem::path(logs.path().toStdString()));
        for (const auto& rank : r.ranks) {
            QCOMPARE(rank.logFile, r.logDir / ("rank" + std::to_string(rank.rank) + ".log"));
            const std::string text = readFile(rank.logFile);
            const std::string last = "rank " + std::to_string(rank.rank) + " finished step 2";
            QVERIFY2(text.find(last) != std::string::npos, text.c_str());
            QVERIFY(rank.logTail.find(last) != std::string::npos);
        }
    }

    void withoutLogDirAFreshTemporaryDirectoryIsUsed()
    {
        LocalLaunch l;
        l.runner = LAUNCH_FIXTURE;
        l.args = { "report", "1", "0" };
        l.ranks = 1;
        const LaunchResult r = launchLocal(l);
        QVERIFY(r.success());
        QVERIFY(std::filesystem::is_regular_file(r.logDir / "rank0.log"));
        QVERIFY(r.logDir.filename().string().rfind("shardwise-run-", 0) == 0);
        std::filesystem::remove_all(r.logDir);
    }

    void exitCodeIsRecordedPerRank_data()
    {
        QTest::addColumn<int>("code");
        QTest::newRow("success") << 0;
        QTest::newRow("failure") << 3;
        QTest::newRow("high code") << 200;
    }

    void exitCodeIsRecordedPerRank()
    {
        QFETCH(int, code);
        QTemporaryDir logs;
        const LaunchResult r = launchLocal(fixtureLaunch({ "report", "1", std::to_string(code) }, 2, logs));
        for (const auto& rank : r.ranks) {
            QCOMPARE(rank.exitCode, code);
            QCOMPARE(rank.signal, 0);
            QVERIFY(!rank.killedByLauncher);
        }
        QCOMPARE(r.success(), code == 0);
    }

    void rankKilledBySignalIsNeverASuccess_data()
    {
        QTest::addColumn<int>("sig");
        QTest::newRow("SIGSEGV") << int(SIGSEGV);
        QTest::newRow("SIGABRT") << int(SIGABRT);
        QTest::newRow("SIGKILL") << int(SIGKILL);
        QTest::newRow("SIGTERM") << int(SIGTERM);
    }

    void rankKilledBySignalIsNeverASuccess()
    {
        QFETCH(int, sig);
        QTemporaryDir logs;
        const LaunchResult r = launchLocal(fixtureLaunch({ "crash", std::to_string(sig) }, 1, logs));
        QCOMPARE(r.ranks.front().signal, sig);
        QCOMPARE(r.ranks.front().exitCode, -1);
        QVERIFY(!r.ranks.front().killedByLauncher);
        QVERIFY(!r.ranks.front().succeeded());
        QVERIFY(!r.success());
    }

    void errorEventMakesTheLaunchUnsuccessfulEvenWithExitZero()
    {
        QTemporaryDir logs;
        LocalLaunch l = fixtureLaunch({ "fail-rank", "0", "0", "follow" }, 2, logs);
        const LaunchResult r = launchLocal(l);
        QCOMPARE(r.ranks[0].exitCode, 0);
        QVERIFY(!r.ranks[0].succeeded());
        QVERIFY(!r.success());
    }

    void cancelStopsEveryRankWithinSeconds()
    {
        QTemporaryDir logs;
        CancelAfterStarts cancel;
        cancel.needed = 3;
        const auto t0 = Clock::now();
        const LaunchResult r = launchLocal(fixtureLaunch({ "hang" }, 3, logs), cancel.callbacks(), &cancel.flag);
        QVERIFY2(secondsSince(t0) < 5.0, std::to_string(secondsSince(t0)).c_str());
        QVERIFY(r.cancelled);
        QVERIFY(!r.success());
        for (const auto& rank : r.ranks) {
            QVERIFY(rank.killedByLauncher);
            QVERIFY(!rank.timedOut);
            QCOMPARE(rank.signal, int(SIGTERM));
        }
    }

    void cancelEscalatesToSigkillWhenSigtermIsIgnored()
    {
        QTemporaryDir logs;
        CancelAfterStarts cancel;
        LocalLaunch l = fixtureLaunch({ "hang-ignoring-term" }, 1, logs);
        l.terminateGrace = std::chrono::milliseconds(500);
        const auto t0 = Clock::now();
        const LaunchResult r = launchLocal(l, cancel.callbacks(), &cancel.flag);
        const double elapsed = secondsSince(t0);
        QVERIFY2(elapsed >= 0.5 && elapsed < 5.0, std::to_string(elapsed).c_str());
        QCOMPARE(r.ranks.front().signal, int(SIGKILL));
        QVERIFY(r.ranks.front().killedByLauncher);
    }

    void cancelReachesProcessesTheRankStarted()
    {
        QTemporaryDir logs;
        std::atomic<bool> cancel { false };
        pid_t grandchild = 0;
        LaunchCallbacks cb;
        cb.onEvent = [&](const protocol::Event& e) {
            if (const auto* l = std::get_if<protocol::LogEvent>(&e)) {
                grandchild = static_cast<pid_t>(std::stoi(l->message));
                cancel = true;
            }
        };
        const auto t0 = Clock::now();
        const LaunchResult r = launchLocal(fixtureLaunch({ "hang-with-child" }, 1, logs), cb, &cancel);
        QVERIFY(secondsSince(t0) < 5.0);
        QVERIFY(grandchild > 0);
        QTRY_VERIFY_WITH_TIMEOUT(processIsDead(grandchild), 3000);
        QCOMPARE(r.ranks.front().signal, int(SIGTERM));
    }

    void timeoutStopsHungRanksAndMarksThem()
    {
        QTemporaryDir logs;
        LocalLaunch l = fixtureLaunch({ "hang" }, 2, logs);
        l.timeout = std::chrono::seconds(1);
        const auto t0 = Clock::now();
        const LaunchResult r = launchLocal(l);
        const double elapsed = secondsSince(t0);
        QVERIFY2(elapsed >= 1.0 && elapsed < 5.0, std::to_string(elapsed).c_str());
        QVERIFY(r.timedOut);
        QVERIFY(!r.cancelled);
        QVERIFY(!r.success());
        for (const auto& rank : r.ranks) {
            QVERIFY(rank.timedOut);
            QVERIFY(rank.killedByLauncher);
            QCOMPARE(rank.signal, int(SIGTERM));
        }
    }

    void failedRankGivesPeersGraceThenTheyAreKilled()
    {
        QTemporaryDir logs;
        LocalLaunch l = fixtureLaunch({ "fail-rank", "1", "3", "hang" }, 3, logs);
        l.peerGrace = std::chrono::seconds(1);
        const auto t0 = Clock::now();
        const LaunchResult r = launchLocal(l);
        const double elapsed = secondsSince(t0);
        QVERIFY2(elapsed >= 1.0 && elapsed < 6.0, std::to_string(elapsed).c_str());
        QCOMPARE(r.ranks[1].exitCode, 3);
        QVERIFY(!r.ranks[1].killedByLauncher);
        for (int peer : { 0, 2 }) {
            QVERIFY(r.ranks[std::size_t(peer)].killedByLauncher);
            QVERIFY(!r.ranks[std::size_t(peer)].timedOut);
            QCOMPARE(r.ranks[std::size_t(peer)].signal, int(SIGTERM));
        }
        QVERIFY(!r.cancelled);
        QVERIFY(!r.timedOut);
    }

    void peersThatExitWithinTheGraceAreNotKilled()
    {
        QTemporaryDir logs;
        LocalLaunch l = fixtureLaunch({ "fail-rank", "0", "3", "follow" }, 3, logs);
        l.peerGrace = std::chrono::seconds(20);
        const auto t0 = Clock::now();
        const LaunchResult r = launchLocal(l);
        QVERIFY(secondsSince(t0) < 10.0);
        QCOMPARE(r.ranks[0].exitCode, 3);
        for (int peer : { 1, 2 }) {
            QCOMPARE(r.ranks[std::size_t(peer)].exitCode, 1);
            QVERIFY(!r.ranks[std::size_t(peer)].killedByLauncher);
        }
        QCOMPARE(countOf<protocol::ErrorEvent>(r.merged), std::size_t(3));
    }

    void floodingBothPipesDoesNotDeadlock()
    {
        QTemporaryDir logs;
        constexpr long kBytes = 8L * 1024 * 1024;
        LocalLaunch l = fixtureLaunch({ "flood", std::to_string(kBytes) }, 2, logs);
        l.timeout = std::chrono::seconds(60);
        const LaunchResult r = launchLocal(l);
        QVERIFY(!r.timedOut);
        QVERIFY(r.success());
        // The fixture writes 200-byte lines in bursts of 400 until kBytes are out, one event per burst.
        constexpr long kLines = (kBytes + 199) / 200;
        constexpr long kBursts = (kLines + 399) / 400;
        for (const auto& rank : r.ranks) {
            QCOMPARE(rank.events.size(), std::size_t(kBursts));
            QCOMPARE(rank.foreignLines, std::size_t(kLines));
            QVERIFY(rank.protocolErrors.empty());
            // Both the foreign stdout lines and the stderr noise land in the rank's log.
            QVERIFY(std::filesystem::file_size(rank.logFile) >= std::uintmax_t(2 * kBytes));
            QVERIFY(rank.logTail.size() <= 8 * 1024);
            QVERIFY(rank.logTail.find("flood done") != std::string::npos);
        }
    }

    void malformedEventLinesAreRecordedAndForeignLinesLogged()
    {
        QTemporaryDir logs;
        const LaunchResult r = launchLocal(fixtureLaunch({ "malformed" }, 1, logs));
        const auto& rank = r.ranks.front();
        QCOMPARE(rank.protocolErrors.size(), std::size_t(1));
        QVERIFY2(rank.protocolErrors.front().find("rank") != std::string::npos, rank.protocolErrors.front().c_str());
        QCOMPARE(rank.foreignLines, std::size_t(1));
        QCOMPARE(rank.events.size(), std::size_t(1));
        QVERIFY(std::holds_alternative<protocol::StartEvent>(rank.events.front()));
        const std::string log = readFile(rank.logFile);
        QVERIFY(log.find("stdout: a library printing to stdout") != std::string::npos);
    }

    void launchLeavesNoZombiesAndNoDescriptors()
    {
        QTemporaryDir logs;
        const int fdsBefore = countOpenFds();
        CancelAfterStarts cancel;
        cancel.needed = 2;
        launchLocal(fixtureLaunch({ "report", "2", "0" }, 2, logs));
        launchLocal(fixtureLaunch({ "crash", std::to_string(SIGSEGV) }, 2, logs));
        launchLocal(fixtureLaunch({ "hang" }, 2, logs), cancel.callbacks(), &cancel.flag);
        QCOMPARE(countOpenFds(), fdsBefore);
        errno = 0;
        QCOMPARE(::waitpid(-1, nullptr, WNOHANG), pid_t(-1));
        QCOMPARE(errno, ECHILD);
    }

    void throwingCallbackStillStopsTheRanks()
    {
        QTemporaryDir logs;
        LaunchCallbacks cb;
        cb.onEvent = [](const protocol::Event&) { throw std::runtime_error("consumer failed"); };
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, launchLocal(fixtureLaunch({ "hang" }, 2, logs), cb));
        errno = 0;
        QCOMPARE(::waitpid(-1, nullptr, WNOHANG), pid_t(-1));
        QCOMPARE(errno, ECHILD);
    }

    void missingRunnerIsALaunchErrorNamingIt()
    {
        QTemporaryDir logs;
        LocalLaunch l = fixtureLaunch({}, 1, logs);
        l.runner = "/nonexistent/shardwise-runner";
        try {
            launchLocal(l);
            QFAIL("expected LaunchError");
        } catch (const LaunchError& e) {
            QVERIFY2(std::string(e.what()).find("/nonexistent/shardwise-runner") != std::string::npos, e.what());
        }
    }

    void zeroRanksIsALaunchError()
    {
        QTemporaryDir logs;
        LocalLaunch l = fixtureLaunch({ "report", "1", "0" }, 0, logs);
        QVERIFY_THROWS_EXCEPTION(LaunchError, launchLocal(l));
    }

    void freePortCanBeBound()
    {
        const int port = findFreePort();
        QVERIFY(port > 0 && port < 65536);
        const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        QVERIFY(s >= 0);
        sockaddr_in addr {};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = htons(static_cast<std::uint16_t>(port));
        const int rc = ::bind(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
        ::close(s);
        QCOMPARE(rc, 0);
    }

    void runnerLocationHonoursTheEnvironment()
    {
        const QByteArray saved = qgetenv("SHARDWISE_RUNNER");
        qputenv("SHARDWISE_RUNNER", "/opt/elsewhere/shardwise-runner");
        const auto found = locateRunner();
        if (saved.isNull())
            qunsetenv("SHARDWISE_RUNNER");
        else
            qputenv("SHARDWISE_RUNNER", saved);
        QVERIFY(found.has_value());
        QCOMPARE(*found, std::filesystem::path("/opt/elsewhere/shardwise-runner"));
    }

    // No program looks for a build tree: this test lives in <build>/tests/bin, the build's runner in
    // <build>/bin, and without $SHARDWISE_RUNNER it is not found (only beside the program or in its
    // ../bin, as for an installed shardwise-cli); with it, it is.
    void runnerLocationNeverSearchesTheBuildTree()
    {
        const std::filesystem::path built = std::filesystem::path(SHARDWISE_BINARY_DIR) / "bin" / "shardwise-runner";
        if (!std::filesystem::exists(built))
            QSKIP("shardwise-runner is not built in this tree (SHARDWISE_BUILD_RUNNER=OFF)");
        const QByteArray saved = qgetenv("SHARDWISE_RUNNER");
        const QByteArray savedTorch = qgetenv("SHARDWISE_TORCH_RUNNER");
        qunsetenv("SHARDWISE_RUNNER");
        qunsetenv("SHARDWISE_TORCH_RUNNER");
        const auto native = locateRunner(RunBackend::Native);
        const auto torch = locateRunner(RunBackend::Torch);
        qputenv("SHARDWISE_RUNNER", built.c_str());
        const auto named = locateRunner(RunBackend::Native);
        if (saved.isNull())
            qunsetenv("SHARDWISE_RUNNER");
        else
            qputenv("SHARDWISE_RUNNER", saved);
        if (!savedTorch.isNull())
            qputenv("SHARDWISE_TORCH_RUNNER", savedTorch);
        QVERIFY2(!native, native ? native->c_str() : "");
        QVERIFY2(!torch, torch ? torch->c_str() : "");
        QVERIFY(named.has_value());
        QCOMPARE(*named, built);
    }
};

QTEST_GUILESS_MAIN(TestLocalLaunch)
#include "test_local_launch.moc"
