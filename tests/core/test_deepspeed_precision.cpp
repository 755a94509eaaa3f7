// The DeepSpeed target as DeepSpeed allocates: pure bf16 planned with DeepSpeed's fp32 master at the
// ZeRO stages (before 0.18.3, and with optimizer offload after it), bf16 master keys from 0.18.3,
// stage 0's pure bf16 in the model's dtype; the plan's reasons that say so; and ZeRO-3's speed against
// FSDP's full shard beside the published same-setup comparisons (bench/published).
#include "shardwise/estimate/deepspeed_precision.hpp"
#include "shardwise/estimate/estimate.hpp"
#include "shardwise/plan/deepspeed_reasons.hpp"
#include "shardwise/plan/plan.hpp"
#include "shardwise/published/published.hpp"
#include "shardwise/spec/presets.hpp"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

using namespace shardwise;

namespace {

EstimateInput input(const char* model, const char* gpu, int gpusPerNode, int nodes, const std::string& release,
                    PrecisionPolicy precision)
{
    EstimateInput in;
    in.model = *PresetCatalog::builtin().findModel(model);
    in.gpu = *PresetCatalog::builtin().findGpu(gpu);
    in.cluster.gpusPerNode = gpusPerNode;
    in.cluster.nodes = nodes;
    in.cluster.interNodeGBps = 50;
    in.framework.framework = Framework::DeepSpeed;
    in.framework.version = release;
    in.training.precision = precision;
    return in;
}

double modelStates(const MemoryBreakdown& m)
{
    return m.deviceParams + m.deviceGrads + m.deviceOptimizer;
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

const Message* findMessage(const Plan& p, std::string_view id)
{
    for (const Message& m : p.recommendation.reasonMessages)
        if (m.id == id)
            return &m;
    return nullptr;
}

std::filesystem::path publishedDir()
{
    return std::filesystem::path(SHARDWISE_SOURCE_DIR) / "bench" / "published";
}

const published::Cell& cell(const published::Source& s, std::string_view id)
{
    const auto it = std::find_if(s.cells.begin(), s.cells.end(), [&](const published::Cell& c) { return c.id == id; });
    if (it == s.cells.end())
        throw std::runtime_error(s.id + " has no cell " + std::string(id));
    return *it;
}

// ZeRO-3's tokens/s over FSDP's as the source publishes them: per-GPU tokens/s where both cells give
// them, else the inverse ratio of the step times.
double publishedRatio(const published::Cell& zero3, const published::Cell& fsdp)
{
    if (zero3.published.tokensPerSPerGpu && fsdp.published.tokensPerSPerGpu)
        return *zero3.published.tokensPerSPerGpu / *fsdp.published.tokensPerSPerGpu;
    return *fsdp.published.stepTimeS / *zero3.published.stepTimeS;
}

} // namespace

class TestDeepSpeedPrecision : public QObject {
    Q_OBJECT

private slots:
    void releasesWithBf16Master_data()
    {
        QTest::addColumn<QString>("release");
        QTest::addColumn<bool>("bf16Master");
        QTest::newRow("default 0.16") << QString() << false;
        QTest::newRow("0.16.9") << QStringLiteral("0.16.9") << false;
        QTest::newRow("0.18") << QStringLiteral("0.18") << false;
        QTest::newRow("0.18.2") << QStringLiteral("0.18.2") << false;
        QTest::newRow("0.18.3") << QStringLiteral("0.18.3") << true;
        QTest::newRow("0.18.3 local build") << QStringLiteral("0.18.3+cu128") << true;
        QTest::newRow("0.19.6") << QStringLiteral("0.19.6") << true;
        QTest::newRow("1.0") << QStringLiteral("1.0") << true;
        QTest::newRow("not a release") << QStringLiteral("latest") << false;
    }
    void releasesWithBf16Master()
    {
        QFETCH(QString, release);
        QFETCH(bool, bf16Master);
        FrameworkTarget t { Framework::DeepSpeed, release.toStdString(), false };
        QCOMPARE(deepSpeedHasBf16Master(deepSpeedRelease(t)), bf16Master);
        // The other targets estimate the ZeRO stages as DeepSpeed's default release runs them.
        QCOMPARE(deepSpeedRelease(FrameworkTarget { Framework::Fsdp2, "2.4", false }), std::string("0.16"));
    }

