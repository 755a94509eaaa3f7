// The Plan page's pinned and saved plans driven offscreen like a user: "Pin this plan" twice with a
// changed form puts two columns side by side with exactly the changed rows highlighted; unpin and
// "Open in form"; a plan saved under a name lands in the workspace's store, a taken name is refused
// naming it, and a saved plan is pinned, opened and deleted again, also from a new page.
#include "gui_test_main.hpp"

#include "models/display_format.hpp"
#include "pages/plan/pinned_plans_panel.hpp"
#include "pages/plan/plan_form.hpp"
#include "pages/plan/plan_page.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/plan/sweep.hpp"
#include "shardwise/store/saved_plans.hpp"

#include <QComboBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabBar>
#include <QTableWidget>
#include <QTemporaryDir>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

QJsonObject form7b()
{
    return QJsonObject { { QStringLiteral("model"), QStringLiteral("qwen2.5-7b") },
                         { QStringLiteral("gpu"), QStringLiteral("h100-80gb") },
                         { QStringLiteral("gpus_per_node"), 8 },
                         { QStringLiteral("nodes"), 1 },
                         { QStringLiteral("interconnect"), QStringLiteral("nvlink") },
                         { QStringLiteral("precision"), QStringLiteral("bf16") },
                         { QStringLiteral("framework"), QStringLiteral("native") },
                         { QStringLiteral("micro_batch"), 1 },
                         { QStringLiteral("seq_len"), 2048 },
                         { QStringLiteral("expandable_segments"), false },
                         { QStringLiteral("activation_checkpointing"), false } };
}

template <typename T> T* child(QWidget& parent, const char* name)
{
    return parent.findChild<T*>(QLatin1String(name));
}

int rowOf(const QTableWidget& table, const QString& label)
{
    for (int r = 0; r < table.rowCount(); ++r)
        if (table.verticalHeaderItem(r) && table.verticalHeaderItem(r)->text() == label)
            return r;
    return -1;
}

} // namespace

