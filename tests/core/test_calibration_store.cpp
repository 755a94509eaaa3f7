// Calibration from the run store, on a real SQLite file: probes round-trip; runs recorded the way
// `shardwise-cli run` records them become observations; the calibration says where it came from;
// and `shardwise-cli compare` reports predicted against measured as a table, JSON and CSV.
#include "shardwise/calibrate/from_store.hpp"
#include "shardwise/calibrate/network.hpp"
#include "shardwise/spec/presets.hpp"
#include "shardwise/store/probes.hpp"
#include "shardwise/store/run_recorder.hpp"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace shardwise;
using namespace shardwise::store;

namespace {

// How the GPU in these runs "really" behaves: far enough from the presets that calibration matters.
Calibration truth()
{
    Calibration c;
    c.matmulEfficiency = 0.38;
    c.activationBytesScale = 1.25;
    return c;
}

// What the current runner's start events report about its behaviour.
protocol::SoftwareVersions currentRunner()
{
    protocol::SoftwareVersions v;
    v.runner = "0.1.0";
    v.activations = protocol::kNormInputsRecomputed;
    v.offloadStaging = protocol::kOffloadStagingInPlaceHostStepOverlapped;
    v.kernels = "fused rotary + SwiGLU + cross-entropy on CUDA bf16, ATen elsewhere";
    return v;
}

std::int64_t recordRun(Database& db, const char* model, Strategy s, int seq, DeviceKind device, bool oom,
                       const protocol::SoftwareVersions& versions = currentRunner(),
                       const std::string& importSource = {})
{
    RunConfig rc;
    rc.model = *PresetCatalog::builtin().findModel(model);
    rc.strategy = s;
    rc.device = device;
    rc.training.seqLen = seq;
    rc.warmupSteps = 1;
    rc.timedSteps = 2;
    RunOrigin origin;
    origin.nodes = { { "box-a", std::nullopt } };
    origin.launcher = "shardwise";
    origin.importSource = importSource;
    origin.gpuId = "h200";
    origin.interconnect = "nvlink";
    RunRecorder recorder(db, rc, origin);
    protocol::StartEvent start;
    start.config = rc;
    start.host = "box-a";
    start.deviceName = "NVIDIA H200";
    start.versions = versions;
    recorder.record(start);
    EstimateInput in;
    in.model = rc.model;
    in.gpu = *PresetCatalog::builtin().findGpu("h200");
    in.training = rc.training;
    const Estimate e = estimate(in, s, truth());
    if (oom) {
        protocol::ErrorEvent err;
        err.kind = protocol::ErrorKind::Oom;
        err.message = "CUDA out of memory";
        err.step = 0;
        recorder.record(err);
    } else {
        protocol::SummaryEvent sum;
        sum.warmupSteps = 1;
        sum.timedSteps = 2;
        sum.tokensPerS = e.throughput.tokensPerS;
        sum.medianStepS = e.throughput.stepTimeS;
        sum.memory.peakAllocated = static_cast<std::int64_t>(e.memory.allocatedPeak());
        sum.memory.peakReserved = static_cast<std::int64_t>(e.memory.allocatedPeak() * 1.08);
        recorder.record(sum);
    }
    recorder.finish(recorder.statusFromEvents());
    return recorder.runId();
}

// A rehearsal of one rank of world `world`, recorded as shardwise-runner --rehearse-world reports it: its
// memory is the truth's for one rank at that world; its summary's tokens/s (compute only, no
// communication) is what a runner would have measured had it counted one.
std::int64_t recordRehearsal(Database& db, const char* model, Strategy s, int seq, int world)
{
    RunConfig rc;
    rc.model = *PresetCatalog::builtin().findModel(model);
    rc.strategy = s;
    rc.device = DeviceKind::Cuda;
    rc.training.seqLen = seq;
    rc.warmupSteps = 1;
    rc.timedSteps = 2;
    rc.rehearseWorld = world;
    RunOrigin origin;
    origin.nodes = { { "box-a", std::nullopt } };
    origin.launcher = "shardwise";
    origin.gpuId = "h200";
    origin.interconnect = "nvlink";
    RunRecorder recorder(db, rc, origin);
    protocol::StartEvent start;
    start.config = rc;
    start.host = "box-a";
    start.deviceName = "NVIDIA H200";
    start.versions = currentRunner();
    recorder.record(start);
    EstimateInput in;
    in.model = rc.model;
    in.gpu = *PresetCatalog::builtin().findGpu("h200");
    in.training = rc.training;
    applyRunnerBehaviour(in, start.versions);
    if (!applyRehearsal(in, rc))
        return 0;
    const Estimate e = estimate(in, s, truth());
    protocol::SummaryEvent sum;
    sum.warmupSteps = 1;
    sum.timedSteps = 2;
    sum.tokensPerS = e.throughput.tokensPerS * 3.0; // compute only: faster than world N could be
    sum.medianStepS = e.throughput.stepTimeS / 3.0;
    sum.rehearsedWorld = world;
    sum.memory.peakAllocated = static_cast<std::int64_t>(e.memory.allocatedPeak());
    sum.memory.peakReserved = static_cast<std::int64_t>(e.memory.allocatedPeak() * 1.08);
    recorder.record(sum);
    recorder.finish(recorder.statusFromEvents());
    return recorder.runId();
}

struct CliResult {
    int exitCode = -1;
    QByteArray out;
    QString err;
};

CliResult runCli(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(SHARDWISE_CLI), args);
    CliResult r;
    if (!p.waitForFinished(60000))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

} // namespace