    // DeepSpeed's ZeRO optimizers build the fp32 master partition whatever bf16.enabled says: a request
    // for pure bf16 allocates, and steps, exactly what bf16-fp32-master does.
    void pureBf16IsPlannedAsFp32Master_data()
    {
        QTest::addColumn<int>("strategy");
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("gpusPerNode");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<QString>("release");
        const Strategy every[] { Strategy::Zero1, Strategy::Zero2, Strategy::Zero3, Strategy::Zero2Offload,
                                 Strategy::Zero3Offload };
        for (Strategy s : every)
            for (const char* release : { "", "0.15", "0.18.2" })
                for (auto [model, g, n] : { std::tuple { "qwen2.5-7b", 8, 1 }, std::tuple { "qwen2.5-14b", 8, 2 } })
                    QTest::addRow("%s %s %dx%d %s", strategyId(s).data(), model, n, g, *release ? release : "default")
                        << int(s) << QString::fromLatin1(model) << g << n << QString::fromLatin1(release);
        // From 0.18.3 the offload stages still keep fp32: bf16 optimizer states need DeepSpeedCPUAdam
        // without fp32 states, which the ds_config cannot ask for.
        for (Strategy s : { Strategy::Zero2Offload, Strategy::Zero3Offload })
            QTest::addRow("%s qwen2.5-7b 1x8 0.19.6", strategyId(s).data())
                << int(s) << QStringLiteral("qwen2.5-7b") << 8 << 1 << QStringLiteral("0.19.6");
    }
    void pureBf16IsPlannedAsFp32Master()
    {
        QFETCH(int, strategy);
        QFETCH(QString, model);
        QFETCH(int, gpusPerNode);
        QFETCH(int, nodes);
        QFETCH(QString, release);
        const auto s = static_cast<Strategy>(strategy);
        const std::string r = release.toStdString();
        const EstimateInput pure
            = input(model.toLatin1().constData(), "h100-80gb", gpusPerNode, nodes, r, PrecisionPolicy::PureBf16);
        EstimateInput master = pure;
        master.training.precision = PrecisionPolicy::Bf16Fp32Master;
        QCOMPARE(deepSpeedMaster(deepSpeedRelease(pure.framework), s, PrecisionPolicy::PureBf16),
                 DeepSpeedMaster::Fp32);
        QCOMPARE(deepSpeedAllocatedPrecision(r.empty() ? "0.16" : r, s, PrecisionPolicy::PureBf16),
                 PrecisionPolicy::Bf16Fp32Master);
        const Estimate a = estimate(pure, s);
        const Estimate b = estimate(master, s);
        QVERIFY(close(a.memory.deviceParams, b.memory.deviceParams));
        QVERIFY(close(a.memory.deviceGrads, b.memory.deviceGrads));
        QVERIFY(close(a.memory.deviceOptimizer, b.memory.deviceOptimizer));
        QVERIFY(close(a.memory.hostPerRank(), b.memory.hostPerRank()));
        QVERIFY(close(a.memory.peakBytes(), b.memory.peakBytes()));
        QVERIFY(close(a.hostBytesPerNode, b.hostBytesPerNode));
        QCOMPARE(a.fits(), b.fits());
        QVERIFY(close(a.throughput.optimizerS, b.throughput.optimizerS));
        QVERIFY(close(a.throughput.cpuOptimizerS, b.throughput.cpuOptimizerS));
        QVERIFY(close(a.throughput.stepTimeS, b.throughput.stepTimeS));
        // What the fp32 master is: 12 + 4 bytes per parameter of this rank's partition.
        const double n = double(pure.model.parameterCount());
        const double w = double(gpusPerNode * nodes);
        const double partition = modelStates(a.memory) + a.memory.hostPerRank();
        if (s == Strategy::Zero1 || s == Strategy::Zero2)
            QVERIFY(close(partition, 4.0 * n + 16.0 * n / w));
        if (s == Strategy::Zero3)
            QVERIFY(close(partition, 18.0 * n / w));
    }

