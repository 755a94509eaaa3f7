// The desktop app leaving runs on SSH nodes running when it closes, and the Runs page taking them up
// again: a tiny-model CPU run on a loopback SSH node (a real sshd, the real runner) is detached when
// the page and its run queue go away mid-run, shown as detached in the history, re-attached with
// the page's Re-attach button after the page is made anew, and recorded to its end into the same
// run with every step exactly once.
#include "gui_test_main.hpp"

#include "jobs/run_job.hpp"
#include "models/run_history_model.hpp"
#include "models/run_table_model.hpp"
#include "pages/runs/runs_page.hpp"
#include "shell/quit_guard.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/session/remote_run_json.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/nodes.hpp"
#include "shardwise/store/remote_follow.hpp"
#include "shardwise/store/run_recorder.hpp"
#include "shardwise/store/runs.hpp"

#include <QApplication>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#ifdef SHARDWISE_HAVE_SSHD_FIXTURE
#include "sshd/sshd_fixture.hpp"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

using namespace shardwise;
using namespace shardwise::gui;

namespace {
constexpr int kRunTimeoutMs = 300'000;
} // namespace

class TestRunsReattach : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void closingDetachesARemoteRunAndReattachFinishesIt();
    void detachedRunIsOfferedAndAbandonAsksThenEndsItAsLost();
    void theCompareTableShowsADetachedRunAsDetached();
    void abandonStopsTheRanksOfARunOnAnSshNode();

private:
    std::unique_ptr<RunsPage> makePage(Workspace& workspace);
#ifdef SHARDWISE_HAVE_SSHD_FIXTURE
    void leaveARunDetached(const QString& storeFile, testing::SshdFixture& sshd, int timedSteps, RunRequest& request,
                           qint64& runId);
#endif
};

void TestRunsReattach::initTestCase()
{
#ifndef SHARDWISE_HAVE_SSHD_FIXTURE
    QSKIP("no sshd fixture here (core/dispatch without SSH)");
#else
    if (const QString why = testing::SshdFixture::unavailableReason(); !why.isEmpty())
        QSKIP(qPrintable(why));
#endif
    if (qEnvironmentVariableIsEmpty("SHARDWISE_RUNNER")) {
        const QString built = QStringLiteral(SHARDWISE_TEST_RUNNER);
        if (built.isEmpty())
            QSKIP("this build has no shardwise-runner (configured with SHARDWISE_BUILD_RUNNER=OFF) and "
                  "SHARDWISE_RUNNER is not set");
        qputenv("SHARDWISE_RUNNER", built.toLocal8Bit());
    }
}

std::unique_ptr<RunsPage> TestRunsReattach::makePage(Workspace& workspace)
{
    auto page = std::make_unique<RunsPage>(workspace);
    page->resize(1400, 900);
    page->show();
    return page;
}

