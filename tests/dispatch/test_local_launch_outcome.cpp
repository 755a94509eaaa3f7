// Behaviour of summarizeRun: a launch result becomes one status (the first error on any rank is the
// root cause), headline figures from rank 0 with memory peaks from the fullest rank, and JSON that
// a store or a report can read back.
#include "shardwise/dispatch/run_outcome.hpp"
#include "shardwise/spec/presets.hpp"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <csignal>

using namespace shardwise;
using namespace shardwise::dispatch;

namespace {

RankOutcome finishedRank(int rank, double medianStepS, std::int64_t peakAllocated)
{
    RankOutcome r;
    r.rank = rank;
    r.exitCode = 0;
    protocol::SummaryEvent s;
    s.rank = rank;
    s.medianStepS = medianStepS;
    s.tokensPerS = 1000.0 * (rank + 1);
    s.ncclShare = 0.25;
    s.memory.peakAllocated = peakAllocated;
    s.memory.peakReserved = peakAllocated + 100;
    r.events.push_back(s);
    return r;
}

protocol::ErrorEvent errorAt(int rank, protocol::ErrorKind kind, double time)
{
    protocol::ErrorEvent e;
    e.rank = rank;
    e.kind = kind;
    e.time = time;
    e.message = std::string(protocol::errorKindId(kind)) + " on rank " + std::to_string(rank);
    return e;
}

LaunchResult twoFinishedRanks()
{
    LaunchResult l;
    l.ranks = { finishedRank(0, 0.5, 3000), finishedRank(1, 0.6, 5000) };
    for (const auto& r : l.ranks)
        l.merged.insert(l.merged.end(), r.events.begin(), r.events.end());
    return l;
}

void addError(LaunchResult& l, const protocol::ErrorEvent& e, int exitCode)
{
    auto& rank = l.ranks[std::size_t(e.rank)];
    rank.events.push_back(e);
    rank.exitCode = exitCode;
    l.merged.push_back(e);
}

RunConfig requested()
{
    RunConfig c;
    c.model = *PresetCatalog::builtin().findModel("tiny");
    c.strategy = Strategy::Zero2;
    c.worldSize = 2;
    return c;
}

} // namespace

Q_DECLARE_METATYPE(shardwise::dispatch::RunStatus)

class TestLocalLaunchOutcome : public QObject {
    Q_OBJECT

private slots:
    void finishedRunIsOkWithRankZeroTimesAndLargestPeaks()
    {
        const RunOutcome o = summarizeRun(requested(), twoFinishedRanks());
        QCOMPARE(o.status, RunStatus::Ok);
        QVERIFY(o.reason.empty());
        QCOMPARE(o.medianStepS.value(), 0.5);
        QCOMPARE(o.tokensPerS.value(), 1000.0);
        QCOMPARE(o.ncclShare.value(), 0.25);
        QCOMPARE(o.peakAllocatedBytes.value(), std::int64_t(5000));
        QCOMPARE(o.peakReservedBytes.value(), std::int64_t(5100));
    }

    void firstErrorOnAnyRankDecidesTheStatus_data()
    {
        QTest::addColumn<int>("firstKind");
        QTest::addColumn<int>("laterKind");
        QTest::addColumn<RunStatus>("status");
        using K = protocol::ErrorKind;
        QTest::newRow("oom then peer comm") << int(K::Oom) << int(K::Comm) << RunStatus::Oom;
        QTest::newRow("comm then oom") << int(K::Comm) << int(K::Oom) << RunStatus::Comm;
        QTest::newRow("config") << int(K::Config) << int(K::Comm) << RunStatus::Config;
        QTest::newRow("internal") << int(K::Internal) << int(K::Comm) << RunStatus::Failed;
    }

    void firstErrorOnAnyRankDecidesTheStatus()
    {
        QFETCH(int, firstKind);
        QFETCH(int, laterKind);
        QFETCH(RunStatus, status);
        LaunchResult l = twoFinishedRanks();
        // The later error arrives first: the time stamp, not arrival, names the root cause.
        addError(l, errorAt(0, protocol::ErrorKind(laterKind), 20.0), 1);
        addError(l, errorAt(1, protocol::ErrorKind(firstKind), 10.0), 1);
        const RunOutcome o = summarizeRun(requested(), l);
        QCOMPARE(o.status, status);
        QCOMPARE(o.firstError->rank, 1);
        QCOMPARE(o.errors.size(), std::size_t(2));
        QVERIFY2(o.reason.find("rank 1") != std::string::npos, o.reason.c_str());
    }

    void reasonIsTheFirstLineOfTheErrorMessage()
    {
        LaunchResult l = twoFinishedRanks();
        protocol::ErrorEvent e = errorAt(0, protocol::ErrorKind::Internal, 1.0);
        e.message = "narrow: length exceeds dimension size\nframe #0: c10::Error::Error\nframe #1: ...";
        addError(l, e, 1);
        const RunOutcome o = summarizeRun(requested(), l);
        QVERIFY2(o.reason.find("narrow: length exceeds dimension size") != std::string::npos, o.reason.c_str());
        QVERIFY2(o.reason.find('\n') == std::string::npos, o.reason.c_str());
        QCOMPARE(o.errors.front().message, e.message);
    }

