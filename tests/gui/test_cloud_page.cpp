// The Cloud page driven like a user: it takes the plan the Plan page saved, offers the regions that
// list the plan's GPU, shows the checklist and the commands and manifest core/cloud prepares for
// the same input, copies and saves them, and refuses a GPU GKE does not offer.
#include "gui_test_main.hpp"

#include "pages/cloud/checklist_model.hpp"
#include "pages/cloud/cloud_page.hpp"
#include "workspace/plan_input.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/cloud/gke_preparation.hpp"
#include "shardwise/plan/plan.hpp"

#include <QAbstractItemModelTester>
#include <QClipboard>
#include <QFile>
#include <QJsonDocument>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>

using namespace shardwise;
using namespace shardwise::gui;

namespace {

QJsonObject planState(const QString& gpu, int perNode, int nodes, const QString& model = QStringLiteral("qwen2.5-3b"))
{
    QJsonObject s = Workspace::examplePlan(QStringLiteral("try-it-here")).form;
    s.insert(QStringLiteral("model"), model);
    s.insert(QStringLiteral("gpu"), gpu);
    s.insert(QStringLiteral("gpus_per_node"), perNode);
    s.insert(QStringLiteral("nodes"), nodes);
    return s;
}

} // namespace

class TestCloudPage : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    Workspace m_workspace;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QString error;
        QVERIFY2(m_workspace.open(m_dir.filePath(QStringLiteral("cloud.sqlite")), &error), qPrintable(error));
    }

    void init() { QSettings().clear(); }

    void checklistModelPassesTheModelTester()
    {
        CloudPage page(m_workspace);
        QAbstractItemModelTester tester(page.checklistModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.setPlanState(planState(QStringLiteral("l4"), 4, 2));
        QVERIFY(page.checklistModel()->rowCount() > 0);
    }

    void takesThePlanThePlanPageSaved()
    {
        // The Plan page keeps its form under plan/form; the Cloud page prepares exactly that plan.
        const QJsonObject state = planState(QStringLiteral("h100-80gb"), 8, 2, QStringLiteral("llama-3.1-8b"));
        QSettings().setValue(QStringLiteral("plan/form"), QJsonDocument(state).toJson(QJsonDocument::Compact));
        CloudPage page(m_workspace);
        QVERIFY(page.preparation().has_value());
        QCOMPARE(QString::fromStdString(page.preparation()->accelerator), QStringLiteral("nvidia-h100-80gb"));
        QCOMPARE(page.preparation()->totalGpus, 16);
        QVERIFY2(page.planText().contains(QStringLiteral("16")), qPrintable(page.planText()));

        // The same plan through core gives the same commands and manifest.
        const EstimateInput in = planInputFromState(state);
        const Plan plan = makePlan(in);
        cloud::GkeRequest r;
        r.run.model = in.model;
        r.run.training = in.training;
        r.run.strategy = *plan.recommendation.strategy;
        r.gpu = in.gpu;
        r.cluster = in.cluster;
        r.region = page.region().toStdString();
        const cloud::GkePreparation expected = cloud::prepareGke(r);
        QCOMPARE(page.outputText(CloudPage::ManifestOutput), QString::fromStdString(expected.manifest));
        QVERIFY(
            page.outputText(CloudPage::GcloudOutput).contains(QString::fromStdString(expected.gcloud.back().command)));
    }

    void regionPickerListsOnlyRegionsOfferingTheGpu()
    {
        CloudPage page(m_workspace);
        page.setPlanState(planState(QStringLiteral("h200"), 8, 1));
        const std::vector<std::string> expected = cloud::GkeCatalog::builtin().find("nvidia-h200-141gb")->regions();
        QCOMPARE(page.regions().size(), static_cast<qsizetype>(expected.size()));
        for (const std::string& r : expected)
            QVERIFY(page.regions().contains(QString::fromStdString(r)));
        QVERIFY(!page.regions().contains(QStringLiteral("asia-east1")));

        QSignalSpy changed(&page, &CloudPage::preparationChanged);
        page.setRegion(QStringLiteral("us-east4"));
        QVERIFY(changed.count() >= 1);
        QCOMPARE(QString::fromStdString(page.preparation()->region), QStringLiteral("us-east4"));
        QVERIFY(page.outputText(CloudPage::GcloudOutput).contains(QStringLiteral("--node-locations us-east4-b")));
    }

    void checklistShowsPassWarnAndCheckMarkers()
    {
        CloudPage page(m_workspace);
        page.setPlanState(planState(QStringLiteral("l4"), 4, 2));
        const ChecklistModel* m = page.checklistModel();
        QSet<int> statuses;
        for (int row = 0; row < m->rowCount(); ++row) {
            statuses.insert(m->index(row, 0).data(ChecklistModel::StatusRole).toInt());
            QVERIFY(!m->index(row, 0).data(Qt::DecorationRole).isNull());
            QVERIFY(!m->index(row, 1).data(Qt::ToolTipRole).toString().isEmpty());
        }
        QVERIFY(statuses.contains(static_cast<int>(cloud::CheckStatus::Pass)));
        QVERIFY(statuses.contains(static_cast<int>(cloud::CheckStatus::Warn)));
        QVERIFY(statuses.contains(static_cast<int>(cloud::CheckStatus::Check)));
        // Nothing is created yet: what the prepared commands take care of reads "planned", never "pass".
        for (int row = 0; row < m->rowCount(); ++row) {
            const QString shown = m->index(row, 0).data().toString();
            QVERIFY2(shown != QLatin1String("pass"), qPrintable(m->index(row, 1).data().toString()));
            if (m->index(row, 0).data(ChecklistModel::StatusRole).toInt()
                == static_cast<int>(cloud::CheckStatus::Pass)) {
                QCOMPARE(shown, QStringLiteral("planned"));
                QVERIFY(m->index(row, 1).data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("Planned:")));
            }
        }
        bool quotaFound = false;
        for (int row = 0; row < m->rowCount(); ++row)
            if (m->index(row, 1).data().toString().contains(QStringLiteral("at least 8")))
                quotaFound = true;
        QVERIFY2(quotaFound, "the quota item names 2 nodes x 4 GPUs = 8");
    }

    void copyPutsTheVisibleOutputOnTheClipboard()
    {
        CloudPage page(m_workspace);
        page.setPlanState(planState(QStringLiteral("a100-80gb"), 4, 1));
        page.showOutput(CloudPage::ManifestOutput);
        page.copyCurrentOutput();
        QCOMPARE(QApplication::clipboard()->text(), page.outputText(CloudPage::ManifestOutput));
        QVERIFY(QApplication::clipboard()->text().contains(QStringLiteral("kind: Job")));
    }

    void saveWritesTheVisibleOutput()
    {
        CloudPage page(m_workspace);
        page.setPlanState(planState(QStringLiteral("a100-40gb"), 8, 1));
        page.showOutput(CloudPage::KubectlOutput);
        const QString path = m_dir.filePath(QStringLiteral("kubectl.sh"));
        QString error;
        QVERIFY2(page.saveCurrentOutput(path, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()), page.outputText(CloudPage::KubectlOutput));
        QVERIFY(!page.saveCurrentOutput(m_dir.filePath(QStringLiteral("no/such/dir/x.sh")), &error));
        QVERIFY(error.contains(QStringLiteral("cannot write")));
    }

    void strategyDefaultsToTheRecommendationAndCanBeChanged()
    {
        CloudPage page(m_workspace);
        const QJsonObject state = planState(QStringLiteral("l4"), 4, 1);
        page.setPlanState(state);
        const Plan plan = makePlan(planInputFromState(state));
        QVERIFY(plan.recommendation.strategy.has_value());
        QCOMPARE(page.strategy(), plan.recommendation.strategy);
        const Strategy other
            = *plan.recommendation.strategy == Strategy::Zero3 ? Strategy::Fsdp2Reshard : Strategy::Zero3;
        page.setStrategy(other);
        QCOMPARE(page.strategy(), std::optional<Strategy>(other));
        const QString manifest = page.outputText(CloudPage::ManifestOutput);
        QVERIFY2(manifest.contains(QStringLiteral("--strategy ") + QString::fromLatin1(strategyId(other))),
                 qPrintable(manifest));
        // The memory item follows the chosen strategy and no longer calls it the recommendation.
        bool memoryItem = false;
        for (const cloud::ChecklistItem& i : page.preparation()->checklist)
            if (i.id == "memory") {
                memoryItem = true;
                QVERIFY(i.title.find(std::string(strategyId(other))) == 0);
                QVERIFY(i.title.find("recommendation") == std::string::npos);
            }
        QVERIFY(memoryItem);
    }

    void offloadThatTheVmsRamCannotHoldIsFlagged()
    {
        // One L4 comes on g2-standard-4 (16 GB of RAM) by default; the host state of a 7B CPU-offload
        // strategy does not fit in it, so the page takes g2-standard-32 (128 GB); a 14B one fits in no
        // one-L4 type and is flagged, whatever the Plan page's host RAM says.
        CloudPage page(m_workspace);
        page.setPlanState(planState(QStringLiteral("l4"), 1, 1, QStringLiteral("qwen2.5-7b")));
        page.setStrategy(Strategy::Zero3Offload);
        QVERIFY(page.preparation().has_value());
        QCOMPARE(QString::fromStdString(page.preparation()->machineType), QStringLiteral("g2-standard-32"));
        QVERIFY2(page.outputText(CloudPage::GcloudOutput).contains(QStringLiteral("--machine-type g2-standard-32 ")),
                 qPrintable(page.outputText(CloudPage::GcloudOutput)));
        for (const cloud::ChecklistItem& i : page.preparation()->checklist)
            if (i.id == "host_memory")
                QCOMPARE(i.status, cloud::CheckStatus::Pass);

        page.setPlanState(planState(QStringLiteral("l4"), 1, 1, QStringLiteral("qwen2.5-14b")));
        page.setStrategy(Strategy::Zero3Offload);
        QVERIFY(page.preparation().has_value());
        QCOMPARE(QString::fromStdString(page.preparation()->machineType), QStringLiteral("g2-standard-32"));
        const cloud::ChecklistItem* host = nullptr;
        for (const cloud::ChecklistItem& i : page.preparation()->checklist)
            if (i.id == "host_memory")
                host = &i;
        QVERIFY(host);
        QCOMPARE(host->status, cloud::CheckStatus::Warn);
        QVERIFY2(host->title.find("g2-standard-32 has 128 GB") != std::string::npos, host->title.c_str());
        bool shown = false;
        const ChecklistModel* m = page.checklistModel();
        for (int row = 0; row < m->rowCount(); ++row)
            if (m->index(row, 1).data().toString() == QString::fromStdString(host->title))
                shown = true;
        QVERIFY(shown);
    }

    void gpuWithoutGkeOfferingIsRefusedByName()
    {
        CloudPage page(m_workspace);
        page.setPlanState(planState(QStringLiteral("rtx4090"), 1, 1, QStringLiteral("qwen2.5-0.5b")));
        QVERIFY(!page.preparation().has_value());
        QVERIFY2(page.errorText().contains(QStringLiteral("no GKE offering")), qPrintable(page.errorText()));
        QCOMPARE(page.checklistModel()->rowCount(), 0);
        QVERIFY(page.outputText(CloudPage::ManifestOutput).isEmpty());
    }
};

SHARDWISE_GUI_TEST_MAIN(TestCloudPage)
#include "test_cloud_page.moc"