    // From 0.18.3 bf16.bf16_master_weights_and_grads + bf16_optimizer_states keep the master, the
    // gradient partition and the moments in bf16 at stages 1-3: stages 1 and 2 clone the bf16
    // partition (2 + 2 + 4 bytes per parameter over W beside the whole bf16 weights and gradients),
    // stage 3 steps its bf16 partition itself (2 + 2 + 4 over W with the bf16 weights' own 2).
    void release0183KeepsABf16Master_data()
    {
        QTest::addColumn<int>("strategy");
        QTest::addColumn<double>("wholeBytes");     // per parameter on every rank
        QTest::addColumn<double>("partitionBytes"); // per parameter over W
        QTest::newRow("zero1") << int(Strategy::Zero1) << 4.0 << 8.0;
        QTest::newRow("zero2") << int(Strategy::Zero2) << 4.0 << 8.0;
        QTest::newRow("zero3") << int(Strategy::Zero3) << 0.0 << 8.0;
    }
    void release0183KeepsABf16Master()
    {
        QFETCH(int, strategy);
        QFETCH(double, wholeBytes);
        QFETCH(double, partitionBytes);
        const auto s = static_cast<Strategy>(strategy);
        const EstimateInput in = input("qwen2.5-7b", "h100-80gb", 8, 1, "0.18.3", PrecisionPolicy::PureBf16);
        QCOMPARE(deepSpeedMaster("0.18.3", s, PrecisionPolicy::PureBf16), DeepSpeedMaster::Bf16);
        QCOMPARE(deepSpeedAllocatedPrecision("0.18.3", s, PrecisionPolicy::PureBf16), PrecisionPolicy::PureBf16);
        const double n = double(in.model.parameterCount());
        QVERIFY(close(modelStates(estimate(in, s).memory), wholeBytes * n + partitionBytes * n / 8.0));
        // The release before it keeps fp32.
        EstimateInput before = in;
        before.framework.version = "0.18.2";
        QVERIFY(modelStates(estimate(before, s).memory) > modelStates(estimate(in, s).memory));
    }

    // Stage 0: with bf16 on BF16_Optimizer keeps a full fp32 gradient buffer and partitions the fp32
    // master and moments (8N + 12N/W, stepping N/W); with bf16 off (the model loaded in bf16) no
    // wrapper is built and AdamW keeps bf16 moments of every parameter (8N, stepping N).
    void stage0PureBf16TrainsInTheModelDtype()
    {
        const EstimateInput pure = input("qwen2.5-7b", "h100-80gb", 8, 1, "", PrecisionPolicy::PureBf16);
        EstimateInput master = pure;
        master.training.precision = PrecisionPolicy::Bf16Fp32Master;
        QCOMPARE(deepSpeedMaster("0.16", Strategy::Zero0, PrecisionPolicy::PureBf16), DeepSpeedMaster::ModelDtype);
        const double n = double(pure.model.parameterCount());
        const Estimate a = estimate(pure, Strategy::Zero0);
        const Estimate b = estimate(master, Strategy::Zero0);
        QVERIFY(close(a.memory.deviceOptimizer, 4.0 * n));
        QVERIFY(close(modelStates(a.memory), 8.0 * n));
        QVERIFY(close(modelStates(b.memory), 8.0 * n + 12.0 * n / 8.0));
        // Bytes moved per stepped parameter: 14 (pure bf16) and 28 (fp32 master): N x 14 against N/8 x 28.
        QVERIFY(close(a.throughput.optimizerS, 4.0 * b.throughput.optimizerS));
    }

