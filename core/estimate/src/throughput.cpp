// Step time as compute + device optimizer + exposed communication + per-unit overheads + offload
// costs. Collective times follow the ring algorithm's bus-bandwidth convention of NVIDIA's nccl-tests
// (its busBw): all-reduce moves 2(W-1)/W of its payload over each link, all-gather and
// reduce-scatter (W-1)/W. Docs: docs/formulas.md.
#include "parts.hpp"

#include "shardwise/estimate/deepspeed_precision.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace shardwise::detail {

namespace {

double d(std::int64_t x)
{
    return static_cast<double>(x);
}

// Achieved bus bandwidth of the slowest link a collective over all ranks crosses. Across nodes a ring
// crosses each node boundary once per channel, so the node's network bandwidth bounds the bus
// bandwidth, not that bandwidth divided by the GPUs per node.
double busBandwidth(const EstimateInput& in, const Calibration& c)
{
    const ClusterSpec& cl = in.cluster;
    if (cl.worldSize() <= 1)
        return std::numeric_limits<double>::infinity();
    double best = std::numeric_limits<double>::infinity();
    if (cl.gpusPerNode > 1) {
        const bool nvlink = cl.intraNode == Interconnect::NvLink;
        const double linkGBps
            = cl.intraNodeGBps > 0 ? cl.intraNodeGBps : (nvlink ? in.gpu.nvlinkGBps : in.gpu.pcieGBps);
        best = linkGBps * 1e9 * (nvlink ? c.nvlinkBusEfficiency : c.pcieBusEfficiency);
    }
    if (cl.nodes > 1)
        best = std::min(best, cl.interNodeGBps * 1e9 * c.interNodeBusEfficiency);
    return best;
}

// Bytes read and written per parameter by one AdamW step on the shard a rank owns: pure bf16 reads
// p, g, m, v and writes p, m, v (14); with an fp32 master it reads g (2) and master, m, v (12) and
// writes master, m, v (12) and the bf16 copy (2).
double adamTrafficBytesPerParam(PrecisionPolicy p)
{
    return p == PrecisionPolicy::PureBf16 ? 14.0 : 28.0;
}

// Whether the strategy's optimizer step is DeepSpeed's: the DeepSpeed target's stages, and the ZeRO
// stages 1-3 that the other framework targets estimate as DeepSpeed runs them.
bool deepSpeedStep(const EstimateInput& in, Strategy s)
{
    const Framework fw = in.framework.framework;
    return traits(s).family == StrategyFamily::DeepSpeedZero && fw != Framework::Native
        && (fw == Framework::DeepSpeed || s != Strategy::Zero0);
}

// The precision whose optimizer state the step updates: DeepSpeed keeps an fp32 master where pure bf16
// is asked for (deepspeed_precision.hpp); the other targets and the native runner keep the request.
PrecisionPolicy steppedPrecision(const EstimateInput& in, Strategy s)
{
    if (!deepSpeedStep(in, s))
        return in.training.precision;
    return deepSpeedAllocatedPrecision(deepSpeedRelease(in.framework), s, in.training.precision);
}

// Parameters whose AdamW step one rank runs: its shard where the optimizer state is sharded, and
// under DeepSpeed's stage 0 with an fp32 master BF16_Optimizer's partition (its step() updates
// fp32_groups_flat_partition only, runtime/bf16_optimizer.py).
double steppedParams(const EstimateInput& in, Strategy s, double n, double w)
{
    if (traits(s).shardsOptimizer)
        return n / w;
    if (s == Strategy::Zero0 && in.framework.framework == Framework::DeepSpeed
        && deepSpeedMaster(deepSpeedRelease(in.framework), s, in.training.precision) == DeepSpeedMaster::Fp32)
        return n / w;
    return n;
}

struct Schedule {
    CommVolume volume;
    double overlap = 0;              // of the in-backward collectives
    double afterStepGatherBytes = 0; // zero1/zero2 all-gather of updated params: after the step, not hidden
    // Host<->device copies of the offload schedules, by whether compute can run beside them
    // (runner/src/unit_schedule.cpp). The decoder layers' copies run on their own streams, one unit
    // ahead of (forward) or behind (backward) the unit computing, so they hide under the part of the
    // compute given by copyWindow. The root unit's copies cannot: its shard goes up before the
    // first forward use, its gradient comes down after the whole backward, and zero3_offload's
    // updated shards go up after the CPU optimizer, when nothing is left to compute.
    double layerCopyBytes = 0;
    double exposedCopyBytes = 0;
    double copyWindow = 0; // fraction of the compute time the layers' copies can hide under
};

Schedule schedule(const ThroughputContext& ctx, const EstimateInput& in, Strategy s, const Calibration& c)
{
    const double n = ctx.params;
    const double w = static_cast<double>(in.cluster.worldSize());
    const double payload = kBf16Bytes * n; // one full bf16 copy of the parameters or gradients
    const double microSteps = static_cast<double>(in.training.gradAccumulation);
    const int units = ctx.units;
    const int ga = in.training.gradAccumulation;
    const bool overlapOn = in.knobs.overlapComm;
    const double rootParams = static_cast<double>(in.model.rootParams());
    const double layerParams = n - rootParams;

    // The frameworks reduce in fp32 where an fp32 master is kept: DDP's gradients are the fp32
    // parameters' own, FSDP2 and torchtitan reduce-scatter in reduce_dtype fp32. DeepSpeed reduces in
    // the bf16 gradients' dtype. Their offloaded shards move in the sharded parameters' dtype.
    const bool torchFramework
        = in.framework.framework == Framework::Fsdp2 || in.framework.framework == Framework::Torchtitan;
    const double reduceWidth = torchFramework && in.training.precision == PrecisionPolicy::Bf16Fp32Master ? 2.0 : 1.0;
    Schedule sc;
    switch (s) {
    case Strategy::Zero0: // full gradients accumulate locally; one all-reduce per step
        sc.volume.allReduceBytes = payload;
        sc.overlap = overlapOn ? c.allReduceOverlap : 0.0;
        break;
    case Strategy::Zero1: // DeepSpeed stage 1/2 reduce through large all-reduce buckets
    case Strategy::Zero2:
    case Strategy::Zero2Offload:
        // Stage 2 keeps only its gradient slice, so it must reduce every micro-step.
        sc.volume.allReduceBytes = payload * (s == Strategy::Zero1 ? 1.0 : microSteps);
        sc.afterStepGatherBytes = payload;
        sc.volume.allGatherBytes = payload;
        sc.overlap = overlapOn ? c.bucketAllReduceOverlap : 0.0;
        if (s == Strategy::Zero2Offload) {
            // As zero3_offload: each reduced layer slice goes down behind the backward, the root's
            // after it, and the updated bf16 slice goes up after the CPU step, before the all-gather.
            sc.layerCopyBytes = kBf16Bytes * layerParams / w * microSteps;
            sc.exposedCopyBytes = kBf16Bytes * rootParams / w * microSteps + kBf16Bytes * n / w;
            sc.copyWindow = 2.0 / 3.0;
        }
        break;
    case Strategy::Zero3:
    case Strategy::Zero3Offload:
        sc.volume.allGatherBytes = 2.0 * payload * microSteps; // forward and again in backward
        sc.volume.reduceScatterBytes = payload * microSteps;
        sc.volume.unitCollectives = 3 * units * ga;
        sc.overlap = overlapOn ? c.zero3GatherOverlap : 0.0;
        if (s == Strategy::Zero3Offload) {
            // Each layer's gradient shard goes down as its backward ends (backward: two thirds of the
            // compute); the root's after the backward; every updated bf16 shard goes up after the step.
            sc.layerCopyBytes = kBf16Bytes * layerParams / w * microSteps;
            sc.exposedCopyBytes = kBf16Bytes * rootParams / w * microSteps + kBf16Bytes * n / w;
            sc.copyWindow = 2.0 / 3.0;
        }
        break;
    case Strategy::Fsdp2NoReshard:
        sc.volume.allGatherBytes = payload * microSteps;
        sc.volume.reduceScatterBytes = payload * microSteps;
        sc.volume.unitCollectives = 2 * units * ga;
        sc.overlap = overlapOn ? c.fsdp2GatherOverlap : 0.0;
        break;
    case Strategy::Fsdp2Reshard:
    case Strategy::Fsdp2ReshardOffload:
        sc.volume.allGatherBytes = 2.0 * payload * microSteps;
        sc.volume.reduceScatterBytes = payload * microSteps;
        sc.volume.unitCollectives = 3 * units * ga;
        sc.overlap = overlapOn ? c.fsdp2GatherOverlap : 0.0;
        if (s == Strategy::Fsdp2ReshardOffload) {
            // Every gather first copies the host shard up: each layer's in forward and again in
            // backward, and its gradient shard down; the root stays gathered from its upload before
            // the first layer to the end of backward, then its gradient comes down. Both directions
            // count against one bandwidth: each reduction waits for the download two units back, and
            // the next gather's upload queues behind that reduction (docs/formulas.md).
            sc.layerCopyBytes = 3.0 * kBf16Bytes * layerParams / w * microSteps;
            sc.exposedCopyBytes = 2.0 * kBf16Bytes * rootParams / w * microSteps;
            sc.copyWindow = 1.0;
        }
        break;
    }
    if (torchFramework && s != Strategy::Zero1 && s != Strategy::Zero2 && s != Strategy::Zero2Offload) {
        sc.volume.allReduceBytes *= reduceWidth;
        sc.volume.reduceScatterBytes *= reduceWidth;
        sc.layerCopyBytes *= reduceWidth;
        sc.exposedCopyBytes *= reduceWidth;
    }
    if (in.framework.framework == Framework::DeepSpeed && (s == Strategy::Zero3 || s == Strategy::Zero3Offload))
        sc.overlap = overlapOn ? c.deepspeedGatherOverlap : 0.0;
    // DeepSpeed turns overlap_comm on by default for stage 3 only (runtime/zero/config.py): stages 1
    // and 2 reduce each bucket while backward waits.
    if (in.framework.framework == Framework::DeepSpeed
        && (s == Strategy::Zero1 || s == Strategy::Zero2 || s == Strategy::Zero2Offload))
        sc.overlap = 0.0;
    return sc;
}

// How a framework target's eager decoder and schedule differ from the native runner's
// (Calibration's "Framework targets" coefficients; docs/formulas.md).
struct ExecutionRates {
    double elementwiseHbmEfficiency;
    double layerKernelS;
    double layerLaunchS;
    double unitCollectiveHostS;
    double stepSPerParam;
    double cpuAdamParamsPerS;
    double optimizerHbmEfficiency;
    double moduleFetches; // DeepSpeed ZeRO-3's per-module gathers per micro-step (host hooks)
};

ExecutionRates executionRates(const EstimateInput& in, Strategy s, const Calibration& c)
{
    const bool master = in.training.precision == PrecisionPolicy::Bf16Fp32Master;
    ExecutionRates r { c.elementwiseHbmEfficiency,
                       c.layerKernelS,
                       c.layerLaunchS,
                       c.unitCollectiveOverheadS,
                       c.*stepSPerParamMember(s),
                       c.cpuAdamParamsPerS,
                       in.fusedKernels.adamw ? c.fusedAdamwHbmEfficiency
                           : master          ? c.masterOptimizerHbmEfficiency
                                             : c.optimizerHbmEfficiency,
                       0.0 };
    const Framework fw = in.framework.framework;
    if (fw == Framework::Native)
        return r;
    const bool compiled = in.framework.compiled && fw != Framework::DeepSpeed;
    r.elementwiseHbmEfficiency = compiled ? c.compiledElementwiseHbmEfficiency : c.eagerElementwiseHbmEfficiency;
    r.layerKernelS = c.eagerLayerKernelS;
    r.layerLaunchS = c.eagerLayerLaunchS * (compiled ? c.compiledLaunchFraction : 1.0);
    r.optimizerHbmEfficiency = c.optimizerHbmEfficiency; // torch.optim.AdamW's foreach / fused kernels
    const bool deepSpeedFamily = traits(s).family == StrategyFamily::DeepSpeedZero;
    if (fw == Framework::DeepSpeed || (deepSpeedFamily && s != Strategy::Zero0)) {
        r.stepSPerParam = c.deepspeedStepSPerParam;
        r.cpuAdamParamsPerS = c.deepspeedCpuAdamParamsPerS;
        r.unitCollectiveHostS = 0.0; // stage 3's collectives are counted per module below
        if (traits(s).shardsParameters) {
            const double modulesPerLayer
                = modulesAboveThreshold(in.model, static_cast<double>(in.knobs.persistenceThreshold));
            // Forward and backward each fetch every such module of every layer, plus the embedding and head.
            r.moduleFetches = 2.0 * (modulesPerLayer * static_cast<double>(in.model.layers) + 2.0);
        }
        return r;
    }
    r.cpuAdamParamsPerS = c.torchCpuAdamParamsPerS / (master ? c.torchCpuAdamMasterFactor : 1.0);
    r.unitCollectiveHostS = c.fsdp2UnitCollectiveS;
    switch (s) {
    case Strategy::Zero0:
        r.stepSPerParam = c.ddpStepSPerParam;
        break;
    case Strategy::Fsdp2NoReshard:
        r.stepSPerParam = c.fsdp2NoReshardFrameworkStepSPerParam;
        break;
    default:
        r.stepSPerParam = c.fsdp2ReshardFrameworkStepSPerParam;
        break;
    }
    return r;
}

// Hardware FLOPs per model FLOP: full checkpointing recomputes the forward (a third of forward and
// backward); the frameworks' selective checkpointing (torchtitan's "op" policy) recomputes every
// other matmul of it, about half; the native runner's selective checkpointing recomputes no matmul,
// only SwiGLU and a copy (runner/src/decoder_model.hpp), which the elementwise term's fit absorbs.
double recomputeFactor(const EstimateInput& in)
{
    const TrainingSpec& t = in.training;
    if (!t.activationCheckpointing)
        return 1.0;
    if (t.checkpointPolicy == CheckpointPolicy::Selective)
        return eagerDecoder(in) ? 1.0 + 1.0 / 6.0 : 1.0;
    return 4.0 / 3.0;
}

// FlashAttention-2's kernels leave Hopper's tensor-core instructions unused and reach about half the
// rate of the kernels written for it (Calibration::flashAttention2HopperEfficiency).
double attentionEfficiency(const EstimateInput& in, const Calibration& c)
{
    if (runsFlashAttention2(in) && in.gpu.architecture == "hopper")
        return c.flashAttention2HopperEfficiency;
    return c.attentionEfficiency;
}

} // namespace

