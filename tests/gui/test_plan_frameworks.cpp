// The Plan page's framework target: the Framework combo and version remembered across restarts, the
// inter-node network shown with more than one node, strategies the framework cannot run greyed with
// the reason, the Export menu (five exports of the selected candidate) and Open config (settings into
// the form, warnings on the page).
#include "gui_test_main.hpp"

#include "models/candidate_table_model.hpp"
#include "pages/plan/plan_form.hpp"
#include "pages/plan/plan_page.hpp"
#include "workspace/workspace.hpp"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

bool waitForPlan(PlanPage& page)
{
    QSignalSpy updated(&page, &PlanPage::planUpdated);
    return updated.wait(10000);
}

int rowOf(const PlanPage& page, Strategy s)
{
    const auto& candidates = page.currentPlan().candidates;
    for (int row = 0; row < candidates.size(); ++row)
        if (candidates.at(row).strategy == s)
            return row;
    return -1;
}

// Picks a framework as a user does (the combo's activated signal takes its defaults).
void chooseFramework(PlanPage& page, const QString& id)
{
    auto* combo = page.findChild<QComboBox*>(QStringLiteral("frameworkCombo"));
    QVERIFY(combo);
    const int i = combo->findData(id);
    QVERIFY(i >= 0);
    combo->setCurrentIndex(i);
    emit combo->activated(i);
}

} // namespace

