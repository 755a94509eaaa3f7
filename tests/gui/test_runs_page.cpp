// The Runs page driven with QTest against the real runner: a tiny-model CPU run on the local node
// completes live on the page and lands in the store; a configuration the runner rejects and a rank
// killed mid-run each show their diagnosis with the first failure highlighted; a diagnosis action
// queues the rerun it names; cancel stops a running run and removes a queued one. A run on an SSH
// node (a real sshd on loopback, the node prepared with this build's runner) completes live and
// lands in the store under the node's name, and cancel stops it on the node; the Plan page's
// Validate queues its run matrix into this page's queue, where it runs on the local node.
#include "gui_test_main.hpp"

#include "jobs/run_job.hpp"
#include "models/log_tail_model.hpp"
#include "models/rank_progress_model.hpp"
#include "models/run_failure_model.hpp"
#include "models/run_history_model.hpp"
#include "models/run_queue_model.hpp"
#include "pages/plan/plan_form.hpp"
#include "pages/plan/plan_page.hpp"
#include "pages/runs/run_diagnosis_panel.hpp"
#include "pages/runs/run_request_form.hpp"
#include "pages/runs/runs_page.hpp"
#include "shardwise/session/run_session.hpp"
#include "shell/main_window.hpp"
#include "shell/quit_guard.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/diagnose/run_folder.hpp"
#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/nodes.hpp"
#include "shardwise/store/run_recorder.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#ifdef SHARDWISE_HAVE_SSHD_FIXTURE
#include "sshd/sshd_fixture.hpp"
#endif

#include <csignal>
#include <memory>
#include <unistd.h>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

// A loaded 2-core machine runs two tiny ranks in seconds; the margin is for CI under load.
constexpr int kRunTimeoutMs = 240'000;

RunConfig tinyConfig(Strategy strategy, int world, int warmup, int steps)
{
    RunConfig c;
    c.model = resolveModel("tiny");
    c.strategy = strategy;
    c.worldSize = world;
    c.warmupSteps = warmup;
    c.timedSteps = steps;
    c.training.seqLen = 16;
    c.training.microBatch = 1;
    return c;
}

std::string readFile(const std::string& path)
{
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll().toStdString();
}

// The pid of the runner process that is rank `rank` of a run started by this test process.
pid_t runnerRankPid(int rank)
{
    const std::string wanted = "RANK=" + std::to_string(rank);
    const QDir proc(QStringLiteral("/proc"));
    const QStringList entries = proc.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        bool numeric = false;
        const pid_t pid = entry.toInt(&numeric);
        if (!numeric)
            continue;
        const std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
        // Field 4 of /proc/<pid>/stat is the parent pid; the command name in field 2 may contain spaces.
        const auto close = stat.rfind(')');
        if (close == std::string::npos)
            continue;
        int ppid = 0;
        char state = 0;
        if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) != 2 || ppid != ::getpid())
            continue;
        const std::string environ = readFile("/proc/" + std::to_string(pid) + "/environ");
        std::size_t start = 0;
        while (start < environ.size()) {
            const std::size_t end = environ.find('\0', start);
            if (environ.compare(start, (end == std::string::npos ? environ.size() : end) - start, wanted) == 0)
                return pid;
            if (end == std::string::npos)
                break;
            start = end + 1;
        }
    }
    return 0;
}

} // namespace

class TestRunsPage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void localCpuRunCompletesLiveAndLandsInStore();
    void localTorchRunCompletesAndSaysItsBackend();
    void formRefusesCudaGraphsTheRunnerCannotCapture_data();
    void formRefusesCudaGraphsTheRunnerCannotCapture();
    void configRejectedByRunnerShowsDiagnosis();
    void killedRankIsShownAsTheFirstFailure();
    void diagnosisActionQueuesRerunWithExpandableSegments();
    void cancelRemovesQueuedRunAndStopsRunningOne();
    void quittingWhileARunGoesAsksFirst();
    void missingRunnerIsReportedWithItsPath();
    void sshNodesCanBeChosenAndUnpreparedOnesSaySo();
    void cpuRunOnAnSshNodeCompletesLiveAndLandsInStore();
    void cancelStopsARunOnAnSshNode();
    void validateFromThePlanPageQueuesIntoThisQueue();

private:
    // Adds an SSH node on a loopback sshd to the workspace, its key trusted and, when `prepared`,
    // the runner its preparation "built" being this build's runner (the loopback node is this
    // machine). Returns the node's name; empty with a QSKIP/QVERIFY failure recorded otherwise.
    QString addLoopbackNode(bool prepared);
    qint64 waitForFinish(QSignalSpy& finished, QString* status = nullptr, bool* diagnosed = nullptr);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Workspace> m_workspace;
    std::unique_ptr<RunsPage> m_page;
