// Behaviour of the framework targets in core/estimate and core/plan: DeepSpeed's own model-state
// formulas reproduced on several sizes, the precision each framework's defaults imply, the
// strategies each framework can express, the eager decoder's activations and checkpointing
// policies, and the plan's reasons and JSON for a framework target.
#include "shardwise/estimate/estimate.hpp"
#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

using namespace shardwise;

namespace {

EstimateInput input(const char* model, const char* gpu, int gpusPerNode, int nodes, Framework fw)
{
    EstimateInput in;
    in.model = *PresetCatalog::builtin().findModel(model);
    in.gpu = *PresetCatalog::builtin().findGpu(gpu);
    in.cluster.gpusPerNode = gpusPerNode;
    in.cluster.nodes = nodes;
    in.framework.framework = fw;
    in.training.precision = defaultPrecision(fw);
    return in;
}

double modelStates(const MemoryBreakdown& m)
{
    return m.deviceParams + m.deviceGrads + m.deviceOptimizer;
}

// DeepSpeed's "largest layer": the most parameters one module holds itself (model.modules() with
// recurse=False in estimate_zero3_model_states_mem_needs_all_live).
double largestModule(const ModelSpec& m)
{
    const double h = double(m.hidden), a = double(m.heads * m.headDim), f = double(m.ffn);
    return std::max({ double(m.vocab) * h, h * a + (m.qkvBias ? a : 0.0), h * f });
}

void addSizes()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("gpusPerNode");
    QTest::addColumn<int>("nodes");
    for (const char* model : { "qwen2.5-0.5b", "qwen2.5-3b", "qwen2.5-7b", "qwen2.5-14b" })
        for (auto [g, n] : { std::pair { 1, 1 }, std::pair { 8, 1 }, std::pair { 8, 4 } })
            QTest::addRow("%s %dx%d", model, n, g) << QString::fromLatin1(model) << g << n;
}

} // namespace

class TestFrameworkEstimate : public QObject {
    Q_OBJECT

private slots:
    void frameworkDefaultsImplyFp32Master()
    {
        QCOMPARE(defaultPrecision(Framework::Native), PrecisionPolicy::PureBf16);
        QCOMPARE(defaultPrecision(Framework::DeepSpeed), PrecisionPolicy::Bf16Fp32Master);
        QCOMPARE(defaultPrecision(Framework::Fsdp2), PrecisionPolicy::Bf16Fp32Master);
        QCOMPARE(defaultPrecision(Framework::Torchtitan), PrecisionPolicy::Bf16Fp32Master);
        QCOMPARE(defaultCheckpointing(Framework::Torchtitan), std::optional(CheckpointPolicy::Selective));
        QVERIFY(!defaultCheckpointing(Framework::DeepSpeed));
    }

    void frameworkVersionsAreReleasesTheModelDescribes_data()
    {
        QTest::addColumn<int>("framework");
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("torch 2.11 local build") << int(Framework::Fsdp2) << QStringLiteral("2.11.0+cu130") << true;
        QTest::newRow("torch 2.4") << int(Framework::Fsdp2) << QStringLiteral("2.4") << true;
        QTest::newRow("torch 2.3 has no fully_shard") << int(Framework::Fsdp2) << QStringLiteral("2.3.1") << false;
        QTest::newRow("deepspeed 0.16.4") << int(Framework::DeepSpeed) << QStringLiteral("0.16.4") << true;
        QTest::newRow("deepspeed 0.9") << int(Framework::DeepSpeed) << QStringLiteral("0.9.5") << false;
        QTest::newRow("not a version") << int(Framework::Torchtitan) << QStringLiteral("latest") << false;
        QTest::newRow("default") << int(Framework::Torchtitan) << QString() << true;
    }
    void frameworkVersionsAreReleasesTheModelDescribes()
    {
        QFETCH(int, framework);
        QFETCH(QString, version);
        QFETCH(bool, accepted);
        EstimateInput in = input("qwen2.5-0.5b", "h200", 1, 1, static_cast<Framework>(framework));
        in.framework.version = version.toStdString();
        QCOMPARE(!frameworkVersionProblem(in.framework).has_value(), accepted);
        bool threw = false;
        try {
            validate(in);
        } catch (const SpecError& e) {
            threw = true;
            QCOMPARE(e.field(), std::string("framework.version"));
        }
        QCOMPARE(threw, !accepted);
    }