    // The plan says where DeepSpeed keeps an fp32 master for a request of pure bf16, in its reasons
    // (English and messages) and in its JSON.
    void planSaysDeepSpeedKeepsAnFp32Master_data()
    {
        QTest::addColumn<QString>("release");
        QTest::addColumn<int>("precision");
        QTest::addColumn<int>("framework");
        QTest::addColumn<QString>("stages"); // empty: no such reason
        QTest::addColumn<bool>("releaseHint");
        const int pure = int(PrecisionPolicy::PureBf16);
        const QString all = QStringLiteral("zero1, zero2, zero3, zero2_offload, zero3_offload");
        QTest::newRow("0.16") << QString() << pure << int(Framework::DeepSpeed) << all << true;
        QTest::newRow("0.18.2") << QStringLiteral("0.18.2") << pure << int(Framework::DeepSpeed) << all << true;
        QTest::newRow("0.19.6") << QStringLiteral("0.19.6") << pure << int(Framework::DeepSpeed)
                                << QStringLiteral("zero2_offload, zero3_offload") << false;
        QTest::newRow("fp32 master asked")
            << QString() << int(PrecisionPolicy::Bf16Fp32Master) << int(Framework::DeepSpeed) << QString() << false;
        QTest::newRow("fsdp2") << QString() << pure << int(Framework::Fsdp2) << QString() << false;
    }
    void planSaysDeepSpeedKeepsAnFp32Master()
    {
        QFETCH(QString, release);
        QFETCH(int, precision);
        QFETCH(int, framework);
        QFETCH(QString, stages);
        QFETCH(bool, releaseHint);
        EstimateInput in
            = input("qwen2.5-7b", "h100-80gb", 8, 1, release.toStdString(), static_cast<PrecisionPolicy>(precision));
        in.framework.framework = static_cast<Framework>(framework);
        if (in.framework.framework != Framework::DeepSpeed)
            in.framework.version.clear();
        const Plan plan = makePlan(in);
        const Message* note = findMessage(plan, "plan.deepspeed_fp32_master");
        QCOMPARE(note != nullptr, !stages.isEmpty());
        QCOMPARE(findMessage(plan, "plan.deepspeed_bf16_master_release") != nullptr, releaseHint);
        const nlohmann::json j = toJson(plan);
        const auto& reasons = plan.recommendation.reasons;
        const auto said = [&](const std::string& text) {
            return std::any_of(reasons.begin(), reasons.end(),
                               [&](const std::string& r) { return r.find(text) != std::string::npos; })
                && j.dump().find(text) != std::string::npos;
        };
        if (!note) {
            QVERIFY(!said("keeps fp32 master weights"));
            return;
        }
        const std::string effective = release.isEmpty() ? "0.16" : release.toStdString();
        QCOMPARE(note->args.at(0).text, effective);
        QCOMPARE(QString::fromStdString(note->args.at(1).text), stages);
        QVERIFY(said("DeepSpeed " + effective
                     + " keeps fp32 master weights, fp32 Adam moments and an fp32 gradient partition in "
                     + stages.toStdString() + " whatever bf16.enabled says"));
        if (releaseHint)
            QVERIFY(said("DeepSpeed 0.18.3 and later keep them in bf16"));
    }

    // The two published runs of one setup both ways are the sources' figures.
    void publishedRatiosAreTheSourcesFigures_data()
    {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < kPublishedZero3AgainstFsdp.size(); ++i)
            QTest::addRow("%s", kPublishedZero3AgainstFsdp[i].source.data()) << int(i);
    }
    void publishedRatiosAreTheSourcesFigures()
    {
        QFETCH(int, index);
        const PublishedZero3Ratio& r = kPublishedZero3AgainstFsdp[std::size_t(index)];
        const published::Source src = published::loadSource(publishedDir() / (std::string(r.source) + ".json"));
        const published::Cell& zero3 = cell(src, r.zero3Cell);
        const published::Cell& fsdp = cell(src, r.fsdpCell);
        QCOMPARE(published::resolve(zero3, "strategy").value.get<std::string>(), std::string("zero3"));
        QCOMPARE(published::resolve(zero3, "framework_target").value.get<std::string>(), std::string("deepspeed"));
        QCOMPARE(published::resolve(fsdp, "strategy").value.get<std::string>(), std::string("fsdp2_reshard"));
        // One setup: the same model, GPUs and world on both sides.
        for (const char* field : { "model_preset", "gpu_preset", "world_size", "seq_len" })
            QCOMPARE(published::resolve(zero3, field).value, published::resolve(fsdp, field).value);
        QVERIFY(std::abs(publishedRatio(zero3, fsdp) - r.ratio) < 1e-12);
    }

