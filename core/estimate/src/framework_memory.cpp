// Per-GPU bytes at the step's peak for the framework targets: what DeepSpeed, PyTorch FSDP2 / DDP (as
// Transformers / Accelerate apply them) and torchtitan allocate at their defaults. Sources per term
// are in docs/formulas.md, "Framework targets". The ZeRO stages (zero1..zero3_offload) follow
// DeepSpeed's own model-state estimates, estimate_zero2_model_states_mem_needs
// (deepspeed/runtime/zero/stage_1_and_2.py, for stages 1 and 2 alike: 4N + 16N/W without offload; with
// cpu_offload 2N on the
// GPU and N x max(4 x GPUs, 16) x additional_buffer_factor on the host) and
// estimate_zero3_model_states_mem_needs (stage3.py: 4 x largest layer + 18N/W; with offload_optimizer
// 4 x largest layer + 2N/W on the GPU and 16N/W x additional_buffer_factor on the host); the fsdp2
// strategies follow fully_shard's buffers (the FSDP2 tutorial's MixedPrecisionPolicy(param_dtype=bf16,
// reduce_dtype=fp32): sharded parameters stay fp32, unsharded ones are bf16).
#include "parts.hpp"

#include "shardwise/estimate/deepspeed_precision.hpp"
#include "shardwise/spec/json.hpp"

#include <algorithm>
#include <cmath>