    void exitWithoutErrorEventIsFailedAndNamesTheRank_data()
    {
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<int>("sig");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("exit code") << 3 << 0 << QStringLiteral("exited with code 3");
        QTest::newRow("segfault") << -1 << int(SIGSEGV) << QStringLiteral("signal 11");
    }

    void exitWithoutErrorEventIsFailedAndNamesTheRank()
    {
        QFETCH(int, exitCode);
        QFETCH(int, sig);
        QFETCH(QString, mentions);
        LaunchResult l = twoFinishedRanks();
        l.ranks[1].exitCode = exitCode;
        l.ranks[1].signal = sig;
        const RunOutcome o = summarizeRun(requested(), l);
        QCOMPARE(o.status, RunStatus::Failed);
        QVERIFY2(o.reason.find("rank 1") != std::string::npos, o.reason.c_str());
        QVERIFY2(o.reason.find(mentions.toStdString()) != std::string::npos, o.reason.c_str());
    }

    void launcherStopsAreTimeoutOrCancelled_data()
    {
        QTest::addColumn<bool>("cancelled");
        QTest::addColumn<RunStatus>("status");
        QTest::newRow("timeout") << false << RunStatus::Timeout;
        QTest::newRow("cancel") << true << RunStatus::Cancelled;
    }

    void launcherStopsAreTimeoutOrCancelled()
    {
        QFETCH(bool, cancelled);
        QFETCH(RunStatus, status);
        LaunchResult l;
        RankOutcome r;
        r.signal = SIGTERM;
        r.killedByLauncher = true;
        r.timedOut = !cancelled;
        l.ranks = { r };
        l.cancelled = cancelled;
        l.timedOut = !cancelled;
        QCOMPARE(summarizeRun(requested(), l).status, status);
    }

    void cleanExitWithoutSummaryIsNotOk()
    {
        LaunchResult l = twoFinishedRanks();
        l.ranks[1].events.clear();
        const RunOutcome o = summarizeRun(requested(), l);
        QCOMPARE(o.status, RunStatus::Failed);
        QVERIFY2(o.reason.find("without a summary") != std::string::npos, o.reason.c_str());
    }

    void configComesFromTheRunnersStartEvent()
    {
        LaunchResult l = twoFinishedRanks();
        protocol::StartEvent s;
        s.config = requested();
        s.config.strategy = Strategy::Fsdp2Reshard;
        s.versions.libtorch = "1.13.1";
        l.merged.insert(l.merged.begin(), s);
        const RunOutcome o = summarizeRun(requested(), l);
        QVERIFY(o.configFromRunner);
        QCOMPARE(o.config.strategy, Strategy::Fsdp2Reshard);
        QCOMPARE(summarizeRun(requested(), twoFinishedRanks()).configFromRunner, false);
    }

    void jsonCarriesOutcomeFiguresRanksAndErrors()
    {
        LaunchResult l = twoFinishedRanks();
        addError(l, errorAt(1, protocol::ErrorKind::Oom, 1.0), 1);
        l.ranks[1].logTail = "CUDA out of memory\n";
        const nlohmann::json j = toJson(summarizeRun(requested(), l));
        QCOMPARE(j.at("strategy").get<std::string>(), std::string("zero2"));
        QCOMPARE(j.at("outcome").get<std::string>(), std::string("oom"));
        QCOMPARE(j.at("config_source").get<std::string>(), std::string("requested"));
        QCOMPARE(j.at("config").at("strategy").get<std::string>(), std::string("zero2"));
        QCOMPARE(j.at("median_step_s").get<double>(), 0.5);
        QCOMPARE(j.at("peak_allocated_bytes").get<std::int64_t>(), std::int64_t(5000));
        QCOMPARE(j.at("ranks").size(), std::size_t(2));
        QVERIFY(j.at("ranks").at(0).at("succeeded").get<bool>());
        QVERIFY(!j.at("ranks").at(0).contains("log_tail"));
        QCOMPARE(j.at("ranks").at(1).at("log_tail").get<std::string>(), std::string("CUDA out of memory\n"));
        QCOMPARE(j.at("errors").size(), std::size_t(1));
        QCOMPARE(j.at("first_error").at("kind").get<std::string>(), std::string("oom"));
    }

    void missingFiguresAreNullInJson()
    {
        LaunchResult l;
        RankOutcome r;
        r.exitCode = 1;
        l.ranks = { r };
        const nlohmann::json j = toJson(summarizeRun(requested(), l));
        QVERIFY(j.at("median_step_s").is_null());
        QVERIFY(j.at("tokens_per_s").is_null());
        QVERIFY(j.at("peak_reserved_bytes").is_null());
        QCOMPARE(j.at("outcome").get<std::string>(), std::string("failed"));
    }
};

QTEST_GUILESS_MAIN(TestLocalLaunchOutcome)
#include "test_local_launch_outcome.moc"