    // The planner's own ZeRO-3 / fsdp2_reshard ratio on each published setup (its assumptions where the
    // source is silent) lies within the planner's stated throughput error of the published ratio.
    // Nothing is fitted on these two: they are the judgement.
    void plannerRatioAgainstThePublishedOnes_data() { publishedRatiosAreTheSourcesFigures_data(); }
    void plannerRatioAgainstThePublishedOnes()
    {
        QFETCH(int, index);
        const PublishedZero3Ratio& r = kPublishedZero3AgainstFsdp[std::size_t(index)];
        const published::Source src = published::loadSource(publishedDir() / (std::string(r.source) + ".json"));
        const auto predicted = [&](std::string_view id) {
            const published::CellInput ci = published::buildInput(cell(src, id), PresetCatalog::builtin());
            if (!ci.ok)
                throw std::runtime_error(ci.reason);
            return estimate(ci.input, ci.strategy).throughput.tokensPerS;
        };
        const double ratio = predicted(r.zero3Cell) / predicted(r.fsdpCell);
        qInfo("%s: predicted %.3f, published %.3f", r.source.data(), ratio, r.ratio);
        QVERIFY(std::abs(ratio / r.ratio - 1.0) <= kThroughputPredictionError);
    }

    // With zero3 recommended for DeepSpeed, the reasons give the plan's own ZeRO-3 / fsdp2_reshard ratio
    // beside the published range; other recommendations and other targets have no such reason.
    void zero3ReasonGivesThePublishedRange()
    {
        const EstimateInput in = input("qwen2.5-14b", "h200", 8, 1, "", PrecisionPolicy::Bf16Fp32Master);
        const Plan plan = makePlan(in);
        QCOMPARE(plan.recommendation.strategy, std::optional(Strategy::Zero3));
        const Message* m = findMessage(plan, "plan.deepspeed_zero3_against_fsdp");
        QVERIFY(m);
        const auto [low, high] = std::minmax_element(
            kPublishedZero3AgainstFsdp.begin(), kPublishedZero3AgainstFsdp.end(),
            [](const PublishedZero3Ratio& a, const PublishedZero3Ratio& b) { return a.ratio < b.ratio; });
        QCOMPARE(m->args.at(1).value, low->ratio);
        QCOMPARE(m->args.at(2).value, high->ratio);
        EstimateInput fsdp = in;
        fsdp.framework = FrameworkTarget { Framework::Fsdp2, {}, false };
        const double expected = plan.candidate(Strategy::Zero3).estimate.throughput.tokensPerS
            / estimate(fsdp, Strategy::Fsdp2Reshard).throughput.tokensPerS;
        QVERIFY(close(m->args.at(0).value, expected));
        const std::string english = renderEnglish(*m);
        QVERIFY2(english.find("range from 0.98x (Granite 7B on 4 x A100") != std::string::npos, english.c_str());
        QVERIFY2(english.find("to 1.02x (Falcon-7B on 8 x A100 40GB, DeepSpeed issue 3901)") != std::string::npos,
                 english.c_str());

        // A lighter recommendation, and the fsdp2 target, say nothing of it.
        const Plan light = makePlan(input("qwen2.5-0.5b", "h100-80gb", 8, 1, "", PrecisionPolicy::Bf16Fp32Master));
        QVERIFY(light.recommendation.strategy != std::optional(Strategy::Zero3));
        QVERIFY(!findMessage(light, "plan.deepspeed_zero3_against_fsdp"));
        QVERIFY(!findMessage(makePlan(fsdp), "plan.deepspeed_zero3_against_fsdp"));
    }
};

QTEST_APPLESS_MAIN(TestDeepSpeedPrecision)
#include "test_deepspeed_precision.moc"
