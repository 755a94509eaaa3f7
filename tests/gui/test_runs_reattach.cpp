// The desktop app leaving runs on SSH nodes running when it closes, and the Runs page taking them up
// again: a tiny-model CPU run on a loopback SSH node (a real sshd, the real runner) is detached when
// the page and its run queue go away mid-run, shown as detached in the history, re-attached with
// the page's Re-attach button after the page is made anew, and recorded to its end into the same
// run with every step exactly once.
#include "gui_test_main.hpp"

#include "jobs/run_job.hpp"
#include "models/run_history_model.hpp"
#include "pages/runs/runs_page.hpp"
#include "workspace/workspace.hpp"

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
    void reattachIsOfferedOnlyForDetachedRuns();
    void abandonAsksThenEndsTheDetachedRunAsLost();

private:
    std::unique_ptr<RunsPage> makePage(Workspace& workspace);
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
            QSKIP("this build has no shardwise-runner (configured with SHARDWISE_BUILD_RUNNER=OFF) and SHARDWISE_RUNNER is not set");
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

void TestRunsReattach::closingDetachesARemoteRunAndReattachFinishesIt()
{
#ifdef SHARDWISE_HAVE_SSHD_FIXTURE
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString storeFile = dir.filePath(QStringLiteral("shardwise.sqlite"));
    auto opened = std::make_unique<Workspace>();
    QString error;
    QVERIFY2(opened->open(storeFile, &error), qPrintable(error));
    testing::SshdFixture sshd;
    const QString started = sshd.start();
    QVERIFY2(started.isEmpty(), qPrintable(started));
    sshd.trustHostKey();
    store::Node node;
    node.name = "loopback";
    node.kind = store::NodeKind::Ssh;
    node.host = "127.0.0.1";
    node.port = sshd.port();
    node.user = sshd.userName();
    node.auth = store::SshAuth::KeyFile;
    node.keyFile = sshd.keyCredentials().keyFile.string();
    node.facts = {{"prepared_runner", {{"path", qEnvironmentVariable("SHARDWISE_RUNNER").toStdString()}}}};
    store::addNode(*opened->database(), node);

    RunRequest request;
    request.config.model = resolveModel("tiny");
    request.config.strategy = Strategy::Zero2;
    request.config.worldSize = 2;
    request.config.warmupSteps = 1;
    request.config.timedSteps = 1500; // tiny CPU steps take milliseconds: long enough to close mid-run
    request.config.training.seqLen = 16;
    request.config.training.microBatch = 1;
    request.node = QStringLiteral("loopback");
    const int totalSteps = request.config.warmupSteps + request.config.timedSteps;

    qint64 runId = 0;
    {
        auto page = makePage(*opened);
        page->job()->setSshOptions(sshd.options());
        page->job()->setRemoteRunRoot(sshd.path(QStringLiteral("remote-runs")).toStdString());
        QSignalSpy runStarted(page->job(), &RunJob::runStarted);
        QSignalSpy progress(page->job(), &RunJob::rankProgressAvailable);
        QVERIFY(page->queueRun(request) > 0);
        QTRY_VERIFY_WITH_TIMEOUT(!progress.isEmpty() && [&] {
            const auto ranks = progress.last().at(1).value<QList<RankProgress>>();
            return ranks.size() == 2 && ranks[0].stepsDone > 0;
        }(), kRunTimeoutMs);
        runId = runStarted.front().at(1).toLongLong();
        // The app closing: the page, then the workspace with its run queue go away while the run is going.
    }
    opened.reset();
    Workspace workspace; // the app started again
    QVERIFY2(workspace.open(storeFile, &error), qPrintable(error));
    {
        const auto run = store::findRun(*workspace.database(), runId);
        QVERIFY(run);
        QCOMPARE(run->status, store::RunStatus::Detached);
        QVERIFY(store::findRemoteFollow(*workspace.database(), runId));
        QVERIFY2(static_cast<int>(store::stepSeries(*workspace.database(), runId).size()) < 2 * totalSteps,
                 "the run was not detached mid-run");
    }

    auto page = makePage(workspace);
    page->job()->setSshOptions(sshd.options());
    const int row = page->historyModel()->rowOf(runId);
    QVERIFY(row >= 0);
    QCOMPARE(page->historyModel()->index(row, RunHistoryModel::StatusColumn).data().toString(),
             RunHistoryModel::statusText(store::RunStatus::Detached));
    page->historyView()->selectRow(row);
    QVERIFY(page->reattachButton()->isEnabled());
    QSignalSpy runStarted(page->job(), &RunJob::runStarted);
    QSignalSpy finished(page->job(), &RunJob::runFinished);
    QSignalSpy failed(page->job(), &RunJob::runFailed);
    QTest::mouseClick(page->reattachButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), kRunTimeoutMs);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().at(1).toString()));
    QCOMPARE(runStarted.front().at(1).toLongLong(), runId); // the same run, not a new one
    QCOMPARE(finished.front().at(1).toLongLong(), runId);
    QCOMPARE(finished.front().at(2).toString(), QStringLiteral("completed"));
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
    origin.nodes = {{"somewhere", std::nullopt}};
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
    return {a.runId(), detached};
}

void TestRunsReattach::reattachIsOfferedOnlyForDetachedRuns()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Workspace workspace;
    QString error;
    QVERIFY2(workspace.open(dir.filePath(QStringLiteral("shardwise.sqlite")), &error), qPrintable(error));
    const auto [running, detached] = recordRunningAndDetachedRuns(workspace);
    auto page = makePage(workspace);
    page->historyView()->selectRow(page->historyModel()->rowOf(running));
    QVERIFY(!page->reattachButton()->isEnabled());
    page->historyView()->selectRow(page->historyModel()->rowOf(detached));
    QVERIFY(page->reattachButton()->isEnabled());
}

void TestRunsReattach::abandonAsksThenEndsTheDetachedRunAsLost()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Workspace workspace;
    QString error;
    QVERIFY2(workspace.open(dir.filePath(QStringLiteral("shardwise.sqlite")), &error), qPrintable(error));
    const auto [running, detached] = recordRunningAndDetachedRuns(workspace);
    auto page = makePage(workspace);
    page->historyView()->selectRow(page->historyModel()->rowOf(running));
    QVERIFY(!page->abandonButton()->isEnabled());
    page->historyView()->selectRow(page->historyModel()->rowOf(detached));
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
    QVERIFY(!page->abandonSelected());
    QCOMPARE(store::findRun(*workspace.database(), detached)->status, store::RunStatus::Detached);

    answer(QMessageBox::Yes);
    QVERIFY(page->abandonSelected());
    const auto run = store::findRun(*workspace.database(), detached);
    QCOMPARE(run->status, store::RunStatus::Lost);
    QVERIFY2(run->note.find("abandoned") != std::string::npos, run->note.c_str());
    QVERIFY(!store::findRemoteFollow(*workspace.database(), detached));
    QVERIFY(!page->abandonButton()->isEnabled());
    QVERIFY(!page->reattachButton()->isEnabled());
}

SHARDWISE_GUI_TEST_MAIN(TestRunsReattach)
#include "test_runs_reattach.moc"