    // The fsdp2 target's PyTorch release decides SDPA's kernel on Hopper: FlashAttention-2 before 2.11
    // (cuDNN attention opt-in), cuDNN from 2.11 (its wheels' cuDNN 9.15.1); the attention then runs
    // at flashAttention2HopperEfficiency instead of attentionEfficiency. Ampere and the other
    // targets keep the architecture's kernel; a setup that names the kernel wins.
    void pytorchReleasesBefore211RunFlashAttention2OnHopper()
    {
        const auto attentionShare = [](EstimateInput in) {
            Calibration c;
            const double with = estimate(in, Strategy::Fsdp2Reshard, c).throughput.computeS;
            c.flashAttention2HopperEfficiency = c.attentionEfficiency;
            return with - estimate(in, Strategy::Fsdp2Reshard, c).throughput.computeS;
        };
        EstimateInput in = input("llama-3.1-8b", "h100-80gb", 8, 1, Framework::Fsdp2);
        in.training.seqLen = 8192;
        QVERIFY(!runsFlashAttention2(in)); // the default release, 2.11
        QCOMPARE(attentionShare(in), 0.0);
        for (const char* old : { "2.4", "2.10", "2.10.1" }) {
            in.framework.version = old;
            QVERIFY2(runsFlashAttention2(in), old);
            QVERIFY2(attentionShare(in) > 0.0, old);
        }
        in.framework.version = "2.11";
        QVERIFY(!runsFlashAttention2(in));
        in.framework.version = "2.4";
        in.flashKernel = FlashKernel::ArchitectureTuned;
        QVERIFY(!runsFlashAttention2(in));
        in.flashKernel = FlashKernel::FrameworkDefault;
        in.gpu = *PresetCatalog::builtin().findGpu("a100-80gb"); // FlashAttention-2 is Ampere's own kernel
        QVERIFY(runsFlashAttention2(in));
        QCOMPARE(attentionShare(in), 0.0);
        EstimateInput titan = input("llama-3.1-8b", "h100-80gb", 8, 1, Framework::Torchtitan);
        QVERIFY(!runsFlashAttention2(titan));
        titan.flashKernel = FlashKernel::FlashAttention2;
        QVERIFY(runsFlashAttention2(titan));
    }

    void frameworksExpressTheirOwnStrategies()
    {
        QVERIFY(frameworkSupports(Framework::DeepSpeed, Strategy::Zero3Offload));
        QVERIFY(frameworkSupports(Framework::DeepSpeed, Strategy::Zero2Offload));
        QVERIFY(!frameworkSupports(Framework::Fsdp2, Strategy::Zero2Offload));
        QVERIFY(!frameworkSupports(Framework::Torchtitan, Strategy::Zero2Offload));
        QVERIFY(!frameworkSupports(Framework::DeepSpeed, Strategy::Fsdp2Reshard));
        QVERIFY(frameworkSupports(Framework::Fsdp2, Strategy::Zero0));
        QVERIFY(frameworkSupports(Framework::Fsdp2, Strategy::Fsdp2ReshardOffload));
        QVERIFY(!frameworkSupports(Framework::Fsdp2, Strategy::Zero2));
        QVERIFY(!frameworkSupports(Framework::Torchtitan, Strategy::Zero3));
        for (const auto& t : allStrategies())
            QVERIFY(frameworkSupports(Framework::Native, t.strategy));
    }

    // deepspeed/runtime/zero/stage_1_and_2.py, estimate_zero2_model_states_mem_needs, without offload:
    // gpu_mem = 4 * total_params + int(16 * total_params / total_gpus), for stages 1 and 2.
    void deepSpeedZero2MatchesItsOwnEstimate_data() { addSizes(); }
    void deepSpeedZero2MatchesItsOwnEstimate()
    {
        QFETCH(QString, model);
        QFETCH(int, gpusPerNode);
        QFETCH(int, nodes);
        const EstimateInput in
            = input(model.toLatin1().constData(), "h100-80gb", gpusPerNode, nodes, Framework::DeepSpeed);
        const double n = double(in.model.parameterCount());
        const double w = double(gpusPerNode * nodes);
        const Estimate e = estimate(in, Strategy::Zero2);
        QVERIFY(std::abs(modelStates(e.memory) - (4.0 * n + 16.0 * n / w)) <= 1e-9 * n);
        QVERIFY(std::abs(modelStates(estimate(in, Strategy::Zero1).memory) - (4.0 * n + 16.0 * n / w)) <= 1e-9 * n);
        // The reduce bucket (reduce_bucket_size bf16 elements, contiguous_gradients) comes on top.
        QCOMPARE(e.memory.commBuffers, 2.0 * double(in.knobs.reduceBucketElements));
    }