#ifdef SHARDWISE_HAVE_SSHD_FIXTURE
// Starts `sshd` and queues a tiny-model CPU run of `timedSteps` on it, a loopback SSH node with the
// real runner, from a Runs page of a workspace on `storeFile`; once rank 0 reported a step, the page
// and the workspace with its run queue go away (the app closing), which leaves the run detached.
// Sets `runId`; `request` is what was queued.
void TestRunsReattach::leaveARunDetached(const QString& storeFile, testing::SshdFixture& sshd, int timedSteps,
                                         RunRequest& request, qint64& runId)
{
    const QString started = sshd.start();
    QVERIFY2(started.isEmpty(), qPrintable(started));
    sshd.trustHostKey();
    auto opened = std::make_unique<Workspace>();
    QString error;
    QVERIFY2(opened->open(storeFile, &error), qPrintable(error));
    store::Node node;
    node.name = "loopback";
    node.kind = store::NodeKind::Ssh;
    node.host = "127.0.0.1";
    node.port = sshd.port();
    node.user = sshd.userName();
    node.auth = store::SshAuth::KeyFile;
    node.keyFile = sshd.keyCredentials().keyFile.string();
    node.facts = { { "prepared_runner", { { "path", qEnvironmentVariable("SHARDWISE_RUNNER").toStdString() } } } };
    store::addNode(*opened->database(), node);

    request.config.model = resolveModel("tiny");
    request.config.strategy = Strategy::Zero2;
    request.config.worldSize = 2;
    request.config.warmupSteps = 1;
    request.config.timedSteps = timedSteps;
    request.config.training.seqLen = 16;
    request.config.training.microBatch = 1;
    request.node = QStringLiteral("loopback");
    {
        auto page = makePage(*opened);
        page->job()->setSshOptions(sshd.options());
        page->job()->setRemoteRunRoot(sshd.path(QStringLiteral("remote-runs")).toStdString());
        QSignalSpy runStarted(page->job(), &RunJob::runStarted);
        QSignalSpy progress(page->job(), &RunJob::rankProgressAvailable);
        QVERIFY(page->queueRun(request) > 0);
        QTRY_VERIFY_WITH_TIMEOUT(
            !progress.isEmpty() &&
                [&] {
                    const auto ranks = progress.last().at(1).value<QList<RankProgress>>();
                    return ranks.size() == 2 && ranks[0].stepsDone > 0;
                }(),
            kRunTimeoutMs);
        runId = runStarted.front().at(1).toLongLong();
        // What quitting now would do is said before the app goes.
        const QString said = quitConsequences(*page->job());
        QVERIFY2(said.contains(QStringLiteral("Run %1 on loopback goes on running there").arg(runId)),
                 qPrintable(said));
    }
    opened.reset();
    const store::Database db = store::Database::open(storeFile.toStdString());
    const auto run = store::findRun(db, runId);
    QVERIFY(run);
    QCOMPARE(run->status, store::RunStatus::Detached);
    QVERIFY(store::findRemoteFollow(db, runId));
    QVERIFY2(static_cast<int>(store::stepSeries(db, runId).size()) < 2 * (request.config.warmupSteps + timedSteps),
             "the run was not detached mid-run");
}
#endif

void TestRunsReattach::closingDetachesARemoteRunAndReattachFinishesIt()
{
#ifdef SHARDWISE_HAVE_SSHD_FIXTURE
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString storeFile = dir.filePath(QStringLiteral("shardwise.sqlite"));
    testing::SshdFixture sshd;
    RunRequest request;
    qint64 runId = 0;
    leaveARunDetached(storeFile, sshd, 1500, request,
                      runId); // tiny CPU steps take milliseconds: long enough to close mid-run
    if (QTest::currentTestFailed())
        return;
    const int totalSteps = request.config.warmupSteps + request.config.timedSteps;
    Workspace workspace; // the app started again
    QString error;
    QVERIFY2(workspace.open(storeFile, &error), qPrintable(error));

    auto page = makePage(workspace);
    page->job()->setSshOptions(sshd.options());
    const int row = page->historyModel()->rowOf(runId);
    QVERIFY(row >= 0);
    QCOMPARE(page->historyModel()->index(row, RunHistoryModel::StatusColumn).data().toString(),
             RunHistoryModel::statusText(store::RunStatus::Detached));
    page->historyView()->selectRow(row);
    QVERIFY(page->reattachButton()->isEnabled());
    int recordedBeforeDetach = 0; // rank 0's steps in the store when the app closed
    for (const protocol::StepEvent& step : store::stepSeries(*workspace.database(), runId, 0))
        recordedBeforeDetach = std::max(recordedBeforeDetach, step.step + 1);
    QVERIFY(recordedBeforeDetach > 0);
    QSignalSpy runStarted(page->job(), &RunJob::runStarted);
    QSignalSpy reattachedProgress(page->job(), &RunJob::rankProgressAvailable);
    QSignalSpy finished(page->job(), &RunJob::runFinished);
    QSignalSpy failed(page->job(), &RunJob::runFailed);
    QTest::mouseClick(page->reattachButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), kRunTimeoutMs);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().at(1).toString()));
    QCOMPARE(runStarted.front().at(1).toLongLong(), runId); // the same run, not a new one
    QCOMPARE(finished.front().at(1).toLongLong(), runId);
    QCOMPARE(finished.front().at(2).toString(), QStringLiteral("completed"));
    // The page went on from the recorded steps: its first progress after the re-attach already
    // counts them (and their timed tokens/s), it did not start again at zero.
    QVERIFY(!reattachedProgress.isEmpty());
    const auto firstShown = reattachedProgress.front().at(1).value<QList<RankProgress>>();
    QCOMPARE(firstShown.size(), 2);
    QVERIFY2(firstShown[0].stepsDone >= recordedBeforeDetach,
             qPrintable(
                 QStringLiteral("%1 steps shown, %2 recorded").arg(firstShown[0].stepsDone).arg(recordedBeforeDetach)));
    QVERIFY(firstShown[0].timedStepsDone > 0 || recordedBeforeDetach <= request.config.warmupSteps);
    QCOMPARE(workspace.runs().size(), 1);
    for (int rank = 0; rank < 2; ++rank) {
        const auto series = store::stepSeries(*workspace.database(), runId, rank);
        QCOMPARE(static_cast<int>(series.size()), totalSteps);
        std::set<int> steps;
        for (const auto& s : series)
            steps.insert(s.step);
        QCOMPARE(static_cast<int>(steps.size()), totalSteps);
    }
    QVERIFY(!store::findRemoteFollow(*workspace.database(), runId));
    QTRY_VERIFY(!page->reattachButton()->isEnabled());