class TestPlanFrameworks : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    Workspace m_workspace;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QString error;
        QVERIFY2(m_workspace.open(m_dir.filePath(QStringLiteral("frameworks.sqlite")), &error), qPrintable(error));
    }

    void init() { QSettings().clear(); }

    void frameworkIsRememberedAcrossRestarts()
    {
        {
            PlanPage page(m_workspace);
            QVERIFY(waitForPlan(page));
            chooseFramework(page, QStringLiteral("deepspeed"));
            // DeepSpeed's bf16 keeps fp32 master weights: the framework's default precision.
            auto* precision = page.findChild<QComboBox*>(QStringLiteral("precisionCombo"));
            QCOMPARE(precision->currentData().toString(), QStringLiteral("bf16-fp32-master"));
            auto* version = page.findChild<QLineEdit*>(QStringLiteral("frameworkVersionEdit"));
            QVERIFY(version && version->isEnabled());
            version->setText(QStringLiteral("0.15"));
            emit version->editingFinished();
            QVERIFY(waitForPlan(page));
            QVERIFY2(page.recommendationText().contains(QStringLiteral("DeepSpeed 0.15")),
                     qPrintable(page.recommendationText()));
            // FSDP2 setups are shown, greyed, with the reason.
            const int row = rowOf(page, Strategy::Fsdp2Reshard);
            QVERIFY(row >= 0);
            const QModelIndex index = page.candidateModel()->index(row, CandidateTableModel::StrategyColumn);
            QVERIFY(!index.data(CandidateTableModel::SupportedRole).toBool());
            QVERIFY(!(page.candidateModel()->flags(index) & Qt::ItemIsEnabled));
            QVERIFY(index.data(Qt::ToolTipRole).toString().contains(QStringLiteral("DeepSpeed")));
            QVERIFY(page.candidateModel()
                        ->index(rowOf(page, Strategy::Zero3), 0)
                        .data(CandidateTableModel::SupportedRole)
                        .toBool());
        }
        PlanPage again(m_workspace);
        QVERIFY(waitForPlan(again));
        QCOMPARE(again.findChild<QComboBox*>(QStringLiteral("frameworkCombo"))->currentData().toString(),
                 QStringLiteral("deepspeed"));
        QCOMPARE(again.findChild<QLineEdit*>(QStringLiteral("frameworkVersionEdit"))->text(), QStringLiteral("0.15"));
        QCOMPARE(again.form()->input().framework.framework, Framework::DeepSpeed);
        QCOMPARE(again.form()->input().framework.version, std::string("0.15"));
    }

    void torchtitanTakesSelectiveCheckpointing()
    {
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        chooseFramework(page, QStringLiteral("torchtitan"));
        const EstimateInput in = page.form()->input();
        QVERIFY(in.training.activationCheckpointing);
        QCOMPARE(in.training.checkpointPolicy, CheckpointPolicy::Selective);
        QVERIFY(page.findChild<QCheckBox*>(QStringLiteral("compileCheck"))->isEnabled());
    }

    void interNodeNetworkShowsWithSeveralNodes()
    {
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        auto* nodes = page.findChild<QSpinBox*>(QStringLiteral("nodesSpin"));
        auto* network = page.findChild<QComboBox*>(QStringLiteral("interNodeCombo"));
        QVERIFY(nodes && network);
        nodes->setValue(1);
        QVERIFY(network->isHidden());
        nodes->setValue(2);
        QVERIFY(!network->isHidden());
        network->setCurrentIndex(network->findData(QStringLiteral("ib-8x400")));
        QCOMPARE(page.form()->input().cluster.interNodeGBps, 400.0);
        QVERIFY(waitForPlan(page));
        PlanPage again(m_workspace);
        QVERIFY(waitForPlan(again));
        QCOMPARE(again.findChild<QComboBox*>(QStringLiteral("interNodeCombo"))->currentData().toString(),
                 QStringLiteral("ib-8x400"));
    }

    void exportMenuWritesTheSelectedCandidate()
    {
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        chooseFramework(page, QStringLiteral("deepspeed"));
        QVERIFY(waitForPlan(page));
        QMenu* menu = page.exportMenu();
        QVERIFY(menu);
        QStringList names;
        for (QAction* a : menu->actions())
            if (!a->isSeparator())
                names << a->objectName();
        // The framework configs, then (after a separator) the report of the whole plan.
        QCOMPARE(names,
                 QStringList({ QStringLiteral("export-ds-config"), QStringLiteral("export-accelerate"),
                               QStringLiteral("export-torchtitan"), QStringLiteral("export-fsdp2-python"),
                               QStringLiteral("export-launch"), QStringLiteral("export-sbatch"),
                               QStringLiteral("export-report") }));

        auto* view = page.findChild<QTableView*>(QStringLiteral("candidateView"));
        view->selectRow(rowOf(page, Strategy::Zero2));
        QCOMPARE(page.exportStrategy(), std::optional<Strategy>(Strategy::Zero2));
        emit menu->aboutToShow();
        auto action = [&](const QString& name) {
            for (QAction* a : menu->actions())
                if (a->objectName() == name)
                    return a;
            return static_cast<QAction*>(nullptr);
        };
        QVERIFY(action(QStringLiteral("export-ds-config"))->isEnabled());
        QVERIFY(!action(QStringLiteral("export-ds-config"))->toolTip().contains(QStringLiteral("reads it")));
        QVERIFY(!action(QStringLiteral("export-accelerate"))->toolTip().contains(QStringLiteral("reads it")));
        QVERIFY(!action(QStringLiteral("export-torchtitan"))->isEnabled());
        QVERIFY(action(QStringLiteral("export-torchtitan"))->toolTip().contains(QStringLiteral("DeepSpeed")));

        const QString path = m_dir.filePath(QStringLiteral("ds_config.json"));
        QString error;
        QVERIFY2(page.exportConfig(frameworks::ConfigKind::DsConfig, path, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.contains("\"_shardwise\""));
        QVERIFY(text.contains("\"stage\": 2"));
        QVERIFY(!page.exportConfig(frameworks::ConfigKind::Fsdp2Python, path, &error));
        QVERIFY2(error.contains(QStringLiteral("--framework deepspeed")), qPrintable(error));

        // zero0 has an FSDP2 form too, read by PyTorch rather than the plan's DeepSpeed: the entry says so.
        view->selectRow(rowOf(page, Strategy::Zero0));
        emit menu->aboutToShow();
        QVERIFY(action(QStringLiteral("export-fsdp2-python"))->isEnabled());
        QVERIFY2(
            action(QStringLiteral("export-fsdp2-python"))->toolTip().contains(QStringLiteral("PyTorch FSDP2 reads it")),
            qPrintable(action(QStringLiteral("export-fsdp2-python"))->toolTip()));
    }

    void openConfigFillsTheFormAndShowsWarnings()
    {
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        const QString path = m_dir.filePath(QStringLiteral("user_ds.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(
                R"({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4, "bf16": {"enabled": true},
                       "zero_optimization": {"stage": 3, "sub_group_size": 1e9}, "mystery_knob": 1})");
        }
        QString error;
        QVERIFY2(page.openConfig(path, &error), qPrintable(error));
        QVERIFY2(page.importMessageText().contains(QStringLiteral("mystery_knob")),
                 qPrintable(page.importMessageText()));
        QVERIFY(!page.importMessageText().contains(QStringLiteral("sub_group_size")));
        const EstimateInput in = page.form()->input();
        QCOMPARE(in.framework.framework, Framework::DeepSpeed);
        QCOMPARE(in.training.microBatch, 2);
        QCOMPARE(in.training.gradAccumulation, 4);
        QVERIFY(waitForPlan(page));
        QCOMPARE(page.exportStrategy(), std::optional<Strategy>(Strategy::Zero3));

        const QString bad = m_dir.filePath(QStringLiteral("bad.yaml"));
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 1\n");
        }
        QVERIFY(!page.openConfig(bad, &error));
        QVERIFY2(error.contains(QStringLiteral("fsdp_config.fsdp_version")), qPrintable(error));
        QVERIFY(page.importMessageText().contains(QStringLiteral("fsdp_config.fsdp_version")));
    }

    void openConfigOffersAndReadsTorchtitanToml()
    {
        // The dialog offers every format the page reads, a torchtitan job config included.
        QVERIFY2(PlanPage::openConfigFilter().contains(QStringLiteral("*.toml")),
                 qPrintable(PlanPage::openConfigFilter()));
        PlanPage page(m_workspace);
        QVERIFY(waitForPlan(page));
        const QString path = m_dir.filePath(QStringLiteral("job.toml"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(
                "[training]\nlocal_batch_size = 2\nseq_len = 4096\n[parallelism]\ndata_parallel_shard_degree = 8\n");
        }
        QString error;
        QVERIFY2(page.openConfig(path, &error), qPrintable(error));
        const EstimateInput in = page.form()->input();
        QCOMPARE(in.framework.framework, Framework::Torchtitan);
        QCOMPARE(in.training.microBatch, 2);
        QCOMPARE(in.training.seqLen, 4096);
    }
};

SHARDWISE_GUI_TEST_MAIN(TestPlanFrameworks)
#include "test_plan_frameworks.moc"