    // The same estimator with cpu_offload (ZeRO-Offload, zero2_offload): gpu_mem = 2 * total_params and
    // cpu_mem = total_params * max(4 * total_gpus, 16) * additional_buffer_factor per node. The host
    // figure is reproduced on one node; across nodes a node holds only its own processes' loaded
    // models (4N each) where the estimator counts every GPU of the job.
    void deepSpeedZero2OffloadMatchesItsOwnEstimate_data() { addSizes(); }
    void deepSpeedZero2OffloadMatchesItsOwnEstimate()
    {
        QFETCH(QString, model);
        QFETCH(int, gpusPerNode);
        QFETCH(int, nodes);
        const EstimateInput in
            = input(model.toLatin1().constData(), "h100-80gb", gpusPerNode, nodes, Framework::DeepSpeed);
        const double n = double(in.model.parameterCount());
        const double w = double(gpusPerNode * nodes);
        const double factor = Calibration {}.deepspeedHostBufferFactor;
        const Estimate e = estimate(in, Strategy::Zero2Offload);
        QVERIFY(e.supported);
        QVERIFY(std::abs(modelStates(e.memory) - 2.0 * n) <= 1e-9 * n);
        QCOMPARE(e.memory.commBuffers, 2.0 * double(in.knobs.reduceBucketElements));
        const double perNode = nodes == 1 ? n * std::max(4.0 * w, 16.0) * factor
                                          : n * std::max(4.0 * gpusPerNode, 16.0 / nodes) * factor;
        QVERIFY2(
            std::abs(e.hostBytesPerNode - perNode) <= 1e-9 * n,
            qPrintable(
                QStringLiteral("host %1 GiB, expected %2 GiB").arg(e.hostBytesPerNode / kGiB).arg(perNode / kGiB)));
        // Without offload the same job keeps the whole bf16 gradient and 16N/W more on every GPU, and
        // nothing on the host.
        const Estimate z2 = estimate(in, Strategy::Zero2);
        QVERIFY(std::abs(modelStates(z2.memory) - modelStates(e.memory) - (2.0 * n + 16.0 * n / w)) <= 1e-9 * n);
        QCOMPARE(z2.hostBytesPerNode, 0.0);
    }

    // deepspeed/runtime/zero/stage3.py, estimate_zero3_model_states_mem_needs: without offload
    // gpu_mem = 4 * largest_layer + 18 * total_params / total_gpus; with offload_optimizer (params on
    // the GPU) gpu_mem = 4 * largest_layer + 2 * total_params / total_gpus and, with zero_init,
    // cpu_mem = total_params * 16 / num_nodes * additional_buffer_factor per node.
    void deepSpeedZero3MatchesItsOwnEstimate_data() { addSizes(); }
    void deepSpeedZero3MatchesItsOwnEstimate()
    {
        QFETCH(QString, model);
        QFETCH(int, gpusPerNode);
        QFETCH(int, nodes);
        const EstimateInput in
            = input(model.toLatin1().constData(), "h100-80gb", gpusPerNode, nodes, Framework::DeepSpeed);
        const double n = double(in.model.parameterCount());
        const double w = double(gpusPerNode * nodes);
        const double largest = largestModule(in.model);
        const double live = 2.0
            * std::min(double(in.knobs.maxLiveParameters),
                       double(in.knobs.prefetchBucketElements) + double(in.model.layerParams()));

        const Estimate z3 = estimate(in, Strategy::Zero3);
        QVERIFY(std::abs(modelStates(z3.memory) - 18.0 * n / w) <= 1e-9 * n);
        QVERIFY(std::abs(z3.memory.gatheredParams - (4.0 * largest + live)) <= 1e-9 * n);

        const Estimate off = estimate(in, Strategy::Zero3Offload);
        QVERIFY(std::abs(modelStates(off.memory) - 2.0 * n / w) <= 1e-9 * n);
        QVERIFY(std::abs(off.hostBytesPerNode - n * 16.0 / double(nodes) * Calibration {}.deepspeedHostBufferFactor)
                <= 1e-9 * n);
    }

    // Stage 0 under "bf16": BF16_Optimizer accumulates into a full fp32 gradient buffer and
    // partitions the fp32 master and moments: 8N + 12N/W, more than stage 1's 4N + 16N/W once W > 1.
    void deepSpeedStage0KeepsAnFp32GradientBuffer()
    {
        const EstimateInput in = input("qwen2.5-7b", "h100-80gb", 8, 1, Framework::DeepSpeed);
        const double n = double(in.model.parameterCount());
        QVERIFY(std::abs(modelStates(estimate(in, Strategy::Zero0).memory) - (8.0 * n + 12.0 * n / 8.0)) <= 1e-9 * n);
        QVERIFY(std::abs(modelStates(estimate(in, Strategy::Zero1).memory) - (4.0 * n + 16.0 * n / 8.0)) <= 1e-9 * n);
    }