#ifdef SHARDWISE_HAVE_SSHD_FIXTURE
    std::unique_ptr<testing::SshdFixture> m_sshd;
#endif
};

void TestRunsPage::initTestCase()
{
    if (qEnvironmentVariableIsEmpty("SHARDWISE_RUNNER")) {
        const QString built = QStringLiteral(SHARDWISE_TEST_RUNNER);
        if (built.isEmpty())
            QSKIP("this build has no shardwise-runner (configured with SHARDWISE_BUILD_RUNNER=OFF) and "
                  "SHARDWISE_RUNNER is not set");
        qputenv("SHARDWISE_RUNNER", built.toLocal8Bit());
    }
    const QString runner = qEnvironmentVariable("SHARDWISE_RUNNER");
    QVERIFY2(QFileInfo(runner).isExecutable(), qPrintable(QStringLiteral("not an executable runner: ") + runner));
}

void TestRunsPage::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_workspace = std::make_unique<Workspace>();
    QString error;
    QVERIFY2(m_workspace->open(m_dir->filePath(QStringLiteral("shardwise.sqlite")), &error), qPrintable(error));
    m_page = std::make_unique<RunsPage>(*m_workspace);
    m_page->resize(1400, 900);
    m_page->show();
}

void TestRunsPage::cleanup()
{
#ifdef SHARDWISE_HAVE_SSHD_FIXTURE
    m_sshd.reset();
#endif
    m_page.reset();
    m_workspace.reset();
    m_dir.reset();
}

qint64 TestRunsPage::waitForFinish(QSignalSpy& finished, QString* status, bool* diagnosed)
{
    [&] { QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0, kRunTimeoutMs); }();
    if (finished.isEmpty())
        return 0;
    const QList<QVariant> args = finished.takeFirst();
    if (status)
        *status = args.at(2).toString();
    if (diagnosed)
        *diagnosed = args.at(4).toBool();
    return args.at(1).toLongLong();
}