namespace shardwise::detail {

namespace {

double d(std::int64_t x)
{
    return static_cast<double>(x);
}

struct ModuleSizes {
    double q, k, v, o, gate, up, down, norm, embedding, head;
};

ModuleSizes moduleSizes(const ModelSpec& m)
{
    const double h = d(m.hidden);
    const double a = d(m.heads * m.headDim);
    const double kv = d(m.kvHeads * m.headDim);
    const double f = d(m.ffn);
    const bool bias = m.qkvBias;
    const bool swiglu = m.activation == ActivationKind::SwiGlu;
    return { h * a + (bias ? a : 0.0),
             h * kv + (bias ? kv : 0.0),
             h * kv + (bias ? kv : 0.0),
             a * h,
             swiglu ? h * f : 0.0,
             h * f,
             f * h,
             d(m.normParams()),
             d(m.embeddingParams()),
             d(m.headParams()) };
}

// Bytes per parameter of the persistent state under the target's precision.
struct StateBytesPerParam {
    double param;     // the copy the optimizer updates (fp32 master, or the bf16 weights)
    double grad;      // the gradient the optimizer reads
    double optimizer; // Adam moments (+ DeepSpeed's separate fp32 master next to bf16 weights)
};

// Where the step's peak lies decides what is live. At the start of backward: every activation and the
// loss's logits, with the gathered parameters and reduce buffers of the units in use. In the optimizer
// step: every gradient (created in backward, freed at zero_grad(set_to_none=True), PyTorch's default
// since 2.0, which Transformers' Trainer and torchtitan call), and the temporaries of the AdamW step
// (Calibration::eagerAdamwStepTemporaryFraction: a foreach step builds one updated-parameter-sized
// list, e.g. the denominators, 11.5 GiB for Qwen2.5-3B with an fp32 master on the H200; the fused step
// none); FSDP2 has resharded everything by then and DDP's autocast copies are gone. The larger of the
// two is the peak. With the fused step every rehearsed cell but DDP's peaked in backward.
void peakOfPhases(MemoryBreakdown& mb, double grads, double stepTemporaries, bool keepsBuckets)
{
    const double startOfBackward = mb.gatheredParams + mb.commBuffers + mb.activations + mb.logitsAndLoss;
    const double optimizerStep = (keepsBuckets ? mb.commBuffers : 0.0) + grads + stepTemporaries;
    if (optimizerStep <= startOfBackward)
        return;
    mb.deviceGrads += grads;
    mb.deviceOptimizer += stepTemporaries;
    mb.activations = 0;
    mb.logitsAndLoss = 0;
    mb.gatheredParams = 0;
    if (!keepsBuckets)
        mb.commBuffers = 0;
}

// What DeepSpeed's estimate_zero3_model_states_mem_needs adds for the modules ZeRO-3 gathers: 4 bytes
// (bf16 parameters and their gradient) per parameter of the largest layer.
double deepSpeedEstimatorGathered(const MemoryContext& ctx)
{
    return 4.0 * ctx.largestModule;
}

// Bytes per parameter of this rank's partition that DeepSpeed's ZeRO optimizer holds beside the bf16
// weights and gradients (deepspeed_precision.hpp has the sources).
struct DeepSpeedPartitionBytes {
    double master;        // the optimizer's copy of the weights
    double gradPartition; // the reduced gradient partition the optimizer reads
    double moments;       // Adam's m and v
};

DeepSpeedPartitionBytes deepSpeedPartitionBytes(const EstimateInput& in, Strategy s)
{
    switch (deepSpeedMaster(deepSpeedRelease(in.framework), s, in.training.precision)) {
    case DeepSpeedMaster::Fp32:
        // single_partition_of_fp32_groups / fp32_partitioned_groups_flat: .clone().float() of the bit16
        // partition, whatever bf16.enabled says; the gradient partition is converted to fp32 for the step.
        return { 4.0, 4.0, 8.0 };
    case DeepSpeedMaster::Bf16:
    case DeepSpeedMaster::ModelDtype:
        break;
    }
    // bf16_master_weights_and_grads + bf16_optimizer_states (0.18.3 and later): stages 1 and 2 clone the
    // bf16 partition into the master (stage_1_and_2.py); stage 3 uses its bf16 partition itself when
    // the dtypes agree (_create_fp32_partitions), so it keeps no second copy.
    return { traits(s).shardsParameters ? 0.0 : kBf16Bytes, kBf16Bytes, 2.0 * kBf16Bytes };
}

void deepSpeedStages(MemoryBreakdown& mb, const MemoryContext& ctx, const EstimateInput& in, Strategy s)
{
    const double n = ctx.params;
    const double w = ctx.world;
    // bf16 weights and gradients, and per rank the master, the gradient partition and the moments: fp32
    // (12 + 4 bytes) at every request before release 0.18.3, bf16 with its bf16 master keys.
    const DeepSpeedPartitionBytes part = deepSpeedPartitionBytes(in, s);
    const double optimizer = part.master + part.moments;
    // The "ipg" bucket gradients are copied into before each reduction (contiguous_gradients, on by
    // default) holds reduce_bucket_size bf16 elements; overlap_comm doubles it. DeepSpeed turns
    // overlap_comm on by default for stage 3 only (runtime/zero/config.py).
    const double bucket = kBf16Bytes * d(in.knobs.reduceBucketElements);
    const bool stage3 = traits(s).shardsParameters;
    const double buckets = bucket * ((stage3 && in.knobs.overlapComm) ? 2.0 : 1.0);
    // Stage 3 gathers one module at a time: DeepSpeed's own estimate adds 4 x the largest module (its
    // bf16 parameters and gradient), and the prefetch keeps up to stage3_prefetch_bucket_size more
    // elements gathered, never above stage3_max_live_parameters.
    const double liveGathered = std::min(d(in.knobs.maxLiveParameters), d(in.knobs.prefetchBucketElements) + ctx.layer);
    switch (s) {
    case Strategy::Zero1:
    case Strategy::Zero2:
        // DeepSpeed's estimate for stages 1 and 2 keeps the bf16 gradients whole (4N with the weights:
        // each parameter's .grad lives until its bucket is reduced, and the estimate counts them all)
        // and partitions the fp32 gradient, master and moments (16N/W). Its documented t5-3b example
        // (2.851B parameters, 8 GPUs) gives 15.93 GB, which 2N + 18N/W would put at 9.96.
        mb.deviceParams = kBf16Bytes * n;
        mb.deviceGrads = kBf16Bytes * n + part.gradPartition * n / w;
        mb.deviceOptimizer = optimizer * n / w;
        mb.commBuffers = buckets;
        break;
    case Strategy::Zero3:
        mb.deviceParams = kBf16Bytes * n / w;
        mb.deviceGrads = part.gradPartition * n / w;
        mb.deviceOptimizer = optimizer * n / w;
        mb.gatheredParams = deepSpeedEstimatorGathered(ctx) + kBf16Bytes * liveGathered;
        mb.commBuffers = buckets;
        break;
    case Strategy::Zero2Offload: {
        // ZeRO-Offload, stage 2 with offload_optimizer {device: cpu}: the bf16 weights stay whole on
        // the GPU; the fp32 gradient partition, master and moments live in pinned host memory.
        mb.deviceParams = kBf16Bytes * n;
        mb.commBuffers = buckets;
        mb.hostGrads = part.gradPartition * n / w;
        mb.hostOptimizer = optimizer * n / w;
        // Stage 2 has no zero.Init: every process first loads the whole fp32 model on the host before
        // deepspeed.initialize partitions it, so the host's peak is the larger of that load (4N per
        // process) and the step's state (16N/W). This is the estimator's max(4 x GPUs, 16) per node,
        // which counts every GPU of the job where a node holds only its own processes.
        const double hostStep = mb.hostGrads + mb.hostOptimizer;
        mb.hostParams = std::max(0.0, 4.0 * n - hostStep);
        break;
    }
    case Strategy::Zero3Offload: // offload_optimizer {device: cpu}: gradients, master and moments on the host
        mb.deviceParams = kBf16Bytes * n / w;
        mb.gatheredParams = deepSpeedEstimatorGathered(ctx) + kBf16Bytes * liveGathered;
        mb.commBuffers = buckets;
        mb.hostGrads = part.gradPartition * n / w;
        mb.hostOptimizer = optimizer * n / w;
        break;
    default:
        break;
    }
}

// zero0 in DeepSpeed: with bf16 on, the engine wraps the optimizer in BF16_Optimizer
// (runtime/bf16_optimizer.py), which accumulates gradients into a full fp32 buffer and keeps the
// fp32 master and moments partitioned across the data-parallel ranks. With bf16 off (pure bf16: the
// model loaded in bf16) _do_optimizer_sanity_check builds no wrapper, and the optimizer keeps bf16
// moments for every parameter on every rank.
void deepSpeedStage0(MemoryBreakdown& mb, const MemoryContext& ctx, const EstimateInput& in)
{
    const double n = ctx.params;
    const bool master = deepSpeedMaster(deepSpeedRelease(in.framework), Strategy::Zero0, in.training.precision)
        == DeepSpeedMaster::Fp32;
    mb.deviceParams = kBf16Bytes * n;
    mb.deviceGrads = kBf16Bytes * n + (master ? 4.0 * n : 0.0);
    mb.deviceOptimizer = master ? 12.0 * n / ctx.world : 2.0 * kBf16Bytes * n;
}

// PyTorch: DDP for zero0, fully_shard for the fsdp2 strategies.
void torchStrategies(MemoryBreakdown& mb, const MemoryContext& ctx, const EstimateInput& in, Strategy s)
{
    const double n = ctx.params;
    const double w = ctx.world;
    const bool master = in.training.precision == PrecisionPolicy::Bf16Fp32Master;
    // With an fp32 master the model's parameters are fp32 (Accelerate's aligned mode, torchtitan) and
    // their gradients too; pure bf16 loads the model in bf16 (Accelerate's memory-constrained mode).
    const StateBytesPerParam st { master ? 4.0 : kBf16Bytes, master ? 4.0 : kBf16Bytes, master ? 8.0 : 4.0 };
    const double root = d(in.model.rootParams());
    const double layer = ctx.layer;
    // The unsharded gradient of the layer being reduced, in bf16, its copy in the reduce dtype (fp32
    // with a master), and the reduce-scatter's output shard. A layer, not the root: the root's
    // gradient is reduced last, after every activation is freed.
    const double reduceBytes = master ? 4.0 : kBf16Bytes;
    const double reducing = kBf16Bytes * layer + (master ? reduceBytes * layer : 0.0) + reduceBytes * layer / w;
    switch (s) {
    case Strategy::Zero0:
        // DDP keeps a flat bucket per ~25 MB of gradients, a full copy of every gradient
        // (gradient_as_bucket_view=False, the default); under autocast the bf16 copies of the fp32
        // weights the forward cast are kept for backward.
        mb.deviceParams = st.param * n;
        mb.deviceOptimizer = st.optimizer * n;
        mb.commBuffers = st.grad * n;
        mb.gatheredParams = master ? kBf16Bytes * n : 0.0;
        peakOfPhases(mb, st.grad * n, ctx.adamwStepTemporaries * st.param * n, true);
        break;
    case Strategy::Fsdp2NoReshard:
        // Every unit gathered in forward stays unsharded (bf16) until its backward.
        mb.deviceParams = st.param * n / w;
        mb.deviceOptimizer = st.optimizer * n / w;
        mb.gatheredParams = kBf16Bytes * n;
        mb.commBuffers = reducing;
        peakOfPhases(mb, st.grad * n / w, ctx.adamwStepTemporaries * st.param * n / w, false);
        break;
    case Strategy::Fsdp2Reshard:
        // The root module is not resharded after forward (fully_shard keeps the root's parameters for
        // the backward that follows at once); a layer in use and the one prefetched are gathered.
        mb.deviceParams = st.param * n / w;
        mb.deviceOptimizer = st.optimizer * n / w;
        mb.gatheredParams = kBf16Bytes * (root + static_cast<double>(std::max(in.knobs.fsdpLiveUnits, 1)) * layer);
        mb.commBuffers = reducing;
        peakOfPhases(mb, st.grad * n / w, ctx.adamwStepTemporaries * st.param * n / w, false);
        break;
    case Strategy::Fsdp2ReshardOffload:
        // CPUOffloadPolicy: sharded parameters, gradients and optimizer state in pinned host memory;
        // each gather first copies the shard up.
        mb.hostParams = st.param * n / w;
        mb.hostGrads = st.grad * n / w;
        mb.hostOptimizer = st.optimizer * n / w;
        mb.gatheredParams = kBf16Bytes * (root + static_cast<double>(std::max(in.knobs.fsdpLiveUnits, 1)) * layer);
        mb.commBuffers = reducing + st.param * layer / w;
        break;
    default:
        break;
    }
}

} // namespace

double largestModuleParams(const ModelSpec& m)
{
    const ModuleSizes ms = moduleSizes(m);
    return std::max({ ms.q, ms.k, ms.v, ms.o, ms.gate, ms.up, ms.down, ms.embedding, ms.head });
}

double modulesAboveThreshold(const ModelSpec& m, double threshold)
{
    const ModuleSizes ms = moduleSizes(m);
    double count = 0;
    for (double size : { ms.q, ms.k, ms.v, ms.o, ms.gate, ms.up, ms.down, ms.norm, ms.norm })
        count += size > threshold ? 1.0 : 0.0;
    return count;
}

MemoryBreakdown frameworkMemoryBreakdown(const MemoryContext& ctx, const EstimateInput& in, Strategy s)
{
    MemoryBreakdown mb;
    mb.activations = ctx.activations;
    mb.logitsAndLoss = std::max(ctx.logits, ctx.backwardWorking);
    mb.workspace = ctx.workspace;
    const bool deepSpeedFamily = traits(s).family == StrategyFamily::DeepSpeedZero;
    if (s == Strategy::Zero0 && in.framework.framework == Framework::DeepSpeed)
        deepSpeedStage0(mb, ctx, in);
    else if (s != Strategy::Zero0 && deepSpeedFamily)
        deepSpeedStages(mb, ctx, in, s);
    else
        torchStrategies(mb, ctx, in, s);
    // What the framework's caching allocator reserves beyond the allocated peak is part of its peak.
    mb.allocatorCache = ctx.fragmentationFraction * mb.allocatedPeak() + ctx.fragmentationBytes;
    mb.runtimeContext = ctx.runtimeContext;
    return mb;
}

} // namespace shardwise::detail

