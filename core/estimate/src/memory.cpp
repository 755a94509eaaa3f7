// Per-GPU bytes at the step's peak, by category, for the runner (docs/runner.md; runner/src
// sharding_engine.cpp, unit_schedule.cpp). The peak is taken at the end of forward / start of
// backward: every activation is live, with the head's logits chunk or the last layer's MLP input
// gradients, the root unit and the units in use gathered, and every flat gradient buffer allocated
// (the runner allocates them once, for every strategy). Which unit-sized buffers are live per
// strategy was read off the H200 runs (bench/results/fidelity.md): at world 1 the peaks differ from
// zero0's by whole multiples of the root unit (embedding + head) and of one decoder layer.
#include "parts.hpp"

#include <algorithm>
#include <cmath>

namespace shardwise::detail {

namespace {

double d(std::int64_t x)
{
    return static_cast<double>(x);
}

// The offload strategies' unsharded gradients in flight, as zero3's (U + a layer), and what moves
// between host and device (runner/src/unit_schedule.cpp, downloadReducedSlice).
// Runners before versions.offload_staging: the reduce-scatter output (U/W with peers) went into one of
// two device staging shards sized for the largest unit, 2U/W, kept for the whole run; fsdp2's uploads
// used a third. The H200 world-1 runs measured 4U + 2 layers (zero3_offload) and 5U + 2 layers
// (fsdp2_reshard_offload) above zero0 (docs/formulas.md).
// The current runner: each unit's gradient is reduced in place into its own slice of the full buffer
// and copied to the host from there, host shards go straight into the gathered buffer: no staging and
// no separate reduce output. Up to two full gradients stay allocated until their copies are done;
// they are held only once their layers' backward has freed that layer's activations, so they raise
// the start-of-backward peak only by what a layer's gradient exceeds a layer's activations, for each
// of the two (short sequences, or activation checkpointing, where a layer frees only its input).
double offloadCommBuffers(const EstimateInput& in, Strategy s, double unit, double layer, double reduceOutput, double w)
{
    if (in.offloadStagingKept) {
        const double staging = (s == Strategy::Fsdp2ReshardOffload ? 3.0 : 2.0) * unit / w;
        return unit + layer + reduceOutput + staging;
    }
    const double tokens = static_cast<double>(in.training.microBatch) * static_cast<double>(in.training.seqLen);
    const bool selective = in.training.checkpointPolicy == CheckpointPolicy::Selective;
    const double layerActivations = tokens
        * (!in.training.activationCheckpointing ? detail::layerActivationBytesPerToken(in)
               : selective                      ? detail::nativeSelectiveLayerActivationBytesPerToken(in)
                                                : kBf16Bytes * d(in.model.hidden));
    constexpr double kHeldGradientDownloads = 2.0; // unit_schedule.cpp
    return unit + layer + kHeldGradientDownloads * std::max(0.0, layer - layerActivations);
}

} // namespace

ModelConstants modelConstants(const ModelSpec& m, const TuningKnobs& knobs)
{
    ModelConstants mc;
    mc.params = d(m.parameterCount());
    mc.largestUnit = largestUnitParams(m);
    mc.layer = d(m.layerParams());
    mc.largestModule = largestModuleParams(m);
    mc.fetchedModulesPerLayer = modulesAboveThreshold(m, d(knobs.persistenceThreshold));
    return mc;
}

MemoryContext memoryContext(const ModelConstants& mc, const EstimateInput& in, const Calibration& c)
{
    MemoryContext ctx;
    ctx.params = mc.params;
    ctx.world = static_cast<double>(in.cluster.worldSize());
    ctx.largestUnit = mc.largestUnit;
    ctx.layer = mc.layer;
    ctx.largestModule = mc.largestModule;
    ctx.fetchedModulesPerLayer = mc.fetchedModulesPerLayer;
    const double activationScale = eagerDecoder(in) ? c.eagerActivationBytesScale : c.activationBytesScale;
    ctx.activations = activationBytes(in) * activationScale;
    ctx.logits = logitsBytes(in, c);
    ctx.backwardWorking = backwardWorkingBytes(in) * activationScale;
    ctx.hostBufferFactor = in.framework.framework == Framework::DeepSpeed ? c.deepspeedHostBufferFactor : 1.0;
    ctx.workspace = c.deviceWorkspaceGiB * kGiB;
    ctx.fragmentationFraction
        = in.training.expandableSegments ? c.fragmentationFractionExpandable : c.fragmentationFraction;
    if (eagerDecoder(in)) {
        ctx.fragmentationFraction = c.eagerFragmentationFraction;
        ctx.fragmentationBytes = c.eagerFragmentationGiB * kGiB;
        ctx.adamwStepTemporaries = c.eagerAdamwStepTemporaryFraction;
    }
    ctx.runtimeContext = (c.cudaContextGiB + (in.cluster.worldSize() > 1 ? c.ncclBuffersGiB : 0.0)) * kGiB;
    ctx.deviceCapacity = static_cast<double>(in.gpu.memoryBytes());
    ctx.headroom = (eagerDecoder(in) ? c.eagerHeadroomFraction : c.headroomFraction) * ctx.deviceCapacity;
    ctx.hostCapacity = in.cluster.hostRamGiB * kGiB * c.hostUsableFraction;
    return ctx;
}

MemoryContext memoryContext(const EstimateInput& in, const Calibration& c)
{
    return memoryContext(modelConstants(in.model, in.knobs), in, c);
}

MemoryBreakdown memoryBreakdown(const MemoryContext& ctx, const EstimateInput& in, Strategy s)
{
    if (eagerDecoder(in))
        return frameworkMemoryBreakdown(ctx, in, s);
    const double n = ctx.params;
    const double w = ctx.world;
    const TuningKnobs& k = in.knobs;

    const StateShares state = stateShares(s, n, w, in.training.precision);
    MemoryBreakdown mb;
    mb.deviceParams = state.deviceParams;
    mb.deviceGrads = state.deviceGrads;
    mb.deviceOptimizer = state.deviceOptimizer;
    mb.hostParams = state.hostParams;
    mb.hostGrads = state.hostGrads;
    mb.hostOptimizer = state.hostOptimizer;

    mb.activations = ctx.activations;
    mb.logitsAndLoss = std::max(ctx.logits, ctx.backwardWorking);
    mb.workspace = ctx.workspace;

    // Unit-sized buffers: U the largest unit (the root: embedding, untied head, final norm; or a
    // decoder layer if larger), one decoder layer, bf16.
    const double unit = kBf16Bytes * ctx.largestUnit;
    const double layer = kBf16Bytes * ctx.layer;
    // Decoder layers gathered at once: FSDP2 the one in use and the next (knobs.fsdpLiveUnits); the
    // runner's stage 3 the one in use and those its prefetch bucket reaches (docs/runner.md).
    const bool fsdp2 = traits(s).family == StrategyFamily::Fsdp2;
    const double prefetched = ctx.layer > 0 ? std::max(1.0, std::ceil(d(k.prefetchBucketElements) / ctx.layer)) : 1.0;
    const double liveLayers = fsdp2 ? static_cast<double>(std::max(k.fsdpLiveUnits, 1)) : 1.0 + prefetched;
    // A reduce-scatter's output is a separate shard only with peers; at world 1 it reduces in place.
    const double reduceOutput = w > 1 ? unit / w : 0.0;

    switch (s) {
    case Strategy::Zero0:
    case Strategy::Zero1:
        // Gradients are reduced in place in their persistent flat buffers: no extra buffer.
        break;
    case Strategy::Zero2:
        // The unit being reduced holds its full gradient next to the persistent gradient shards.
        mb.commBuffers = unit + reduceOutput;
        break;
    case Strategy::Zero2Offload:
        // As zero2, but each bucket's gradients are reduced in place and this rank's slices copied to
        // the host from there: no reduce output and no device gradient shard. A flushed bucket's
        // buffers are freed when the next bucket flushes (unit_schedule.cpp), after the peak at the
        // start of backward, where only the root's gradient is allocated.
        mb.commBuffers = unit;
        break;
    case Strategy::Zero3:
    case Strategy::Zero3Offload:
    case Strategy::Fsdp2Reshard:
    case Strategy::Fsdp2ReshardOffload:
        // Gathered: the root unit (used by the embedding and again by the head) and the layer in use;
        // unsharded gradients in flight: the root's, and the prefetched layer's gradient while the
        // current one is reduced. Measured at world 1: zero0 + 2U + 2 layers for Qwen2.5-7B and 14B.
        mb.gatheredParams = unit + (liveLayers - 1.0) * layer;
        mb.commBuffers = unit + layer + reduceOutput;
        if (traits(s).offloadsOptimizer)
            mb.commBuffers = offloadCommBuffers(in, s, unit, layer, reduceOutput, w);
        break;
    case Strategy::Fsdp2NoReshard:
        // Every unit gathered in forward stays until its backward: the whole model unsharded at the
        // start of backward, next to the shards, plus the root's unsharded gradient.
        mb.gatheredParams = kBf16Bytes * n;
        mb.commBuffers = unit + reduceOutput;
        break;
    }

    mb.fragmentation = ctx.fragmentationFraction * mb.allocatedPeak();
    mb.runtimeContext = ctx.runtimeContext;
    return mb;
}

bool fitsMemory(const MemoryBreakdown& m, const MemoryContext& ctx, const EstimateInput& in)
{
    // The same comparison as Estimate: peak <= capacity less headroom.
    return m.peakBytes() <= ctx.deviceCapacity - ctx.headroom
        && m.hostPerRank() * in.cluster.gpusPerNode * ctx.hostBufferFactor <= ctx.hostCapacity;
}

} // namespace shardwise::detail

