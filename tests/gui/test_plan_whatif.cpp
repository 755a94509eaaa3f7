// The Plan page's what-if grid driven offscreen like a user: every cell against core/plan's sweep and a
// single plan at its input, re-planned after a pause as the form changes (not while the tab is
// hidden), bad axis values named, the metric switched without planning again.
#include "gui_test_main.hpp"

#include "models/display_format.hpp"
#include "pages/plan/plan_form.hpp"
#include "pages/plan/plan_page.hpp"
#include "pages/plan/what_if_panel.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/plan/sweep.hpp"

#include <QComboBox>
#include <QJsonObject>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabBar>
#include <QTableWidget>
#include <QTemporaryDir>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

// 32B on one H100 80GB node: some cells of the default grid fit, some do not.
QJsonObject form32b()
{
    return QJsonObject { { QStringLiteral("model"), QStringLiteral("qwen2.5-32b") },
                         { QStringLiteral("gpu"), QStringLiteral("h100-80gb") },
                         { QStringLiteral("gpus_per_node"), 8 },
                         { QStringLiteral("nodes"), 1 },
                         { QStringLiteral("interconnect"), QStringLiteral("nvlink") },
                         { QStringLiteral("precision"), QStringLiteral("bf16") },
                         { QStringLiteral("framework"), QStringLiteral("native") },
                         { QStringLiteral("micro_batch"), 2 },
                         { QStringLiteral("seq_len"), 2048 },
                         { QStringLiteral("expandable_segments"), false },
                         { QStringLiteral("activation_checkpointing"), false } };
}

template <typename T> T* child(QWidget& parent, const char* name)
{
    return parent.findChild<T*>(QLatin1String(name));
}

} // namespace

