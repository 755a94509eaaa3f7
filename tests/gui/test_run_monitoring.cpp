// Run monitoring on the Runs page, driven through its models: the time-left arithmetic (median step
// time times the steps left, "estimating…" before two steps, the plan's predicted step time for a run
// not started, unknown without one, the queue as the sum), the queue's elapsed and time-left columns
// on a clock the test sets, and the ranks' states of a stored run that was cancelled or lost a rank
// to SIGKILL (a real SQLite store, core/diagnose on the committed four-rank case).
#include "gui_test_main.hpp"

#include "models/rank_progress_model.hpp"
#include "models/run_eta.hpp"
#include "models/run_progress.hpp"
#include "models/run_queue_model.hpp"

#include "shardwise/diagnose/run_folder.hpp"
#include "shardwise/session/run_session.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/run_recorder.hpp"

#include <QAbstractItemModelTester>
#include <QTemporaryDir>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

RunRequest request(qint64 ticket, int warmup, int timed, std::optional<double> predictedStepS)
{
    RunRequest r;
    r.ticket = ticket;
    r.config.model = resolveModel("tiny");
    r.config.warmupSteps = warmup;
    r.config.timedSteps = timed;
    if (predictedStepS) {
        store::RunPrediction p;
        p.stepS = predictedStepS;
        r.predicted = p;
    }
    return r;
}

protocol::StepEvent step(int rank, int index, double seconds, bool timed)
{
    protocol::StepEvent s;
    s.rank = rank;
    s.step = index;
    s.stepTimeS = seconds;
    s.timed = timed;
    s.tokens = 16;
    return s;
}

// A run of `world` ranks of the tiny model, each having done `steps` steps, stored in `db`.
store::RunRecorder& recordSteps(store::RunRecorder& recorder, int world, int steps)
{
    for (int s = 0; s < steps; ++s)
        for (int r = 0; r < world; ++r)
            recorder.record(protocol::Event { step(r, s, 0.5, s > 0) });
    return recorder;
}

QString stateOf(RankProgressModel& model, int row)
{
    return model.index(row, RankProgressModel::StateColumn).data().toString();
}

} // namespace

class TestRunMonitoring : public QObject {
    Q_OBJECT

private slots:
    void timeLeftArithmetic();
    void trackerKeepsTheMedianStepTime();
    void queueShowsElapsedAndTimeLeft();
    void cancelledRunsRanksSayCancelled();
    void killedRankIsFailedAndItsPeersStopped();
    void cancellingMarksRanksStillGoing();
};

void TestRunMonitoring::timeLeftArithmetic()
{
    QVERIFY(!medianOf({}));
    QCOMPARE(*medianOf({ 3.0, 1.0, 2.0 }), 2.0);
    QCOMPARE(*medianOf({ 4.0, 1.0, 3.0, 2.0 }), 2.5);
    // One slow first step does not stretch the median.
    QCOMPARE(*medianOf({ 30.0, 1.0, 1.0, 1.0, 1.0 }), 1.0);

    QCOMPARE(runningEstimate(0, 10, std::nullopt).kind, RunEstimate::Kind::Estimating);
    QCOMPARE(runningEstimate(1, 10, 2.0).kind, RunEstimate::Kind::Estimating);
    const RunEstimate twoDone = runningEstimate(2, 10, 1.5);
    QCOMPARE(twoDone.kind, RunEstimate::Kind::Known);
    QCOMPARE(twoDone.seconds, 12.0);
    QVERIFY(!twoDone.predicted);
    QCOMPARE(runningEstimate(10, 10, 1.5).seconds, 0.0);

    QCOMPARE(queuedEstimate(12, std::nullopt).kind, RunEstimate::Kind::Unknown);
    QCOMPARE(queuedEstimate(12, 0.0).kind, RunEstimate::Kind::Unknown);
    const RunEstimate predicted = queuedEstimate(12, 0.25);
    QCOMPARE(predicted.kind, RunEstimate::Kind::Known);
    QCOMPARE(predicted.seconds, 3.0);
    QVERIFY(predicted.predicted);

    const RunEstimate sum = queueEstimate({ twoDone, predicted });
    QCOMPARE(sum.kind, RunEstimate::Kind::Known);
    QCOMPARE(sum.seconds, 15.0);
    QVERIFY(sum.predicted);
    QCOMPARE(queueEstimate({ twoDone, predicted, RunEstimate::unknown() }).kind, RunEstimate::Kind::Unknown);
    QCOMPARE(queueEstimate({ RunEstimate::estimating(), predicted }).kind, RunEstimate::Kind::Estimating);
    QCOMPARE(queueEstimate({}).seconds, 0.0);

    QCOMPARE(formatDuration(45.2), QStringLiteral("45 s"));
    QCOMPARE(formatDuration(185), QStringLiteral("3 min 05 s"));
    QCOMPARE(formatDuration(7620), QStringLiteral("2 h 07 min"));
    QCOMPARE(estimateText(RunEstimate::estimating()), QStringLiteral("estimating…"));
    QCOMPARE(estimateText(RunEstimate::unknown()), QStringLiteral("unknown"));
    QCOMPARE(estimateText(twoDone), QStringLiteral("about 12 s"));
    QCOMPARE(estimateText(predicted), QStringLiteral("about 3 s (predicted)"));
}

