// A new user's first start: an empty settings folder and a new workspace, as the app opens it. The
// Compare page holds the example runs shipped with Shardwise with measured and predicted values, the
// Plan page opens on a real model on real GPUs, F1 shows the user guide in the app, File > Open
// example opens the Reference plan, and the example runs cannot be removed (a run of the user's own,
// imported through the workspace, can).
#include "gui_test_main.hpp"

#include "models/run_table_model.hpp"
#include "pages/compare/compare_page.hpp"
#include "pages/compare/run_origin_bar.hpp"
#include "pages/plan/plan_form.hpp"
#include "pages/plan/plan_page.hpp"
#include "shell/help_viewer.hpp"
#include "shell/main_window.hpp"
#include "shell/page_catalog.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/published/examples.hpp"
#include "shardwise/store/runs.hpp"

#include <QAction>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>

#include <chrono>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

int shippedExampleRuns()
{
    int n = 0;
    for (const auto& set : published::loadExampleSets(published::defaultExamplesDirectory()))
        n += static_cast<int>(set.files.size());
    return n;
}

// Opens a new workspace the way the app's startup does, then waits for the example runs it stores
// off the GUI thread.
bool openAsTheApp(Workspace& workspace, const QTemporaryDir& dir, QString* error)
{
    workspace.setSeedsExampleRuns(true);
    const bool opened = workspace.open(dir.filePath(QStringLiteral("shardwise.sqlite")), error);
    workspace.waitForExampleRuns();
    return opened;
}

} // namespace

class TestFirstStart : public QObject {
    Q_OBJECT

private slots:
    void init() { QSettings().clear(); }

    void compareShowsTheExampleRunsMeasuredAndPredicted()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(openAsTheApp(workspace, dir, &error), qPrintable(error));
        QVERIFY2(workspace.exampleRunsError().isEmpty(), qPrintable(workspace.exampleRunsError()));
        MainWindow window(workspace);
        auto* compare = qobject_cast<ComparePage*>(window.pageById(QStringLiteral("compare")));
        QVERIFY(compare);
        const int expected = shippedExampleRuns();
        QVERIFY(expected >= 20);
        QCOMPARE(compare->runModel()->rowCount(), expected);
        QTRY_VERIFY_WITH_TIMEOUT(!compare->predictionsPending(), 120000);

