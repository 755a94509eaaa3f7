// core/cloud: the GKE table and the preparation derived from a plan and a region.
#include "shardwise/cloud/gke_preparation.hpp"
#include "shardwise/spec/presets.hpp"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace shardwise;
using namespace shardwise::cloud;

namespace {

GkeRequest request(const std::string& gpu, int perNode, int nodes, const std::string& region)
{
    GkeRequest r;
    r.gpu = resolveGpu(gpu);
    r.run.model = resolveModel("qwen2.5-7b");
    r.run.strategy = Strategy::Fsdp2Reshard;
    r.cluster.gpusPerNode = perNode;
    r.cluster.nodes = nodes;
    r.region = region;
    return r;
}

const ChecklistItem* itemById(const GkePreparation& p, const std::string& id)
{
    for (const auto& i : p.checklist)
        if (i.id == id)
            return &i;
    return nullptr;
}

std::string commandContaining(const std::vector<GkeCommand>& cs, const std::string& needle)
{
    for (const auto& c : cs)
        if (c.command.find(needle) != std::string::npos)
            return c.command;
    return {};
}

QString errorField(const GkeRequest& r, QString* message = nullptr)
{
    try {
        prepareGke(r);
    } catch (const CloudError& e) {
        if (message)
            *message = QString::fromStdString(e.what());
        return QString::fromStdString(e.field());
    }
    return {};
}

} // namespace

class TestCloud : public QObject {
    Q_OBJECT

private slots:
    void tableCoversEveryGpuPresetOnGke()
    {
        const GkeCatalog& c = GkeCatalog::builtin();
        QVERIFY(!c.sources().transcribed.empty());
        for (const GpuSpec& g : PresetCatalog::builtin().gpus()) {
            if (g.gkeAccelerator.empty())
                continue;
            const GkeAcceleratorOffer* o = c.find(g.gkeAccelerator);
            QVERIFY2(o, g.id.c_str());
            QCOMPARE(QString::fromStdString(o->machineSeries), QString::fromStdString(g.gkeMachineSeries));
            QVERIFY(!o->zones.empty());
        }
    }

