// The Plan page's figures and messages, driven through its real widgets offscreen: the candidate
// table's peak, the memory chart's stacked bar and the decided step's reason give the peak core/plan
// compares with the usable capacity, and the chart's dashed line is that capacity; bad input (a
// broken config.json, sequence 0, GPU memory 0) gets a visible message in the page.
#include "gui_test_main.hpp"

#include "models/candidate_table_model.hpp"
#include "models/decision_step_model.hpp"
#include "models/display_format.hpp"
#include "pages/plan/plan_form.hpp"
#include "pages/plan/plan_page.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/presets.hpp"

#include <QBarSet>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>

#include <cmath>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

bool waitForPlan(PlanPage& page)
{
    QSignalSpy updated(&page, &PlanPage::planUpdated);
    return updated.wait(10000);
}

template <typename T> T* child(QWidget& parent, const char* name)
{
    return parent.findChild<T*>(QString::fromLatin1(name));
}

// Replaces the spin box's text by `text` with the keyboard, as a user types it, and confirms it.
void typeInto(QAbstractSpinBox* spin, const QString& text)
{
    spin->setFocus();
    QTest::keyClick(spin, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClick(spin, Qt::Key_Delete);
    QTest::keyClicks(spin, text);
    QTest::keyClick(spin, Qt::Key_Return);
}

bool nearlyEqual(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

} // namespace

class TestPlanFigures : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    Workspace m_workspace;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QString error;
        QVERIFY2(m_workspace.open(m_dir.filePath(QStringLiteral("figures.sqlite")), &error), qPrintable(error));
    }

    void init() { QSettings().clear(); }

    // The two plans of the issue: Qwen2.5-7B on 8 x H100 at 4096 tokens (zero0 once read 73.6 GiB in
    // the table, 75.4 in the reasons and stood above the dashed line while "fits"), and on 4 x L4
    // with activation checkpointing (zero3 read 21.5 GiB on a 22.5 GiB GPU and "short by 1.06 GiB").
    void tableChartAndReasonsShowThePeakTheVerdictWeighs_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<bool>("checkpointing");
        QTest::newRow("7b on 8 x h100") << QStringLiteral("h100-80gb") << 8 << false;
        QTest::newRow("7b on 4 x l4, checkpointing") << QStringLiteral("l4") << 4 << true;
    }
    void tableChartAndReasonsShowThePeakTheVerdictWeighs()
    {
        QFETCH(QString, gpu);
        QFETCH(int, gpus);
        QFETCH(bool, checkpointing);
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        // From another plan than the one the page opens on (7B on 8 x H100), so each row changes it.
        page.form()->setState(Workspace::examplePlan(QStringLiteral("try-it-here")).form);
        QVERIFY(waitForPlan(page));
        auto* model = child<QComboBox>(page, "modelCombo");
        auto* gpuCombo = child<QComboBox>(page, "gpuCombo");
        auto* gpusSpin = child<QSpinBox>(page, "gpusPerNodeSpin");
        auto* seq = child<QSpinBox>(page, "seqLenSpin");
        auto* ac = child<QCheckBox>(page, "checkpointingCheck");
        QVERIFY(model && gpuCombo && gpusSpin && seq && ac);
        model->setCurrentIndex(model->findData(QStringLiteral("qwen2.5-7b")));
        gpuCombo->setCurrentIndex(gpuCombo->findData(gpu));
        gpusSpin->setValue(gpus);
        seq->setValue(4096);
        ac->setChecked(checkpointing);
        QVERIFY(waitForPlan(page));
        QVERIFY2(page.errorText().isEmpty(), qPrintable(page.errorText()));

        const Plan expected = makePlan(page.form()->input());
        const CandidateTableModel& table = *page.candidateModel();
        QCOMPARE(table.rowCount(), static_cast<int>(expected.candidates.size()));

        auto* view = child<QChartView>(page, "memoryChart");
        QVERIFY(view && view->chart());
        QHorizontalStackedBarSeries* bars = nullptr;
        QLineSeries* line = nullptr;
        for (QAbstractSeries* s : view->chart()->series()) {
            if (s->objectName() == QLatin1String("peakPartsSeries"))
                bars = qobject_cast<QHorizontalStackedBarSeries*>(s);
            if (s->objectName() == QLatin1String("usableCapacityLine"))
                line = qobject_cast<QLineSeries*>(s);
        }
        QVERIFY(bars && line);
        QVERIFY(line->count() >= 2);
        const Estimate& first = expected.candidates.front().estimate;
        const double usableGiB = first.usableDeviceBytes() / kGiB;
        // The bars are horizontal: the line stands at the usable capacity on the value (x) axis.
        for (const QPointF& p : line->points())
            QVERIFY2(nearlyEqual(p.x(), usableGiB), qPrintable(QString::number(p.x())));

        for (int row = 0; row < table.rowCount(); ++row) {
            const auto strategy = static_cast<Strategy>(
                table.index(row, CandidateTableModel::StrategyColumn).data(CandidateTableModel::RawValueRole).toInt());
            const Estimate& e = expected.candidate(strategy).estimate;
            const double peakGiB = e.memory.peakBytes() / kGiB;
            const QModelIndex peakCell = table.index(row, CandidateTableModel::PeakColumn);
            const double tablePeak = peakCell.data(CandidateTableModel::RawValueRole).toDouble();
            QVERIFY2(nearlyEqual(tablePeak, peakGiB), qPrintable(QString::fromLatin1(strategyId(strategy).data())));
            QCOMPARE(peakCell.data().toString(), formatGiB(peakGiB));
            double barSum = 0;
            // The bars are in the table's order from the top: a horizontal series' slot 0 is the bottom.
            for (const QBarSet* set : bars->barSets())
                barSum += set->at(set->count() - 1 - row);
            QVERIFY2(nearlyEqual(barSum, tablePeak),
                     qPrintable(QStringLiteral("%1: bar %2, table %3")
                                    .arg(QString::fromLatin1(strategyId(strategy).data()))
                                    .arg(barSum)
                                    .arg(tablePeak)));
            // A bar stands above the dashed line exactly when its candidate does not fit the GPU.
            QCOMPARE(barSum <= usableGiB, e.fitsDevice);
            QCOMPARE(table.index(row, CandidateTableModel::FitsColumn).data(CandidateTableModel::RawValueRole).toBool(),
                     e.fits());
        }

        // The decided step's reason gives the same peak, to one decimal, for the strategies it names.
        QString decidedReason;
        for (int row = 0; row < page.stepModel()->rowCount(); ++row)
            if (static_cast<StepVerdict>(page.stepModel()->index(row, 0).data(DecisionStepModel::VerdictRole).toInt())
                == StepVerdict::Decided)
                decidedReason = page.stepModel()->index(row, DecisionStepModel::ReasonColumn).data().toString();
        QVERIFY(!decidedReason.isEmpty());
        QVERIFY(expected.recommendation.strategy.has_value());
        const Estimate& chosen = expected.candidate(*expected.recommendation.strategy).estimate;
        const QString chosenSays = QStringLiteral("%1 fits: predicted peak %2 GiB")
                                       .arg(QString::fromLatin1(strategyId(chosen.strategy).data()))
                                       .arg(QString::asprintf("%.1f", chosen.memory.peakBytes() / kGiB));
        QVERIFY2(decidedReason.contains(chosenSays), qPrintable(decidedReason));
    }

    void sequenceZeroTypedIsNamedOnThePage()
    {
        PlanPage page(m_workspace);
        page.show();
        QVERIFY(waitForPlan(page));
        auto* seq = child<QSpinBox>(page, "seqLenSpin");
        QVERIFY(seq);
        typeInto(seq, QStringLiteral("0"));
        QCOMPARE(seq->value(), 0); // kept as typed, not put back to a minimum
        QVERIFY(waitForPlan(page));
        auto* error = child<QLabel>(page, "planErrorLabel");
        QVERIFY(error && error->isVisible());
        QVERIFY2(error->text().contains(QStringLiteral("Sequence"))
                     && error->text().contains(QStringLiteral("training.seq_len")),
                 qPrintable(error->text()));
        // No figures of the previous configuration stay beside the message.
        QCOMPARE(page.candidateModel()->rowCount(), 0);
        // Fixing the field plans again and takes the message away.
        typeInto(seq, QStringLiteral("2048"));
        QVERIFY(waitForPlan(page));
        QVERIFY(error->isHidden());
        QVERIFY(page.candidateModel()->rowCount() > 0);
    }

    void customGpuMemoryZeroIsNamedOnThePage()
    {
        PlanPage page(m_workspace);
        page.show();
        QVERIFY(waitForPlan(page));
        auto* gpuCombo = child<QComboBox>(page, "gpuCombo");
        auto* memory = child<QDoubleSpinBox>(page, "customMemorySpin");
        QVERIFY(gpuCombo && memory);
        gpuCombo->setCurrentIndex(gpuCombo->findData(QStringLiteral("custom")));
        QVERIFY(waitForPlan(page));
        QVERIFY(memory->isVisible());
        typeInto(memory, QStringLiteral("0"));
        QCOMPARE(memory->value(), 0.0);
        QVERIFY(waitForPlan(page));
        auto* error = child<QLabel>(page, "planErrorLabel");
        QVERIFY(error && error->isVisible());
        QVERIFY2(error->text().contains(QStringLiteral("Custom GPU memory"))
                     && error->text().contains(QStringLiteral("memory_mib")),
                 qPrintable(error->text()));
    }

    void brokenConfigJsonOpenedIsNamedOnThePage()
    {
        const QString path = m_dir.filePath(QStringLiteral("config.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"model_type": "qwen2", "hidden_size": 3584, "num_hidden_layers": )"); // cut off
        }
        PlanPage page(m_workspace);
        page.show();
        QVERIFY(waitForPlan(page));
        auto* open = child<QPushButton>(page, "openModelButton");
        QVERIFY(open);
        // The button's file dialog, answered with the broken file once it is up.
        bool answered = false;
        QTimer poll;
        poll.setInterval(20);
        connect(&poll, &QTimer::timeout, this, [&] {
            QFileDialog* dialog = nullptr;
            for (QWidget* w : QApplication::topLevelWidgets())
                if (auto* d = qobject_cast<QFileDialog*>(w); d && d->isVisible())
                    dialog = d;
            if (!dialog)
                return;
            // Typed as a user would: the absolute path in the dialog's file name field, which the dialog
            // returns as typed (its directory listing, filled in the background, is not consulted).
            auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
            if (!name)
                return;
            poll.stop();
            name->setText(path);
            static_cast<QDialog*>(dialog)->done(QDialog::Accepted); // public through QDialog
            answered = true;
        });
        poll.start();
        QTest::mouseClick(open, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(answered, 10000);
        auto* message = child<QLabel>(page, "importMessageLabel");
        QVERIFY(message);
        QTRY_VERIFY(message->isVisible());
        QVERIFY2(message->text().contains(QStringLiteral("config.json")), qPrintable(message->text()));
        // The model stays what it was: the broken file was not added.
        QVERIFY(page.form()->state().value(QStringLiteral("model")).toString() != path);
    }
};

SHARDWISE_GUI_TEST_MAIN(TestPlanFigures)
#include "test_plan_figures.moc"
