// Behaviour of core/calibrate: fitting recovers the coefficients that generated a set of runs and
// leaves alone those no run informs; fragmentation and the CUDA context come straight from the
// measurements; probe results map onto the coefficients that measure the same thing; comparisons
// flag wrong verdicts; confidence grows with samples and falls with residuals.
#include "shardwise/calibrate/fit.hpp"
#include "shardwise/calibrate/probe.hpp"
#include "shardwise/spec/presets.hpp"

#include <QtTest>

#include <cmath>

using namespace shardwise;
using namespace shardwise::calibrate;

namespace {

EstimateInput input(const char* model, int seq)
{
    EstimateInput in;
    in.model = *PresetCatalog::builtin().findModel(model);
    in.gpu = *PresetCatalog::builtin().findGpu("h200");
    in.training.seqLen = seq;
    return in;
}

// Runs as a GPU whose behaviour is `truth` would report them.
std::vector<Observation> runsOf(const Calibration& truth, std::initializer_list<Strategy> strategies)
{
    std::vector<Observation> runs;
    for (const char* model : { "qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b" })
        for (int seq : { 1024, 4096, 8192 })
            for (Strategy s : strategies) {
                Observation o;
                o.input = input(model, seq);
                o.strategy = s;
                const Estimate e = estimate(o.input, s, truth);
                o.tokensPerS = e.throughput.tokensPerS;
                o.peakAllocatedBytes = e.memory.allocatedPeak();
                o.label = std::string(model) + " " + std::string(strategyId(s)) + " " + std::to_string(seq);
                runs.push_back(o);
            }
    return runs;
}

} // namespace

class TestCalibration : public QObject {
    Q_OBJECT

private slots:
    // Runs that are all GPU-bound say nothing about the CPU's launch cost: the fit keeps the value it
    // started from instead of wandering along the flat direction.
    void flatDirectionKeepsTheStartingValue()
    {
        Calibration truth;
        truth.layerLaunchS = 0.0; // never CPU-bound
        std::vector<Observation> runs;
        for (const char* model : { "qwen2.5-7b", "qwen2.5-14b" }) {
            Observation o;
            o.input = input(model, 8192);
            o.strategy = Strategy::Zero0;
            const Estimate e = estimate(o.input, o.strategy, truth);
            o.tokensPerS = e.throughput.tokensPerS;
            o.peakAllocatedBytes = e.memory.allocatedPeak();
            runs.push_back(o);
        }
        Calibration start;
        start.layerLaunchS = 1e-4; // far below these models' GPU time per layer
        const CalibrationFit fit = fitCalibration(runs, start);
        QCOMPARE(fit.calibration.layerLaunchS, 1e-4);
    }

    void fitReproducesTheRunsThatGeneratedIt_data()
    {
        QTest::addColumn<double>("efficiency");
        QTest::addColumn<double>("launch");
        QTest::addColumn<double>("activationScale");
        QTest::addColumn<double>("logitsBytes");
        QTest::addColumn<double>("zero2Bookkeeping"); // seconds per parameter per step
        QTest::newRow("compute-bound, lean activations") << 0.45 << 0.0 << 0.8 << 10.0 << 0.0;
        QTest::newRow("launch-bound small models, heavy activations") << 0.30 << 0.002 << 1.4 << 18.0 << 0.0;
        QTest::newRow("zero2 pays for its buckets") << 0.26 << 0.0 << 1.0 << 14.0 << 2e-11;
    }
    void fitReproducesTheRunsThatGeneratedIt()
    {
        QFETCH(double, efficiency);
        QFETCH(double, launch);
        QFETCH(double, activationScale);
        QFETCH(double, logitsBytes);
        QFETCH(double, zero2Bookkeeping);
        Calibration truth;
        truth.zero2StepSPerParam = zero2Bookkeeping;
        truth.matmulEfficiency = efficiency;
        truth.layerLaunchS = launch;
        truth.activationBytesScale = activationScale;
        truth.logitsBytesPerElement = logitsBytes;
        const auto runs = runsOf(truth, { Strategy::Zero0, Strategy::Zero2, Strategy::Fsdp2Reshard });
        const CalibrationFit before = [&] {
            CalibrationFit f;
            std::vector<Comparison> c;
            for (const Observation& o : runs)
                c.push_back(compare(o, Calibration {}));
            f.tokens = summarizeTokens(c);
            f.peak = summarizePeak(c);
            return f;
        }();
        const CalibrationFit fit = fitCalibration(runs);
        QCOMPARE(fit.throughputSamples, static_cast<int>(runs.size()));
        // The presets are far off these runs; the fit must reproduce them closely.
        QVERIFY2(before.tokens.worstAbs > 0.05 || before.peak.worstAbs > 0.05, "the truth is too close to the presets");
        QVERIFY2(fit.tokens.worstAbs < 0.02, qPrintable(QString::number(fit.tokens.worstAbs)));
        QVERIFY2(fit.peak.worstAbs < 0.02, qPrintable(QString::number(fit.peak.worstAbs)));
        QVERIFY(std::fabs(fit.calibration.activationBytesScale - activationScale) / activationScale < 0.1);
    }