#endif
}

// Two remote runs left running in the store: one still followed, one detached with its handle kept.
static std::pair<qint64, qint64> recordRunningAndDetachedRuns(Workspace& workspace)
{
    store::RunOrigin origin;
    origin.nodes = { { "somewhere", std::nullopt } };
    RunConfig config;
    config.model = resolveModel("tiny");
    config.strategy = Strategy::Zero1;
    store::RunRecorder a(*workspace.database(), config, origin);
    a.leaveRunning();
    store::RunRecorder b(*workspace.database(), config, origin);
    b.leaveRunning();
    const qint64 detached = b.runId();
    store::saveRemoteFollow(*workspace.database(), detached, R"({"run_id":"x"})");
    store::markRemoteDetached(*workspace.database(), detached, "{}");
    return { a.runId(), detached };
}

void TestRunsReattach::theCompareTableShowsADetachedRunAsDetached()
{
    // The Compare page's runs: a detached run is neither measured nor running under this app's eyes.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Workspace workspace;
    QString error;
    QVERIFY2(workspace.open(dir.filePath(QStringLiteral("shardwise.sqlite")), &error), qPrintable(error));
    const auto [running, detached] = recordRunningAndDetachedRuns(workspace);
    QCOMPARE(workspace.run(running)->outcome, RunOutcome::Running);
    QCOMPARE(workspace.run(detached)->outcome, RunOutcome::Detached);
    RunTableModel table;
    table.setRuns(workspace.runs());
    QMap<qint64, QString> shown;
    for (int row = 0; row < table.rowCount(); ++row)
        shown[table.index(row, 0).data(RunTableModel::RunIdRole).toLongLong()]
            = table.index(row, RunTableModel::OutcomeColumn).data().toString();
    QCOMPARE(shown.value(running), QStringLiteral("running"));
    QCOMPARE(shown.value(detached), QStringLiteral("detached (running on its nodes)"));
}

