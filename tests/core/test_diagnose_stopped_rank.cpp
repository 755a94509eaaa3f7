// The diagnosis rule for a hang (docs/diagnosis.md, "Which rank is named first"): a rank that stops
// emitting events while its peers wait in a collective is the first failure, named with its last step,
// and the peers' timeouts are its symptoms, not a network fault. Event streams built here as a 2-rank
// Gloo run leaves them when rank 1 is stopped (SIGSTOP) after step 1.
#include "shardwise/diagnose/diagnosis.hpp"

#include <QtTest>

using namespace shardwise;
using namespace shardwise::diagnose;
namespace diagnose = shardwise::diagnose;

namespace {

constexpr double kT0 = 1.8e9;

protocol::StartEvent start(int rank)
{
    protocol::StartEvent e;
    e.rank = rank;
    e.world = 2;
    e.localRank = rank;
    e.time = kT0;
    return e;
}

protocol::StepEvent step(int rank, int n, double t)
{
    protocol::StepEvent e;
    e.rank = rank;
    e.step = n;
    e.time = kT0 + t;
    return e;
}

// Rank 0 stepped through step 1, waited 5 s in the next collective and timed out; rank 1 stopped
// after step 1 and was ended by the launcher.
std::vector<RankRecord> stoppedRankOne()
{
    RankRecord r0;
    r0.rank = 0;
    r0.node = "host";
    r0.events = { start(0), step(0, 0, 1.0), step(0, 1, 1.5) };
    protocol::ErrorEvent err;
    err.rank = 0;
    err.kind = protocol::ErrorKind::Comm;
    err.message = "Gloo collective failed on rank 0: [gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting "
                  "5000ms for recv operation to complete";
    err.time = kT0 + 6.6;
    r0.events.push_back(err);
    r0.exitCode = 4;

    RankRecord r1;
    r1.rank = 1;
    r1.node = "host";
    r1.events = { start(1), step(1, 0, 1.0), step(1, 1, 1.5) };
    r1.signal = 9;
    r1.endedByLauncher = true;
    return { r0, r1 };
}

const Failure& rootOf(const Diagnosis& d)
{
    return d.failures.at(d.rootCause.value());
}

bool suggests(const Diagnosis& d, ActionKind k)
{
    return std::any_of(d.actions.begin(), d.actions.end(), [&](const Action& a) { return a.kind == k; });
}

} // namespace

class TestDiagnoseStoppedRank : public QObject {
    Q_OBJECT

private slots:
    void theSilentRankIsTheFirstFailure()
    {
        const Diagnosis d = diagnose::diagnose(stoppedRankOne());
        QCOMPARE(d.verdict, Verdict::RootCause);
        const Failure& root = rootOf(d);
        QCOMPARE(root.rank, 1);
        QCOMPARE(root.kind, FailureKind::LostRank);
        QVERIFY2(root.message.find("stopped responding (no step event since step 1, last event at ") == 0,
                 root.message.c_str());
        QVERIFY2(root.message.find("its peers timed out waiting for it") != std::string::npos, root.message.c_str());
        QVERIFY(d.explanation.find("rank 1") != std::string::npos);
        // Rank 0's timeout is a consequence, and no network advice is given.
        for (const auto& f : d.failures)
            if (f.rank == 0)
                QVERIFY2(f.isSymptom, f.message.c_str());
        QVERIFY(!suggests(d, ActionKind::CheckNetwork));
        QVERIFY(suggests(d, ActionKind::InspectSilentRanks));
        // The launcher's clean-up kill of rank 1 is not reported as a failure of its own.
        QCOMPARE(std::count_if(d.failures.begin(), d.failures.end(), [](const Failure& f) { return f.rank == 1; }), 1);
    }

    // A rank killed from outside (kill -9) is named as killed, not as stopped.
    void aKilledRankStaysKilled()
    {
        auto records = stoppedRankOne();
        records[1].endedByLauncher = false;
        const Diagnosis d = diagnose::diagnose(records);
        bool killed = false;
        for (const auto& f : d.failures)
            if (f.rank == 1)
                killed = killed || f.message.find("killed by SIGKILL") == 0;
        QVERIFY(killed);
        for (const auto& f : d.failures)
            QVERIFY2(!f.facts.value("stopped_responding", false), f.message.c_str());
    }

    // A rank that reported its own error is not silent: its error is the cause.
    void aRankWithItsOwnErrorIsNotSilent()
    {
        auto records = stoppedRankOne();
        protocol::ErrorEvent oom;
        oom.rank = 1;
        oom.kind = protocol::ErrorKind::Oom;
        oom.message = "CUDA out of memory. Tried to allocate 2.00 GiB";
        oom.time = kT0 + 1.6;
        records[1].events.push_back(oom);
        const Diagnosis d = diagnose::diagnose(records);
        QCOMPARE(rootOf(d).rank, 1);
        QCOMPARE(rootOf(d).kind, FailureKind::OutOfMemory);
    }

    // A rank whose events go on after the peer's timeout did not stop: the rule does not name it.
    void aRankThatKeptReportingIsNotSilent()
    {
        auto records = stoppedRankOne();
        records[1].events.push_back(step(1, 2, 7.0));
        const Diagnosis d = diagnose::diagnose(records);
        for (const auto& f : d.failures)
            QVERIFY2(!f.facts.value("stopped_responding", false), f.message.c_str());
    }

    // Every rank finished: nothing is silent.
    void completedRanksAreNotSilent()
    {
        auto records = stoppedRankOne();
        protocol::SummaryEvent s;
        s.rank = 1;
        s.world = 2;
        s.time = kT0 + 2.0;
        records[1].events.push_back(s);
        const Diagnosis d = diagnose::diagnose(records);
        for (const auto& f : d.failures)
            QVERIFY2(!f.facts.value("stopped_responding", false), f.message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestDiagnoseStoppedRank)
#include "test_diagnose_stopped_rank.moc"