    // Small models at short sequences, where the GPU's kernel time and the CPU's issue time are
    // close: runs of a machine on which the two combine as a p-norm (p = 4) are fitted with the
    // exponent that generated them, starting from the presets' "longer of the two" (exponent 0).
    void fitRecoversHowKernelAndIssueTimeCombine()
    {
        Calibration truth;
        truth.layerLaunchS = 9e-4;
        truth.launchCombineExponent = 4.0;
        std::vector<Observation> runs;
        for (const char* model : { "qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b" })
            for (int seq : { 1024, 2048, 4096, 8192 })
                for (Strategy s : { Strategy::Zero0, Strategy::Zero3 }) {
                    Observation o;
                    o.input = input(model, seq);
                    o.strategy = s;
                    o.tokensPerS = estimate(o.input, s, truth).throughput.tokensPerS;
                    runs.push_back(o);
                }
        Calibration start;
        start.layerLaunchS = truth.layerLaunchS;
        QCOMPARE(start.launchCombineExponent, 0.0);
        const CalibrationFit fit = fitCalibration(runs, start, FitOptions { { "layer_launch_s" } });
        QVERIFY2(std::fabs(fit.calibration.launchCombineExponent - 4.0) < 0.4,
                 qPrintable(QString::number(fit.calibration.launchCombineExponent)));
        QVERIFY2(fit.tokens.worstAbs < 0.02, qPrintable(QString::number(fit.tokens.worstAbs)));
        // Runs that combine as the longer of the two leave the exponent where it started.
        truth.launchCombineExponent = 0.0;
        std::vector<Observation> maxRuns = runs;
        for (Observation& o : maxRuns)
            o.tokensPerS = estimate(o.input, o.strategy, truth).throughput.tokensPerS;
        const CalibrationFit maxFit = fitCalibration(maxRuns, start, FitOptions { { "layer_launch_s" } });
        QVERIFY2(maxFit.calibration.launchCombineExponent == 0.0 || maxFit.calibration.launchCombineExponent > 30.0,
                 qPrintable(QString::number(maxFit.calibration.launchCombineExponent)));
    }

