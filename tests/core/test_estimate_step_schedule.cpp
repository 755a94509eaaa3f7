// The native runner's optimizer schedules in the estimate: the host AdamW of the offload strategies
// and the device AdamW of the GPU-resident ones stepping beside the backward, and how a run's start
// event says which schedule its runner ran.
#include "estimate_input.hpp"

#include "shardwise/estimate/estimate.hpp"

#include <QtTest>

using namespace shardwise;

class TestEstimateStepSchedule : public QObject {
    Q_OBJECT

private slots:
    void theNativeHostStepOverlapsTheGpusPartOnly()
    {
        // The native runner steps each unit on the host as its gradient arrives: host_step_overlap of
        // the shorter of the GPU's part and the host AdamW hides. Older runners and the frameworks step
        // after the backward: nothing hides.
        for (auto s : { Strategy::Zero2Offload, Strategy::Zero3Offload, Strategy::Fsdp2ReshardOffload }) {
            EstimateInput in = input("qwen2.5-3b", "h200");
            const ThroughputEstimate overlapped = estimate(in, s).throughput;
            in.hostStepAfterBackward = true;
            const ThroughputEstimate serial = estimate(in, s).throughput;
            QCOMPARE(serial.cpuOptimizerHiddenS, 0.0);
            const double gpuPart = serial.stepTimeS - serial.cpuOptimizerS;
            const Calibration c;
            QCOMPARE(overlapped.cpuOptimizerHiddenS, c.hostStepOverlap * std::min(gpuPart, serial.cpuOptimizerS));
            QCOMPARE(overlapped.cpuOptimizerS + overlapped.cpuOptimizerHiddenS, serial.cpuOptimizerS);
            QCOMPARE(overlapped.stepTimeS, serial.stepTimeS - overlapped.cpuOptimizerHiddenS);
            QVERIFY(overlapped.tokensPerS > serial.tokensPerS);

            in.hostStepAfterBackward = false;
            in.framework.framework = Framework::DeepSpeed;
            QCOMPARE(estimate(in, s).throughput.cpuOptimizerHiddenS, 0.0);
        }
    }

    void theNativeDeviceStepHidesUnderTheBackwardWhereTheRunnerStepsPerUnit()
    {
        // device_step_overlap of the device AdamW hides where the runner steps each unit on its own
        // stream: zero0, zero3 and the fsdp2 strategies in pure bf16; not zero1/zero2 (buckets), not
        // with fp32 master weights, not a sharded gradient under accumulation, not older runners.
        QCOMPARE(Calibration {}.deviceStepOverlap, 0.11); // shipped: measured on an H100 (docs/formulas.md)
        Calibration c;
        c.deviceStepOverlap = 0.5;
        for (const auto& t : allStrategies()) {
            EstimateInput in = input("qwen2.5-3b", "h200");
            const ThroughputEstimate beside = estimate(in, t.strategy, c).throughput;
            // A step captured as a CUDA graph steps after the backward.
            in.training.cudaGraphs = true;
            QCOMPARE(estimate(in, t.strategy, c).throughput.optimizerHiddenS, 0.0);
            in.training.cudaGraphs = false;
            in.deviceStepAfterBackward = true;
            const ThroughputEstimate after = estimate(in, t.strategy, c).throughput;
            QCOMPARE(after.optimizerHiddenS, 0.0);
            const bool perUnit = t.strategy == Strategy::Zero0 || t.strategy == Strategy::Zero3
                || t.strategy == Strategy::Fsdp2Reshard || t.strategy == Strategy::Fsdp2NoReshard;
            if (!perUnit) {
                QCOMPARE(beside.optimizerHiddenS, 0.0);
                QCOMPARE(beside.stepTimeS, after.stepTimeS);
                continue;
            }
            QVERIFY(after.optimizerS > 0.0);
            QCOMPARE(beside.optimizerHiddenS, c.deviceStepOverlap * after.optimizerS);
            QCOMPARE(beside.optimizerS + beside.optimizerHiddenS, after.optimizerS);
            QCOMPARE(beside.stepTimeS, after.stepTimeS - beside.optimizerHiddenS);

            in.deviceStepAfterBackward = false;
            // An fp32 master steps beside the backward only through the runner's own AdamW kernel,
            // which writes the master's bf16 copy in its pass.
            in.training.precision = PrecisionPolicy::Bf16Fp32Master;
            QVERIFY(estimate(in, t.strategy, c).throughput.optimizerHiddenS > 0.0);
            in.fusedKernels.adamw = false;
            QCOMPARE(estimate(in, t.strategy, c).throughput.optimizerHiddenS, 0.0);
            in.fusedKernels.adamw = true;
            in.training.precision = PrecisionPolicy::PureBf16;
            in.training.gradAccumulation = 4;
            QCOMPARE(estimate(in, t.strategy, c).throughput.optimizerHiddenS > 0.0, t.strategy == Strategy::Zero0);
            in.training.gradAccumulation = 1;
            in.framework.framework = Framework::Fsdp2;
            QCOMPARE(estimate(in, t.strategy, c).throughput.optimizerHiddenS, 0.0);
        }
    }

    void aRunnersStepScheduleIsReadFromItsStartEvent()
    {
        EstimateInput in = input("qwen2.5-3b", "h200");
        protocol::SoftwareVersions v;
        v.offloadStaging = "in-place; host step per unit; device step per unit";
        applyRunnerBehaviour(in, v);
        QVERIFY(!in.offloadStagingKept && !in.hostStepAfterBackward && !in.deviceStepAfterBackward);
        v.offloadStaging = protocol::kOffloadStagingInPlaceHostStepOverlapped;
        applyRunnerBehaviour(in, v);
        QVERIFY(!in.offloadStagingKept && !in.hostStepAfterBackward && in.deviceStepAfterBackward);
        v.offloadStaging = "in-place; device step per unit";
        applyRunnerBehaviour(in, v);
        QVERIFY(!in.offloadStagingKept && in.hostStepAfterBackward && !in.deviceStepAfterBackward);
        v.offloadStaging.clear(); // a runner from before the field
        applyRunnerBehaviour(in, v);
        QVERIFY(in.offloadStagingKept && in.hostStepAfterBackward && in.deviceStepAfterBackward);
        QVERIFY(!protocol::offloadStagingHas("in-place; host step per unitx", protocol::kHostStepPerUnit));
    }
};

QTEST_GUILESS_MAIN(TestEstimateStepSchedule)
#include "test_estimate_step_schedule.moc"