class TestPlanPinned : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    Workspace m_workspace;
    std::unique_ptr<PlanPage> m_page;

    PinnedPlansPanel& panel() { return *m_page->pinnedPlans(); }

    // Sets the form and waits for the page to take it (after the form's pause it plans the state and
    // keeps it in the settings), so "Pin this plan" pins this form and not the one before.
    void setForm(const QJsonObject& form)
    {
        m_page->form()->setState(form);
        const QByteArray state = QJsonDocument(m_page->form()->state()).toJson(QJsonDocument::Compact);
        QTRY_COMPARE(QSettings().value(QStringLiteral("plan/form")).toByteArray(), state);
        QVERIFY2(m_page->errorText().isEmpty(), qPrintable(m_page->errorText()));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QString error;
        QVERIFY2(m_workspace.open(m_dir.filePath(QStringLiteral("pinned.sqlite")), &error), qPrintable(error));
    }

    void init()
    {
        QSettings().clear();
        m_page = std::make_unique<PlanPage>(m_workspace);
        m_page->resize(1200, 900);
        m_page->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
        auto* tabs = child<QTabBar>(*m_page, "planFigureTabs");
        QVERIFY(tabs);
        QCOMPARE(tabs->tabText(2), QStringLiteral("Pinned plans"));
        tabs->setCurrentIndex(2);
        QVERIFY(panel().isVisible());
        setForm(form7b());
    }

    void cleanup() { m_page.reset(); }

    // Two plans side by side: the rows the second changed (and the figures they move) are highlighted,
    // the rows it kept are not.
    void pinnedPlansShowTheirDifferences()
    {
        QTest::mouseClick(child<QPushButton>(*m_page, "pinPlanButton"), Qt::LeftButton);
        QCOMPARE(panel().pinnedCount(), 1);
        QVERIFY(panel().differingFields().isEmpty()); // one plan differs from nothing

        QJsonObject longer = form7b();
        longer[QStringLiteral("seq_len")] = 8192;
        longer[QStringLiteral("micro_batch")] = 2;
        setForm(longer);
        QTest::mouseClick(child<QPushButton>(*m_page, "pinPlanButton"), Qt::LeftButton);
        QCOMPARE(panel().pinnedCount(), 2);

        const QTableWidget& table = *panel().table();
        QCOMPARE(table.columnCount(), 2);
        QCOMPARE(table.horizontalHeaderItem(0)->text(), QStringLiteral("Plan 1"));
        QCOMPARE(table.horizontalHeaderItem(1)->text(), QStringLiteral("Plan 2"));
        const QStringList differing = panel().differingFields();
        QVERIFY2(differing.contains(QStringLiteral("Sequence")) && differing.contains(QStringLiteral("Micro-batch"))
                     && differing.contains(QStringLiteral("Peak per GPU")),
                 qPrintable(differing.join(QLatin1Char(','))));
        for (const char* same : { "Model", "GPU", "GPUs per node", "Nodes", "Precision", "Framework" })
            QVERIFY2(!differing.contains(QLatin1String(same)), same);

        const int seqRow = rowOf(table, QStringLiteral("Sequence"));
        const int modelRow = rowOf(table, QStringLiteral("Model"));
        QVERIFY(seqRow >= 0 && modelRow >= 0);
        QCOMPARE(table.item(seqRow, 0)->text(), QStringLiteral("2048"));
        QCOMPARE(table.item(seqRow, 1)->text(), QStringLiteral("8192"));
        for (int c = 0; c < 2; ++c) {
            QVERIFY(table.item(seqRow, c)->data(PinnedPlansPanel::DiffersRole).toBool());
            QVERIFY(table.item(seqRow, c)->font().bold());
            QVERIFY(!table.item(modelRow, c)->data(PinnedPlansPanel::DiffersRole).toBool());
            QVERIFY(!table.item(modelRow, c)->font().bold());
        }
        // The figures are the plan's, with the one peak definition.
        const SweepPoint now = runSweep(m_page->form()->input(), {}).points.front();
        QCOMPARE(table.item(rowOf(table, QStringLiteral("Peak per GPU")), 1)
                     ->text()
                     .left(formatGiB(now.peakBytes / kGiB).size()),
                 formatGiB(now.peakBytes / kGiB));
        QCOMPARE(table.item(rowOf(table, QStringLiteral("Predicted")), 1)->text(), formatTokensPerS(now.tokensPerS));

        // A third plan like the first: still the same rows differ.
        setForm(form7b());
        panel().pinCurrent(QStringLiteral("again"));
        QCOMPARE(table.columnCount(), 3);
        QCOMPARE(table.horizontalHeaderItem(2)->text(), QStringLiteral("again"));
        QCOMPARE(panel().differingFields(), differing);
    }

    void unpinAndOpenInForm()
    {
        panel().pinCurrent();
        QJsonObject longer = form7b();
        longer[QStringLiteral("seq_len")] = 4096;
        setForm(longer);
        panel().pinCurrent();
        QCOMPARE(panel().pinnedCount(), 2);

        // "Open in form" on the first column brings its settings back.
        panel().table()->selectColumn(0);
        QSignalSpy replanned(m_page.get(), &PlanPage::planUpdated);
        QTest::mouseClick(child<QPushButton>(*m_page, "openPinnedButton"), Qt::LeftButton);
        QVERIFY(replanned.wait(10000));
        QCOMPARE(m_page->form()->input().training.seqLen, 2048);

        panel().table()->selectColumn(0);
        QTest::mouseClick(child<QPushButton>(*m_page, "unpinPlanButton"), Qt::LeftButton);
        QCOMPARE(panel().pinnedCount(), 1);
        QCOMPARE(panel().pinnedForm(0).value(QStringLiteral("seq_len")).toInt(), 4096);
        QVERIFY(panel().differingFields().isEmpty());
        QTest::mouseClick(child<QPushButton>(*m_page, "clearPinsButton"), Qt::LeftButton);
        QCOMPARE(panel().pinnedCount(), 0);
        QCOMPARE(panel().table()->columnCount(), 0);
    }

    // A form that describes no plan cannot be pinned or saved.
    void nothingToPinWhileTheFormIsInvalid()
    {
        child<QSpinBox>(*m_page, "seqLenSpin")->setValue(0);
        QTRY_VERIFY(!m_page->errorText().isEmpty());
        QVERIFY(!child<QPushButton>(*m_page, "pinPlanButton")->isEnabled());
        QVERIFY(!child<QPushButton>(*m_page, "savePlanButton")->isEnabled());
        QVERIFY(!panel().pinCurrent());
    }

    void savedPlansLiveInTheStore()
    {
        auto* name = child<QLineEdit>(*m_page, "savePlanName");
        QTest::keyClicks(name, QStringLiteral("7B on one node"));
        QTest::mouseClick(child<QPushButton>(*m_page, "savePlanButton"), Qt::LeftButton);
        QVERIFY2(panel().messageText().contains(QStringLiteral("Saved as 7B on one node")),
                 qPrintable(panel().messageText()));
        const auto stored = store::findSavedPlan(*m_workspace.database(), "7B on one node");
        QVERIFY(stored);
        QCOMPARE(stored->plan.modelId, std::string("qwen2.5-7b"));
        QCOMPARE(stored->plan.worldSize, 8);
        QCOMPARE(stored->input.at("seq_len").get<int>(), 2048);
        QCOMPARE(stored->plan.recommended, makePlan(m_page->form()->input()).recommendation.strategy);

        // The same name again is refused, naming it; replacing is explicit.
        QTest::mouseClick(child<QPushButton>(*m_page, "savePlanButton"), Qt::LeftButton);
        QVERIFY2(panel().messageText().contains(QStringLiteral("'7B on one node' is taken")),
                 qPrintable(panel().messageText()));
        QJsonObject longer = form7b();
        longer[QStringLiteral("seq_len")] = 4096;
        setForm(longer);
        QString error;
        QVERIFY2(panel().saveCurrent(QStringLiteral("7B at 4096"), false, &error), qPrintable(error));
        QCOMPARE(panel().savedNames(),
                 (QStringList { QStringLiteral("7B at 4096"), QStringLiteral("7B on one node") }));

        // Pinned from the store: re-planned from its saved form, named by its name.
        QVERIFY2(panel().pinSaved(QStringLiteral("7B on one node"), &error), qPrintable(error));
        panel().pinCurrent();
        QCOMPARE(panel().pinnedName(0), QStringLiteral("7B on one node"));
        QCOMPARE(panel().differingFields().contains(QStringLiteral("Sequence")), true);
        QVERIFY(!panel().pinSaved(QStringLiteral("no such plan"), &error));
        QVERIFY(error.contains(QStringLiteral("no such plan")));

        // Opened in the form.
        auto* saved = child<QComboBox>(*m_page, "savedPlansCombo");
        saved->setCurrentIndex(saved->findText(QStringLiteral("7B on one node")));
        QSignalSpy replanned(m_page.get(), &PlanPage::planUpdated);
        QTest::mouseClick(child<QPushButton>(*m_page, "openSavedButton"), Qt::LeftButton);
        QVERIFY(replanned.wait(10000));
        QCOMPARE(m_page->form()->input().training.seqLen, 2048);

        // A new page on the same workspace lists them: they are in the store, not in the page.
        {
            PlanPage other(m_workspace);
            QCOMPARE(other.pinnedPlans()->savedNames().size(), 2);
        }
        saved->setCurrentIndex(saved->findText(QStringLiteral("7B at 4096")));
        QTest::mouseClick(child<QPushButton>(*m_page, "removeSavedButton"), Qt::LeftButton);
        QCOMPARE(panel().savedNames(), QStringList { QStringLiteral("7B on one node") });
        QVERIFY(!store::findSavedPlan(*m_workspace.database(), "7B at 4096"));
        QVERIFY(panel().removeSaved(QStringLiteral("7B on one node")));
        QVERIFY(panel().savedNames().isEmpty());
    }
};

SHARDWISE_GUI_TEST_MAIN(TestPlanPinned)
#include "test_plan_pinned.moc"
