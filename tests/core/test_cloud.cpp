// core/cloud: the GKE table and the preparation derived from a plan and a region.
#include "shardwise/cloud/gke_preparation.hpp"
#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/presets.hpp"

#include <nlohmann/json.hpp>

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

// What the CLI and the Cloud page pass: the planner's verdict on the request's strategy, the plan made
// with the request's own host RAM (ClusterSpec::hostRamGiB).
PlanVerdict plannerVerdict(const GkeRequest& r)
{
    EstimateInput in;
    in.model = r.run.model;
    in.gpu = r.gpu;
    in.cluster = r.cluster;
    in.cluster.intraNode = r.gpu.nvlinkGBps > 0 ? Interconnect::NvLink : Interconnect::Pcie;
    in.training = r.run.training;
    const Plan plan = makePlan(in);
    const Estimate& e = plan.candidate(r.run.strategy).estimate;
    return { e.fitsDevice,
             e.memory.peakBytes() / kGiB,
             r.gpu.memoryGiB(),
             plan.recommendation.strategy == r.run.strategy,
             e.hostBytesPerNode / kGiB,
             Calibration {}.hostUsableFraction };
}

GkeRequest offloadRequest(const std::string& gpu, const std::string& region, Strategy strategy = Strategy::Zero3Offload,
                          const std::string& model = "qwen2.5-7b")
{
    GkeRequest r = request(gpu, 1, 1, region);
    r.run.model = resolveModel(model);
    r.run.strategy = strategy;
    r.verdict = plannerVerdict(r);
    return r;
}

// The builtin table as JSON, to write altered copies of it.
nlohmann::json builtinTable()
{
    std::ifstream in(GkeCatalog::defaultPath());
    return nlohmann::json::parse(in);
}

