// Per-GPU bytes at the step's peak, by category. The peak is taken at the start of backward: every
// activation and the loss's logits are live, the first units are gathered, and persistent state is
// allocated (FSDP2's gradients are the exception, see below). Transient sizes follow each
// family's schedule: DeepSpeed buckets (reduce_bucket_size, stage3_prefetch_bucket_size,
// stage3_param_persistence_threshold) and FSDP2's per-unit flat buffers with at most
// knobs.fsdpLiveUnits gathered at once.
#include "parts.hpp"

#include <algorithm>

namespace shardwise::detail {

namespace {

double d(std::int64_t x) { return static_cast<double>(x); }

// DeepSpeed stage 3 keeps parameters below stage3_param_persistence_threshold elements unsharded:
// in these decoders that is every norm weight and the q/k/v biases.
double persistentSmallParams(const ModelSpec& m, std::int64_t threshold)
{
    double small = 0;
    if (m.normParams() < threshold)
        small += d(2 * m.layers + 1) * d(m.normParams());
    if (m.qkvBias && m.heads * m.headDim < threshold)
        small += d(m.layers) * d((m.heads + 2 * m.kvHeads) * m.headDim);
    return small;
}

// The largest single module DeepSpeed stage 3 fetches: the embedding (also the head when tied) or an
// MLP projection.
double largestLeafParams(const ModelSpec& m)
{
    return std::max({d(m.vocab * m.hidden), d(m.hidden * m.ffn), d(m.hidden * m.heads * m.headDim)});
}

} // namespace

ModelConstants modelConstants(const ModelSpec& m, const TuningKnobs& k)
{
    ModelConstants mc;
    mc.params = d(m.parameterCount());
    mc.largestUnit = largestUnitParams(m);
    mc.layer = d(m.layerParams());
    mc.largestLeaf = largestLeafParams(m);
    mc.persistentSmall = persistentSmallParams(m, k.persistenceThreshold);
    return mc;
}

MemoryContext memoryContext(const ModelConstants& mc, const EstimateInput& in, const Calibration& c)
{
    MemoryContext ctx;
    ctx.params = mc.params;
    ctx.world = static_cast<double>(in.cluster.worldSize());
    ctx.largestUnit = mc.largestUnit;
    ctx.layer = mc.layer;
    ctx.largestLeaf = mc.largestLeaf;
    ctx.persistentSmall = mc.persistentSmall;
    ctx.activations = activationBytes(in) * c.activationBytesScale;
    ctx.logits = logitsBytes(in, c);
    ctx.fragmentationFraction =
        in.training.expandableSegments ? c.fragmentationFractionExpandable : c.fragmentationFraction;
    ctx.runtimeContext = (c.cudaContextGiB + (in.cluster.worldSize() > 1 ? c.ncclBuffersGiB : 0.0)) * kGiB;
    ctx.deviceCapacity = static_cast<double>(in.gpu.memoryBytes());
    ctx.headroom = c.headroomFraction * ctx.deviceCapacity;
    ctx.hostCapacity = in.cluster.hostRamGiB * kGiB * c.hostUsableFraction;
    return ctx;
}

MemoryContext memoryContext(const EstimateInput& in, const Calibration& c)
{
    return memoryContext(modelConstants(in.model, in.knobs), in, c);
}

MemoryBreakdown memoryBreakdown(const MemoryContext& ctx, const EstimateInput& in, Strategy s)
{
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
    mb.logitsAndLoss = ctx.logits;

    const double unit = ctx.largestUnit;
    const double layer = ctx.layer;
    const double reduceBucket = kBf16Bytes * std::min(d(k.reduceBucketElements), n);

    switch (s) {
    case Strategy::Zero0:
        // Gradients are all-reduced in place in their (persistent) bucket views: no extra buffer.
        break;
    case Strategy::Zero1:
    case Strategy::Zero2:
        // One reduce bucket (DeepSpeed's ipg buffer) is filled and all-reduced while backward runs.
        mb.commBuffers = reduceBucket;
        break;
    case Strategy::Zero3:
    case Strategy::Zero3Offload: {
        // Live gathered: the module in use plus the prefetch bucket, never more than the model; small
        // parameters stay unsharded on every rank.
        const double fetched = std::min(ctx.largestLeaf + d(k.prefetchBucketElements), n);
        mb.gatheredParams = kBf16Bytes * (fetched + ctx.persistentSmall * (1.0 - 1.0 / w));
        mb.commBuffers = reduceBucket;
        break;
    }
    case Strategy::Fsdp2NoReshard:
        // Every unit gathered in forward stays until its backward: the whole model unsharded at the
        // start of backward, next to the shards. Plus one unit's unsharded gradient before its
        // reduce-scatter and the reduce-scatter output.
        mb.gatheredParams = kBf16Bytes * n;
        mb.commBuffers = kBf16Bytes * unit * (1.0 + 1.0 / w);
        break;
    case Strategy::Fsdp2Reshard:
    case Strategy::Fsdp2ReshardOffload: {
        const double live = std::min(unit + d(std::max(k.fsdpLiveUnits - 1, 0)) * layer, n);
        mb.gatheredParams = kBf16Bytes * live;
        mb.commBuffers = kBf16Bytes * unit * (1.0 + 1.0 / w);
        if (s == Strategy::Fsdp2ReshardOffload) // the host shard is copied up before each all-gather
            mb.commBuffers += kBf16Bytes * unit / w;
        break;
    }
    }

    // FSDP2 creates each sharded gradient with the unit's reduce-scatter during backward and frees it
    // at zero_grad (set_to_none), so the gradients and the activations are never all live together:
    // the peak is the larger of the start of backward (activations and logits, no gradients) and the
    // end of backward (gradients, activations freed). DeepSpeed and DDP allocate their gradient
    // buffers once, so both are live at the start of backward.
    if (traits(s).family == StrategyFamily::Fsdp2 && mb.deviceGrads > 0) {
        if (mb.activations + mb.logitsAndLoss >= mb.deviceGrads) {
            mb.deviceGrads = 0;
        } else {
            mb.activations = 0;
            mb.logitsAndLoss = 0;
        }
    }

    mb.fragmentation = ctx.fragmentationFraction * mb.allocatedPeak();
    mb.runtimeContext = ctx.runtimeContext;
    return mb;
}

bool fitsMemory(const MemoryBreakdown& m, const MemoryContext& ctx, const EstimateInput& in)
{
    return m.devicePeak() + ctx.headroom <= ctx.deviceCapacity
        && m.hostPerRank() * in.cluster.gpusPerNode <= ctx.hostCapacity;
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
    // Every strategy's allocated peak holds at least the activations and the logits (FSDP2 trades
    // its gradients for them only when the gradients are larger), so when those alone, with their
    // fragmentation share and the runtime context, leave no room, nothing fits and the eight
    // breakdowns are skipped. The bound is shrunk by far more than the rounding of the sums it
    // stands for, so it never rejects a variant that fitsByMemory would accept.
    const double transient = ctx.activations + ctx.logits;
    const double lowerBound = (transient + ctx.fragmentationFraction * transient + ctx.runtimeContext) * (1.0 - 1e-9);
    if (lowerBound + ctx.headroom > ctx.deviceCapacity)
        return std::nullopt;
    for (Strategy s : order)
        if (detail::fitsMemory(detail::memoryBreakdown(ctx, variant, s), ctx, variant))
            return s;
    return std::nullopt;
}

} // namespace shardwise