void TestRunMonitoring::trackerKeepsTheMedianStepTime()
{
    RankProgressTracker tracker(2, 10);
    const double times[] = { 5.0, 1.0, 1.2, 1.1, 0.9 };
    for (int s = 0; s < 5; ++s)
        tracker.apply(protocol::Event { step(0, s, times[s], s > 0) });
    QCOMPARE(tracker.ranks()[0].medianStepS, 1.1);
    tracker.apply(protocol::Event { step(0, 5, 1.3, true) });
    QCOMPARE(tracker.ranks()[0].medianStepS, (1.1 + 1.2) / 2.0);
    QCOMPARE(tracker.ranks()[1].medianStepS, 0.0);
}

void TestRunMonitoring::queueShowsElapsedAndTimeLeft()
{
    RunQueueModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    double now = 1000.0;
    model.setClock([&now] { return now; });
    // Running: 1 + 3 steps. Queued: 2 + 6 steps predicted at 2 s each, then one without a prediction.
    model.setQueue(request(7, 1, 3, std::nullopt), { request(8, 2, 6, 2.0), request(9, 1, 3, std::nullopt) });
    const auto cell = [&](int row, int column) { return model.index(row, column).data().toString(); };
    QCOMPARE(model.headerData(RunQueueModel::ElapsedColumn, Qt::Horizontal).toString(), QStringLiteral("Elapsed"));
    QCOMPARE(model.headerData(RunQueueModel::EtaColumn, Qt::Horizontal).toString(), QStringLiteral("Time left"));
    QCOMPARE(cell(0, RunQueueModel::ElapsedColumn), QString()); // not started yet
    QVERIFY(cell(0, RunQueueModel::StateColumn).startsWith(QStringLiteral("Running")));
    QCOMPARE(cell(0, RunQueueModel::EtaColumn), QStringLiteral("estimating…"));

    model.setRunningStart(935.0);
    QCOMPARE(cell(0, RunQueueModel::ElapsedColumn), QStringLiteral("1 min 05 s"));
    now = 1010.0;
    model.tick();
    QCOMPARE(cell(0, RunQueueModel::ElapsedColumn), QStringLiteral("1 min 15 s"));
    QCOMPARE(cell(1, RunQueueModel::ElapsedColumn), QString());

    model.setRunningSteps(1, 4, 3.0);
    QCOMPARE(cell(0, RunQueueModel::EtaColumn), QStringLiteral("estimating…"));
    model.setRunningSteps(2, 4, 3.0);
    QCOMPARE(cell(0, RunQueueModel::StateColumn), QStringLiteral("Running, step 2 of 4"));
    QCOMPARE(cell(0, RunQueueModel::EtaColumn), QStringLiteral("about 6 s"));
    QCOMPARE(cell(1, RunQueueModel::EtaColumn), QStringLiteral("about 16 s (predicted)"));
    QCOMPARE(cell(2, RunQueueModel::EtaColumn), QStringLiteral("unknown"));
    QCOMPARE(model.queueEstimate().kind, RunEstimate::Kind::Unknown);

    // The run without a prediction leaves: the queue's time left is the sum of the other two.
    model.setQueue(request(7, 1, 3, std::nullopt), { request(8, 2, 6, 2.0) });
    QCOMPARE(cell(0, RunQueueModel::EtaColumn), QStringLiteral("about 6 s")); // the same run keeps its steps
    QCOMPARE(cell(0, RunQueueModel::ElapsedColumn), QStringLiteral("1 min 15 s"));
    const RunEstimate total = model.queueEstimate();
    QCOMPARE(total.kind, RunEstimate::Kind::Known);
    QCOMPARE(total.seconds, 22.0);

    // The next run starts: its clock and steps start over.
    model.setQueue(request(8, 2, 6, 2.0), {});
    QCOMPARE(cell(0, RunQueueModel::ElapsedColumn), QString());
    QCOMPARE(cell(0, RunQueueModel::EtaColumn), QStringLiteral("estimating…"));
    QCOMPARE(model.queueEstimate().kind, RunEstimate::Kind::Estimating);
}