    void machineSeriesAndTypeFollowTheGpu_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("perNode");
        QTest::addColumn<QString>("region");
        QTest::addColumn<QString>("accelerator");
        QTest::addColumn<QString>("series");
        QTest::addColumn<QString>("machineType");
        QTest::newRow("A100 40GB") << "a100-40gb" << 8 << "us-central1" << "nvidia-tesla-a100" << "A2" << "a2-highgpu-8g";
        QTest::newRow("A100 80GB") << "a100-80gb" << 4 << "us-central1" << "nvidia-a100-80gb" << "A2" << "a2-ultragpu-4g";
        QTest::newRow("L4") << "l4" << 4 << "us-central1" << "nvidia-l4" << "G2" << "g2-standard-48";
        QTest::newRow("H100") << "h100-80gb" << 8 << "us-east4" << "nvidia-h100-80gb" << "A3" << "a3-highgpu-8g";
        QTest::newRow("H200") << "h200" << 8 << "us-central1" << "nvidia-h200-141gb" << "A3" << "a3-ultragpu-8g";
    }
    void machineSeriesAndTypeFollowTheGpu()
    {
        QFETCH(QString, gpu);
        QFETCH(int, perNode);
        QFETCH(QString, region);
        QFETCH(QString, accelerator);
        QFETCH(QString, series);
        QFETCH(QString, machineType);
        const GkePreparation p = prepareGke(request(gpu.toStdString(), perNode, 1, region.toStdString()));
        QCOMPARE(QString::fromStdString(p.accelerator), accelerator);
        QCOMPARE(QString::fromStdString(p.machineSeries), series);
        QCOMPARE(QString::fromStdString(p.machineType), machineType);
        const std::string pool = commandContaining(p.gcloud, "node-pools create");
        QVERIFY(pool.find("--accelerator type=" + accelerator.toStdString() + ",count=" + std::to_string(perNode)
                          + ",gpu-driver-version=default") != std::string::npos);
        QVERIFY(pool.find("--machine-type " + machineType.toStdString()) != std::string::npos);
    }

    void rtx4090HasNoGkeOffering()
    {
        QString message;
        QCOMPARE(errorField(request("rtx4090", 1, 1, "us-central1"), &message), QStringLiteral("gpu"));
        QVERIFY2(message.contains(QStringLiteral("RTX 4090")) && message.contains(QStringLiteral("no GKE offering")),
                 qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("l4")) && message.contains(QStringLiteral("h200")), qPrintable(message));
    }

    void unknownRegionNamesTheKnownOnes()
    {
        QString message;
        QCOMPARE(errorField(request("l4", 1, 1, "mars-north1"), &message), QStringLiteral("region"));
        QVERIFY2(message.contains(QStringLiteral("mars-north1")) && message.contains(QStringLiteral("us-central1")),
                 qPrintable(message));
    }

    void regionWithoutTheAcceleratorNamesRegionsThatHaveIt()
    {
        // asia-east1 lists L4 but not H200.
        QString message;
        QCOMPARE(errorField(request("h200", 8, 1, "asia-east1"), &message), QStringLiteral("region"));
        QVERIFY2(message.contains(QStringLiteral("us-central1")) && message.contains(QStringLiteral("nvidia-h200-141gb")),
                 qPrintable(message));
    }

    void gpuCountWithoutMachineTypeNamesAllowedCounts()
    {
        QString message;
        QCOMPARE(errorField(request("h200", 4, 1, "us-central1"), &message), QStringLiteral("gpus_per_node"));
        QVERIFY2(message.contains(QStringLiteral("allowed: 8")), qPrintable(message));
        QCOMPARE(errorField(request("l4", 3, 1, "us-central1"), &message), QStringLiteral("gpus_per_node"));
        QVERIFY2(message.contains(QStringLiteral("1, 2, 4, 8")), qPrintable(message));
    }

    void unknownDriverVersionIsRefused()
    {
        GkeRequest r = request("l4", 1, 1, "us-central1");
        r.driverVersion = "newest";
        QCOMPARE(errorField(r), QStringLiteral("driver"));
    }

    void quotaCountsTheAutoscalingMaximum()
    {
        const GkePreparation p = prepareGke(request("l4", 4, 3, "us-central1"));
        QCOMPARE(p.totalGpus, 12);
        const ChecklistItem* quota = itemById(p, "quota");
        QVERIFY(quota);
        QCOMPARE(quota->status, CheckStatus::Check);
        QVERIFY2(quota->title.find("at least 12") != std::string::npos, quota->title.c_str());
        QVERIFY(quota->command.find("NVIDIA_L4_GPUS") != std::string::npos);
        const ChecklistItem* stock = itemById(p, "stock");
        QVERIFY(stock);
        QCOMPARE(stock->status, CheckStatus::Warn);
        QVERIFY(stock->title.find("Quota is not stock") != std::string::npos);
        // The autoscaling maximum the quota covers is a total over zones, not per zone.
        const std::string pool = commandContaining(p.gcloud, "node-pools create");
        QVERIFY(pool.find("--num-nodes 0 --enable-autoscaling --total-min-nodes 0 --total-max-nodes 3") != std::string::npos);
    }

    void poolSpansEveryZoneOfTheRegionThatListsTheMachineType()
    {
        const GkePreparation p = prepareGke(request("l4", 4, 1, "us-central1"));
        const std::vector<std::string> expected{"us-central1-a", "us-central1-b", "us-central1-c"};
        QVERIFY(p.zones == expected);
        QVERIFY(commandContaining(p.gcloud, "node-pools create").find("--node-locations us-central1-a,us-central1-b,us-central1-c")
                != std::string::npos);
        QCOMPARE(itemById(p, "zones")->status, CheckStatus::Pass);
    }

    void singleZoneIsAWarning()
    {
        // us-east4 lists a2-ultragpu only in us-east4-c.
        const GkePreparation p = prepareGke(request("a100-80gb", 8, 1, "us-east4"));
        QCOMPARE(p.zones.size(), std::size_t(1));
        QCOMPARE(itemById(p, "zones")->status, CheckStatus::Warn);
    }

    void machineTypeZonesOverrideTheAcceleratorsZones()
    {
        // a2-megagpu-16g is listed in fewer zones than the A100 40GB itself.
        const GkePreparation p = prepareGke(request("a100-40gb", 16, 1, "us-central1"));
        QCOMPARE(QString::fromStdString(p.machineType), QStringLiteral("a2-megagpu-16g"));
        QVERIFY(p.zones.size() == 4);
        QCOMPARE(errorField(request("a100-40gb", 16, 1, "us-west1")), QStringLiteral("region"));
    }

    void multiNodeJobStaysInOneZone()
    {
        const GkePreparation one = prepareGke(request("h100-80gb", 8, 1, "us-east4"));
        const GkePreparation two = prepareGke(request("h100-80gb", 8, 2, "us-east4"));
        QVERIFY(one.manifest.find("podAffinity") == std::string::npos);
        QVERIFY(two.manifest.find("podAffinity") != std::string::npos);
        QVERIFY(two.manifest.find("topologyKey: topology.kubernetes.io/zone") != std::string::npos);
        QVERIFY(itemById(two, "multi_node") && !itemById(one, "multi_node"));
    }

    void manifestCarriesThePlansValues()
    {
        GkeRequest r = request("l4", 4, 2, "us-central1");
        r.run.training.seqLen = 1024;
        r.run.training.microBatch = 2;
        r.run.training.expandableSegments = true;
        const GkePreparation p = prepareGke(r);
        const std::string& y = p.manifest;
        QCOMPARE(QString::fromStdString(p.jobName), QStringLiteral("shardwise-qwen2-5-7b-fsdp2-reshard"));
        QVERIFY(y.find("completionMode: Indexed") != std::string::npos);
        QVERIFY(y.find("completions: 2\n") != std::string::npos);
        QVERIFY(y.find("parallelism: 2\n") != std::string::npos);
        QVERIFY(y.find("nvidia.com/gpu: 4\n") != std::string::npos);
        QVERIFY(y.find("value: \"8\"") != std::string::npos); // WORLD_SIZE
        QVERIFY(y.find("cloud.google.com/gke-accelerator: nvidia-l4") != std::string::npos);
        QVERIFY(y.find("--model qwen2.5-7b --strategy fsdp2_reshard --device cuda --precision bf16 --seq 1024 --micro-batch 2")
                != std::string::npos);
        QVERIFY(y.find("expandable_segments:True") != std::string::npos);
        QVERIFY(y.find("value: \"shardwise-qwen2-5-7b-fsdp2-reshard-0.shardwise-qwen2-5-7b-fsdp2-reshard\"") != std::string::npos);
        QVERIFY(y.find("RANK=$((JOB_COMPLETION_INDEX * GPUS_PER_NODE + local_rank))") != std::string::npos);
        QVERIFY(y.find("subdomain: shardwise-qwen2-5-7b-fsdp2-reshard") != std::string::npos);
        QVERIFY(y.find("clusterIP: None") != std::string::npos);
    }

    void manifestIsWellFormedYamlStructure()
    {
        // No YAML library in C++ here (test_cloud_cli parses it with python3-yaml): check that the two
        // documents are there, no tab indents, even indentation outside the script block.
        const GkePreparation p = prepareGke(request("h200", 8, 2, "us-central1"));
        QVERIFY(p.manifest.rfind("apiVersion: v1\nkind: Service\n", 0) == 0);
        QVERIFY(p.manifest.find("\n---\napiVersion: batch/v1\nkind: Job\n") != std::string::npos);
        std::istringstream lines(p.manifest);
        std::string line;
        bool inScript = false;
        std::size_t scriptIndent = 0;
        while (std::getline(lines, line)) {
            QVERIFY2(line.find('\t') == std::string::npos, line.c_str());
            const std::size_t indent = line.find_first_not_of(' ');
            if (inScript && indent != std::string::npos && indent >= scriptIndent)
                continue;
            inScript = false;
            QVERIFY2(indent == std::string::npos || indent % 2 == 0, line.c_str());
            if (line.size() >= 3 && line.compare(line.size() - 3, 3, "- |") == 0) {
                inScript = true;
                scriptIndent = indent + 2;
            }
        }
    }

    void everyNumberInTheOutputComesFromThePlanOrTheTable()
    {
        // Traceability: each standalone number in the commands and manifest is one of the plan's
        // numbers (GPUs per node, nodes, total GPUs, sequence, micro-batch, steps) or a number the table
        // carries (ports, system pool, version strings, machine type names).
        GkeRequest r = request("l4", 4, 3, "europe-west4");
        r.run.training.seqLen = 3072;
        r.run.training.microBatch = 3;
        r.run.warmupSteps = 7;
        r.run.timedSteps = 11;
        const GkePreparation p = prepareGke(r);
        const GkeCatalog& c = GkeCatalog::builtin();
        const std::set<std::string> allowed{"0", "1", "3", "4", "12", "3072", "7", "11",
                                            std::to_string(c.defaults().rendezvousPort),
                                            std::to_string(c.defaults().systemPool.nodesPerZone)};
        std::string text = p.manifest;
        for (const auto& cmd : p.gcloud)
            text += "\n" + cmd.command;
        for (const auto& cmd : p.kubectl)
            text += "\n" + cmd.command;
        // Names that contain digits as part of a word (g2-standard-48, europe-west4-a, qwen2.5-7b,
        // nvidia-l4, NVIDIA_L4_GPUS, batch/v1) are not standalone numbers.
        const std::regex number("(^|[\\s=:,\"(])(\\d+)(?=$|[\\s,\")])");
        for (std::sregex_iterator it(text.begin(), text.end(), number), end; it != end; ++it) {
            const std::string n = (*it)[2];
            QVERIFY2(allowed.count(n), ("untraceable number " + n).c_str());
        }
    }

    void malformedTableNamesTheField()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("bad.json"));
        std::ofstream(file.toStdString())
            << "{\"source\":{\"zones\":\"z\",\"machine_types\":\"m\",\"gke\":\"g\",\"transcribed\":\"t\",\"caveat\":\"c\"},"
            << "\"gke\":{},\"accelerators\":[]}";
        try {
            GkeCatalog::load(file.toStdString());
            QFAIL("accepted a malformed table");
        } catch (const CloudError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("gke_table"));
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("gke.image_type")), e.what());
        }
    }

    void dnsLabelsAreValidKubernetesNames_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("label");
        QTest::newRow("dots") << "Qwen2.5-7B" << "qwen2-5-7b";
        QTest::newRow("underscores") << "fsdp2_reshard_offload" << "fsdp2-reshard-offload";
        QTest::newRow("edges") << "--x--" << "x";
    }
    void dnsLabelsAreValidKubernetesNames()
    {
        QFETCH(QString, text);
        QFETCH(QString, label);
        QCOMPARE(QString::fromStdString(dnsLabel(text.toStdString())), label);
    }
};

QTEST_GUILESS_MAIN(TestCloud)
#include "test_cloud.moc"
