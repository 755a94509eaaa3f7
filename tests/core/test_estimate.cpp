// Behaviour of core/estimate: the ZeRO paper's model-state figures, the reference benchmark's
// world-1 memory and throughput (which the default calibration was fitted to), the shape of each
// strategy's memory and communication, and the errors bad input produces.
#include "shardwise/estimate/estimate.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

using namespace shardwise;

Q_DECLARE_METATYPE(shardwise::Strategy)

namespace {

EstimateInput input(const char* model, const char* gpu, int gpusPerNode = 1, Interconnect link = Interconnect::NvLink)
{
    EstimateInput in;
    in.model = *PresetCatalog::builtin().findModel(model);
    in.gpu = *PresetCatalog::builtin().findGpu(gpu);
    in.cluster.gpusPerNode = gpusPerNode;
    in.cluster.intraNode = link;
    return in;
}

double stateDeviceBytes(const protocol::StateBytes& s) { return double(s.deviceParams + s.deviceGrads + s.deviceOptimizer); }
double stateHostBytes(const protocol::StateBytes& s) { return double(s.hostParams + s.hostGrads + s.hostOptimizer); }

} // namespace

class TestEstimate : public QObject {
    Q_OBJECT

private slots:
    // Rajbhandari et al. 2020, figure 1: 7.5B parameters, 64 GPUs, mixed-precision Adam (K = 12).
    void zeroPaperModelStateFigures_data()
    {
        QTest::addColumn<Strategy>("strategy");
        QTest::addColumn<double>("gigabytes");
        QTest::newRow("baseline (stage 0)") << Strategy::Zero0 << 120.0;
        QTest::newRow("P_os (stage 1)") << Strategy::Zero1 << 31.4;
        QTest::newRow("P_os+g (stage 2)") << Strategy::Zero2 << 16.6;
        QTest::newRow("P_os+g+p (stage 3)") << Strategy::Zero3 << 1.9;
    }
    void zeroPaperModelStateFigures()
    {
        QFETCH(Strategy, strategy);
        QFETCH(double, gigabytes);
        const auto state = modelStateBytes(strategy, 7.5e9, 64, PrecisionPolicy::Bf16Fp32Master);
        // The paper prints one decimal of decimal gigabytes.
        QCOMPARE(std::round(stateDeviceBytes(state) / 1e9 * 10.0) / 10.0, gigabytes);
        QCOMPARE(stateHostBytes(state), 0.0);
    }

    // RUNNER.md's table, bytes per parameter with W ranks (bf16 params/grads, fp32 master + Adam).
    void modelStateFollowsTheRunnerTable_data()
    {
        QTest::addColumn<Strategy>("strategy");
        QTest::addColumn<double>("deviceBytesPerParam");
        QTest::addColumn<double>("hostBytesPerParam");
        const double w = 8;
        QTest::newRow("zero0") << Strategy::Zero0 << 16.0 << 0.0;
        QTest::newRow("zero1") << Strategy::Zero1 << 4.0 + 12.0 / w << 0.0;
        QTest::newRow("zero2") << Strategy::Zero2 << 2.0 + 14.0 / w << 0.0;
        QTest::newRow("zero3") << Strategy::Zero3 << 16.0 / w << 0.0;
        QTest::newRow("zero3_offload") << Strategy::Zero3Offload << 2.0 / w << 14.0 / w;
        QTest::newRow("fsdp2_noreshard") << Strategy::Fsdp2NoReshard << 16.0 / w << 0.0;
        QTest::newRow("fsdp2_reshard") << Strategy::Fsdp2Reshard << 16.0 / w << 0.0;
        QTest::newRow("fsdp2_reshard_offload") << Strategy::Fsdp2ReshardOffload << 0.0 << 16.0 / w;
    }
    void modelStateFollowsTheRunnerTable()
    {
        QFETCH(Strategy, strategy);
        QFETCH(double, deviceBytesPerParam);
        QFETCH(double, hostBytesPerParam);
        const double n = 1e9;
        const auto state = modelStateBytes(strategy, n, 8, PrecisionPolicy::Bf16Fp32Master);
        QCOMPARE(stateDeviceBytes(state), deviceBytesPerParam * n);
        QCOMPARE(stateHostBytes(state), hostBytesPerParam * n);
    }