namespace shardwise {

FitProbe::FitProbe(const EstimateInput& base, const Calibration& c)
    : constants_(detail::modelConstants(base.model, base.knobs))
    , calibration_(c)
{
}

std::optional<Strategy> FitProbe::firstFitting(const EstimateInput& variant,
                                               const std::array<Strategy, kStrategyCount>& order) const
{
    const detail::MemoryContext ctx = detail::memoryContext(constants_, variant, calibration_);
    // Every strategy's allocated peak holds at least the activations, the larger transient and the
    // workspace, so when those alone, with the runtime context, leave no room, nothing fits and the
    // eight breakdowns are skipped. The bound is shrunk by far more than the rounding of the sums it
    // stands for, so it never rejects a variant that fitsByMemory would accept.
    const double transient = ctx.activations + std::max(ctx.logits, ctx.backwardWorking) + ctx.workspace;
    const double lowerBound = (transient + ctx.runtimeContext) * (1.0 - 1e-9);
    // A framework's peak may lie at the end of backward instead, without the activations: no bound.
    if (!detail::eagerDecoder(variant) && lowerBound > ctx.deviceCapacity - ctx.headroom)
        return std::nullopt;
    for (Strategy s : order)
        if (frameworkSupports(variant.framework.framework, s)
            && detail::fitsMemory(detail::memoryBreakdown(ctx, variant, s), ctx, variant))
            return s;
    return std::nullopt;
}

} // namespace shardwise