    // A sharded strategy's extra time that grows with the parameters, seen only in GPU-bound runs of
    // one model, goes to its per-parameter cost, not to host time per unit collective: a held-out
    // small model, bound by the host, would otherwise pay that host time in full
    // (bench/results/fidelity-fp32-master-6cb90e3.md).
    void perParameterCostBeatsHostTimePerCollective()
    {
        Calibration truth;
        truth.zero3StepSPerParam = 5e-12;
        truth.unitCollectiveOverheadS = 0.0;
        std::vector<Observation> runs;
        for (Strategy s : { Strategy::Zero0, Strategy::Zero3 }) {
            Observation o;
            o.input = input("qwen2.5-1.5b", 2048);
            o.strategy = s;
            o.tokensPerS = estimate(o.input, s, truth).throughput.tokensPerS;
            runs.push_back(o);
        }
        // The probe measured the host's issue time per layer; the fit keeps it.
        // The fold starts from the presets with the additive time terms at 0.
        Calibration start = truth;
        start.zero3StepSPerParam = 0.0;
        const CalibrationFit fit = fitCalibration(runs, start, FitOptions { { "layer_launch_s", "layer_kernel_s" } });
        const auto heldOut = input("qwen2.5-0.5b", 1024);
        const double measured = estimate(heldOut, Strategy::Zero3, truth).throughput.tokensPerS;
        const double predicted = estimate(heldOut, Strategy::Zero3, fit.calibration).throughput.tokensPerS;
        QVERIFY2(std::abs(predicted / measured - 1.0) < 0.05,
                 qPrintable(QStringLiteral("0.5B zero3 predicted %1, generated %2; unit_collective_overhead_s %3")
                                .arg(predicted)
                                .arg(measured)
                                .arg(fit.calibration.unitCollectiveOverheadS)));
    }

    void fitLeavesCoefficientsNoRunInforms()
    {
        Calibration truth;
        truth.matmulEfficiency = 0.4;
        const auto runs = runsOf(truth, { Strategy::Zero0 });
        const CalibrationFit fit = fitCalibration(runs);
        const Calibration presets;
        // No offload run: the CPU optimizer rate and copy efficiency say nothing; zero0 at world 1
        // issues no per-unit collectives.
        QCOMPARE(fit.calibration.cpuAdamParamsPerS, presets.cpuAdamParamsPerS);
        QCOMPARE(fit.calibration.pcieCopyEfficiency, presets.pcieCopyEfficiency);
        QCOMPARE(fit.calibration.unitCollectiveOverheadS, presets.unitCollectiveOverheadS);
        QVERIFY(!fit.fitted.empty());
        QVERIFY(std::find(fit.fitted.begin(), fit.fitted.end(), "cpu_adam_params_per_s") == fit.fitted.end());
    }

    // Launch-bound runs inform the launch cost, yet a value the probe measured directly stays: the fit
    // refines the other coefficients around it.
    void fixedCoefficientKeepsItsStartingValue()
    {
        Calibration truth;
        truth.layerLaunchS = 2e-3;
        auto runs = runsOf(truth, { Strategy::Zero0 });
        for (Observation& o : runs)
            o.peakReservedBytes = *o.peakAllocatedBytes * 1.3;
        Calibration start;
        start.layerLaunchS = 5e-4;
        const CalibrationFit free = fitCalibration(runs, start);
        QVERIFY2(std::fabs(free.calibration.layerLaunchS - 5e-4) > 1e-4, "these runs must inform the launch cost");
        QVERIFY(std::fabs(free.calibration.fragmentationFraction - 0.3) < 1e-9);
        FitOptions options;
        options.fixed = { "layer_launch_s", "fragmentation_fraction" };
        const CalibrationFit fixed = fitCalibration(runs, start, options);
        QCOMPARE(fixed.calibration.layerLaunchS, 5e-4);
        QCOMPARE(fixed.calibration.fragmentationFraction, start.fragmentationFraction);
        QVERIFY(std::find(fixed.fitted.begin(), fixed.fitted.end(), "layer_launch_s") == fixed.fitted.end());
        QVERIFY(std::find(fixed.fitted.begin(), fixed.fitted.end(), "matmul_efficiency") != fixed.fitted.end());
    }