namespace shardwise {

protocol::StateBytes frameworkModelStateBytes(Framework f, Strategy s, double params, double largestModuleParams,
                                              int world, PrecisionPolicy precision)
{
    if (f == Framework::Native)
        return modelStateBytes(s, params, world, precision);
    if (f != Framework::DeepSpeed)
        throw SpecError("framework_target",
                        std::string(frameworkId(f))
                            + ": its model state depends on the model's shape (layers, root "
                              "parameters); plan a model instead");
    detail::MemoryContext ctx;
    ctx.params = params;
    ctx.world = static_cast<double>(world);
    ctx.largestModule = largestModuleParams;
    EstimateInput in;
    in.framework.framework = f;
    in.training.precision = precision;
    const MemoryBreakdown mb = detail::frameworkMemoryBreakdown(ctx, in, s);
    const auto bytes = [](double x) { return static_cast<std::int64_t>(std::llround(x)); };
    protocol::StateBytes out;
    out.deviceParams
        = bytes(mb.deviceParams + (traits(s).shardsParameters ? detail::deepSpeedEstimatorGathered(ctx) : 0.0));
    out.deviceGrads = bytes(mb.deviceGrads);
    out.deviceOptimizer = bytes(mb.deviceOptimizer);
    out.hostParams = bytes(mb.hostParams);
    out.hostGrads = bytes(mb.hostGrads);
    out.hostOptimizer = bytes(mb.hostOptimizer);
    return out;
}

} // namespace shardwise
