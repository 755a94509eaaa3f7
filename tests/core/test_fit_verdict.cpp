// core/estimate's fit verdict: what a strategy's predicted peak is weighed against on the GPU (usable
// memory, the headroom kept, not the allocator's cache) and on the host (page-locked offload state),
// measured runs near capacity, and the fit probe agreeing with the verdict.
#include "estimate_input.hpp"

#include "shardwise/estimate/estimate.hpp"
#include "shardwise/spec/presets.hpp"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <optional>

using namespace shardwise;

Q_DECLARE_METATYPE(shardwise::Strategy)

class TestFitVerdict : public QObject {
    Q_OBJECT

private slots:
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
        c.headroomFraction = (e.deviceCapacityBytes - e.memory.peakBytes()) / e.deviceCapacityBytes + 0.001;
        const Estimate tight = estimate(in, Strategy::Zero0, c);
        QVERIFY(e.fits());
        QVERIFY(!tight.fits());
        QVERIFY(tight.deviceShortfallBytes() > 0);
    }

    // The caching allocator's cache is not required: it is freed and the allocation retried before
    // an out-of-memory error. At the boundary, allocated + context + headroom decides.
    void verdictIgnoresTheAllocatorsCache_data()
    {
        QTest::addColumn<double>("spareGiB");
        QTest::addColumn<bool>("fits");
        QTest::newRow("just inside") << 0.01 << true;
        QTest::newRow("just outside") << -0.01 << false;
    }
    void verdictIgnoresTheAllocatorsCache()
    {
        QFETCH(double, spareGiB);
        QFETCH(bool, fits);
        EstimateInput in = input("qwen2.5-3b", "h200");
        Calibration c;
        c.fragmentationFraction = 0.5; // a large cache that would not fit next to the peak
        const Estimate base = estimate(in, Strategy::Zero0, c);
        in.gpu.memoryMiB = static_cast<std::int64_t>(
            std::ceil((base.memory.peakBytes() + spareGiB * kGiB) / (1.0 - c.headroomFraction) / (1024.0 * 1024.0)));
        const Estimate e = estimate(in, Strategy::Zero0, c);
        QCOMPARE(e.fits(), fits);
        QVERIFY(e.memory.nvidiaSmiBytes() + e.headroomBytes > e.deviceCapacityBytes);
    }

    // Completed on the H200 near its 139.8 GiB (bench/results/fidelity-data): the verdict must say fits.
    // Runs on the H200 at the edge of its 139.8 GiB (bench/results/fidelity-data*): every one that
    // completed must be predicted to fit, every one that ran out of memory not to. "kept": the runner
    // of that run kept the norm outputs (EstimateInput::normInputsKept).
    void measuredRunsNearCapacityGetTheirVerdict_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<Strategy>("strategy");
        QTest::addColumn<int>("seqLen");
        QTest::addColumn<bool>("normInputsKept");
        QTest::addColumn<bool>("completed");
        QTest::newRow("14b fsdp2_reshard 2048 kept, 132.5 GiB")
            << "qwen2.5-14b" << Strategy::Fsdp2Reshard << 2048 << true << true;
        QTest::newRow("14b fsdp2_reshard 1024 kept, 125.0 GiB")
            << "qwen2.5-14b" << Strategy::Fsdp2Reshard << 1024 << true << true;
        QTest::newRow("14b zero0 1024 kept, 118.1 GiB") << "qwen2.5-14b" << Strategy::Zero0 << 1024 << true << true;
        QTest::newRow("7b zero3 8192 kept, 98.9 GiB") << "qwen2.5-7b" << Strategy::Zero3 << 8192 << true << true;
        QTest::newRow("14b zero0 4096 kept, out of memory")
            << "qwen2.5-14b" << Strategy::Zero0 << 4096 << true << false;
        QTest::newRow("14b zero2 4096 kept, out of memory")
            << "qwen2.5-14b" << Strategy::Zero2 << 4096 << true << false;
        QTest::newRow("14b zero0 4096, 136.2 GiB") << "qwen2.5-14b" << Strategy::Zero0 << 4096 << false << true;
        QTest::newRow("14b zero1 4096, 136.2 GiB") << "qwen2.5-14b" << Strategy::Zero1 << 4096 << false << true;
        QTest::newRow("14b zero2 4096, out of memory") << "qwen2.5-14b" << Strategy::Zero2 << 4096 << false << false;
    }
    void measuredRunsNearCapacityGetTheirVerdict()
    {
        QFETCH(QString, model);
        QFETCH(Strategy, strategy);
        QFETCH(int, seqLen);
        QFETCH(bool, normInputsKept);
        QFETCH(bool, completed);
        EstimateInput in = input(model.toUtf8().constData(), "h200");
        in.training.seqLen = seqLen;
        in.normInputsKept = normInputsKept;
        QCOMPARE(estimate(in, strategy).fits(), completed);
    }

    void fitProbeAgreesWithFitsByMemory_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<bool>("fp32Master");
        QTest::addColumn<bool>("mathAttention");
        QTest::newRow("7b h100") << QStringLiteral("qwen2.5-7b") << QStringLiteral("h100-80gb") << false << false;
        QTest::newRow("72b a100-40 fp32 master")
            << QStringLiteral("qwen2.5-72b") << QStringLiteral("a100-40gb") << true << false;
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
        std::array<Strategy, kStrategyCount> order {};
        for (std::size_t i = 0; i < kStrategyCount; ++i) // reversed table order: the probe must follow `order`
            order[i] = allStrategies()[kStrategyCount - 1 - i].strategy;
        int fitting = 0;
        int failing = 0;
        for (int nodes : { 1, 2, 16, 256 })
            for (int seq = 128; seq <= 65536; seq *= 2)
                for (int mb : { 1, 3, 16, 64 })
                    for (bool checkpointing : { false, true }) {
                        EstimateInput v = base;
                        v.cluster.nodes = nodes;
                        v.training.seqLen = seq;
                        v.training.microBatch = mb;
                        v.training.activationCheckpointing = checkpointing;
                        const std::array<bool, kStrategyCount> fits = fitsByMemory(v, c);
                        std::optional<Strategy> want;
                        for (Strategy s : order)
                            if (!want
                                && fits[static_cast<std::size_t>(
                                    std::find_if(allStrategies().begin(), allStrategies().end(),
                                                 [s](const StrategyTraits& t) { return t.strategy == s; })
                                    - allStrategies().begin())])
                                want = s;
                        const std::optional<Strategy> got = probe.firstFitting(v, order);
                        QVERIFY2(got == want,
                                 qPrintable(QStringLiteral("nodes %1, sequence %2, micro-batch %3, "
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
};

QTEST_GUILESS_MAIN(TestFitVerdict)
#include "test_fit_verdict.moc"