QString writeTable(const QTemporaryDir& dir, const nlohmann::json& table)
{
    const QString file = dir.filePath(QStringLiteral("table.json"));
    std::ofstream(file.toStdString()) << table.dump();
    return file;
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
        QTest::newRow("A100 40GB") << "a100-40gb" << 8 << "us-central1"
                                   << "nvidia-tesla-a100"
                                   << "A2"
                                   << "a2-highgpu-8g";
        QTest::newRow("A100 80GB") << "a100-80gb" << 4 << "us-central1"
                                   << "nvidia-a100-80gb"
                                   << "A2"
                                   << "a2-ultragpu-4g";
        QTest::newRow("L4") << "l4" << 4 << "us-central1"
                            << "nvidia-l4"
                            << "G2"
                            << "g2-standard-48";
        QTest::newRow("H100") << "h100-80gb" << 8 << "us-east4"
                              << "nvidia-h100-80gb"
                              << "A3"
                              << "a3-highgpu-8g";
        QTest::newRow("H200") << "h200" << 8 << "us-central1"
                              << "nvidia-h200-141gb"
                              << "A3"
                              << "a3-ultragpu-8g";
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
                          + ",gpu-driver-version=default")
                != std::string::npos);
        QVERIFY(pool.find("--machine-type " + machineType.toStdString()) != std::string::npos);
    }

    void rtx4090HasNoGkeOffering()
    {
        QString message;
        QCOMPARE(errorField(request("rtx4090", 1, 1, "us-central1"), &message), QStringLiteral("gpu"));
        QVERIFY2(message.contains(QStringLiteral("RTX 4090")) && message.contains(QStringLiteral("no GKE offering")),
                 qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("l4")) && message.contains(QStringLiteral("h200")),
                 qPrintable(message));
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
        QVERIFY2(message.contains(QStringLiteral("us-central1"))
                     && message.contains(QStringLiteral("nvidia-h200-141gb")),
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
        QVERIFY(pool.find("--num-nodes 0 --enable-autoscaling --total-min-nodes 0 --total-max-nodes 3")
                != std::string::npos);
    }

    void poolSpansEveryZoneOfTheRegionThatListsTheMachineType()
    {
        const GkePreparation p = prepareGke(request("l4", 4, 1, "us-central1"));
        const std::vector<std::string> expected { "us-central1-a", "us-central1-b", "us-central1-c" };
        QVERIFY(p.zones == expected);
        QVERIFY(commandContaining(p.gcloud, "node-pools create")
                    .find("--node-locations us-central1-a,us-central1-b,us-central1-c")
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
        QVERIFY(
            y.find(
                "--model qwen2.5-7b --strategy fsdp2_reshard --device cuda --precision bf16 --seq 1024 --micro-batch 2")
            != std::string::npos);
        QVERIFY(y.find("expandable_segments:True") != std::string::npos);
        QVERIFY(y.find("value: \"shardwise-qwen2-5-7b-fsdp2-reshard-0.shardwise-qwen2-5-7b-fsdp2-reshard\"")
                != std::string::npos);
        QVERIFY(y.find("RANK=$((JOB_COMPLETION_INDEX * GPUS_PER_NODE + local_rank))") != std::string::npos);
        QVERIFY(y.find("subdomain: shardwise-qwen2-5-7b-fsdp2-reshard") != std::string::npos);
        QVERIFY(y.find("clusterIP: None") != std::string::npos);
    }

    void manifestAsksTheRunnerForCudaGraphsOnlyWhenTheRunHasThem()
    {
        GkeRequest r = request("h100-80gb", 8, 1, "us-central1");
        QVERIFY(prepareGke(r).manifest.find("--cuda-graphs") == std::string::npos);
        r.run.training.cudaGraphs = true;
        QVERIFY(prepareGke(r).manifest.find("--warmup 5 --steps 15 --cuda-graphs") != std::string::npos);
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
        const std::set<std::string> allowed { "0",
                                              "1",
                                              "3",
                                              "4",
                                              "12",
                                              "3072",
                                              "7",
                                              "11",
                                              std::to_string(c.defaults().rendezvousPort),
                                              std::to_string(c.defaults().systemPool.nodesPerZone) };
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
        std::ofstream(file.toStdString()) << "{\"source\":{\"zones\":\"z\",\"machine_types\":\"m\",\"gke\":\"g\","
                                             "\"transcribed\":\"t\",\"caveat\":\"c\"},"
                                          << "\"gke\":{},\"accelerators\":[]}";
        try {
            GkeCatalog::load(file.toStdString());
            QFAIL("accepted a malformed table");
        } catch (const CloudError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("gke_table"));
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("gke.image_type")), e.what());
        }
    }

    void everyMachineTypeCarriesItsMemory_data()
    {
        // Google's figures (GB of 2^30 bytes), as transcribed into resources/gke/accelerators.json.
        QTest::addColumn<QString>("accelerator");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<QString>("machineType");
        QTest::addColumn<double>("memoryGB");
        QTest::newRow("g2-standard-4") << "nvidia-l4" << 1 << "g2-standard-4" << 16.0;
        QTest::newRow("g2-standard-8") << "nvidia-l4" << 1 << "g2-standard-8" << 32.0;
        QTest::newRow("g2-standard-12") << "nvidia-l4" << 1 << "g2-standard-12" << 48.0;
        QTest::newRow("g2-standard-16") << "nvidia-l4" << 1 << "g2-standard-16" << 64.0;
        QTest::newRow("g2-standard-32") << "nvidia-l4" << 1 << "g2-standard-32" << 128.0;
        QTest::newRow("g2-standard-24") << "nvidia-l4" << 2 << "g2-standard-24" << 96.0;
        QTest::newRow("g2-standard-96") << "nvidia-l4" << 8 << "g2-standard-96" << 384.0;
        QTest::newRow("a2-highgpu-1g") << "nvidia-tesla-a100" << 1 << "a2-highgpu-1g" << 85.0;
        QTest::newRow("a2-megagpu-16g") << "nvidia-tesla-a100" << 16 << "a2-megagpu-16g" << 1360.0;
        QTest::newRow("a2-ultragpu-1g") << "nvidia-a100-80gb" << 1 << "a2-ultragpu-1g" << 170.0;
        QTest::newRow("a3-highgpu-1g") << "nvidia-h100-80gb" << 1 << "a3-highgpu-1g" << 234.0;
        QTest::newRow("a3-highgpu-8g") << "nvidia-h100-80gb" << 8 << "a3-highgpu-8g" << 1872.0;
        QTest::newRow("a3-ultragpu-8g") << "nvidia-h200-141gb" << 8 << "a3-ultragpu-8g" << 2952.0;
    }
    void everyMachineTypeCarriesItsMemory()
    {
        QFETCH(QString, accelerator);
        QFETCH(int, gpus);
        QFETCH(QString, machineType);
        QFETCH(double, memoryGB);
        const GkeCatalog& c = GkeCatalog::builtin();
        for (const GkeAcceleratorOffer& o : c.offers())
            for (const GkeMachineType& m : o.machineTypes)
                QVERIFY2(m.memoryGB && *m.memoryGB > 0, m.name.c_str());
        const GkeMachineType* m = nullptr;
        for (const GkeMachineType* t : c.find(accelerator.toStdString())->machineTypesFor(gpus))
            if (t->name == machineType.toStdString())
                m = t;
        QVERIFY(m);
        QCOMPARE(m->gpus, gpus);
        QCOMPARE(*m->memoryGB, memoryGB);
        QCOMPARE(*m->memoryGiB(), memoryGB); // Google's GB of machine memory are binary
    }

    void oneL4ComesOnFiveMachineTypesTheSmallestBeingTheDefault()
    {
        const GkeAcceleratorOffer* l4 = GkeCatalog::builtin().find("nvidia-l4");
        QVERIFY(l4);
        std::vector<std::string> names;
        for (const GkeMachineType* m : l4->machineTypesFor(1))
            names.push_back(m->name);
        QVERIFY(names
                == std::vector<std::string>(
                    { "g2-standard-4", "g2-standard-8", "g2-standard-12", "g2-standard-16", "g2-standard-32" }));
        QCOMPARE(QString::fromStdString(l4->machineTypeFor(1)->name), QStringLiteral("g2-standard-4"));
        QCOMPARE(QString::fromStdString(l4->machineTypeFor(2)->name), QStringLiteral("g2-standard-24"));
        QVERIFY(l4->gpuCounts() == std::vector<int>({ 1, 2, 4, 8 })); // each count once
        // Every G2 type is listed in the accelerator's zones (vms.csv lists the same 42 for each).
        for (const GkeMachineType& m : l4->machineTypes)
            QVERIFY2(m.zones.empty(), m.name.c_str());
        // The smallest whose usable RAM holds the host state: 40 GiB needs 50 GiB of RAM at 80 %.
        QCOMPARE(QString::fromStdString(l4->machineTypeHolding(1, 40.0, 0.8)->name), QStringLiteral("g2-standard-16"));
        QCOMPARE(QString::fromStdString(l4->machineTypeHolding(1, 12.8, 0.8)->name), QStringLiteral("g2-standard-4"));
        QCOMPARE(QString::fromStdString(l4->machineTypeHolding(1, 102.4, 0.8)->name), QStringLiteral("g2-standard-32"));
        QVERIFY(!l4->machineTypeHolding(1, 102.5, 0.8));
        // A100 40GB has one machine type per GPU count.
        QCOMPARE(GkeCatalog::builtin().find("nvidia-tesla-a100")->machineTypesFor(1).size(), std::size_t(1));
    }

    void machineTypesOfOneGpuCountAreListedSmallestFirst()
    {
        nlohmann::json table = builtinTable();
        auto& types = table["accelerators"][2]["machine_types"];
        QCOMPARE(QString::fromStdString(types[1]["name"].get<std::string>()), QStringLiteral("g2-standard-8"));
        std::swap(types[0], types[1]);
        QTemporaryDir dir;
        try {
            GkeCatalog::load(writeTable(dir, table).toStdString());
            QFAIL("accepted g2-standard-8 before g2-standard-4");
        } catch (const CloudError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(
                         QStringLiteral("accelerators[2].machine_types[1].memory_gb: machine types "
                                        "with 1 GPUs must be listed smallest memory first")),
                     e.what());
        }
        nlohmann::json twice = builtinTable();
        twice["accelerators"][2]["machine_types"][1]["name"] = "g2-standard-4";
        try {
            GkeCatalog::load(writeTable(dir, twice).toStdString());
            QFAIL("accepted a machine type listed twice");
        } catch (const CloudError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(
                         QStringLiteral("machine_types[1].name: 'g2-standard-4' listed twice")),
                     e.what());
        }
    }

    void machineMemoryIsValidatedByTheReader_data()
    {
        QTest::addColumn<QString>("memory");
        QTest::newRow("zero") << "0";
        QTest::newRow("negative") << "-16";
        QTest::newRow("string") << "\"16\"";
        QTest::newRow("null") << "null";
    }
    void machineMemoryIsValidatedByTheReader()
    {
        QFETCH(QString, memory);
        nlohmann::json table = builtinTable();
        table["accelerators"][2]["machine_types"][0]["memory_gb"] = nlohmann::json::parse(memory.toStdString());
        QTemporaryDir dir;
        try {
            GkeCatalog::load(writeTable(dir, table).toStdString());
            QFAIL("accepted a bad memory_gb");
        } catch (const CloudError& e) {
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("gke_table"));
            QVERIFY2(QString::fromUtf8(e.what()).contains(
                         QStringLiteral("accelerators[2].machine_types[0].memory_gb: expected a number > 0")),
                     e.what());
        }
    }

    void offloadOnOneL4TakesTheSmallestG2TypeThatHoldsIt()
    {
        // qwen2.5-7b zero3_offload keeps about 57 GiB of host state on its one node (pure bf16). The default
        // for one L4, g2-standard-4 (16 GB), has 12.8 GiB usable at the planner's 80 %; g2-standard-8 (25.6),
        // -12 (38.4) and -16 (51.2) are short as well; g2-standard-32 (128 GB, 102.4 GiB usable) holds it.
        const GkeRequest r = offloadRequest("l4", "us-central1");
        QVERIFY(r.verdict->hostGiBPerNode > 51.2 && r.verdict->hostGiBPerNode < 60);
        const GkePreparation p = prepareGke(r);
        QCOMPARE(QString::fromStdString(p.machineType), QStringLiteral("g2-standard-32"));
        const ChecklistItem* host = itemById(p, "host_memory");
        QVERIFY(host);
        QCOMPARE(host->status, CheckStatus::Pass);
        const QString title = QString::fromStdString(host->title);
        QVERIFY2(title.startsWith(QStringLiteral("zero3_offload fits in host RAM: ")
                                  + QString::number(r.verdict->hostGiBPerNode, 'f', 1)
                                  + QStringLiteral(" GiB per node")),
                 qPrintable(title));
        QVERIFY2(title.contains(QStringLiteral("g2-standard-32 has 128 GB (128.0 GiB, 102.4 GiB usable)")),
                 qPrintable(title));
        QVERIFY2(title.contains(QStringLiteral("chosen over g2-standard-4, the default for 1 GPU per node, whose 16 GB "
                                               "(12.8 GiB usable) would have been too small")),
                 qPrintable(title));
        // Everything else follows the chosen type: node pool, its zones, the accelerator and zones items.
        QCOMPARE(QString::fromStdString(p.nodePoolName), QStringLiteral("g2-standard-32"));
        QVERIFY(p.zones == std::vector<std::string>({ "us-central1-a", "us-central1-b", "us-central1-c" }));
        const std::string pool = commandContaining(p.gcloud, "node-pools create");
        QVERIFY2(pool.find("node-pools create g2-standard-32 ") != std::string::npos, pool.c_str());
        QVERIFY2(pool.find("--machine-type g2-standard-32 --accelerator type=nvidia-l4,count=1,") != std::string::npos,
                 pool.c_str());
        QVERIFY2(pool.find("g2-standard-4") == std::string::npos, pool.c_str());
        QVERIFY2(itemById(p, "accelerator")->title.find("g2-standard-32 carries 1 per node") != std::string::npos,
                 itemById(p, "accelerator")->title.c_str());
        QVERIFY2(itemById(p, "zones")->title.find("list g2-standard-32: ") != std::string::npos,
                 itemById(p, "zones")->title.c_str());
        QVERIFY2(itemById(p, "quota")->title.find(" at least 1 ") != std::string::npos,
                 itemById(p, "quota")->title.c_str());
        QVERIFY2(p.manifest.find("g2-standard-4") == std::string::npos, p.manifest.c_str());
        // Two L4s per node: g2-standard-24 (96 GB, 76.8 GiB usable) is the only type and holds it.
        GkeRequest two = request("l4", 2, 1, "us-central1");
        two.run.strategy = Strategy::Zero3Offload;
        two.verdict = plannerVerdict(two);
        QCOMPARE(QString::fromStdString(prepareGke(two).machineType), QStringLiteral("g2-standard-24"));
    }

    void aPlanThatKeepsLittleOrNothingInHostRamKeepsTheDefault_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("strategy");
        QTest::newRow("7B fsdp2_reshard (no host state)") << "qwen2.5-7b" << int(Strategy::Fsdp2Reshard);
        QTest::newRow("7B zero3 (no host state)") << "qwen2.5-7b" << int(Strategy::Zero3);
        QTest::newRow("0.5B zero3_offload (fits 12.8 GiB)") << "qwen2.5-0.5b" << int(Strategy::Zero3Offload);
    }
    void aPlanThatKeepsLittleOrNothingInHostRamKeepsTheDefault()
    {
        QFETCH(QString, model);
        QFETCH(int, strategy);
        const GkeRequest r = offloadRequest("l4", "us-central1", Strategy(strategy), model.toStdString());
        const GkePreparation p = prepareGke(r);
        QCOMPARE(QString::fromStdString(p.machineType), QStringLiteral("g2-standard-4"));
        QCOMPARE(QString::fromStdString(p.nodePoolName), QStringLiteral("g2-standard-4"));
        const ChecklistItem* host = itemById(p, "host_memory");
        if (Strategy(strategy) != Strategy::Zero3Offload) {
            QCOMPARE(r.verdict->hostGiBPerNode, 0.0);
            QVERIFY(!host);
            return;
        }
        QVERIFY(r.verdict->hostGiBPerNode > 0 && r.verdict->hostGiBPerNode <= 16.0 * 0.8);
        QVERIFY(host);
        QCOMPARE(host->status, CheckStatus::Pass);
        QVERIFY2(host->title.find("g2-standard-4 has 16 GB") != std::string::npos, host->title.c_str());
        QVERIFY2(host->title.find("chosen over") == std::string::npos, host->title.c_str());
    }

    void offloadTooBigForEveryOneL4TypeWarnsNamingTheLargest()
    {
        // qwen2.5-14b zero3_offload keeps more host state than g2-standard-32, the largest one-L4 type, holds
        // (128 GB, 102.4 GiB usable at the planner's 80 %).
        const GkeRequest r = offloadRequest("l4", "us-central1", Strategy::Zero3Offload, "qwen2.5-14b");
        QVERIFY(r.verdict->hostGiBPerNode > 128.0 * 0.8);
        const GkePreparation p = prepareGke(r);
        QCOMPARE(QString::fromStdString(p.machineType), QStringLiteral("g2-standard-32"));
        const ChecklistItem* host = itemById(p, "host_memory");
        QVERIFY(host);
        QCOMPARE(host->status, CheckStatus::Warn); // as a GPU-memory misfit is
        const QString title = QString::fromStdString(host->title);
        const double shortGiB = r.verdict->hostGiBPerNode - 128.0 * 0.8;
        QVERIFY2(title.startsWith(QStringLiteral("zero3_offload does not fit in host RAM")), qPrintable(title));
        QVERIFY2(title.contains(QStringLiteral("g2-standard-32 has 128 GB")), qPrintable(title));
        QVERIFY2(title.contains(QStringLiteral("102.4 GiB usable")), qPrintable(title));
        QVERIFY2(title.contains(QString::number(r.verdict->hostGiBPerNode, 'f', 1) + QStringLiteral(" GiB per node")),
                 qPrintable(title));
        QVERIFY2(title.contains(QString::number(shortGiB, 'f', 1) + QStringLiteral(" GiB short")), qPrintable(title));
        QVERIFY2(title.endsWith(QStringLiteral("; g2-standard-32 is the largest machine type with 1 GPU per node")),
                 qPrintable(title));
        QVERIFY2(commandContaining(p.gcloud, "--machine-type g2-standard-32 ").size() > 0,
                 "node pool not on g2-standard-32");
        // The plan's 512 GiB default did fit it: the detail says why the VM's RAM is what counts.
        QVERIFY2(host->detail.find("not the plan's 512 GiB") != std::string::npos, host->detail.c_str());
        // An accelerator with one type per GPU count does not call it the largest.
        nlohmann::json table = builtinTable();
        auto& types = table["accelerators"][2]["machine_types"];
        types.erase(types.begin() + 1, types.begin() + 5); // g2-standard-8 .. -32
        QTemporaryDir dir;
        const GkeCatalog onlyDefault = GkeCatalog::load(writeTable(dir, table).toStdString());
        const GkePreparation q = prepareGke(offloadRequest("l4", "us-central1"), onlyDefault);
        QCOMPARE(QString::fromStdString(q.machineType), QStringLiteral("g2-standard-4"));
        QCOMPARE(itemById(q, "host_memory")->status, CheckStatus::Warn);
        QVERIFY2(itemById(q, "host_memory")->title.find("largest") == std::string::npos,
                 itemById(q, "host_memory")->title.c_str());
    }

    void offloadOnAVmWithEnoughRamPasses_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<QString>("region");
        QTest::addColumn<QString>("machineType");
        QTest::newRow("A100 80GB") << "a100-80gb"
                                   << "us-central1"
                                   << "a2-ultragpu-1g";
        QTest::newRow("H100") << "h100-80gb"
                              << "us-east4"
                              << "a3-highgpu-1g";
    }
    void offloadOnAVmWithEnoughRamPasses()
    {
        QFETCH(QString, gpu);
        QFETCH(QString, region);
        QFETCH(QString, machineType);
        const GkePreparation p = prepareGke(offloadRequest(gpu.toStdString(), region.toStdString()));
        QCOMPARE(QString::fromStdString(p.machineType), machineType);
        for (const ChecklistItem& i : p.checklist)
            QVERIFY2(!(i.id == "host_memory" && i.status != CheckStatus::Pass), i.title.c_str());
        const ChecklistItem* host = itemById(p, "host_memory");
        QVERIFY(host);
        QVERIFY2(host->title.find("zero3_offload fits in host RAM") == 0, host->title.c_str());
        QVERIFY2(host->title.find(machineType.toStdString() + " has ") != std::string::npos, host->title.c_str());
    }

    void vmRamSufficesWhereThePlansDidNot()
    {
        // The form said 32 GiB (25.6 GiB usable): the planner calls fsdp2_reshard_offload a misfit in
        // host memory only; a2-ultragpu-1g has 170 GB, and the GPU fits it.
        GkeRequest r = request("a100-80gb", 1, 1, "us-central1");
        r.run.strategy = Strategy::Fsdp2ReshardOffload;
        r.cluster.hostRamGiB = 32;
        r.verdict = plannerVerdict(r);
        QVERIFY(r.verdict->fitsDevice);
        QVERIFY(r.verdict->hostGiBPerNode > 32 * 0.8);
        const GkePreparation p = prepareGke(r);
        const ChecklistItem* host = itemById(p, "host_memory");
        QVERIFY(host);
        QCOMPARE(host->status, CheckStatus::Pass);
        QVERIFY2(host->title.find("the VM's RAM suffices where the plan's 32 GiB (25.6 GiB usable) did not")
                     != std::string::npos,
                 host->title.c_str());
        // The GPU item judges the GPU only: it does not repeat the plan's host misfit as a GPU misfit.
        QCOMPARE(itemById(p, "memory")->status, CheckStatus::Pass);
        QVERIFY2(itemById(p, "memory")->title.find("fsdp2_reshard_offload fits: ") == 0,
                 itemById(p, "memory")->title.c_str());
    }

    void unknownMachineMemoryAsksToConfirmIt()
    {
        nlohmann::json table = builtinTable();
        for (auto& o : table["accelerators"])
            for (auto& m : o["machine_types"])
                if (m["name"] == "g2-standard-4")
                    m.erase("memory_gb");
        QTemporaryDir dir;
        const GkeCatalog catalog = GkeCatalog::load(writeTable(dir, table).toStdString());
        QVERIFY(!catalog.find("nvidia-l4")->machineTypeFor(1)->memoryGB);
        const GkePreparation p = prepareGke(offloadRequest("l4", "us-central1"), catalog);
        const ChecklistItem* host = itemById(p, "host_memory");
        QVERIFY(host);
        QCOMPARE(host->status, CheckStatus::Check);
        QVERIFY2(host->title.find("does not record g2-standard-4's memory") != std::string::npos, host->title.c_str());
        QVERIFY2(host->command.find("gcloud compute machine-types describe g2-standard-4 --zone us-central1-a") == 0,
                 host->command.c_str());
    }

    void dnsLabelsAreValidKubernetesNames_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("label");
        QTest::newRow("dots") << "Qwen2.5-7B"
                              << "qwen2-5-7b";
        QTest::newRow("underscores") << "fsdp2_reshard_offload"
                                     << "fsdp2-reshard-offload";
        QTest::newRow("edges") << "--x--"
                               << "x";
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