    // The case: Qwen2.5-7B on 8 x H100 at sequence 4096. Natively under pure bf16 zero0
    // fits; a DeepSpeed user at DeepSpeed's defaults (fp32 master) must not be told so.
    void deepSpeedDefaultsDoNotFitWhereTheNativeRunnerDoes()
    {
        EstimateInput native = input("qwen2.5-7b", "h100-80gb", 8, 1, Framework::Native);
        native.training.seqLen = 4096;
        QVERIFY(estimate(native, Strategy::Zero0).fits());
        EstimateInput ds = native;
        ds.framework.framework = Framework::DeepSpeed;
        ds.training.precision = defaultPrecision(Framework::DeepSpeed);
        QVERIFY(!estimate(ds, Strategy::Zero0).fits());
        const Plan plan = makePlan(ds);
        QVERIFY(plan.recommendation.strategy);
        QVERIFY(*plan.recommendation.strategy != Strategy::Zero0);
        QVERIFY(frameworkSupports(Framework::DeepSpeed, *plan.recommendation.strategy));
        const auto& reasons = plan.recommendation.reasons;
        QVERIFY(std::any_of(reasons.begin(), reasons.end(),
                            [](const std::string& r) { return r.find("Planned for DeepSpeed 0.16") == 0; }));
        QVERIFY(std::any_of(reasons.begin(), reasons.end(),
                            [](const std::string& r) { return r.rfind("zero0 does not fit", 0) == 0; }));
    }

    // Pure bf16 on both sides: the difference is the framework's own (eager activations, full
    // logits, DeepSpeed's buckets), and the reasons name the strategies that fit natively only.
    void reasonsNameWhatFitsNativelyButNotInTheFramework()
    {
        EstimateInput in = input("qwen2.5-14b", "h200", 1, 1, Framework::DeepSpeed);
        in.training.precision = PrecisionPolicy::PureBf16;
        in.training.seqLen = 4096;
        EstimateInput native = in;
        native.framework = FrameworkTarget {};
        QVERIFY(estimate(native, Strategy::Zero0).fits());
        QVERIFY(!estimate(in, Strategy::Zero0).fits());
        const Plan plan = makePlan(in);
        const auto& reasons = plan.recommendation.reasons;
        QVERIFY(std::any_of(reasons.begin(), reasons.end(), [](const std::string& r) {
            return r.rfind("zero0 would fit with Shardwise's runner", 0) == 0
                && r.find("not in DeepSpeed") != std::string::npos;
        }));
    }

    void planRecommendsOnlyWhatTheFrameworkExpresses_data()
    {
        QTest::addColumn<int>("framework");
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("gpus");
        for (Framework fw : { Framework::DeepSpeed, Framework::Fsdp2, Framework::Torchtitan })
            for (const char* model : { "qwen2.5-0.5b", "qwen2.5-7b", "qwen2.5-72b" })
                for (int g : { 1, 8 })
                    QTest::addRow("%s %s x%d", frameworkId(fw).data(), model, g)
                        << int(fw) << QString::fromLatin1(model) << g;
    }
    void planRecommendsOnlyWhatTheFrameworkExpresses()
    {
        QFETCH(int, framework);
        QFETCH(QString, model);
        QFETCH(int, gpus);
        const auto fw = static_cast<Framework>(framework);
        const Plan plan = makePlan(input(model.toLatin1().constData(), "h100-80gb", gpus, 1, fw));
        if (plan.recommendation.strategy)
            QVERIFY(frameworkSupports(fw, *plan.recommendation.strategy));
        for (Strategy s : plan.recommendation.alsoMeasure)
            QVERIFY(frameworkSupports(fw, s));
        for (const Remedy& r : plan.recommendation.remedies)
            QVERIFY(frameworkSupports(fw, r.strategy));
        for (const Candidate& c : plan.candidates) {
            QCOMPARE(c.estimate.supported, frameworkSupports(fw, c.strategy));
            if (!c.estimate.supported)
                QVERIFY(!c.estimate.fits());
        }
    }