    void pureBf16KeepsEightBytesPerParameter()
    {
        const auto state = modelStateBytes(Strategy::Zero0, 1e9, 1, PrecisionPolicy::PureBf16);
        QCOMPARE(stateDeviceBytes(state), 8e9);
        QCOMPARE(double(state.deviceOptimizer), 4e9);
    }

    // Reference (PRODUCT brief): one H200, Qwen2.5-3B, pure bf16 + AdamW, micro-batch 1, sequence 2048,
    // PyTorch eager. Peak allocated GiB and tokens/s. The default calibration was fitted to these
    // throughputs, so this guards the formulas against drifting away from the only measured anchor.
    void referenceWorldOneRun_data()
    {
        QTest::addColumn<Strategy>("strategy");
        QTest::addColumn<double>("peakAllocatedGiB");
        QTest::addColumn<double>("tokensPerS");
        QTest::newRow("ddp") << Strategy::Zero0 << 36.3 << 11455.0;
        QTest::newRow("fsdp2 no-reshard") << Strategy::Fsdp2NoReshard << 36.4 << 8429.0;
        QTest::newRow("fsdp2 reshard") << Strategy::Fsdp2Reshard << 31.1 << 6744.0;
        QTest::newRow("fsdp2 reshard + CPU offload") << Strategy::Fsdp2ReshardOffload << 13.7 << 644.0;
    }
    void referenceWorldOneRun()
    {
        QFETCH(Strategy, strategy);
        QFETCH(double, peakAllocatedGiB);
        QFETCH(double, tokensPerS);
        const Estimate e = estimate(input("qwen2.5-3b", "h200"), strategy);
        const double memoryError = e.memory.allocatedPeak() / kGiB / peakAllocatedGiB - 1.0;
        const double speedError = e.throughput.tokensPerS / tokensPerS - 1.0;
        QVERIFY2(std::abs(memoryError) < 0.12, qPrintable(QStringLiteral("peak %1 GiB").arg(e.memory.allocatedPeak() / kGiB)));
        QVERIFY2(std::abs(speedError) < 0.06, qPrintable(QStringLiteral("%1 tokens/s").arg(e.throughput.tokensPerS)));
        QVERIFY(e.fits());
    }

    void flopsPerTokenFollowsPalmConvention()
    {
        const ModelSpec m = *PresetCatalog::builtin().findModel("qwen2.5-3b");
        const double expected = 6.0 * 3'085'938'688.0 + 12.0 * 36 * 2048 * 2048;
        QCOMPARE(modelFlopsPerToken(m, 2048), expected);
    }

    void mfuUsesModelFlopsNotRecomputation()
    {
        EstimateInput in = input("qwen2.5-3b", "h200");
        const Estimate plain = estimate(in, Strategy::Zero0);
        in.training.activationCheckpointing = true;
        const Estimate recomputed = estimate(in, Strategy::Zero0);
        QCOMPARE(recomputed.throughput.modelFlopsPerToken, plain.throughput.modelFlopsPerToken);
        QCOMPARE(recomputed.throughput.hardwareFlopsPerToken, plain.throughput.modelFlopsPerToken * 4.0 / 3.0);
        QVERIFY(recomputed.throughput.mfu < plain.throughput.mfu);
        QVERIFY(recomputed.memory.activations < plain.memory.activations / 4.0);
    }

    void activationsScaleWithTokens()
    {
        EstimateInput in = input("qwen2.5-7b", "h200");
        const double base = activationBytes(in);
        in.training.microBatch = 4;
        QCOMPARE(activationBytes(in), 4.0 * base);
        in.training.microBatch = 1;
        in.training.seqLen *= 2;
        QCOMPARE(activationBytes(in), 2.0 * base); // linear with flash attention
    }

    void mathAttentionKeepsQuadraticProbabilities()
    {
        EstimateInput in = input("qwen2.5-0.5b", "h200");
        in.attention = AttentionKernel::Math;
        in.training.seqLen = 1024;
        const double shortSeq = activationBytes(in);
        in.training.seqLen = 4096;
        const double longSeq = activationBytes(in);
        QVERIFY(longSeq > 4.0 * shortSeq); // flash would be exactly 4x
        in.attention = AttentionKernel::Flash;
        QVERIFY(activationBytes(in) < longSeq);
    }