class TestCalibrationStore : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_db;
    int m_gpuRuns = 0;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("runs.sqlite"));
        Database db = Database::open(m_db.toStdString());
        for (const char* model : { "qwen2.5-0.5b", "qwen2.5-1.5b" })
            for (int seq : { 1024, 4096 })
                for (Strategy s : { Strategy::Zero0, Strategy::Fsdp2Reshard }) {
                    recordRun(db, model, s, seq, DeviceKind::Cuda, false);
                    ++m_gpuRuns;
                }
        recordRun(db, "qwen2.5-7b", Strategy::Fsdp2NoReshard, 8192, DeviceKind::Cuda, true);
        ++m_gpuRuns;
        recordRun(db, "qwen2.5-0.5b", Strategy::Zero0, 1024, DeviceKind::Cpu, false); // measures a CPU
        StoredProbe probe;
        probe.node = "box-a";
        probe.gpuId = "h200";
        probe.event.host = "box-a";
        probe.event.deviceName = "NVIDIA H200";
        probe.event.results = { { "cpu_adamw", 0, 2.0e9, "params/s", 3 }, { "h2d_pinned", 1 << 28, 45.0, "GB/s", 5 } };
        saveProbe(db, probe);
    }

    void probesRoundTrip()
    {
        const Database db = Database::open(m_db.toStdString());
        const auto all = listProbes(db);
        QCOMPARE(all.size(), std::size_t { 1 });
        QCOMPARE(QString::fromStdString(all.front().node), QStringLiteral("box-a"));
        QCOMPARE(all.front().event.results.size(), std::size_t { 2 });
        QCOMPARE(all.front().event.results.front().value, 2.0e9);
        QVERIFY(latestProbe(db, "box-a").has_value());
        QVERIFY(latestProbe(db, "", "h200").has_value());
        QVERIFY(!latestProbe(db, "box-b").has_value());
        QVERIFY(listProbes(db, std::string("box-b")).empty());
    }

    // Probes across nodes are read back per network: the newest probing of each, rank 0's slowest
    // collective at its largest size, and the nominal figure it plans as; single-node probes are not
    // networks, and a name that does not join node names is none.
    void networkProbesAreReadNewestFirstPerNetwork()
    {
        QCOMPARE(calibrate::networkNodes("a+b"), (std::vector<std::string> { "a", "b" }));
        QVERIFY(calibrate::networkNodes("box-a").empty());
        QVERIFY(calibrate::networkNodes("a++b").empty());
        Database db = Database::open(m_dir.filePath(QStringLiteral("networks.sqlite")).toStdString());
        auto probing = [&db](const std::string& name, double at, double allReduce) {
            std::vector<StoredProbe> ranks;
            for (int rank : { 1, 0 }) {
                StoredProbe p;
                p.node = name;
                p.measuredAt = at;
                p.event.rank = rank;
                p.event.world = 2;
                p.event.deviceName = "cpu";
                // Rank 1 measured a faster ring than rank 0: rank 0's figures are the ones reported.
                const double scale = rank == 0 ? 1.0 : 2.0;
                p.event.results = { { "all_gather", 1 << 20, 3.0 * allReduce * scale, "GB/s", 5 },
                                    { "all_gather", 1 << 24, 2.0 * allReduce * scale, "GB/s", 5 },
                                    { "all_reduce", 1 << 24, allReduce * scale, "GB/s", 5 },
                                    { "all_reduce", 1 << 20, 0.1 * allReduce * scale, "GB/s", 5 } };
                ranks.push_back(p);
            }
            const auto ids = saveProbes(db, ranks);
            return ids.back(); // rank 0's
        };
        probing("a+b", 1000, 10);
        const std::int64_t newest = probing("a+b", 3000, 20);
        probing("c+d", 2000, 5);
        StoredProbe single;
        single.node = "a";
        single.measuredAt = 4000;
        single.event.deviceName = "cpu";
        single.event.results = { { "all_reduce", 1 << 24, 99.0, "GB/s", 5 } };
        saveProbe(db, single);

        const auto networks = calibrate::measuredNetworks(db);
        QCOMPARE(networks.size(), std::size_t(2));
        QCOMPARE(networks[0].name, std::string("a+b"));
        QCOMPARE(networks[0].busGBps, 20.0);
        QCOMPARE(networks[0].interNodeGBps, 20.0 / Calibration {}.interNodeBusEfficiency);
        QCOMPARE(networks[0].probeId, newest);
        QCOMPARE(networks[0].measuredAt, 3000.0);
        QCOMPARE(networks[0].ranks, 2);
        QCOMPARE(networks[1].name, std::string("c+d"));
        QCOMPARE(networks[1].busGBps, 5.0);
        QCOMPARE(networks[1].interNodeGBps, 6.3); // 5 / 0.8 = 6.25, to the 0.1 GB/s every face plans with

        // plan --inter-node a+b plans with that figure and says where it came from; a network the store
        // holds no probe of is named with the command that measures it.
        const QString path = m_dir.filePath(QStringLiteral("networks.sqlite"));
        const QStringList plan {
            QStringLiteral("plan"),        QStringLiteral("--model"), QStringLiteral("qwen2.5-0.5b"),
            QStringLiteral("--gpu"),       QStringLiteral("h200"),    QStringLiteral("--nodes"),
            QStringLiteral("2"),           QStringLiteral("--db"),    path,
            QStringLiteral("--inter-node")
        };
        const CliResult json = runCli(plan + QStringList { QStringLiteral("a+b"), QStringLiteral("--format=json") });
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject net
            = QJsonDocument::fromJson(json.out).object().value(QStringLiteral("inter_node")).toObject();
        QCOMPARE(net.value(QStringLiteral("gbps")).toDouble(), networks[0].interNodeGBps);
        const QJsonObject measured = net.value(QStringLiteral("measured")).toObject();
        QCOMPARE(measured.value(QStringLiteral("network")).toString(), QStringLiteral("a+b"));
        QCOMPARE(measured.value(QStringLiteral("bus_gbps")).toDouble(), 20.0);
        QCOMPARE(measured.value(QStringLiteral("probe_id")).toInteger(), newest);
        const CliResult table = runCli(plan + QStringList { QStringLiteral("a+b") });
        QVERIFY2(table.exitCode == 0, qPrintable(table.err));
        QVERIFY2(table.out.contains("25 GB/s per node per direction (measured between a+b: 20.00 GB/s bus bandwidth"),
                 table.out.constData());
        const CliResult unknown = runCli(plan + QStringList { QStringLiteral("x+y") });
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(unknown.err.contains(QStringLiteral("holds no probe of the network x+y; measure it with "
                                                     "shardwise-cli nodes probe x --with y")),
                 qPrintable(unknown.err));
    }

    void probeWithoutResultsIsRefused()
    {
        Database db = Database::open(m_db.toStdString());
        try {
            saveProbe(db, StoredProbe {});
            QFAIL("expected StoreError");
        } catch (const StoreError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(QStringLiteral("probe.results")), e.what());
        }
    }

    void storedGpuRunsBecomeObservations()
    {
        const Database db = Database::open(m_db.toStdString());
        const auto obs = calibrate::observationsFromStore(db, *PresetCatalog::builtin().findGpu("h200"));
        QCOMPARE(static_cast<int>(obs.size()), m_gpuRuns); // the CPU run is not one
        const int ooms
            = static_cast<int>(std::count_if(obs.begin(), obs.end(), [](const auto& o) { return o.observation.oom; }));
        QCOMPARE(ooms, 1);
    }

    // Runs the app ships (examples) and published results measured other machines, other builds and
    // other frameworks: a calibration is fitted to the workspace's own runs only, measured or imported.
    void shippedAndPublishedRunsAreNotObservations()
    {
        Database db = Database::open(m_dir.filePath(QStringLiteral("shipped.sqlite")).toStdString());
        const std::int64_t own = recordRun(db, "qwen2.5-0.5b", Strategy::Zero0, 1024, DeviceKind::Cuda, false);
        const std::int64_t imported = recordRun(db, "qwen2.5-0.5b", Strategy::Zero1, 1024, DeviceKind::Cuda, false,
                                                currentRunner(), "runs-of-another-workspace.json");
        recordRun(db, "qwen2.5-0.5b", Strategy::Zero2, 1024, DeviceKind::Cuda, false, currentRunner(),
                  "example:h200/events.jsonl");
        recordRun(db, "qwen2.5-0.5b", Strategy::Zero3, 1024, DeviceKind::Cuda, false, currentRunner(),
                  "published:torchtitan/cell");
        const auto obs = calibrate::observationsFromStore(db, *PresetCatalog::builtin().findGpu("h200"));
        QCOMPARE(obs.size(), std::size_t(4)); // every run is still predicted
        std::vector<std::int64_t> ids;
        for (const auto& o : obs)
            if (o.ownRun)
                ids.push_back(o.runId);
        std::sort(ids.begin(), ids.end());
        QCOMPARE(ids, (std::vector<std::int64_t> { own, imported }));
        const auto fitted
            = calibrate::calibrationFromStore(db, *PresetCatalog::builtin().findGpu("h200"), Interconnect::NvLink);
        QCOMPARE(fitted.runs, 2);
    }

    void olderRunnersRunIsPredictedAsThatRunnerBehaved()
    {
        Database db = Database::open(m_dir.filePath(QStringLiteral("runner-behaviour.sqlite")).toStdString());
        protocol::SoftwareVersions older = currentRunner();
        older.activations.clear(); // a start event from before versions.activations
        const auto currentId = recordRun(db, "qwen2.5-0.5b", Strategy::Zero0, 2048, DeviceKind::Cuda, false);
        const auto olderId = recordRun(db, "qwen2.5-0.5b", Strategy::Zero0, 2048, DeviceKind::Cuda, false, older);
        const GpuSpec gpu = *PresetCatalog::builtin().findGpu("h200");
        const auto obs = calibrate::observationsFromStore(db, gpu);
        QCOMPARE(obs.size(), std::size_t(2));
        const auto of = [&](std::int64_t id) {
            return std::find_if(obs.begin(), obs.end(), [&](const auto& o) { return o.runId == id; })->observation;
        };
        const calibrate::Observation current = of(currentId);
        const calibrate::Observation old = of(olderId);
        QVERIFY(!current.input.normInputsKept);
        QVERIFY(old.input.normInputsKept);
        QVERIFY(!old.input.offloadStagingKept); // it did report in-place offload staging
        // The older runner also kept both RMSNorm outputs: 2 x hidden bf16 = 4 hidden bytes per layer
        // and token more (core/estimate/src/workload.cpp), and nothing else differs.
        const Calibration c;
        const Estimate a = estimate(current.input, Strategy::Zero0, c);
        const Estimate b = estimate(old.input, Strategy::Zero0, c);
        const ModelSpec& m = current.input.model;
        const double tokens = 2048.0 * current.input.training.microBatch;
        const double expected = tokens * m.layers * 4.0 * m.hidden * c.activationBytesScale;
        QVERIFY(expected > 0);
        QCOMPARE(b.memory.allocatedPeak() - a.memory.allocatedPeak(), expected);
    }

    // A rehearsal of one rank of world 64 is observed as that rank at world 64 with its memory only:
    // it never carries a throughput, the fit takes it as a memory sample and never as a throughput
    // sample, and compare shows it with no tokens/s, measured or predicted.
    void rehearsalCalibratesMemoryOnly()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("rehearsal.sqlite"));
        std::int64_t real = 0, rehearsal = 0;
        {
            Database db = Database::open(path.toStdString());
            real = recordRun(db, "qwen2.5-0.5b", Strategy::Zero3, 1024, DeviceKind::Cuda, false);
            rehearsal = recordRehearsal(db, "qwen2.5-7b", Strategy::Zero3, 2048, 64);
            QVERIFY(rehearsal > 0);
        }
        const Database db = Database::open(path.toStdString());
        const GpuSpec gpu = *PresetCatalog::builtin().findGpu("h200");
        const auto stored = calibrate::observationsFromStore(db, gpu);
        QCOMPARE(stored.size(), std::size_t(2));
        const auto of = [&](std::int64_t id) {
            return std::find_if(stored.begin(), stored.end(), [&](const auto& o) { return o.runId == id; })
                ->observation;
        };
        const calibrate::Observation r = of(rehearsal);
        QCOMPARE(r.rehearsedWorld, 64);
        QCOMPARE(r.input.cluster.worldSize(), 64);
        QVERIFY(!r.tokensPerS);
        QVERIFY(r.peakAllocatedBytes && *r.peakAllocatedBytes > 0);
        QVERIFY(of(real).tokensPerS);
        QCOMPARE(of(real).rehearsedWorld, 0);
        // Predicted for world 64 per rank, as it was measured: the truth's peak there, well below world 1's.
        const double atWorld = estimate(r.input, Strategy::Zero3, truth()).memory.allocatedPeak();
        EstimateInput one = r.input;
        one.cluster = ClusterSpec {};
        QVERIFY(atWorld < 0.5 * estimate(one, Strategy::Zero3, truth()).memory.allocatedPeak());
        QVERIFY2(std::fabs(atWorld - *r.peakAllocatedBytes) < 1.0, qPrintable(QString::number(atWorld)));

        // The fit skips a rehearsal's throughput even when an observation carries one.
        calibrate::Observation claimed = r;
        claimed.tokensPerS = 1.0e6;
        const calibrate::CalibrationFit alone = calibrate::fitCalibration({ claimed });
        QCOMPARE(alone.throughputSamples, 0);
        QCOMPARE(alone.memorySamples, 1);
        QVERIFY(std::find(alone.fitted.begin(), alone.fitted.end(), "activation_bytes_scale") != alone.fitted.end());
        QVERIFY(std::find(alone.fitted.begin(), alone.fitted.end(), "matmul_efficiency") == alone.fitted.end());
        QCOMPARE(alone.tokens.count, 0);
        const calibrate::Comparison c = calibrate::compare(claimed, Calibration {});
        QVERIFY(c.measuredCompleted && !c.measuredTokensPerS && !c.tokensError && !c.comparableTokensPerS());
        QVERIFY(c.peakError);
        std::vector<calibrate::Observation> both;
        for (const auto& o : stored)
            both.push_back(o.observation);
        const calibrate::CalibrationFit fit = calibrate::fitCalibration(both);
        QCOMPARE(fit.throughputSamples, 1);
        QCOMPARE(fit.memorySamples, 2);
        QCOMPARE(calibrate::calibrationFromStore(db, gpu, Interconnect::NvLink).runs, 1);

        const CliResult json = runCli({ QStringLiteral("compare"), QStringLiteral("--db"), path,
                                        QStringLiteral("--format"), QStringLiteral("json") });
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        bool seen = false;
        for (const auto& v : QJsonDocument::fromJson(json.out)
                                 .object()
                                 .value(QStringLiteral("gpus"))
                                 .toArray()
                                 .at(0)
                                 .toObject()
                                 .value(QStringLiteral("runs"))
                                 .toArray()) {
            const QJsonObject row = v.toObject();
            if (row.value(QStringLiteral("run")).toInteger() != rehearsal) {
                QVERIFY(row.value(QStringLiteral("rehearsed_world")).isNull());
                continue;
            }
            seen = true;
            QCOMPARE(row.value(QStringLiteral("world_size")).toInt(), 1);
            QCOMPARE(row.value(QStringLiteral("rehearsed_world")).toInt(), 64);
            QCOMPARE(row.value(QStringLiteral("status")).toString(), QStringLiteral("completed"));
            const QJsonObject measured = row.value(QStringLiteral("measured")).toObject();
            QVERIFY(measured.value(QStringLiteral("tokens_per_s")).isNull());
            QCOMPARE(measured.value(QStringLiteral("peak_allocated_gib")).toDouble(), *r.peakAllocatedBytes / kGiB);
            const QJsonObject presets = row.value(QStringLiteral("presets")).toObject();
            QVERIFY(presets.value(QStringLiteral("tokens_per_s")).isNull());
            QVERIFY(presets.value(QStringLiteral("tokens_error")).isNull());
            QVERIFY(!presets.value(QStringLiteral("peak_error")).isNull());
            QVERIFY(!presets.value(QStringLiteral("verdict_wrong")).toBool());
        }
        QVERIFY(seen);
        const CliResult table = runCli({ QStringLiteral("compare"), QStringLiteral("--db"), path });
        QCOMPARE(table.exitCode, 0);
        QVERIFY2(table.out.contains("zero3 (native, rehearsal of 64)"), table.out.constData());
        QVERIFY2(table.out.contains("its steps held no communication"), table.out.constData());
        const CliResult csv = runCli({ QStringLiteral("compare"), QStringLiteral("--db"), path,
                                       QStringLiteral("--format"), QStringLiteral("csv") });
        QVERIFY(csv.out.startsWith("gpu,run,model,strategy,backend,world_size,rehearsed_world,"));
        QVERIFY2(csv.out.contains(",zero3,native,1,64,"), csv.out.constData());
    }

    void calibrationSaysWhereItCameFrom()
    {
        const Database db = Database::open(m_db.toStdString());
        const auto c
            = calibrate::calibrationFromStore(db, *PresetCatalog::builtin().findGpu("h200"), Interconnect::NvLink);
        QCOMPARE(QString::fromStdString(c.source), QStringLiteral("probe of node box-a + 8 runs"));
        QCOMPARE(c.runs, 8);
        QCOMPARE(c.calibration.cpuAdamParamsPerS, 2.0e9); // from the probe; no offload run overrides it
        QVERIFY(c.tokens.worstAbs < 0.02);
        QVERIFY(c.confidence > 0.5);
        QCOMPARE(QString::fromStdString(c.confidenceLabel), QStringLiteral("medium"));
        Database empty = Database::open(m_dir.filePath(QStringLiteral("empty.sqlite")).toStdString());
        const auto none
            = calibrate::calibrationFromStore(empty, *PresetCatalog::builtin().findGpu("h200"), Interconnect::NvLink);
        QCOMPARE(QString::fromStdString(none.source), QStringLiteral("presets"));
        QCOMPARE(none.confidence, 0.0);
    }

    void cpuProbeCalibratesOnlyTheHost()
    {
        Database db = Database::open(m_dir.filePath(QStringLiteral("cpu-probe.sqlite")).toStdString());
        StoredProbe probe;
        probe.node = "laptop";
        probe.gpuId = "h200";
        probe.event.host = "laptop";
        probe.event.deviceName = "cpu";
        probe.event.results = { { "matmul_bf16", 8192, 1.2, "TFLOP/s", 3 },
                                { "device_copy", 1 << 28, 20.0, "GB/s", 5 },
                                { "cpu_adamw", 0, 1.5e9, "params/s", 3 },
                                { "layer_issue", 0, 4.0e-4, "s", 10 } };
        saveProbe(db, probe);
        const auto c = calibrate::calibrationFromStore(db, *PresetCatalog::builtin().findGpu("h200"),
                                                       Interconnect::NvLink, "laptop");
        const Calibration presets;
        QCOMPARE(c.calibration.matmulEfficiency, presets.matmulEfficiency);
        QCOMPARE(c.calibration.optimizerHbmEfficiency, presets.optimizerHbmEfficiency);
        QCOMPARE(c.calibration.layerLaunchS, presets.layerLaunchS); // a CPU issues for itself, not for a GPU
        QCOMPARE(c.calibration.cpuAdamParamsPerS, 1.5e9);
        QCOMPARE(c.fitted, std::vector<std::string> { "cpu_adam_params_per_s" });
        QCOMPARE(QString::fromStdString(c.source), QStringLiteral("probe of node laptop"));
    }

    // The 0.5B runs at 1024 tokens are bound by the CPU issuing kernels, so the residual fit would
    // move the launch cost; the probe's measured figure stays and the fit works around it.
    void probeMeasuredCoefficientsSurviveTheRunFit()
    {
        Database db = Database::open(m_dir.filePath(QStringLiteral("issue-probe.sqlite")).toStdString());
        for (const char* model : { "qwen2.5-0.5b", "qwen2.5-1.5b" })
            for (int seq : { 1024, 4096 })
                recordRun(db, model, Strategy::Zero0, seq, DeviceKind::Cuda, false);
        const GpuSpec& h200 = *PresetCatalog::builtin().findGpu("h200");
        std::vector<calibrate::Observation> observations;
        for (const auto& r : calibrate::observationsFromStore(db, h200))
            observations.push_back(r.observation);
        Calibration measured;
        measured.layerLaunchS = 6.5e-4;
        QVERIFY2(calibrate::fitCalibration(observations, measured).calibration.layerLaunchS != 6.5e-4,
                 "these runs must inform the launch cost");
        StoredProbe probe;
        probe.node = "box-a";
        probe.gpuId = "h200";
        probe.event.host = "box-a";
        probe.event.deviceName = "NVIDIA H200";
        probe.event.results = { { "layer_issue", 0, 6.5e-4, "s", 10 } };
        saveProbe(db, probe);
        const auto c = calibrate::calibrationFromStore(db, h200, Interconnect::NvLink);
        QCOMPARE(QString::fromStdString(c.source), QStringLiteral("probe of node box-a + 4 runs"));
        QCOMPARE(c.calibration.layerLaunchS, 6.5e-4);
        QCOMPARE(std::count(c.fitted.begin(), c.fitted.end(), std::string("layer_launch_s")), std::ptrdiff_t { 1 });
        QCOMPARE(c.runs, 4);
    }

    // A probe's CPU AdamW rate is measured alone; the offload runs say what a step gets beside its
    // copies and compute. The probe starts the fit and the runs move it.
    void offloadRunsRefineTheProbesAdamRate()
    {
        Database db = Database::open(m_dir.filePath(QStringLiteral("adam-probe.sqlite")).toStdString());
        for (const char* model : { "qwen2.5-0.5b", "qwen2.5-1.5b" })
            for (Strategy s : { Strategy::Zero3Offload, Strategy::Fsdp2ReshardOffload })
                for (int seq : { 1024, 4096 })
                    recordRun(db, model, s, seq, DeviceKind::Cuda, false);
        const double probed = truth().cpuAdamParamsPerS / 2;
        StoredProbe probe;
        probe.node = "box-a";
        probe.gpuId = "h200";
        probe.event.host = "box-a";
        probe.event.deviceName = "NVIDIA H200";
        probe.event.results
            = { { "cpu_adamw", 1 << 28, probed, "params/s", 10 }, { "layer_issue", 0, 6.5e-4, "s", 10 } };
        saveProbe(db, probe);
        const GpuSpec& h200 = *PresetCatalog::builtin().findGpu("h200");
        const auto c = calibrate::calibrationFromStore(db, h200, Interconnect::NvLink);
        QCOMPARE(QString::fromStdString(c.source), QStringLiteral("probe of node box-a + 8 runs"));
        QCOMPARE(c.calibration.layerLaunchS, 6.5e-4);
        const double rate = c.calibration.cpuAdamParamsPerS;
        QVERIFY2(std::fabs(rate - truth().cpuAdamParamsPerS) < std::fabs(probed - truth().cpuAdamParamsPerS) / 2,
                 qPrintable(QStringLiteral("fitted %1, probe %2, runs' truth %3")
                                .arg(rate)
                                .arg(probed)
                                .arg(truth().cpuAdamParamsPerS)));
    }

    void planCalibratedSaysWhichCalibrationItUsed()
    {
        const QStringList plan { QStringLiteral("plan"),     QStringLiteral("--model"), QStringLiteral("qwen2.5-1.5b"),
                                 QStringLiteral("--gpu"),    QStringLiteral("h200"),    QStringLiteral("--calibrated"),
                                 QStringLiteral("--format"), QStringLiteral("json") };
        const CliResult r = runCli(plan + QStringList { QStringLiteral("--db"), m_db });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject c = QJsonDocument::fromJson(r.out).object().value(QStringLiteral("calibration")).toObject();
        QCOMPARE(c.value(QStringLiteral("source")).toString(), QStringLiteral("probe of node box-a + 8 runs"));
        QCOMPARE(c.value(QStringLiteral("runs")).toInt(), 8);
        QVERIFY(c.value(QStringLiteral("confidence")).toDouble() > 0.5);

        // No store there: the presets, said as such, and no file is created.
        const QString missing = m_dir.filePath(QStringLiteral("no-such-store.sqlite"));
        const CliResult none = runCli(plan + QStringList { QStringLiteral("--db"), missing });
        QVERIFY2(none.exitCode == 0, qPrintable(none.err));
        const QJsonObject n
            = QJsonDocument::fromJson(none.out).object().value(QStringLiteral("calibration")).toObject();
        QCOMPARE(n.value(QStringLiteral("source")).toString(), QStringLiteral("presets"));
        QVERIFY(!QFile::exists(missing));
    }

    void compareCliReportsPredictedAgainstMeasured()
    {
        const CliResult r = runCli({ QStringLiteral("compare"), QStringLiteral("--db"), m_db,
                                     QStringLiteral("--format"), QStringLiteral("json") });
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject j = QJsonDocument::fromJson(r.out).object();
        const QJsonArray gpus = j.value(QStringLiteral("gpus")).toArray();
        QCOMPARE(gpus.size(), 1);
        const QJsonObject h200 = gpus.at(0).toObject();
        QCOMPARE(h200.value(QStringLiteral("calibration")).toObject().value(QStringLiteral("source")).toString(),
                 QStringLiteral("probe of node box-a + 8 runs"));
        const QJsonArray runs = h200.value(QStringLiteral("runs")).toArray();
        QCOMPARE(runs.size(), m_gpuRuns);
        int worsePresets = 0;
        for (const auto& v : runs) {
            const QJsonObject run = v.toObject();
            if (run.value(QStringLiteral("status")).toString() == QStringLiteral("oom")) {
                QVERIFY(
                    run.value(QStringLiteral("measured")).toObject().value(QStringLiteral("tokens_per_s")).isNull());
                continue;
            }
            const double presets = std::fabs(
                run.value(QStringLiteral("presets")).toObject().value(QStringLiteral("tokens_error")).toDouble());
            const double calibrated = std::fabs(
                run.value(QStringLiteral("calibrated")).toObject().value(QStringLiteral("tokens_error")).toDouble());
            QVERIFY(calibrated < 0.02);
            worsePresets += presets > calibrated ? 1 : 0;
        }
        QVERIFY(worsePresets > 0);
    }

    void compareCliWritesCsvAndTable()
    {
        const CliResult csv
            = runCli({ QStringLiteral("compare"), QStringLiteral("--db"), m_db, QStringLiteral("--format"),
                       QStringLiteral("csv"), QStringLiteral("--strategy"), QStringLiteral("zero0") });
        QCOMPARE(csv.exitCode, 0);
        const QList<QByteArray> lines = csv.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 1 + 4); // header + the four GPU zero0 runs
        QVERIFY(lines.front().startsWith("gpu,run,model,strategy"));
        // Numbers in SI units in named columns: whole bytes, tokens per second, no "-" for a gap.
        const QList<QByteArray> header = lines.front().split(',');
        const qsizetype peak = header.indexOf("measured_peak_allocated_bytes");
        const qsizetype tokens = header.indexOf("measured_tokens_per_second");
        QVERIFY2(peak >= 0 && tokens >= 0, lines.front().constData());
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QList<QByteArray> cells = lines.at(i).split(',');
            bool whole = false;
            QVERIFY2(cells.value(peak).toLongLong(&whole) > (qint64(1) << 30) && whole, lines.at(i).constData());
            QVERIFY2(!cells.contains("-"), lines.at(i).constData());
        }
        const CliResult table = runCli({ QStringLiteral("compare"), QStringLiteral("--db"), m_db });
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.contains("calibration from probe of node box-a + 8 runs"));
        QVERIFY(table.out.contains("oom"));
    }

    // A native and a torch run of one setup: every row says its backend, and the table sets the two
    // side by side with the torch/native throughput ratio.
    void compareCliLabelsBackendsAndSetsThemSideBySide()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("backends.sqlite"));
        std::int64_t native = 0, torch = 0;
        {
            Database db = Database::open(path.toStdString());
            native = recordRun(db, "qwen2.5-0.5b", Strategy::Fsdp2Reshard, 1024, DeviceKind::Cuda, false);
            protocol::SoftwareVersions harness;
            harness.runner = "shardwise-torch 0.1.0";
            harness.backend = protocol::kTorchBackend;
            harness.torch = "2.11.0";
            harness.python = "3.12.3";
            harness.modelImpl = "transformers";
            torch = recordRun(db, "qwen2.5-0.5b", Strategy::Fsdp2Reshard, 1024, DeviceKind::Cuda, false, harness);
            QCOMPARE(findRun(db, torch)->backend, RunBackend::Torch);
        }
        const CliResult table = runCli({ QStringLiteral("compare"), QStringLiteral("--db"), path });
        QCOMPARE(table.exitCode, 0);
        const QString text = QString::fromUtf8(table.out);
        QVERIFY2(text.contains(QStringLiteral("fsdp2_reshard (native)"))
                     && text.contains(QStringLiteral("fsdp2_reshard (torch)")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("native vs torch")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("#%1, ").arg(native))
                     && text.contains(QStringLiteral("#%1, ").arg(torch)),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("1.00x")), qPrintable(text)); // the same measured throughput

        const CliResult json = runCli({ QStringLiteral("compare"), QStringLiteral("--db"), path,
                                        QStringLiteral("--format"), QStringLiteral("json") });
        QCOMPARE(json.exitCode, 0);
        QStringList backends;
        for (const auto& v : QJsonDocument::fromJson(json.out)
                                 .object()
                                 .value(QStringLiteral("gpus"))
                                 .toArray()
                                 .at(0)
                                 .toObject()
                                 .value(QStringLiteral("runs"))
                                 .toArray())
            backends << v.toObject().value(QStringLiteral("backend")).toString();
        backends.sort();
        QCOMPARE(backends, (QStringList { QStringLiteral("native"), QStringLiteral("torch") }));
        const CliResult csv = runCli({ QStringLiteral("compare"), QStringLiteral("--db"), path,
                                       QStringLiteral("--format"), QStringLiteral("csv") });
        QVERIFY(csv.out.startsWith("gpu,run,model,strategy,backend,"));
        QVERIFY(csv.out.contains(",fsdp2_reshard,torch,"));
    }

    void compareCliNamesBadFlags_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("named");
        QTest::newRow("format") << QStringList { QStringLiteral("--format"), QStringLiteral("xml") }
                                << QStringLiteral("--format");
        QTest::newRow("strategy") << QStringList { QStringLiteral("--strategy"), QStringLiteral("zero9") }
                                  << QStringLiteral("--strategy");
        QTest::newRow("gpu") << QStringList { QStringLiteral("--gpu"), QStringLiteral("v100") }
                             << QStringLiteral("--gpu");
        QTest::newRow("unknown") << QStringList { QStringLiteral("--frobnicate"), QStringLiteral("1") }
                                 << QStringLiteral("--frobnicate");
    }
    void compareCliNamesBadFlags()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, named);
        const CliResult r = runCli(QStringList { QStringLiteral("compare"), QStringLiteral("--db"), m_db } + args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(named), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCalibrationStore)
#include "test_calibration_store.moc"