    void planJsonCarriesTheFrameworkTarget()
    {
        EstimateInput in = input("qwen2.5-3b", "h200", 8, 1, Framework::Torchtitan);
        in.framework.compiled = true;
        const Plan plan = makePlan(in);
        const nlohmann::json j = toJson(plan);
        QCOMPARE(j.at("framework").at("id").get<std::string>(), std::string("torchtitan"));
        QCOMPARE(j.at("framework").at("version").get<std::string>(), std::string("0.2"));
        QCOMPARE(j.at("framework").at("compiled").get<bool>(), true);
        QCOMPARE(toJson(planFromJson(j)), j);
        // The network between nodes is recorded with a multi-node plan.
        EstimateInput twoNodes = input("qwen2.5-7b", "h100-80gb", 8, 2, Framework::Native);
        twoNodes.cluster.interNodeGBps = 400;
        const nlohmann::json multi = toJson(makePlan(twoNodes));
        QCOMPARE(multi.at("inter_node_gbps").get<double>(), 400.0);
        QCOMPARE(toJson(planFromJson(multi)), multi);
        // A native plan's JSON is what it was before framework targets.
        QVERIFY(!toJson(makePlan(input("qwen2.5-3b", "h200", 8, 1, Framework::Native))).contains("framework"));
    }

    // Selective checkpointing keeps less than no checkpointing and more than full checkpointing, and
    // recomputes less than full checkpointing does.
    void selectiveCheckpointingLiesBetweenNoneAndFull()
    {
        EstimateInput in = input("qwen2.5-7b", "h100-80gb", 8, 1, Framework::Torchtitan);
        in.training.seqLen = 8192;
        const double none = activationBytes(in);
        in.training.activationCheckpointing = true;
        in.training.checkpointPolicy = CheckpointPolicy::Full;
        const double full = activationBytes(in);
        const double fullTime = estimate(in, Strategy::Fsdp2Reshard).throughput.stepTimeS;
        in.training.checkpointPolicy = CheckpointPolicy::Selective;
        const double selective = activationBytes(in);
        const double selectiveTime = estimate(in, Strategy::Fsdp2Reshard).throughput.stepTimeS;
        QVERIFY(full < selective);
        QVERIFY(selective < none);
        QVERIFY(selectiveTime < fullTime);
    }

    // The eager decoders keep both norms' fp32 inputs and bf16 outputs and SiLU's output beside
    // what the native runner keeps: 8h + 2f more per token and layer.
    void eagerDecoderKeepsMoreThanTheNativeRunner()
    {
        EstimateInput in = input("qwen2.5-3b", "h200", 1, 1, Framework::Native);
        const double native = activationBytes(in);
        in.framework.framework = Framework::Fsdp2;
        const double eager = activationBytes(in);
        const double tokens = double(in.training.microBatch) * in.training.seqLen;
        const double perLayer = 8.0 * double(in.model.hidden) + 2.0 * double(in.model.ffn);
        const double finalNorm = 2.0 * double(in.model.hidden);
        QVERIFY(std::abs((eager - native) - tokens * (double(in.model.layers) * perLayer + finalNorm)) < 1.0);
    }

    // FSDP2 creates its sharded gradients in backward and frees them at zero_grad: the peak holds
    // either the activations (start of backward) or the gradients (end of backward), not both.
    void fsdp2PeakHoldsActivationsOrGradients()
    {
        EstimateInput in = input("qwen2.5-3b", "h200", 1, 1, Framework::Fsdp2);
        in.training.seqLen = 8192; // activations outweigh the fp32 gradients
        const MemoryBreakdown longSeq = estimate(in, Strategy::Fsdp2Reshard).memory;
        QCOMPARE(longSeq.deviceGrads, 0.0);
        QVERIFY(longSeq.activations > 0);
        in.training.seqLen = 256; // the fp32 gradients outweigh the activations
        const MemoryBreakdown shortSeq = estimate(in, Strategy::Fsdp2Reshard).memory;
        QVERIFY(std::abs(shortSeq.deviceGrads - 4.0 * double(in.model.parameterCount())) < 1.0);
        QCOMPARE(shortSeq.activations, 0.0);
    }

    // DeepSpeed ZeRO-3 fetches each module above stage3_param_persistence_threshold one by one:
    // raising the threshold above every module makes them persistent and removes the fetch cost.
    void deepSpeedModuleFetchesFollowThePersistenceThreshold()
    {
        EstimateInput in = input("qwen2.5-0.5b", "h100-80gb", 8, 1, Framework::DeepSpeed);
        const double defaultStep = estimate(in, Strategy::Zero3).throughput.stepTimeS;
        in.knobs.persistenceThreshold = 1'000'000'000;
        const double persistentStep = estimate(in, Strategy::Zero3).throughput.stepTimeS;
        QVERIFY(persistentStep < defaultStep);
    }
};

QTEST_APPLESS_MAIN(TestFrameworkEstimate)
#include "test_framework_estimate.moc"