    void logitsFollowVocabularyAndTokens()
    {
        EstimateInput in = input("qwen2.5-3b", "h200");
        Calibration c;
        QCOMPARE(logitsBytes(in, c), 2048.0 * 151936.0 * c.logitsBytesPerElement);
    }

    void expandableSegmentsShrinkFragmentation()
    {
        EstimateInput in = input("qwen2.5-7b", "h100-80gb", 8);
        const Estimate plain = estimate(in, Strategy::Zero3);
        in.training.expandableSegments = true;
        const Estimate expandable = estimate(in, Strategy::Zero3);
        QVERIFY(expandable.memory.fragmentation < plain.memory.fragmentation);
        QCOMPARE(expandable.memory.allocatedPeak(), plain.memory.allocatedPeak());
    }

    void runtimeContextAddsNcclBuffersOnlyWithPeers()
    {
        Calibration c;
        const Estimate one = estimate(input("qwen2.5-0.5b", "h200", 1), Strategy::Zero0, c);
        const Estimate eight = estimate(input("qwen2.5-0.5b", "h200", 8), Strategy::Zero0, c);
        QCOMPARE(one.memory.runtimeContext, c.cudaContextGiB * kGiB);
        QCOMPARE(eight.memory.runtimeContext, (c.cudaContextGiB + c.ncclBuffersGiB) * kGiB);
    }

    void shardedPeakFallsWithMoreGpus_data()
    {
        QTest::addColumn<Strategy>("strategy");
        QTest::addColumn<bool>("falls");
        QTest::newRow("zero0 keeps everything") << Strategy::Zero0 << false;
        QTest::newRow("zero1") << Strategy::Zero1 << true;
        QTest::newRow("zero2") << Strategy::Zero2 << true;
        QTest::newRow("zero3") << Strategy::Zero3 << true;
        QTest::newRow("fsdp2_reshard") << Strategy::Fsdp2Reshard << true;
    }
    void shardedPeakFallsWithMoreGpus()
    {
        QFETCH(Strategy, strategy);
        QFETCH(bool, falls);
        const Estimate two = estimate(input("qwen2.5-14b", "h200", 2), strategy);
        const Estimate eight = estimate(input("qwen2.5-14b", "h200", 8), strategy);
        const double modelState2 = two.memory.deviceParams + two.memory.deviceGrads + two.memory.deviceOptimizer;
        const double modelState8 = eight.memory.deviceParams + eight.memory.deviceGrads + eight.memory.deviceOptimizer;
        QCOMPARE(modelState8 < modelState2, falls);
        QCOMPARE(eight.memory.activations, two.memory.activations);
    }

    void noReshardHoldsTheWholeModelGathered()
    {
        const EstimateInput in = input("qwen2.5-7b", "h200", 8);
        const Estimate noReshard = estimate(in, Strategy::Fsdp2NoReshard);
        const Estimate reshard = estimate(in, Strategy::Fsdp2Reshard);
        QCOMPARE(noReshard.memory.gatheredParams, 2.0 * double(in.model.parameterCount()));
        QVERIFY(reshard.memory.gatheredParams < noReshard.memory.gatheredParams / 4.0); // root unit + one layer
    }

    void fsdp2GradientsAreNotLiveWithActivations()
    {
        const EstimateInput in = input("qwen2.5-3b", "h200", 8);
        const Estimate fsdp = estimate(in, Strategy::Fsdp2Reshard);
        const Estimate zero3 = estimate(in, Strategy::Zero3);
        QCOMPARE(fsdp.memory.deviceGrads, 0.0); // activations (GiB) outweigh a 2N/8 gradient shard
        QVERIFY(zero3.memory.deviceGrads > 0.0); // DeepSpeed's gradient partition is allocated once
    }