ThroughputContext throughputContext(const EstimateInput& in, const Calibration& c)
{
    ThroughputContext ctx;
    ctx.params = d(in.model.parameterCount());
    ctx.units = unitCount(in.model);
    ctx.modelFlopsPerToken = modelFlopsPerToken(in.model, in.training.seqLen);
    ctx.gemmParams = gemmParams(in.model);
    ctx.attentionFlopsPerToken = causalAttentionFlopsPerToken(in.model, in.training.seqLen);
    // Saved activations without checkpointing: the elementwise passes touch every one of them.
    EstimateInput plain = in;
    plain.training.activationCheckpointing = false;
    ctx.activationBytes = activationBytes(plain);
    ctx.busBandwidthBytesPerS = busBandwidth(in, c);
    return ctx;
}

ThroughputEstimate throughput(const EstimateInput& in, Strategy s, const Calibration& c)
{
    return throughput(throughputContext(in, c), in, s, c);
}

ThroughputEstimate throughput(const ThroughputContext& ctx, const EstimateInput& in, Strategy s, const Calibration& c)
{
    const ModelSpec& m = in.model;
    const TrainingSpec& t = in.training;
    const StrategyTraits& tr = traits(s);
    const int world = in.cluster.worldSize();
    const double w = static_cast<double>(world);
    const double n = ctx.params;
    const double peakFlops = in.gpu.bf16Tflops * 1e12;

    ThroughputEstimate te;
    te.modelFlopsPerToken = ctx.modelFlopsPerToken;
    const double recompute = recomputeFactor(in);
    te.hardwareFlopsPerToken = te.modelFlopsPerToken * recompute;
    const double tokensPerRank = static_cast<double>(t.microBatch) * t.seqLen * t.gradAccumulation;
    const ExecutionRates rates = executionRates(in, s, c);
    // Kernel time: the GEMMs at the matmul rate, causal flash attention at its own rate (slower per
    // FLOP for narrow heads), and the elementwise work at HBM speed per byte of saved activations.
    const double gemmS = tokensPerRank * 6.0 * ctx.gemmParams * recompute / (peakFlops * c.matmulEfficiency);
    const double headWidth = std::min(1.0, static_cast<double>(m.headDim) / 128.0);
    const double attentionS
        = tokensPerRank * ctx.attentionFlopsPerToken * recompute / (peakFlops * attentionEfficiency(in, c) * headWidth);
    const double elementwiseS = static_cast<double>(t.gradAccumulation) * ctx.activationBytes * recompute
        / (in.gpu.hbmGBps * 1e9 * rates.elementwiseHbmEfficiency);
    // A native runner without its fused kernels runs their ATen compositions: more HBM passes.
    const AtenCompositionBytes aten = atenCompositionBytes(in);
    const double atenS = static_cast<double>(t.gradAccumulation) * (aten.layers * recompute + aten.head)
        / (in.gpu.hbmGBps * 1e9 * c.atenCompositionHbmEfficiency);
    // Every layer also runs small kernels (norms, rotary, casts, residual adds) whose time does not
    // shrink with the tokens.
    const double layerSteps = static_cast<double>(m.layers) * t.gradAccumulation * recompute;
    const Schedule sc = schedule(ctx, in, s, c);
    // Every per-unit collective also costs the GPU a stream hand-off and a launch beyond its bytes.
    const double kernelS = gemmS + attentionS + elementwiseS + atenS + layerSteps * rates.layerKernelS
        + sc.volume.unitCollectives * c.unitCollectiveKernelS;
    // The CPU issues every layer's kernels, and every per-unit collective with its copies and stream
    // waits; while it stays ahead of the GPU (launchOverlap 1) only the longer of the two counts.
    // A step replayed from a CUDA graph is one launch: the GPU runs the kernels back to back and the
    // host's issue time drops out (validate(RunConfig) allows graphs only where the whole step is
    // device work).
    const bool graphed = t.cudaGraphs && !eagerDecoder(in) && canCaptureCudaGraphs(s, t.precision, DeviceKind::Cuda);
    const double launchS = graphed
        ? 0.0
        : layerSteps * rates.layerLaunchS + sc.volume.unitCollectives * rates.unitCollectiveHostS
            + rates.moduleFetches * t.gradAccumulation * c.deepspeedModuleFetchS;
    te.computeS = c.launchCombineExponent > 0.0
        ? std::pow(std::pow(kernelS, c.launchCombineExponent) + std::pow(launchS, c.launchCombineExponent),
                   1.0 / c.launchCombineExponent)
        : kernelS + launchS - c.launchOverlap * std::min(kernelS, launchS);

    const double optimizedParams = steppedParams(in, s, n, w);
    if (tr.offloadsOptimizer) {
        // The ranks of one host share its CPU AdamW rate.
        const double hostParams = optimizedParams * in.cluster.gpusPerNode;
        te.cpuOptimizerS = hostParams / rates.cpuAdamParamsPerS;
    } else {
        te.optimizerS = optimizedParams * adamTrafficBytesPerParam(steppedPrecision(in, s))
            / (in.gpu.hbmGBps * 1e9 * rates.optimizerHbmEfficiency);
    }

    if (stepsDeviceOptimizerBesideBackward(in, s)) {
        // The native runner's per-unit AdamW on its own stream, beside the backward's kernels.
        te.optimizerHiddenS = c.deviceStepOverlap * std::min(te.optimizerS, te.computeS);
        te.optimizerS -= te.optimizerHiddenS;
    }

    te.volume = sc.volume;
    te.busBandwidthBytesPerS = ctx.busBandwidthBytesPerS;
    const double ring = (w - 1.0) / w;
    const double bw = te.busBandwidthBytesPerS;
    const double inBackward
        = (2.0 * ring * sc.volume.allReduceBytes + ring * (sc.volume.allGatherBytes - sc.afterStepGatherBytes)
           + ring * sc.volume.reduceScatterBytes)
        / bw;
    const double afterStep = ring * sc.afterStepGatherBytes / bw;
    te.commS = inBackward + afterStep;
    const double hidden = std::min(inBackward * sc.overlap, te.computeS);
    te.exposedCommS = te.commS - hidden;
    te.overheadS = n * rates.stepSPerParam;

    const double pcie = in.gpu.pcieGBps * 1e9 * c.pcieCopyEfficiency;
    const double layerCopyS = sc.layerCopyBytes / pcie;
    const double hiddenCopyS = std::min(layerCopyS, c.offloadCopyOverlap * sc.copyWindow * te.computeS);
    te.offloadCopyS = sc.exposedCopyBytes / pcie + layerCopyS - hiddenCopyS;

    // The native runner's host AdamW overlaps the GPU's part of the step (host_step_overlap); the
    // frameworks step on the host after the backward.
    const double gpuPathS = te.computeS + te.optimizerS + te.exposedCommS + te.overheadS + te.offloadCopyS;
    if (tr.offloadsOptimizer && in.framework.framework == Framework::Native && !in.hostStepAfterBackward) {
        te.cpuOptimizerHiddenS = c.hostStepOverlap * std::min(gpuPathS, te.cpuOptimizerS);
        te.cpuOptimizerS -= te.cpuOptimizerHiddenS;
    }
    te.stepTimeS = gpuPathS + te.cpuOptimizerS;
    te.tokensPerS = tokensPerRank * w / te.stepTimeS;
    te.mfu = te.tokensPerS * te.modelFlopsPerToken / (w * peakFlops);
    te.ncclShare = te.commS / te.stepTimeS;
    return te;
}

} // namespace shardwise::detail

namespace shardwise {

bool runsFlashAttention2(const EstimateInput& in)
{
    if (in.flashKernel != FlashKernel::FrameworkDefault)
        return in.flashKernel == FlashKernel::FlashAttention2;
    if (in.framework.framework != Framework::Fsdp2)
        return false;
    int major = 0;
    int minor = 0;
    return std::sscanf(in.framework.effectiveVersion().c_str(), "%d.%d", &major, &minor) == 2
        && (major < 2 || (major == 2 && minor < 11));
}

} // namespace shardwise