void TestRunsReattach::detachedRunIsOfferedAndAbandonAsksThenEndsItAsLost()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Workspace workspace;
    QString error;
    QVERIFY2(workspace.open(dir.filePath(QStringLiteral("shardwise.sqlite")), &error), qPrintable(error));
    const auto [running, detached] = recordRunningAndDetachedRuns(workspace);
    auto page = makePage(workspace);
    // Re-attach and Abandon are offered for the detached run only, not for the one still followed.
    page->historyView()->selectRow(page->historyModel()->rowOf(running));
    QVERIFY(!page->reattachButton()->isEnabled());
    QVERIFY(!page->abandonButton()->isEnabled());
    page->historyView()->selectRow(page->historyModel()->rowOf(detached));
    QVERIFY(page->reattachButton()->isEnabled());
    QVERIFY(page->abandonButton()->isEnabled());

    // Answers the confirmation dialog with `button` once it is shown.
    const auto answer = [](QMessageBox::StandardButton button) {
        QTimer::singleShot(0, [button] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            QVERIFY(box);
            QCOMPARE(box->objectName(), QStringLiteral("confirmAbandon"));
            box->button(button)->click();
        });
    };
    answer(QMessageBox::Cancel);
    QCOMPARE(page->abandonSelected(), qint64(0));
    QCOMPARE(store::findRun(*workspace.database(), detached)->status, store::RunStatus::Detached);

    QSignalSpy finished(page->job(), &RunJob::runFinished);
    answer(QMessageBox::Yes);
    const qint64 ticket = page->abandonSelected();
    QVERIFY(ticket > 0);
    QVERIFY(!page->abandonButton()->isEnabled()); // queued already
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), kRunTimeoutMs);
    QCOMPARE(finished.front().at(0).toLongLong(), ticket);
    QCOMPARE(finished.front().at(1).toLongLong(), detached);
    QCOMPARE(finished.front().at(2).toString(), QStringLiteral("lost"));
    // Its node "somewhere" is not a node of this workspace: nothing could be stopped, and it says so.
    const QString said = finished.front().at(3).toString();
    QVERIFY2(said.contains(QStringLiteral("Not reached, so its ranks may still be running: somewhere")),
             qPrintable(said));
    const auto run = store::findRun(*workspace.database(), detached);
    QCOMPARE(run->status, store::RunStatus::Lost);
    QVERIFY2(run->note.find("abandoned") != std::string::npos, run->note.c_str());
    QVERIFY2(run->note.find("not reached") != std::string::npos, run->note.c_str());
    QVERIFY(!store::findRemoteFollow(*workspace.database(), detached));
    QTRY_VERIFY(!page->abandonButton()->isEnabled());
    QVERIFY(!page->reattachButton()->isEnabled());
}

void TestRunsReattach::abandonStopsTheRanksOfARunOnAnSshNode()
{
#ifdef SHARDWISE_HAVE_SSHD_FIXTURE
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString storeFile = dir.filePath(QStringLiteral("shardwise.sqlite"));
    testing::SshdFixture sshd;
    RunRequest request;
    qint64 runId = 0;
    leaveARunDetached(storeFile, sshd, 100'000, request, runId); // runs until it is stopped
    if (QTest::currentTestFailed())
        return;
    Workspace workspace;
    QString error;
    QVERIFY2(workspace.open(storeFile, &error), qPrintable(error));
    // The detached ranks go on; their pid files are in the run directory of the handle.
    const auto kept = store::findRemoteFollow(*workspace.database(), runId);
    QVERIFY(kept);
    const std::vector<int> pids
        = testing::rankPidsIn(session::remoteRunFromJson(nlohmann::json::parse(kept->handleJson)).runDir);
    QCOMPARE(pids.size(), std::size_t(2));
    for (const int pid : pids)
        QVERIFY2(testing::processRuns(pid), "a rank of the detached run is not running");

    auto page = makePage(workspace);
    page->job()->setSshOptions(sshd.options());
    page->historyView()->selectRow(page->historyModel()->rowOf(runId));
    QSignalSpy finished(page->job(), &RunJob::runFinished);
    QTimer::singleShot(0, [] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        QVERIFY(box);
        box->button(QMessageBox::Yes)->click();
    });
    QVERIFY(page->abandonSelected() > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), kRunTimeoutMs);
    QCOMPARE(finished.front().at(2).toString(), QStringLiteral("lost"));
    const QString said = finished.front().at(3).toString();
    QVERIFY2(said.contains(QStringLiteral("Ranks still running were stopped on loopback.")), qPrintable(said));
    QVERIFY2(!said.contains(QStringLiteral("Not reached")), qPrintable(said));
    // SIGTERM, then SIGKILL after the grace.
    for (const int pid : pids)
        QTRY_VERIFY2_WITH_TIMEOUT(!testing::processRuns(pid), "a rank still runs after abandon", 30000);
    const auto run = store::findRun(*workspace.database(), runId);
    QCOMPARE(run->status, store::RunStatus::Lost);
    QVERIFY2(run->note.find("ranks still running were stopped on loopback") != std::string::npos, run->note.c_str());
    QVERIFY(!store::findRemoteFollow(*workspace.database(), runId));
#endif
}

SHARDWISE_GUI_TEST_MAIN(TestRunsReattach)
#include "test_runs_reattach.moc"