    // Per rank per optimizer step, in units of one bf16 copy of the model (2N bytes).
    void communicationVolumePerStrategy_data()
    {
        QTest::addColumn<Strategy>("strategy");
        QTest::addColumn<double>("allReduce");
        QTest::addColumn<double>("allGather");
        QTest::addColumn<double>("reduceScatter");
        QTest::newRow("zero0") << Strategy::Zero0 << 1.0 << 0.0 << 0.0;
        QTest::newRow("zero1") << Strategy::Zero1 << 1.0 << 1.0 << 0.0;
        QTest::newRow("zero2") << Strategy::Zero2 << 1.0 << 1.0 << 0.0;
        QTest::newRow("zero3 re-gathers in backward") << Strategy::Zero3 << 0.0 << 2.0 << 1.0;
        QTest::newRow("fsdp2_noreshard") << Strategy::Fsdp2NoReshard << 0.0 << 1.0 << 1.0;
        QTest::newRow("fsdp2_reshard") << Strategy::Fsdp2Reshard << 0.0 << 2.0 << 1.0;
    }
    void communicationVolumePerStrategy()
    {
        QFETCH(Strategy, strategy);
        QFETCH(double, allReduce);
        QFETCH(double, allGather);
        QFETCH(double, reduceScatter);
        const EstimateInput in = input("qwen2.5-7b", "h200", 8);
        const double copy = 2.0 * double(in.model.parameterCount());
        const CommVolume v = estimate(in, strategy).throughput.volume;
        QCOMPARE(v.allReduceBytes, allReduce * copy);
        QCOMPARE(v.allGatherBytes, allGather * copy);
        QCOMPARE(v.reduceScatterBytes, reduceScatter * copy);
    }

    void oneGpuHasNoCollectiveTraffic()
    {
        for (const auto& t : allStrategies()) {
            const Estimate e = estimate(input("qwen2.5-3b", "h200"), t.strategy);
            QCOMPARE(e.throughput.commS, 0.0);
            QCOMPARE(e.throughput.ncclShare, 0.0);
        }
    }

    void pcieCommunicatesSlowerThanNvlink()
    {
        const Estimate nvlink = estimate(input("qwen2.5-7b", "h100-80gb", 8, Interconnect::NvLink), Strategy::Zero3);
        const Estimate pcie = estimate(input("qwen2.5-7b", "h100-80gb", 8, Interconnect::Pcie), Strategy::Zero3);
        QVERIFY(pcie.throughput.commS > 4.0 * nvlink.throughput.commS);
        QVERIFY(pcie.throughput.ncclShare > nvlink.throughput.ncclShare);
        QVERIFY(pcie.throughput.tokensPerS < nvlink.throughput.tokensPerS);
    }

    void networkBoundsMultiNodeBandwidth()
    {
        EstimateInput in = input("qwen2.5-7b", "h200", 8);
        const double oneNode = estimate(in, Strategy::Zero3).throughput.busBandwidthBytesPerS;
        in.cluster.nodes = 2;
        const double twoNodes = estimate(in, Strategy::Zero3).throughput.busBandwidthBytesPerS;
        Calibration c;
        QCOMPARE(twoNodes, in.cluster.interNodeGBps * 1e9 * c.interNodeBusEfficiency);
        QVERIFY(twoNodes < oneNode);
    }

    void stepTimeIsTheSumOfItsParts()
    {
        for (const auto& t : allStrategies()) {
            const ThroughputEstimate te = estimate(input("qwen2.5-7b", "l4", 4, Interconnect::Pcie), t.strategy).throughput;
            const double sum = te.computeS + te.optimizerS + te.exposedCommS + te.overheadS + te.offloadCopyS + te.cpuOptimizerS;
            QCOMPARE(te.stepTimeS, sum);
            QVERIFY(te.exposedCommS <= te.commS);
            QVERIFY(te.mfu > 0 && te.mfu < 1);
        }
    }

    void offloadTradesThroughputForMemory()
    {
        const EstimateInput in = input("qwen2.5-7b", "h200", 8);
        const Estimate onGpu = estimate(in, Strategy::Fsdp2Reshard);
        const Estimate offloaded = estimate(in, Strategy::Fsdp2ReshardOffload);
        QVERIFY(offloaded.memory.devicePeak() < onGpu.memory.devicePeak());
        QVERIFY(offloaded.throughput.tokensPerS < onGpu.throughput.tokensPerS / 2.0);
        QVERIFY(offloaded.throughput.cpuOptimizerS > 0);
        QCOMPARE(offloaded.hostBytesPerNode, offloaded.memory.hostPerRank() * 8);
    }

