// A hang with real runner processes: rank 1 of a 2-rank Gloo run is stopped (SIGSTOP) after its first
// step; rank 0 times out in its next collective (--timeout-s 5), the launcher ends rank 1, and the
// diagnosis of the records the launcher left names rank 1 as the first failure, not rank 0's timeout
// and not the network (docs/diagnosis.md, "Which rank is named first").
#include "shardwise/diagnose/diagnosis.hpp"
#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/session/run_session.hpp"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

// GCC 12 reports a false -Wrestrict inside std::string assignment when inlined here (GCC bug 105329).
#pragma GCC diagnostic ignored "-Wrestrict"

using namespace shardwise;

namespace {

// The pid of the runner process whose environment says RANK=`rank` and MASTER_PORT=`port`.
pid_t rankPid(int rank, int port)
{
    const QByteArray wantRank = "RANK=" + QByteArray::number(rank);
    const QByteArray wantPort = "MASTER_PORT=" + QByteArray::number(port);
    for (const auto& name : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool numeric = false;
        const pid_t pid = static_cast<pid_t>(name.toInt(&numeric));
        if (!numeric)
            continue;
        QFile environ(QStringLiteral("/proc/%1/environ").arg(pid));
        if (!environ.open(QIODevice::ReadOnly))
            continue;
        const auto vars = environ.readAll().split('\0');
        if (vars.contains(wantRank) && vars.contains(wantPort))
            return pid;
    }
    return 0;
}

} // namespace

class TestRunnerHang : public QObject {
    Q_OBJECT

private slots:
    void theStoppedRankIsNamedFirst()
    {
        QTemporaryDir logs;
        dispatch::LocalLaunch launch;
        launch.runner = SHARDWISE_RUNNER_PATH;
        const QStringList args
            = QStringLiteral("--model tiny --seq 32 --warmup 1 --steps 200 --timeout-s 5").split(QLatin1Char(' '));
        for (const auto& a : args)
            launch.args.push_back(a.toStdString());
        launch.ranks = 2;
        launch.env["OMP_NUM_THREADS"] = "1";
        launch.masterPort = dispatch::findFreePort();
        launch.logDir = logs.path().toStdString();
        launch.peerGrace = std::chrono::seconds(2);
        launch.terminateGrace = std::chrono::milliseconds(500);
        launch.timeout = std::chrono::seconds(120);

        pid_t stopped = 0;
        dispatch::LaunchCallbacks callbacks;
        callbacks.onEvent = [&](const protocol::Event& e) {
            const auto* step = std::get_if<protocol::StepEvent>(&e);
            if (stopped == 0 && step && step->rank == 1) {
                stopped = rankPid(1, launch.masterPort);
                if (stopped > 0)
                    ::kill(stopped, SIGSTOP);
            }
        };
        const auto result = dispatch::launchLocal(launch, callbacks);
        QVERIFY2(stopped > 0, "rank 1's process was not found after its first step");

        const auto records = session::rankRecordsOf(result, "");
        const diagnose::Diagnosis d = diagnose::diagnose(records);
        const QByteArray report = QByteArray::fromStdString(diagnose::toJson(d).dump(1));
        QCOMPARE(d.verdict, diagnose::Verdict::RootCause);
        const diagnose::Failure& root = d.failures.at(d.rootCause.value());
        QVERIFY2(root.rank == 1, report.constData());
        QVERIFY2(root.message.find("stopped responding (no step event since step ") == 0, report.constData());
        QVERIFY2(root.facts.value("stopped_responding", false), report.constData());
        for (const auto& a : d.actions)
            QVERIFY2(a.kind != diagnose::ActionKind::CheckNetwork, report.constData());
        // Rank 0 did time out waiting, and that is recorded as the consequence.
        bool rankZeroTimedOut = false;
        for (const auto& f : d.failures)
            rankZeroTimedOut
                = rankZeroTimedOut || (f.rank == 0 && f.kind == diagnose::FailureKind::Communication && f.isSymptom);
        QVERIFY2(rankZeroTimedOut, report.constData());
    }
};

QTEST_GUILESS_MAIN(TestRunnerHang)
#include "test_runner_hang.moc"