void TestRunsPage::localCpuRunCompletesLiveAndLandsInStore()
{
    RunRequestForm* form = m_page->requestForm();
    form->strategyBox()->setCurrentIndex(form->strategyBox()->findData(QStringLiteral("zero3")));
    form->ranksBox()->setValue(2);
    form->warmupBox()->setValue(1);
    form->stepsBox()->setValue(3);
    form->seqBox()->setValue(16);
    QVERIFY(form->queueButton()->isEnabled());

    QSignalSpy progress(m_page->job(), &RunJob::rankProgressAvailable);
    QSignalSpy logLines(m_page->job(), &RunJob::logLinesAvailable);
    QSignalSpy finished(m_page->job(), &RunJob::runFinished);
    QTest::mouseClick(form->queueButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->queueModel()->rowCount() == 1 || finished.count() > 0, 10'000);

    QString status;
    bool diagnosed = true;
    const qint64 runId = waitForFinish(finished, &status, &diagnosed);
    QVERIFY(runId > 0);
    QCOMPARE(status, QStringLiteral("completed"));
    QVERIFY(!diagnosed);
    QVERIFY2(progress.count() > 0, "per-rank progress reached the page while the run was going");
    QVERIFY2(logLines.count() > 0, "the ranks' log lines reached the page while the run was going");

    // On the page: both ranks finished every step with a throughput, the history row, no queue.
    QCOMPARE(m_page->shownRunId(), runId);
    RankProgressModel* ranks = m_page->rankModel();
    QCOMPARE(ranks->rowCount(), 2);
    for (int r = 0; r < 2; ++r) {
        QCOMPARE(ranks->index(r, RankProgressModel::StepsColumn).data().toString(), QStringLiteral("4 of 4"));
        QCOMPARE(ranks->index(r, RankProgressModel::StateColumn).data().toString(), QStringLiteral("Finished"));
        QVERIFY(
            ranks->index(r, RankProgressModel::TokensColumn).data().toString().contains(QStringLiteral("tokens/s")));
        QVERIFY(!ranks->index(r, RankProgressModel::MemoryColumn).data().toString().isEmpty());
    }
    QTRY_COMPARE(m_page->queueModel()->rowCount(), 0);
    QVERIFY(!m_page->cancelButton()->isEnabled());
    const int row = m_page->historyModel()->rowOf(runId);
    QVERIFY(row >= 0);
    QCOMPARE(m_page->historyModel()->index(row, RunHistoryModel::StatusColumn).data().toString(),
             QStringLiteral("Completed"));
    QVERIFY(!m_page->historyModel()->index(row, RunHistoryModel::TokensColumn).data().toString().isEmpty());
    QVERIFY(m_page->diagnosisPanel()->headline()->text().contains(QStringLiteral("completed")));
    // The log tail, read back from the store, holds both ranks' stderr lines.
    bool rank0Logged = false;
    bool rank1Logged = false;
    for (int line = 0; line < m_page->logModel()->rowCount(); ++line) {
        const int rank = m_page->logModel()->index(line).data(LogTailModel::RankRole).toInt();
        rank0Logged = rank0Logged || rank == 0;
        rank1Logged = rank1Logged || rank == 1;
    }
    QVERIFY(rank0Logged && rank1Logged);

    // In the store, as the Compare page will read it.
    const auto stored = store::findRun(*m_workspace->database(), runId);
    QVERIFY(stored);
    QCOMPARE(stored->status, store::RunStatus::Completed);
    QCOMPARE(stored->strategy, Strategy::Zero3);
    QCOMPARE(stored->worldSize, 2);
    QVERIFY(stored->tokensPerS && *stored->tokensPerS > 0);
    QVERIFY(stored->medianStepS && *stored->medianStepS > 0);
    QCOMPARE(store::stepSeries(*m_workspace->database(), runId).size(), std::size_t(8)); // 2 ranks x 4 steps
}

// The Backend choice on the form runs the PyTorch harness beside the runner on this machine; the
// history and the store say it was a torch run.
void TestRunsPage::localTorchRunCompletesAndSaysItsBackend()
{
    const auto harness = dispatch::locateRunner(RunBackend::Torch);
    if (!harness || !QFileInfo(QString::fromStdString(harness->string())).isExecutable())
        QSKIP("shardwise-torch-runner is not installed beside the runner in this build");
    bool torchImports = false;
    for (const QString& python : { QStringLiteral("python3"), QStringLiteral("/usr/bin/python3") }) {
        QProcess p;
        p.start(python, { QStringLiteral("-c"), QStringLiteral("import torch") });
        torchImports = torchImports
            || (p.waitForFinished(120000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0);
    }
    if (!torchImports)
        QSKIP("python3 cannot import torch here (Debian: python3-torch); the torch backend cannot run");
    RunRequestForm* form = m_page->requestForm();
    form->backendBox()->setCurrentIndex(form->backendBox()->findData(QStringLiteral("torch")));
    form->strategyBox()->setCurrentIndex(form->strategyBox()->findData(QStringLiteral("zero0")));
    form->ranksBox()->setValue(2);
    form->warmupBox()->setValue(1);
    form->stepsBox()->setValue(2);
    form->seqBox()->setValue(16);
    QSignalSpy finished(m_page->job(), &RunJob::runFinished);
    QTest::mouseClick(form->queueButton(), Qt::LeftButton);
    QString status;
    const qint64 runId = waitForFinish(finished, &status);
    QVERIFY(runId > 0);
    QCOMPARE(status, QStringLiteral("completed"));
    const int row = m_page->historyModel()->rowOf(runId);
    QVERIFY(row >= 0);
    QCOMPARE(m_page->historyModel()->index(row, RunHistoryModel::BackendColumn).data().toString(),
             QStringLiteral("torch"));
    const auto detail = store::runDetail(*m_workspace->database(), runId);
    QCOMPARE(detail->summary.backend, RunBackend::Torch);
    QCOMPARE(detail->versions.backend, std::string("torch"));
    QVERIFY(!detail->versions.torch.empty());
    QCOMPARE(detail->rankSummaries.size(), std::size_t(2));
}

void TestRunsPage::formRefusesCudaGraphsTheRunnerCannotCapture_data()
{
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<QString>("device");
    QTest::addColumn<int>("warmup");
    QTest::addColumn<QString>("refusal"); // empty: the form describes a valid graphed run
    QTest::newRow("zero2 on CUDA") << QStringLiteral("zero2") << QStringLiteral("cuda") << 3 << QString();
    QTest::newRow("offload on CUDA") << QStringLiteral("zero3_offload") << QStringLiteral("cuda") << 3
                                     << QStringLiteral("CUDA graphs cannot capture zero3_offload");
    QTest::newRow("zero2 on the CPU") << QStringLiteral("zero2") << QStringLiteral("cpu") << 3
                                      << QStringLiteral("CUDA graphs need device cuda");
    QTest::newRow("two warm-up steps") << QStringLiteral("zero2") << QStringLiteral("cuda") << 2
                                       << QStringLiteral("CUDA graphs need at least 3 warm-up steps");
}

void TestRunsPage::formRefusesCudaGraphsTheRunnerCannotCapture()
{
    QFETCH(QString, strategy);
    QFETCH(QString, device);
    QFETCH(int, warmup);
    QFETCH(QString, refusal);
    RunRequestForm* form = m_page->requestForm();
    form->strategyBox()->setCurrentIndex(form->strategyBox()->findData(strategy));
    form->deviceBox()->setCurrentIndex(form->deviceBox()->findData(device));
    form->warmupBox()->setValue(warmup);
    form->cudaGraphsBox()->setChecked(true);
    QString error;
    const std::optional<RunConfig> config = form->config(&error);
    if (refusal.isEmpty()) {
        QVERIFY2(config, qPrintable(error));
        QVERIFY(config->training.cudaGraphs);
        return;
    }
    QVERIFY(!config);
    QVERIFY2(error.contains(refusal), qPrintable(error));
    // Queueing it is refused on the page, before the runner sees it.
    QTest::mouseClick(form->queueButton(), Qt::LeftButton);
    QVERIFY2(m_page->statusLine()->text().contains(refusal), qPrintable(m_page->statusLine()->text()));
    QCOMPARE(m_page->queueModel()->rowCount(), 0);
}

void TestRunsPage::configRejectedByRunnerShowsDiagnosis()
{
    RunRequest request;
    request.config = tinyConfig(Strategy::Zero2, 2, 1, 2);
    // Valid for the planner, refused by the runner: it cannot read the token file.
    request.config.tokenFile = "/nonexistent/shardwise-tokens.bin";
    QSignalSpy finished(m_page->job(), &RunJob::runFinished);
    QVERIFY(m_page->queueRun(request) > 0);
    QString status;
    bool diagnosed = false;
    const qint64 runId = waitForFinish(finished, &status, &diagnosed);
    QVERIFY(runId > 0);
    QCOMPARE(status, QStringLiteral("failed"));
    QVERIFY(diagnosed);

    QCOMPARE(m_page->shownRunId(), runId);
    QCOMPARE(m_page->detailTabs()->currentWidget(), m_page->diagnosisPanel());
    RunDiagnosisPanel* panel = m_page->diagnosisPanel();
    RunFailureModel* failures = panel->failureModel();
    const int root = failures->rootCauseRow();
    QVERIFY(root >= 0);
    QCOMPARE(failures->failures()[root].kind, QStringLiteral("config"));
    QVERIFY(failures->index(root, 0).data(Qt::BackgroundRole).isValid());
    QCOMPARE(panel->failureView()->currentIndex().row(), root);
    QVERIFY2(panel->headline()->text().contains(QStringLiteral("--tokens")), qPrintable(panel->headline()->text()));
    QVERIFY(panel->headline()->text().startsWith(QStringLiteral("First failure on rank")));
    QVERIFY(!panel->evidenceView()->toPlainText().isEmpty());
    const bool suggestsConfigFix
        = std::any_of(panel->diagnosis().actions.begin(), panel->diagnosis().actions.end(),
                      [](const DiagnosisAction& a) { return a.kind == QLatin1String("fix_config"); });
    QVERIFY(suggestsConfigFix);
    QVERIFY2(panel->actionButtons().isEmpty(), "a config fix is advice, not a rerun the page can make");

    const auto stored = store::findRun(*m_workspace->database(), runId);
    QVERIFY(stored);
    QCOMPARE(stored->status, store::RunStatus::Failed);
    QVERIFY(QString::fromStdString(stored->note).contains(QStringLiteral("--tokens")));
    QCOMPARE(store::diagnoses(*m_workspace->database(), runId).size(), std::size_t(1));
}

void TestRunsPage::killedRankIsShownAsTheFirstFailure()
{
    RunRequest request;
    request.config = tinyConfig(Strategy::Zero1, 2, 1, 100'000);
    QSignalSpy finished(m_page->job(), &RunJob::runFinished);
    QVERIFY(m_page->queueRun(request) > 0);
    // Both ranks stepping: the rendezvous is done and the ring is live.
    QTRY_VERIFY_WITH_TIMEOUT(m_page->rankModel()->rowCount() == 2 && m_page->rankModel()->ranks()[0].stepsDone >= 2
                                 && m_page->rankModel()->ranks()[1].stepsDone >= 2,
                             kRunTimeoutMs);
    const pid_t rank1 = runnerRankPid(1);
    QVERIFY2(rank1 > 0, "rank 1's runner process was not found among this process's children");
    QCOMPARE(::kill(rank1, SIGKILL), 0);

    QString status;
    bool diagnosed = false;
    const qint64 runId = waitForFinish(finished, &status, &diagnosed);
    QVERIFY(runId > 0);
    QVERIFY2(status != QLatin1String("completed") && status != QLatin1String("cancelled"), qPrintable(status));
    QVERIFY(diagnosed);
    RunFailureModel* failures = m_page->diagnosisPanel()->failureModel();
    const int root = failures->rootCauseRow();
    QVERIFY(root >= 0);
    const DiagnosisFailure& first = failures->failures()[root];
    QCOMPARE(first.kind, QStringLiteral("lost_rank"));
    QVERIFY(first.rank);
    QCOMPARE(*first.rank, 1);
    QCOMPARE(failures->index(root, RunFailureModel::RankColumn).data().toString(), QStringLiteral("Rank 1"));
    QVERIFY(m_page->diagnosisPanel()->headline()->text().startsWith(QStringLiteral("First failure on rank 1")));
    // The status line names the diagnosed cause; the killed rank, which sent no error, shows failed.
    const QString line = m_page->statusLine()->text();
    QVERIFY2(line.contains(QStringLiteral("Run %1 ended as").arg(runId))
                 && line.contains(QStringLiteral("First failure on rank 1")),
             qPrintable(line));
    QCOMPARE(m_page->rankModel()->index(1, RankProgressModel::StateColumn).data().toString(), QStringLiteral("Failed"));
    QVERIFY(m_page->rankModel()
                ->index(1, RankProgressModel::StateColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .startsWith(QStringLiteral("Rank or node lost: ")));
}

void TestRunsPage::diagnosisActionQueuesRerunWithExpandableSegments()
{
    // A stored OOM run whose diagnosis (core/diagnose on the committed fragmentation case) suggests
    // a rerun with expandable segments; its configuration is a tiny CPU run so the rerun is real.
    store::Database& db = *m_workspace->database();
    const RunConfig config = tinyConfig(Strategy::Zero2, 1, 0, 2);
    qint64 oomRun = 0;
    {
        store::RunOrigin origin;
        origin.nodes.push_back({ "local", std::nullopt });
        origin.launcher = "shardwise";
        store::RunRecorder recorder(db, config, origin);
        protocol::ErrorEvent oom;
        oom.kind = protocol::ErrorKind::Oom;
        oom.message = "CUDA out of memory. Tried to allocate 2.00 GiB";
        recorder.record(oom);
        recorder.finish(store::RunStatus::Oom);
        oomRun = recorder.runId();
    }
    const diagnose::Diagnosis diagnosis = diagnose::diagnose(diagnose::loadRunFolder(
        std::filesystem::path(SHARDWISE_TEST_DATA_DIR) / "diagnose" / "oom_fragmentation_single_rank"));
    session::storeRunDiagnosis(db, oomRun, diagnosis);
    m_page->reloadHistory();
    const int row = m_page->historyModel()->rowOf(oomRun);
    QVERIFY(row >= 0);
    m_page->historyView()->setCurrentIndex(m_page->historyModel()->index(row, 0));
    QCOMPARE(m_page->shownRunId(), oomRun);

    RunDiagnosisPanel* panel = m_page->diagnosisPanel();
    QVERIFY(panel->headline()->text().contains(QStringLiteral("Out of memory")));
    QPushButton* rerun = nullptr;
    for (QPushButton* b : panel->actionButtons())
        if (b->objectName() == QLatin1String("diagnosisAction_rerun_with_expandable_segments"))
            rerun = b;
    QVERIFY(rerun);
    QCOMPARE(rerun->text(), QStringLiteral("Rerun with expandable segments"));

    QSignalSpy finished(m_page->job(), &RunJob::runFinished);
    QTest::mouseClick(rerun, Qt::LeftButton);
    QVERIFY(m_page->statusLine()->text().contains(QStringLiteral("Queued a rerun of run %1").arg(oomRun)));
    QString status;
    const qint64 rerunId = waitForFinish(finished, &status);
    QVERIFY(rerunId > oomRun);
    QCOMPARE(status, QStringLiteral("completed"));
    const auto detail = store::runDetail(db, rerunId);
    QVERIFY(detail);
    const RunConfig rerunConfig = runConfigFromJson(detail->config);
    QVERIFY(rerunConfig.training.expandableSegments);
    QCOMPARE(rerunConfig.strategy, config.strategy);
    QCOMPARE(rerunConfig.worldSize, config.worldSize);
}

void TestRunsPage::cancelRemovesQueuedRunAndStopsRunningOne()
{
    RunRequest longRun;
    longRun.config = tinyConfig(Strategy::Zero0, 1, 1, 100'000);
    RunRequest behind;
    behind.config = tinyConfig(Strategy::Zero1, 1, 1, 2);
    QSignalSpy started(m_page->job(), &RunJob::runStarted);
    QSignalSpy finished(m_page->job(), &RunJob::runFinished);
    QVERIFY(m_page->queueRun(longRun) > 0);
    QVERIFY(m_page->queueRun(behind) > 0);
    QTRY_VERIFY_WITH_TIMEOUT(m_page->rankModel()->rowCount() == 1 && m_page->rankModel()->ranks()[0].stepsDone >= 3,
                             kRunTimeoutMs);
    QCOMPARE(m_page->queueModel()->rowCount(), 2);
    // The running run is labelled running, with its elapsed time and time left from its step times;
    // the run behind it carries no prediction, so the queue's time left is unknown.
    QVERIFY(m_page->queueModel()
                ->index(0, RunQueueModel::StateColumn)
                .data()
                .toString()
                .startsWith(QStringLiteral("Running")));
    QTRY_VERIFY(
        m_page->queueModel()->index(0, RunQueueModel::ElapsedColumn).data().toString().endsWith(QStringLiteral(" s")));
    QTRY_VERIFY(m_page->queueModel()
                    ->index(0, RunQueueModel::EtaColumn)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("about ")));
    QCOMPARE(m_page->queueModel()->index(1, RunQueueModel::EtaColumn).data().toString(), QStringLiteral("unknown"));
    QVERIFY2(m_page->queueTotalLabel()->text().contains(QStringLiteral("time left unknown")),
             qPrintable(m_page->queueTotalLabel()->text()));
    QVERIFY(m_page->cancelButton()->isEnabled());

    // The queued run goes first, without ever starting.
    m_page->queueView()->setCurrentIndex(m_page->queueModel()->index(1, 0));
    QTest::mouseClick(m_page->cancelButton(), Qt::LeftButton);
    QTRY_COMPARE(m_page->queueModel()->rowCount(), 1);
    QVERIFY(m_page->queueModel()->index(0, 0).data(RunQueueModel::RunningRole).toBool());

    m_page->queueView()->setCurrentIndex(m_page->queueModel()->index(0, 0));
    QTest::mouseClick(m_page->cancelButton(), Qt::LeftButton);
    QString status;
    bool diagnosed = true;
    const qint64 runId = waitForFinish(finished, &status, &diagnosed);
    QCOMPARE(status, QStringLiteral("cancelled"));
    QVERIFY2(!diagnosed, "a cancelled run is not a failure to diagnose");
    QTRY_COMPARE(m_page->queueModel()->rowCount(), 0);
    QTest::qWait(500);
    QCOMPARE(started.count(), 1);
    QCOMPARE(finished.count(), 0);
    const auto stored = store::findRun(*m_workspace->database(), runId);
    QVERIFY(stored);
    QCOMPARE(stored->status, store::RunStatus::Cancelled);
    QCOMPARE(store::listRuns(*m_workspace->database()).size(), std::size_t(1));
    // Its rank, which never finished, says so.
    QCOMPARE(m_page->rankModel()->watchedRunId(), runId);
    QCOMPARE(m_page->rankModel()->index(0, RankProgressModel::StateColumn).data().toString(),
             QStringLiteral("Cancelled"));
    QCOMPARE(m_page->queueTotalLabel()->text(), QStringLiteral("The queue is empty."));
}

void TestRunsPage::quittingWhileARunGoesAsksFirst()
{
    MainWindow window(*m_workspace);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    RunJob* job = m_page->job();
    QVERIFY(quitConsequences(*job).isEmpty());

    RunRequest longRun;
    longRun.config = tinyConfig(Strategy::Zero0, 1, 1, 100'000);
    RunRequest behind;
    behind.config = tinyConfig(Strategy::Zero1, 1, 1, 2);
    QSignalSpy started(job, &RunJob::runStarted);
    QVERIFY(m_page->queueRun(longRun) > 0);
    QVERIFY(m_page->queueRun(behind) > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty(), kRunTimeoutMs);
    const qint64 runId = started.front().at(1).toLongLong();
    const QString said = quitConsequences(*job);
    QVERIFY2(said.contains(QStringLiteral("Run %1 on this machine is stopped and kept as cancelled.").arg(runId)),
             qPrintable(said));
    QVERIFY2(said.contains(QStringLiteral("Queued runs that will not start: 1.")), qPrintable(said));

    // Answers the quit question with the button whose text starts with `prefix`, once it is shown.
    QString shownText;
    const auto answer = [&shownText](const QString& prefix) {
        QTimer::singleShot(0, [&shownText, prefix] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            QVERIFY(box);
            QCOMPARE(box->objectName(), QStringLiteral("confirmQuit"));
            shownText = box->text();
            for (QAbstractButton* button : box->buttons())
                if (button->text().remove(QLatin1Char('&')).startsWith(prefix)) {
                    button->click();
                    return;
                }
            QFAIL("the quit question has no such button");
        });
    };
    answer(QStringLiteral("Keep"));
    QVERIFY(!window.close());
    QVERIFY(window.isVisible());
    QVERIFY(shownText.contains(QString::number(runId)));
    QVERIFY(job->running().has_value()); // the run goes on

    answer(QStringLiteral("Quit"));
    QVERIFY(window.close());
    QVERIFY(!window.isVisible());
}

void TestRunsPage::missingRunnerIsReportedWithItsPath()
{
    const QByteArray saved = qgetenv("SHARDWISE_RUNNER");
    const QString missing = m_dir->filePath(QStringLiteral("no-such-dir/shardwise-runner"));
    qputenv("SHARDWISE_RUNNER", missing.toLocal8Bit());
    QSignalSpy failed(m_page->job(), &RunJob::runFailed);
    RunRequest request;
    request.config = tinyConfig(Strategy::Zero0, 1, 0, 1);
    const qint64 ticket = m_page->queueRun(request);
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() > 0, 30'000);
    qputenv("SHARDWISE_RUNNER", saved);
    QVERIFY(ticket > 0);
    QCOMPARE(failed.first().at(0).toLongLong(), ticket);
    QVERIFY2(m_page->statusLine()->text().contains(missing), qPrintable(m_page->statusLine()->text()));
    QVERIFY(m_page->statusLine()->property("problem").toBool());
}

QString TestRunsPage::addLoopbackNode(bool prepared)
{
#ifndef SHARDWISE_HAVE_SSHD_FIXTURE
    Q_UNUSED(prepared)
    return {};
#else
    if (!testing::SshdFixture::unavailableReason().isEmpty())
        return {};
    m_sshd = std::make_unique<testing::SshdFixture>();
    if (!m_sshd->start().isEmpty())
        return {};
    m_sshd->trustHostKey();
    m_page->job()->setSshOptions(m_sshd->options());
    m_page->job()->setRemoteRunRoot(m_sshd->path(QStringLiteral("remote-runs")).toStdString());
    store::Node node;
    node.name = prepared ? "loopback" : "unprepared";
    node.kind = store::NodeKind::Ssh;
    node.host = "127.0.0.1";
    node.port = m_sshd->port();
    node.user = m_sshd->userName();
    node.auth = store::SshAuth::KeyFile;
    node.keyFile = m_sshd->keyCredentials().keyFile.string();
    if (prepared)
        node.facts = { { "prepared_runner", { { "path", qEnvironmentVariable("SHARDWISE_RUNNER").toStdString() } } } };
    store::addNode(*m_workspace->database(), node);
    m_workspace->notifyNodesChanged();
    return QString::fromStdString(node.name);
#endif
}

void TestRunsPage::sshNodesCanBeChosenAndUnpreparedOnesSaySo()
{
    const QString node = addLoopbackNode(false);
    if (node.isEmpty())
        QSKIP("no sshd fixture here (core/dispatch without SSH, or sshd missing)");
    RunRequestForm* form = m_page->requestForm();
    const int row = form->nodeBox()->findText(node);
    QVERIFY2(row >= 0, "the node added to the workspace reached the form");
    form->nodeBox()->setCurrentIndex(row);
    QCOMPARE(form->node(), node);
    QVERIFY(form->queueButton()->isEnabled());
    QSignalSpy failed(m_page->job(), &RunJob::runFailed);
    QSignalSpy started(m_page->job(), &RunJob::runStarted);
    QTest::mouseClick(form->queueButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() == 1, 30'000);
    QVERIFY2(failed.front().at(1).toString().contains(QStringLiteral("prepare it on the Nodes page")),
             qPrintable(failed.front().at(1).toString()));
    QVERIFY(started.isEmpty()); // nothing was measured, so nothing was recorded
    QCOMPARE(m_workspace->runs().size(), 0);
    QVERIFY(m_page->statusLine()->property("problem").toBool());
}

void TestRunsPage::cpuRunOnAnSshNodeCompletesLiveAndLandsInStore()
{
    const QString node = addLoopbackNode(true);
    if (node.isEmpty())
        QSKIP("no sshd fixture here (core/dispatch without SSH, or sshd missing)");
    RunRequest request;
    request.config = tinyConfig(Strategy::Zero2, 2, 1, 3);
    request.node = node;
    QSignalSpy progress(m_page->job(), &RunJob::rankProgressAvailable);
    QSignalSpy logLines(m_page->job(), &RunJob::logLinesAvailable);
    QSignalSpy finished(m_page->job(), &RunJob::runFinished);
    QSignalSpy failed(m_page->job(), &RunJob::runFailed);
    QVERIFY(m_page->queueRun(request) > 0);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0 || failed.count() > 0, kRunTimeoutMs);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().at(1).toString()));
    QString status;
    bool diagnosed = true;
    const qint64 runId = waitForFinish(finished, &status, &diagnosed);
    QCOMPARE(status, QStringLiteral("completed"));
    QVERIFY(!diagnosed);
    QVERIFY2(progress.count() > 0, "progress streamed from the node while the run was going");
    QVERIFY2(logLines.count() > 0, "the ranks' log lines streamed from the node");

    const auto detail = store::runDetail(*m_workspace->database(), runId);
    QVERIFY(detail);
    QCOMPARE(detail->summary.nodes, std::vector<std::string> { "loopback" });
    QCOMPARE(detail->rankSummaries.size(), std::size_t(2));
    for (int rank = 0; rank < 2; ++rank)
        QCOMPARE(store::stepSeries(*m_workspace->database(), runId, rank).size(), std::size_t(4));
    // The page shows the finished run from the store: both ranks through every step.
    QCOMPARE(m_page->shownRunId(), runId);
    QCOMPARE(m_page->rankModel()->rowCount(), 2);
    QTRY_VERIFY(m_page->historyModel()->rowOf(runId) >= 0);
}

void TestRunsPage::cancelStopsARunOnAnSshNode()
{
    const QString node = addLoopbackNode(true);
    if (node.isEmpty())
        QSKIP("no sshd fixture here (core/dispatch without SSH, or sshd missing)");
    RunRequest request;
    request.config = tinyConfig(Strategy::Zero1, 2, 1, 100000); // far longer than the test waits
    request.node = node;
    QSignalSpy progress(m_page->job(), &RunJob::rankProgressAvailable);
    QSignalSpy finished(m_page->job(), &RunJob::runFinished);
    const qint64 ticket = m_page->queueRun(request);
    QVERIFY(ticket > 0);
    // Cancel once both ranks are stepping on the node.
    QTRY_VERIFY_WITH_TIMEOUT(
        !progress.isEmpty() &&
            [&] {
                const auto ranks = progress.last().at(1).value<QList<RankProgress>>();
                return ranks.size() == 2 && ranks[0].stepsDone > 0 && ranks[1].stepsDone > 0;
            }(),
        kRunTimeoutMs);
    QElapsedTimer clock;
    clock.start();
    QTest::mouseClick(m_page->cancelButton(), Qt::LeftButton);
    QString status;
    const qint64 runId = waitForFinish(finished, &status);
    QCOMPARE(status, QStringLiteral("cancelled"));
    QVERIFY2(clock.elapsed() < 60'000, qPrintable(QString::number(clock.elapsed())));
    QCOMPARE(QString::fromStdString(
                 std::string(store::runStatusId(store::findRun(*m_workspace->database(), runId)->status))),
             QStringLiteral("cancelled"));
#ifdef SHARDWISE_HAVE_SSHD_FIXTURE
    // No rank of the run is left on the node: every pid the ranks recorded in the run folder is gone.
    const QDir runs(m_sshd->path(QStringLiteral("remote-runs")));
    const QStringList folders = runs.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QCOMPARE(folders.size(), 1);
    const QDir folder(runs.filePath(folders.front()));
    const QStringList pidFiles = folder.entryList({ QStringLiteral("rank*.pid") });
    QCOMPARE(pidFiles.size(), 2);
    for (const QString& name : pidFiles) {
        QFile file(folder.filePath(name));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const pid_t pid = file.readAll().trimmed().toInt();
        QVERIFY(pid > 0);
        QVERIFY2(::kill(pid, 0) != 0, qPrintable(QStringLiteral("rank process %1 still runs").arg(pid)));
    }
#endif
}

void TestRunsPage::validateFromThePlanPageQueuesIntoThisQueue()
{
    PlanPage plan(*m_workspace);
    QSignalSpy planned(&plan, &PlanPage::planUpdated);
    QVERIFY(planned.wait(10000));
    // The example that validates on this machine's CPU (the Plan page opens on a 7B model on 8 x H100).
    plan.form()->setState(Workspace::examplePlan(QStringLiteral("try-it-here")).form);
    QVERIFY(planned.wait(10000));
    const auto matrix = plan.currentPlan().runMatrix.size();
    QVERIFY(matrix > 0);
    QCOMPARE(plan.runQueue(), m_page->job()); // one queue for the whole app

    plan.setValidationNode(QStringLiteral("local"));
    plan.setValidationSteps(1, 2);
    QSignalSpy validated(&plan, &PlanPage::validationFinished);
    QSignalSpy runs(&plan, &PlanPage::validationRunFinished);
    QSignalSpy started(m_page->job(), &RunJob::runStarted);
    plan.validate();
    // The Runs page lists the validation runs in its queue (the first may already be running).
    QCOMPARE(m_page->queueModel()->rowCount(), static_cast<int>(matrix));
    for (int row = 0; row < m_page->queueModel()->rowCount(); ++row)
        QCOMPARE(m_page->queueModel()->index(row, RunQueueModel::NodeColumn).data().toString(),
                 QStringLiteral("local"));

    QVERIFY(validated.wait(kRunTimeoutMs * 2));
    QCOMPARE(validated.front().at(0).toBool(), false);
    QCOMPARE(runs.size(), matrix);
    for (const QList<QVariant>& r : runs)
        QVERIFY2(r.at(1).toString() == QLatin1String("completed"), qPrintable(r.at(2).toString()));
    // The Runs page showed each run as it started and keeps them in its history.
    QCOMPARE(started.size(), matrix);
    for (const QList<QVariant>& s : started)
        QVERIFY(m_page->historyModel()->rowOf(s.at(1).toLongLong()) >= 0);
    QTRY_COMPARE(m_page->queueModel()->rowCount(), 0);
}

SHARDWISE_GUI_TEST_MAIN(TestRunsPage)
#include "test_runs_page.moc"