    void hostMemoryDecidesOffloadFit()
    {
        EstimateInput in = input("qwen2.5-7b", "h200", 8);
        in.cluster.hostRamGiB = 16;
        const Estimate e = estimate(in, Strategy::Zero3Offload);
        QVERIFY(e.fitsDevice);
        QVERIFY(!e.fitsHost);
        QVERIFY(!e.fits());
        QVERIFY(e.hostShortfallBytes() > 0);
    }

    void verdictKeepsHeadroom()
    {
        const EstimateInput in = input("qwen2.5-3b", "h200");
        Calibration c;
        const Estimate e = estimate(in, Strategy::Zero0, c);
        // Headroom just larger than the spare memory turns the verdict.
        c.headroomFraction = (e.deviceCapacityBytes - e.memory.devicePeak()) / e.deviceCapacityBytes + 0.001;
        const Estimate tight = estimate(in, Strategy::Zero0, c);
        QVERIFY(e.fits());
        QVERIFY(!tight.fits());
        QVERIFY(tight.deviceShortfallBytes() > 0);
    }

    void fitProbeAgreesWithFitsByMemory_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<bool>("fp32Master");
        QTest::addColumn<bool>("mathAttention");
        QTest::newRow("7b h100") << QStringLiteral("qwen2.5-7b") << QStringLiteral("h100-80gb") << false << false;
        QTest::newRow("72b a100-40 fp32 master") << QStringLiteral("qwen2.5-72b") << QStringLiteral("a100-40gb")
                                                 << true << false;
        QTest::newRow("3b l4 math attention") << QStringLiteral("qwen2.5-3b") << QStringLiteral("l4") << false << true;
    }
    void fitProbeAgreesWithFitsByMemory()
    {
        QFETCH(QString, model);
        QFETCH(QString, gpu);
        QFETCH(bool, fp32Master);
        QFETCH(bool, mathAttention);
        EstimateInput base;
        base.model = *PresetCatalog::builtin().findModel(model.toStdString());
        base.gpu = *PresetCatalog::builtin().findGpu(gpu.toStdString());
        base.cluster.gpusPerNode = 4;
        base.training.precision = fp32Master ? PrecisionPolicy::Bf16Fp32Master : PrecisionPolicy::PureBf16;
        base.attention = mathAttention ? AttentionKernel::Math : AttentionKernel::Flash;
        const Calibration c;
        const FitProbe probe(base, c);
        std::array<Strategy, kStrategyCount> order{};
        for (std::size_t i = 0; i < kStrategyCount; ++i) // reversed table order: the probe must follow `order`
            order[i] = allStrategies()[kStrategyCount - 1 - i].strategy;
        int fitting = 0;
        int failing = 0;
        for (int nodes : {1, 2, 16, 256})
            for (int seq = 128; seq <= 65536; seq *= 2)
                for (int mb : {1, 3, 16, 64})
                    for (bool checkpointing : {false, true}) {
                        EstimateInput v = base;
                        v.cluster.nodes = nodes;
                        v.training.seqLen = seq;
                        v.training.microBatch = mb;
                        v.training.activationCheckpointing = checkpointing;
                        const std::array<bool, kStrategyCount> fits = fitsByMemory(v, c);
                        std::optional<Strategy> want;
                        for (Strategy s : order)
                            if (!want && fits[static_cast<std::size_t>(
                                    std::find_if(allStrategies().begin(), allStrategies().end(),
                                                 [s](const StrategyTraits& t) { return t.strategy == s; })
                                    - allStrategies().begin())])
                                want = s;
                        const std::optional<Strategy> got = probe.firstFitting(v, order);
                        QVERIFY2(got == want, qPrintable(QStringLiteral("nodes %1, sequence %2, micro-batch %3, "
                                                                        "checkpointing %4")
                                                             .arg(nodes)
                                                             .arg(seq)
                                                             .arg(mb)
                                                             .arg(checkpointing)));
                        ++(want ? fitting : failing);
                    }
        // Both verdicts must occur, or the comparison proves little.
        QVERIFY(fitting > 0);
        QVERIFY(failing > 0);
    }

    void estimateAllFollowsTheStrategyTable()
    {
        const auto all = estimateAll(input("tiny", "h200"));
        for (std::size_t i = 0; i < kStrategyCount; ++i)
            QCOMPARE(all[i].strategy, allStrategies()[i].strategy);
    }

    void badInputNamesTheField_data()
    {
        QTest::addColumn<int>("mutation");
        QTest::addColumn<QString>("field");
        QTest::newRow("no compute peak") << 0 << QStringLiteral("gpu.bf16_tflops");
        QTest::newRow("no memory bandwidth") << 1 << QStringLiteral("gpu.hbm_gbps");
        QTest::newRow("no PCIe") << 2 << QStringLiteral("gpu.pcie_gbps");
        QTest::newRow("NVLink on a PCIe-only GPU") << 3 << QStringLiteral("cluster.intra_node");
        QTest::newRow("micro-batch 0") << 4 << QStringLiteral("training.micro_batch");
        QTest::newRow("no layers") << 5 << QStringLiteral("model.layers");
        QTest::newRow("no live FSDP unit") << 6 << QStringLiteral("knobs.fsdp_live_units");
        QTest::newRow("empty reduce bucket") << 7 << QStringLiteral("knobs.reduce_bucket_elements");
        QTest::newRow("zero GPUs per node") << 8 << QStringLiteral("cluster.gpus_per_node");
    }
    void badInputNamesTheField()
    {
        QFETCH(int, mutation);
        QFETCH(QString, field);
        EstimateInput in = input("qwen2.5-3b", "h200", 4);
        switch (mutation) {
        case 0: in.gpu.bf16Tflops = 0; break;
        case 1: in.gpu.hbmGBps = 0; break;
        case 2: in.gpu.pcieGBps = 0; break;
        case 3: in.gpu = *PresetCatalog::builtin().findGpu("l4"); break;
        case 4: in.training.microBatch = 0; break;
        case 5: in.model.layers = 0; break;
        case 6: in.knobs.fsdpLiveUnits = 0; break;
        case 7: in.knobs.reduceBucketElements = 0; break;
        case 8: in.cluster.gpusPerNode = 0; break;
        }
        try {
            validate(in);
            QFAIL("expected SpecError");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), field);
        }
    }

    void calibrationJsonRoundTrips()
    {
        Calibration c;
        c.matmulEfficiency = 0.41;
        c.cpuAdamParamsPerS = 3e9;
        const Calibration back = calibrationFromJson(toJson(c));
        QCOMPARE(back.matmulEfficiency, 0.41);
        QCOMPARE(back.cpuAdamParamsPerS, 3e9);
        QCOMPARE(toJson(back), toJson(c));
        QCOMPARE(calibrationFromJson(nlohmann::json::object()).matmulEfficiency, Calibration{}.matmulEfficiency);
    }

    void badCalibrationNamesTheField_data()
    {
        QTest::addColumn<QString>("document");
        QTest::addColumn<QString>("field");
        QTest::newRow("unknown") << QStringLiteral(R"({"matmul_eficiency": 0.3})") << QStringLiteral("calibration.matmul_eficiency");
        QTest::newRow("not a number") << QStringLiteral(R"({"matmul_efficiency": "fast"})") << QStringLiteral("calibration.matmul_efficiency");
        QTest::newRow("out of range") << QStringLiteral(R"({"fsdp2_gather_overlap": 1.5})") << QStringLiteral("calibration.fsdp2_gather_overlap");
        QTest::newRow("not an object") << QStringLiteral("[1]") << QStringLiteral("calibration");
    }
    void badCalibrationNamesTheField()
    {
        QFETCH(QString, document);
        QFETCH(QString, field);
        try {
            calibrationFromJson(nlohmann::json::parse(document.toStdString()));
            QFAIL("expected SpecError");
        } catch (const SpecError& e) {
            QCOMPARE(QString::fromStdString(e.field()), field);
        }
    }
};

QTEST_GUILESS_MAIN(TestEstimate)
#include "test_estimate.moc"