        int completed = 0;
        int oom = 0;
        for (const RunRecord& r : compare->runModel()->runs()) {
            QVERIFY(r.readOnly);
            QCOMPARE(r.origin, QStringLiteral("example"));
            QCOMPARE(r.node, QStringLiteral("example"));
            QVERIFY2(r.predictedTokensPerS && r.predictedPeakGiB, qPrintable(r.model));
            const RunPrediction* p = compare->runModel()->predictionFor(r.id);
            QVERIFY2(p, qPrintable(QStringLiteral("run %1 has no prediction on the Compare page").arg(r.id)));
            QVERIFY(p->presets.tokensPerS > 0 && p->presets.peakGiB > 0);
            if (r.outcome == RunOutcome::Completed) {
                ++completed;
                QVERIFY(r.tokensPerS > 0 && r.peakAllocatedGiB > 0);
                QVERIFY(p->presets.tokensError.has_value());
                QVERIFY(p->presets.peakError.has_value());
                QVERIFY2(!p->presets.verdictWrong, qPrintable(r.model));
            } else if (r.outcome == RunOutcome::OutOfMemory) {
                ++oom;
                QVERIFY(!p->presets.fits); // predicted and measured out of memory
            }
        }
        QVERIFY(completed >= 20);
        QVERIFY(oom >= 1);
        // The page says what these runs are and that they are read-only.
        auto* bar = compare->findChild<RunOriginBar*>();
        QVERIFY(bar);
        QVERIFY2(bar->originLine()->text().contains(QStringLiteral("read-only")),
                 qPrintable(bar->originLine()->text()));
        // A second start of the same workspace adds nothing.
        Workspace again;
        again.setSeedsExampleRuns(true);
        QVERIFY(again.open(workspace.databasePath(), &error));
        QCOMPARE(again.runs().size(), expected);
    }

    // The first start stores the example runs off the GUI thread: with the examples' manifest a FIFO
    // that a writer fills only seconds later, open() returns at once with the import under way, the
    // event loop runs meanwhile, and the runs arrive with exampleRunsImported().
    void exampleRunsAreImportedOffTheGuiThread()
    {
        QTemporaryDir examples;
        const std::filesystem::path shipped = published::defaultExamplesDirectory();
        QFile manifestFile(QString::fromStdString((shipped / "examples.json").string()));
        QVERIFY(manifestFile.open(QIODevice::ReadOnly));
        const QByteArray manifest = manifestFile.readAll();
        QVERIFY(QFile::link(QString::fromStdString((shipped / "examples.jsonl").string()),
                            examples.filePath(QStringLiteral("examples.jsonl"))));
        const QByteArray fifo = examples.filePath(QStringLiteral("examples.json")).toLocal8Bit();
        QCOMPARE(::mkfifo(fifo.constData(), 0600), 0);
        // The manifest is written 4 s from now, once a reader holds the FIFO (for at most a minute).
        std::thread writer([fifo, manifest] {
            std::this_thread::sleep_for(std::chrono::seconds(4));
            for (int tries = 0; tries < 560; ++tries) {
                const int fd = ::open(fifo.constData(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
                if (fd < 0) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(100));
                    continue;
                }
                ::fcntl(fd, F_SETFL, 0);
                qint64 written = 0;
                while (written < manifest.size()) {
                    const ssize_t n = ::write(fd, manifest.constData() + written,
                                              static_cast<std::size_t>(manifest.size() - written));
                    if (n <= 0)
                        break;
                    written += n;
                }
                ::close(fd);
                return;
            }
        });
        QTemporaryDir dir;
        Workspace workspace;
        workspace.setSeedsExampleRuns(true, examples.path());
        QSignalSpy imported(&workspace, &Workspace::exampleRunsImported);
        QElapsedTimer opening;
        opening.start();
        QString error;
        const bool opened = workspace.open(dir.filePath(QStringLiteral("shardwise.sqlite")), &error);
        const qint64 openMs = opening.elapsed();
        const bool importing = workspace.importingExampleRuns();
        const bool signalled = imported.wait(120000);
        writer.join();
        QVERIFY2(opened, qPrintable(error));
        QVERIFY2(openMs < 3000, qPrintable(QStringLiteral("open() took %1 ms").arg(openMs)));
        QVERIFY(importing);
        QVERIFY(signalled);
        QCOMPARE(imported.count(), 1);
        QVERIFY(!workspace.importingExampleRuns());
        QVERIFY2(workspace.exampleRunsError().isEmpty(), qPrintable(workspace.exampleRunsError()));
        QCOMPARE(workspace.runs().size(), shippedExampleRuns());
    }

    void exampleRunsKeepTheTimeTheyRan()
    {
        // Each example's start event says when it ran: the runs are stamped with that, not with the
        // moment the workspace imported them.
        QSet<qint64> startTimes;
        QFile events(QString::fromStdString((published::defaultExamplesDirectory() / "examples.jsonl").string()));
        QVERIFY(events.open(QIODevice::ReadOnly));
        while (!events.atEnd()) {
            const QJsonObject event
                = QJsonDocument::fromJson(events.readLine()).object().value(QStringLiteral("event")).toObject();
            if (event.value(QStringLiteral("event")).toString() == QLatin1String("start"))
                startTimes.insert(static_cast<qint64>(event.value(QStringLiteral("time")).toDouble() * 1000.0));
        }
        QVERIFY(!startTimes.isEmpty());
        const QDateTime beforeImport = QDateTime::currentDateTimeUtc();
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(openAsTheApp(workspace, dir, &error), qPrintable(error));
        QSet<qint64> stamped;
        for (const RunRecord& r : workspace.runs()) {
            QVERIFY2(r.started < beforeImport.addSecs(-60), qPrintable(r.started.toString(Qt::ISODate)));
            // Within a millisecond of one of the shipped start events.
            const qint64 ms = r.started.toMSecsSinceEpoch();
            QVERIFY2(startTimes.contains(ms) || startTimes.contains(ms - 1) || startTimes.contains(ms + 1),
                     qPrintable(r.started.toString(Qt::ISODateWithMs)));
            stamped.insert(ms);
        }
        QCOMPARE(stamped.size(), static_cast<qsizetype>(workspace.runs().size())); // every run its own time
    }

    void planOpensOnARealModelOnRealGpus()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(openAsTheApp(workspace, dir, &error), qPrintable(error));
        MainWindow window(workspace);
        auto* plan = qobject_cast<PlanPage*>(window.pageById(QStringLiteral("plan")));
        QVERIFY(plan);
        const QJsonObject state = plan->form()->state();
        QCOMPARE(state.value(QStringLiteral("model")).toString(), QStringLiteral("qwen2.5-7b"));
        QCOMPARE(state.value(QStringLiteral("gpu")).toString(), QStringLiteral("h100-80gb"));
        QCOMPARE(state.value(QStringLiteral("gpus_per_node")).toInt(), 8);
        QTRY_VERIFY_WITH_TIMEOUT(plan->currentPlan().hasRecommendation, 20000);
        QVERIFY(!plan->recommendationText().isEmpty());
    }

    void f1OpensTheUserGuideInTheApp()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(openAsTheApp(workspace, dir, &error), qPrintable(error));
        MainWindow window(workspace);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.activateWindow();
        QVERIFY(!window.helpViewer());
        QTest::keyClick(&window, Qt::Key_F1);
        QTRY_VERIFY(window.helpViewer() && window.helpViewer()->isVisible());
        auto* viewer = qobject_cast<HelpViewer*>(window.helpViewer());
        QVERIFY(viewer);
        const QString text = viewer->browser()->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("Shardwise user guide")), qPrintable(text.left(200)));
        // Every page of the app has its section in the guide.
        for (const PageDescriptor& page : pageCatalog())
            QVERIFY2(HelpViewer::guideMarkdown().contains(QStringLiteral("\n## %1").arg(QLatin1String(page.title))),
                     page.title);
        QVERIFY(!HelpViewer::guideMarkdown().contains(QStringLiteral("example.com")));
        // Every link to another doc opens it in the viewer, and Back returns to the guide.
        static const QRegularExpression docLink(QStringLiteral("\\]\\(([a-z0-9-]+\\.md)(#[^)]*)?\\)"));
        QSet<QString> linked;
        for (auto m = docLink.globalMatch(HelpViewer::guideMarkdown()); m.hasNext();)
            linked.insert(m.next().captured(1));
        QVERIFY(linked.size() >= 5);
        auto* back = viewer->findChild<QPushButton*>(QStringLiteral("guideBackButton"));
        QVERIFY(back);
        for (const QString& doc : linked) {
            emit viewer->browser()->anchorClicked(QUrl(doc));
            QVERIFY2(viewer->browser()->source().path().endsWith(doc),
                     qPrintable(viewer->browser()->source().toString()));
            QVERIFY2(viewer->browser()->toPlainText().size() > 500
                         && !viewer->browser()->toPlainText().contains(QStringLiteral("Shardwise user guide")),
                     qPrintable(doc + QStringLiteral(": ") + viewer->browser()->toPlainText().left(200)));
            QVERIFY(back->isEnabled());
            QTest::mouseClick(back, Qt::LeftButton);
            QVERIFY(viewer->browser()->toPlainText().contains(QStringLiteral("Shardwise user guide")));
        }
    }

    void theReferenceExampleOpensFromTheFileMenu()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(openAsTheApp(workspace, dir, &error), qPrintable(error));
        MainWindow window(workspace);
        auto* menu = window.findChild<QMenu*>(QStringLiteral("examplesMenu"));
        QVERIFY(menu);
        QAction* reference = nullptr;
        for (QAction* a : menu->actions())
            if (a->data().toString() == QLatin1String("reference"))
                reference = a;
        QVERIFY(reference);
        QVERIFY(reference->text().startsWith(QStringLiteral("Reference")));
        window.showPageById(QStringLiteral("compare"));
        reference->trigger();
        QCOMPARE(window.pageId(window.currentPageIndex()), QStringLiteral("plan"));
        auto* plan = qobject_cast<PlanPage*>(window.pageById(QStringLiteral("plan")));
        QCOMPARE(plan->form()->state().value(QStringLiteral("model")).toString(), QStringLiteral("qwen2.5-3b"));
        QCOMPARE(plan->form()->state().value(QStringLiteral("gpu")).toString(), QStringLiteral("l4"));
    }

    void exampleRunsCannotBeRemovedOwnRunsCan()
    {
        QTemporaryDir dir;
        Workspace workspace;
        QString error;
        QVERIFY2(openAsTheApp(workspace, dir, &error), qPrintable(error));
        const qint64 example = workspace.runs().front().id;

        // The store and the workspace refuse, naming why; the run stays.
        QVERIFY(!workspace.removeRun(example, &error));
        QVERIFY2(error.contains(QStringLiteral("read-only")), qPrintable(error));
        QVERIFY(workspace.run(example).has_value());
        QVERIFY_THROWS_EXCEPTION(store::StoreError, published::removeUserRun(*workspace.database(), example));

        // On the Compare page the button is disabled for it, with the reason.
        ComparePage compare(workspace);
        auto* bar = compare.findChild<RunOriginBar*>();
        auto* table = compare.findChild<QTableView*>(QStringLiteral("runTable"));
        QVERIFY(bar && table);
        table->setCurrentIndex(table->model()->index(0, 0));
        QVERIFY(bar->selectedRunId() != 0);
        QVERIFY(!bar->removeButton()->isEnabled());
        QVERIFY2(bar->removeButton()->toolTip().contains(QStringLiteral("read-only")),
                 qPrintable(bar->removeButton()->toolTip()));

        // A run of the user's own, imported (File > Import runs...), can be removed.
        const QString file = dir.filePath(QStringLiteral("mine.json"));
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(R"({"format": "shardwise-runs", "version": 1, "runs": [{"model": "qwen2.5-3b", "strategy": "zero2",
                    "world_size": 4, "status": "completed", "gpu_id": "l4", "tokens_per_s": 5000}]})");
        out.close();
        QString message;
        QVERIFY2(workspace.importRuns(file, &message), qPrintable(message));
        const qint64 mine = workspace.runs().front().id;
        QVERIFY(mine != example);
        QVERIFY(!workspace.run(mine)->readOnly);
        const int before = static_cast<int>(workspace.runs().size());
        QVERIFY2(workspace.removeRun(mine, &error), qPrintable(error));
        QCOMPARE(static_cast<int>(workspace.runs().size()), before - 1);
    }
};

SHARDWISE_GUI_TEST_MAIN(TestFirstStart)
#include "test_first_start.moc"