    void fixedNamesOnlyCalibrationFields()
    {
        FitOptions options;
        options.fixed = { "layer_launch_seconds" };
        try {
            fitCalibration(runsOf(Calibration {}, { Strategy::Zero0 }), Calibration {}, options);
            QFAIL("expected std::invalid_argument");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("'layer_launch_seconds'")), e.what());
        }
    }

    void fragmentationAndContextComeFromTheMeasurements()
    {
        auto runs = runsOf(Calibration {}, { Strategy::Zero0 });
        QVERIFY(runs.size() >= 3);
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const double allocated = *runs[i].peakAllocatedBytes;
            runs[i].peakReservedBytes = allocated * (1.0 + (i == 1 ? 0.22 : 0.05));
            runs[i].runtimeContextBytes = (i == 0 ? 0.9 : 0.7) * kGiB;
        }
        const CalibrationFit fit = fitCalibration(runs);
        // The largest share seen, so the verdict stays on the safe side; the context's median.
        QCOMPARE(fit.calibration.fragmentationFraction, 0.22);
        QCOMPARE(fit.calibration.cudaContextGiB, 0.7);
    }

    void oomRunsAreVerdictsNotSamples()
    {
        Observation o;
        o.input = input("qwen2.5-7b", 8192);
        o.strategy = Strategy::Fsdp2NoReshard;
        o.oom = true;
        const Comparison c = compare(o, Calibration {});
        QVERIFY(!c.tokensError && !c.peakError);
        QCOMPARE(c.verdictWrong(), c.predictedFits);
        Observation small;
        small.input = input("qwen2.5-0.5b", 1024);
        small.oom = true; // a small model predicted to fit that ran out of memory: a wrong verdict
        QVERIFY(compare(small, Calibration {}).verdictWrong());
        const CalibrationFit fit = fitCalibration({ o });
        QCOMPARE(fit.throughputSamples, 0);
        QCOMPARE(fit.memorySamples, 0);
    }

    void probeResultsMapOntoCoefficients_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("field");
        QTest::addColumn<double>("expected");
        const Calibration presets;
        // h200: 989 TFLOP/s, 4800 GB/s HBM, 450 GB/s NVLink, 64 GB/s PCIe per direction.
        QTest::newRow("matmul at the reference fraction keeps the default")
            << QStringLiteral("matmul_bf16") << 797.0 << QStringLiteral("matmul_efficiency")
            << presets.matmulEfficiency;
        QTest::newRow("half the matmul rate halves efficiency")
            << QStringLiteral("matmul_bf16") << 398.5 << QStringLiteral("matmul_efficiency")
            << presets.matmulEfficiency / 2;
        QTest::newRow("slow HBM bounds the optimizer")
            << QStringLiteral("device_copy") << 1200.0 << QStringLiteral("optimizer_hbm_efficiency") << 0.25;
        QTest::newRow("pinned copies") << QStringLiteral("h2d_pinned") << 48.0 << QStringLiteral("pcie_copy_efficiency")
                                       << 0.75;
        QTest::newRow("CPU AdamW rate") << QStringLiteral("cpu_adamw") << 2.5e9
                                        << QStringLiteral("cpu_adam_params_per_s") << 2.5e9;
        QTest::newRow("layer issue time")
            << QStringLiteral("layer_issue") << 4.2e-4 << QStringLiteral("layer_launch_s") << 4.2e-4;
        QTest::newRow("layer issue time beyond the accepted range")
            << QStringLiteral("layer_issue") << 0.5 << QStringLiteral("layer_launch_s") << 0.1;
        QTest::newRow("layer kernel time")
            << QStringLiteral("layer_kernel") << 1.3e-4 << QStringLiteral("layer_kernel_s") << 1.3e-4;
        QTest::newRow("per-unit collective device time")
            << QStringLiteral("unit_collective") << 1.2e-5 << QStringLiteral("unit_collective_kernel_s") << 1.2e-5;
        QTest::newRow("NVLink bus bandwidth")
            << QStringLiteral("all_gather") << 360.0 << QStringLiteral("nvlink_bus_efficiency") << 0.8;
    }
    void probeResultsMapOntoCoefficients()
    {
        QFETCH(QString, kind);
        QFETCH(double, value);
        QFETCH(QString, field);
        QFETCH(double, expected);
        protocol::ProbeResult r;
        r.kind = kind.toStdString();
        r.value = value;
        r.bytes = 1 << 28;
        r.samples = 5;
        const ProbeCalibration p
            = calibrationFromProbe({ r }, *PresetCatalog::builtin().findGpu("h200"), Interconnect::NvLink);
        // The device copy bounds both AdamW efficiencies: PyTorch's kernel and the runner's own.
        const bool copy = kind == QStringLiteral("device_copy");
        QCOMPARE(p.applied.size(), std::size_t { copy ? 2u : 1u });
        QCOMPARE(QString::fromStdString(p.applied.front()), field);
        for (const std::string& name : p.applied) {
            const double got = toJson(p.calibration).at(name).get<double>();
            QVERIFY2(
                std::fabs(got - expected) <= 1e-9 * std::fabs(expected),
                qPrintable(
                    QStringLiteral("%1 = %2, expected %3").arg(QString::fromStdString(name)).arg(got).arg(expected)));
        }
        if (copy)
            QCOMPARE(QString::fromStdString(p.applied.back()), QStringLiteral("fused_adamw_hbm_efficiency"));
    }

    // A fit keeps the probe's per-layer issue and kernel times, which runs cannot tell apart from each
    // other and from the compute rates, and refines every rate the probe measured alone (and what it only rescaled).
    void probeSaysWhichCoefficientsAFitKeeps()
    {
        const ProbeCalibration p
            = calibrationFromProbe({ { "matmul_bf16", 0, 700.0, "TFLOP/s", 10 },
                                     { "layer_issue", 0, 3e-4, "s", 10 },
                                     { "cpu_adamw", 0, 2e9, "params/s", 3 } },
                                   *PresetCatalog::builtin().findGpu("h200"), Interconnect::NvLink);
        QCOMPARE(p.applied,
                 (std::vector<std::string> { "matmul_efficiency", "cpu_adam_params_per_s", "layer_launch_s" }));
        QCOMPARE(p.heldFixed, (std::vector<std::string> { "layer_launch_s" }));
        // A GPU probe's per-layer kernel time (replayed from a CUDA graph) is held as well: runs of large
        // models trade it against their compute rates.
        const ProbeCalibration graphed
            = calibrationFromProbe({ { "layer_issue", 0, 3e-4, "s", 10 }, { "layer_kernel", 0, 1.4e-4, "s", 10 } },
                                   *PresetCatalog::builtin().findGpu("h200"), Interconnect::NvLink);
        QCOMPARE(graphed.heldFixed, (std::vector<std::string> { "layer_launch_s", "layer_kernel_s" }));
        QCOMPARE(graphed.calibration.layerKernelS, 1.4e-4);
        const ProbeCalibration noIssue = calibrationFromProbe(
            { { "h2d_pinned", 1 << 28, 48.0, "GB/s", 5 }, { "cpu_adamw", 0, 2e9, "params/s", 3 } },
            *PresetCatalog::builtin().findGpu("h200"), Interconnect::NvLink);
        QCOMPARE(noIssue.applied.size(), std::size_t { 2 });
        QVERIFY(noIssue.heldFixed.empty());
    }

    void probeUsesTheLargestMessage()
    {
        protocol::ProbeResult small { "all_reduce", 1 << 20, 45.0, "GB/s", 5 };
        protocol::ProbeResult large { "all_reduce", 1 << 30, 90.0, "GB/s", 5 };
        const ProbeCalibration p
            = calibrationFromProbe({ large, small }, *PresetCatalog::builtin().findGpu("h200"), Interconnect::Pcie);
        // 90 GB/s over PCIe's 50 GB/s is clamped to the link.
        QCOMPARE(p.calibration.pcieBusEfficiency, 1.0);
    }

    void confidenceGrowsWithSamplesAndFallsWithResiduals()
    {
        QCOMPARE(confidence(0, 0.0), 0.0);
        QVERIFY(confidence(20, 0.05) > confidence(4, 0.05));
        QVERIFY(confidence(20, 0.05) > confidence(20, 0.15));
        QCOMPARE(confidence(20, 0.3), 0.0);
        QCOMPARE(QString::fromStdString(confidenceLabel(confidence(40, 0.02))), QStringLiteral("high"));
        QCOMPARE(QString::fromStdString(confidenceLabel(confidence(2, 0.2))), QStringLiteral("low"));
    }
};

QTEST_GUILESS_MAIN(TestCalibration)
#include "test_calibration.moc"