class TestPlanWhatIf : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    Workspace m_workspace;
    std::unique_ptr<PlanPage> m_page;

    WhatIfPanel& panel() { return *m_page->whatIf(); }

    // Whether the grid is the sweep of the form's current input over the panel's axes.
    bool showsTheForm()
    {
        const SweepResult& shown = panel().sweep();
        if (shown.points.empty())
            return false;
        const SweepResult expected = runSweep(m_page->form()->input(), shown.axes);
        if (expected.points.size() != shown.points.size())
            return false;
        for (std::size_t i = 0; i < expected.points.size(); ++i)
            if (expected.points[i].peakBytes != shown.points[i].peakBytes
                || expected.points[i].recommended != shown.points[i].recommended)
                return false;
        return true;
    }

    // The page shown with the what-if tab in front and the 32B form planned into the grid.
    void openOnTheGrid()
    {
        m_page = std::make_unique<PlanPage>(m_workspace);
        m_page->resize(1200, 900);
        m_page->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
        auto* tabs = child<QTabBar>(*m_page, "planFigureTabs");
        QVERIFY(tabs);
        QCOMPARE(tabs->tabText(1), QStringLiteral("What if"));
        tabs->setCurrentIndex(1);
        QVERIFY(panel().isVisible());
        m_page->form()->setState(form32b());
        panel().setAxes(SweepAxis::SeqLen, QStringLiteral("1024, 2048,4096"), SweepAxis::GpusPerNode,
                        QStringLiteral("1,8"));
        // The page hands the grid the new input once the form's pause is over, then plans it.
        QTRY_VERIFY(!panel().pending() && showsTheForm());
        QVERIFY2(panel().errorText().isEmpty(), qPrintable(panel().errorText()));
        QCOMPARE(panel().grid()->rowCount(), 2);
        QCOMPARE(panel().grid()->columnCount(), 3);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QString error;
        QVERIFY2(m_workspace.open(m_dir.filePath(QStringLiteral("whatif.sqlite")), &error), qPrintable(error));
    }

    void init()
    {
        QSettings().clear();
        openOnTheGrid();
    }

    void cleanup() { m_page.reset(); }

    // Rows are the row axis's values, columns the column axis's; each cell is the plan at its input.
    void everyCellIsThePlanAtItsInput()
    {
        const EstimateInput input = m_page->form()->input();
        QCOMPARE(input.model.id, std::string("qwen2.5-32b"));
        const QTableWidget& grid = *panel().grid();
        QCOMPARE(grid.horizontalHeaderItem(2)->text(), QStringLiteral("4096"));
        QCOMPARE(grid.verticalHeaderItem(1)->text(), QStringLiteral("8"));
        for (int c = 0; c < 3; ++c) // every header names its axis
            QCOMPARE(grid.horizontalHeaderItem(c)->toolTip(), QStringLiteral("Sequence"));
        for (int r = 0; r < 2; ++r)
            QCOMPARE(grid.verticalHeaderItem(r)->toolTip(), QStringLiteral("GPUs per node"));
        const int seqs[] = { 1024, 2048, 4096 };
        const int gpus[] = { 1, 8 };
        int fitting = 0;
        int current = 0;
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 3; ++c) {
                EstimateInput at = input;
                at.training.seqLen = seqs[c];
                at.cluster.gpusPerNode = gpus[r];
                const Plan plan = makePlan(at);
                const QTableWidgetItem* item = grid.item(r, c);
                QVERIFY(item);
                const bool fits = plan.recommendation.strategy.has_value();
                QCOMPARE(item->data(WhatIfPanel::FitsRole).toBool(), fits);
                const auto strategy = strategyFromId(item->data(WhatIfPanel::StrategyRole).toString().toStdString());
                QVERIFY(strategy);
                if (fits) {
                    ++fitting;
                    QCOMPARE(*strategy, *plan.recommendation.strategy);
                    QCOMPARE(item->text(), strategyIdText(*strategy));
                } else {
                    QCOMPARE(item->text(), QStringLiteral("none"));
                }
                // One peak, one definition: the plan's own figure for the cell's strategy.
                QCOMPARE(item->data(WhatIfPanel::PeakBytesRole).toDouble(),
                         plan.candidate(*strategy).estimate.memory.peakBytes());
                QCOMPARE(item->data(WhatIfPanel::TokensPerSRole).toDouble(),
                         plan.candidate(*strategy).estimate.throughput.tokensPerS);
                QVERIFY(
                    item->toolTip().contains(formatGiB(plan.candidate(*strategy).estimate.memory.peakBytes() / kGiB)));
                // Green where it fits, red where nothing does.
                const float hue = item->background().color().hsvHueF();
                QVERIFY2(fits ? hue > 0.25F && hue < 0.4F : hue < 0.05F, qPrintable(QString::number(hue)));
                if (item->data(WhatIfPanel::CurrentPlanRole).toBool()) {
                    ++current;
                    QCOMPARE(seqs[c], 2048);
                    QCOMPARE(gpus[r], 8);
                    QVERIFY(item->font().bold());
                }
            }
        QVERIFY(fitting > 0);
        QVERIFY(fitting < 6); // the grid shows both kinds of cell
        QCOMPARE(current, 1); // the form's own settings, marked
    }

    // Several edits in a row plan once, after the pause; the grid then shows the new input.
    void editsOfTheFormReplanAfterAPause()
    {
        QSignalSpy updated(&panel(), &WhatIfPanel::sweepUpdated);
        auto* micro = child<QSpinBox>(*m_page, "microBatchSpin");
        auto* model = child<QComboBox>(*m_page, "modelCombo");
        QVERIFY(micro && model);
        micro->setValue(1);
        micro->setValue(4);
        model->setCurrentIndex(model->findData(QStringLiteral("qwen2.5-7b")));
        micro->setValue(1);
        QVERIFY(updated.isEmpty()); // nothing planned while the user is still typing
        QTRY_COMPARE(updated.size(), 1);
        QTest::qWait(400);
        QCOMPARE(updated.size(), 1); // and once only
        const EstimateInput input = m_page->form()->input();
        QCOMPARE(input.model.id, std::string("qwen2.5-7b"));
        const SweepResult expected
            = runSweep(input, { { SweepAxis::GpusPerNode, { 1, 8 } }, { SweepAxis::SeqLen, { 1024, 2048, 4096 } } });
        QCOMPARE(panel().sweep().points.size(), expected.points.size());
        for (std::size_t i = 0; i < expected.points.size(); ++i) {
            QCOMPARE(panel().sweep().points[i].peakBytes, expected.points[i].peakBytes);
            QCOMPARE(panel().sweep().points[i].recommended, expected.points[i].recommended);
        }
        QCOMPARE(panel().grid()->item(0, 0)->data(WhatIfPanel::PeakBytesRole).toDouble(), expected.points[0].peakBytes);
    }

    // While the memory chart is in front nothing is planned; showing the grid plans what changed.
    void aHiddenGridPlansWhenShown()
    {
        auto* tabs = child<QTabBar>(*m_page, "planFigureTabs");
        tabs->setCurrentIndex(0);
        QVERIFY(!panel().isVisible());
        QSignalSpy updated(&panel(), &WhatIfPanel::sweepUpdated);
        child<QSpinBox>(*m_page, "seqLenSpin")->setValue(1024);
        QTest::qWait(600);
        QVERIFY(updated.isEmpty());
        QVERIFY(panel().pending());
        tabs->setCurrentIndex(1);
        QTRY_COMPARE(updated.size(), 1);
        QVERIFY(!panel().pending());
        // The form's sequence is now the first column.
        QVERIFY(panel().grid()->item(1, 0)->data(WhatIfPanel::CurrentPlanRole).toBool());
    }

    void badValuesAreNamed_data()
    {
        QTest::addColumn<QString>("values");
        QTest::addColumn<QString>("message");
        QTest::newRow("zero") << QStringLiteral("1024,0")
                              << QStringLiteral("Sequence: must be in [1, 1048576], got '0'");
        QTest::newRow("words") << QStringLiteral("1024,long")
                               << QStringLiteral("Sequence: expected a whole number, got 'long'");
        QTest::newRow("empty") << QString() << QStringLiteral("Sequence: no values");
        QTest::newRow("empty value") << QStringLiteral("1024,,2048")
                                     << QStringLiteral("an empty value in '1024,,2048'");
        QTest::newRow("twice") << QStringLiteral("2048,2048") << QStringLiteral("'2048' is given twice");
        QTest::newRow("too many") << QStringLiteral("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17")
                                  << QStringLiteral("Sequence: at most 16 values, got 17");
    }

    void badValuesAreNamed()
    {
        QFETCH(QString, values);
        QFETCH(QString, message);
        QSignalSpy updated(&panel(), &WhatIfPanel::sweepUpdated);
        auto* edit = child<QLineEdit>(*m_page, "whatIfColumnValues");
        QVERIFY(edit);
        edit->clear();
        QTest::keyClicks(edit, values);
        QTRY_VERIFY(!updated.isEmpty() && !panel().pending());
        QVERIFY2(panel().errorText().contains(message), qPrintable(panel().errorText()));
        QCOMPARE(panel().grid()->rowCount(), 0);
        // Corrected, the grid comes back.
        edit->setText(QStringLiteral("1024,2048"));
        QTRY_VERIFY(panel().errorText().isEmpty() && panel().grid()->columnCount() == 2);
    }

    // The figure shown changes without planning again.
    void theMetricChangesTheCellsOnly()
    {
        QSignalSpy updated(&panel(), &WhatIfPanel::sweepUpdated);
        const SweepPoint* p = panel().sweep().at({ 1, 1 });
        QVERIFY(p);
        panel().setMetric(WhatIfPanel::Metric::Peak);
        QCOMPARE(panel().grid()->item(1, 1)->text(), formatGiB(p->peakBytes / kGiB));
        panel().setMetric(WhatIfPanel::Metric::TokensPerS);
        QCOMPARE(panel().grid()->item(1, 1)->text(), formatTokensPerS(p->tokensPerS));
        QTest::qWait(300);
        QVERIFY(updated.isEmpty());
    }

    // Choosing for the rows the axis the columns have swaps the two.
    void oneAxisCannotBeBoth()
    {
        auto* rows = child<QComboBox>(*m_page, "whatIfRowAxis");
        rows->setCurrentIndex(rows->findData(static_cast<int>(SweepAxis::SeqLen)));
        QCOMPARE(panel().rowAxis(), SweepAxis::SeqLen);
        QCOMPARE(panel().columnAxis(), SweepAxis::GpusPerNode);
        // Each axis keeps the values typed for it.
        QCOMPARE(child<QLineEdit>(*m_page, "whatIfRowValues")->text(), QStringLiteral("1024, 2048,4096"));
        QCOMPARE(child<QLineEdit>(*m_page, "whatIfColumnValues")->text(), QStringLiteral("1,8"));
        QTRY_COMPARE(panel().grid()->rowCount(), 3);
        QCOMPARE(panel().grid()->columnCount(), 2);
    }

    // A form that describes no valid input leaves no grid (and no stale figures).
    void anInvalidFormEmptiesTheGrid()
    {
        child<QSpinBox>(*m_page, "gpusPerNodeSpin")->setValue(0);
        QTRY_COMPARE(panel().grid()->rowCount(), 0);
        QVERIFY(panel().sweep().points.empty());
        child<QSpinBox>(*m_page, "gpusPerNodeSpin")->setValue(8);
        QTRY_COMPARE(panel().grid()->rowCount(), 2);
    }
};

SHARDWISE_GUI_TEST_MAIN(TestPlanWhatIf)
#include "test_plan_whatif.moc"