void TestRunMonitoring::cancelledRunsRanksSayCancelled()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    store::Database db = store::Database::open(dir.filePath(QStringLiteral("runs.sqlite")).toStdString());
    RunConfig config;
    config.model = resolveModel("tiny");
    config.worldSize = 2;
    config.warmupSteps = 1;
    config.timedSteps = 100;
    store::RunOrigin origin;
    origin.nodes.push_back({ "local", std::nullopt });
    store::RunRecorder recorder(db, config, origin);
    recordSteps(recorder, 2, 3).finish(store::RunStatus::Cancelled);
    const auto detail = store::runDetail(db, recorder.runId());
    QVERIFY(detail);

    RankProgressModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.watch(recorder.runId());
    model.update(recorder.runId(), storedRankProgress(db, *detail));
    QCOMPARE(model.rowCount(), 2);
    for (int row = 0; row < 2; ++row) {
        QCOMPARE(stateOf(model, row), QStringLiteral("Cancelled"));
        QCOMPARE(model.ranks()[row].stepsDone, 3);
        QVERIFY(model.index(row, RankProgressModel::StateColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("cancelled")));
    }
}

void TestRunMonitoring::killedRankIsFailedAndItsPeersStopped()
{
    // Rank 3 was killed (SIGKILL) and left no error event; rank 0 reported the broken collective; the
    // committed case has logs of ranks 0-3, so rank 4 is one the diagnosis says nothing of.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    store::Database db = store::Database::open(dir.filePath(QStringLiteral("runs.sqlite")).toStdString());
    RunConfig config;
    config.model = resolveModel("tiny");
    config.worldSize = 5;
    config.warmupSteps = 1;
    config.timedSteps = 100;
    store::RunOrigin origin;
    origin.nodes.push_back({ "local", std::nullopt });
    store::RunRecorder recorder(db, config, origin);
    recordSteps(recorder, 5, 2);
    protocol::ErrorEvent comm;
    comm.rank = 0;
    comm.kind = protocol::ErrorKind::Comm;
    comm.message = "NCCL error: remote process exited or there was a network error";
    recorder.record(protocol::Event { comm });
    recorder.finish(store::RunStatus::Failed);
    const diagnose::Diagnosis diagnosis = diagnose::diagnose(diagnose::loadRunFolder(
        std::filesystem::path(SHARDWISE_TEST_DATA_DIR) / "diagnose" / "node_lost_sigkill_then_nccl_errors"));
    session::storeRunDiagnosis(db, recorder.runId(), diagnosis);
    const auto detail = store::runDetail(db, recorder.runId());
    QVERIFY(detail);

    RankProgressModel model;
    model.watch(recorder.runId());
    model.update(recorder.runId(), storedRankProgress(db, *detail));
    QCOMPARE(model.rowCount(), 5);
    const auto tip
        = [&](int row) { return model.index(row, RankProgressModel::StateColumn).data(Qt::ToolTipRole).toString(); };
    QCOMPARE(stateOf(model, 0), QStringLiteral("Failed"));
    QCOMPARE(tip(0), QString::fromStdString(comm.message)); // its own error event comes first
    QCOMPARE(stateOf(model, 3), QStringLiteral("Failed"));
    QVERIFY2(tip(3).startsWith(QStringLiteral("Rank or node lost: ")) && tip(3).contains(QStringLiteral("SIGKILL")),
             qPrintable(tip(3)));
    QVERIFY(model.index(3, RankProgressModel::StateColumn).data(RankProgressModel::FailedRole).toBool());
    QCOMPARE(stateOf(model, 1), QStringLiteral("Failed")); // the diagnosis found its broken collective
    QCOMPARE(stateOf(model, 4), QStringLiteral("Stopped"));
    QVERIFY(tip(4).contains(QStringLiteral("another rank failed")));
}

void TestRunMonitoring::cancellingMarksRanksStillGoing()
{
    RankProgressTracker tracker(2, 10);
    tracker.apply(protocol::Event { step(0, 0, 1.0, false) });
    protocol::SummaryEvent done;
    done.rank = 1;
    tracker.apply(protocol::Event { done });
    RankProgressModel model;
    model.watch(5);
    model.update(5, tracker.ranks());
    QCOMPARE(stateOf(model, 0), QStringLiteral("Warming up"));
    model.setCancelling(true);
    QCOMPARE(stateOf(model, 0), QStringLiteral("Cancelling…"));
    QCOMPARE(stateOf(model, 1), QStringLiteral("Finished"));
    // A run that is still going concludes nothing.
    tracker.conclude(store::RunStatus::Running, {});
    QVERIFY(!tracker.ranks()[0].cancelled && !tracker.ranks()[0].stopped);
    tracker.conclude(store::RunStatus::Cancelled, {});
    model.update(5, tracker.ranks());
    QCOMPARE(stateOf(model, 0), QStringLiteral("Cancelled"));
    QCOMPARE(stateOf(model, 1), QStringLiteral("Finished"));
}

SHARDWISE_GUI_TEST_MAIN(TestRunMonitoring)
#include "test_run_monitoring.moc"
