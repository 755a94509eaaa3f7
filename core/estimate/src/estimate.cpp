#include "parts.hpp"

#include "shardwise/spec/json.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace shardwise {

void applyRunnerBehaviour(EstimateInput& in, const protocol::SoftwareVersions& versions)
{
    in.normInputsKept = versions.activations != protocol::kNormInputsRecomputed;
    const auto& staging = versions.offloadStaging;
    in.offloadStagingKept = !protocol::offloadStagingHas(staging, protocol::kOffloadStagingInPlace);
    in.hostStepAfterBackward = !protocol::offloadStagingHas(staging, protocol::kHostStepPerUnit);
    in.deviceStepAfterBackward = !protocol::offloadStagingHas(staging, protocol::kDeviceStepPerUnit);
    in.fusedKernels.rotary = protocol::ranFusedKernel(versions.kernels, protocol::kFusedRotary);
    in.fusedKernels.swiglu = protocol::ranFusedKernel(versions.kernels, protocol::kFusedSwiglu);
    in.fusedKernels.crossEntropy = protocol::ranFusedKernel(versions.kernels, protocol::kFusedCrossEntropy);
    in.fusedKernels.adamw = protocol::ranFusedKernel(versions.kernels, protocol::kFusedAdamW);
}

bool stepsDeviceOptimizerBesideBackward(const EstimateInput& in, Strategy s)
{
    // runner/src/sharding_engine.cpp: one fused AdamW kernel per unit (no offload; an fp32 master only
    // with the runner's own AdamW kernel, which writes the master's bf16 copy in its pass), issued as
    // each unit's own reduction finishes (not zero1/zero2's buckets), at the last micro-step, where a
    // sharded gradient is final only without accumulation. A step captured as a CUDA graph steps after
    // the backward (runner/src/step_schedule.hpp).
    const StrategyTraits& tr = traits(s);
    const bool oneKernel = in.training.precision == PrecisionPolicy::PureBf16
        || (in.training.precision == PrecisionPolicy::Bf16Fp32Master && in.fusedKernels.adamw);
    return in.framework.framework == Framework::Native && !in.deviceStepAfterBackward && !in.training.cudaGraphs
        && !tr.offloadsOptimizer && oneKernel && tr.reduction != GradReduction::BucketAllReduce
        && (in.training.gradAccumulation == 1 || !tr.shardsGradients);
}

void applyRunBackend(EstimateInput& in, const RunConfig& run)
{
    in.framework = FrameworkTarget {};
    if (run.backend == RunBackend::Torch) {
        in.framework.framework = Framework::Fsdp2;
        in.framework.compiled = run.torchCompile;
    }
}

bool applyRehearsal(EstimateInput& in, const RunConfig& run)
{
    if (!run.rehearsal())
        return true;
    constexpr int kMaxNodes = 4096;     // validate(ClusterSpec)
    constexpr int kMaxGpusPerNode = 64; // validate(ClusterSpec)
    const int world = run.rehearseWorld;
    for (int perNode = 1; perNode <= kMaxGpusPerNode; ++perNode) {
        if (world % perNode != 0 || world / perNode > kMaxNodes)
            continue;
        in.cluster.gpusPerNode = perNode;
        in.cluster.nodes = world / perNode;
        return true;
    }
    return false;
}

void validate(const EstimateInput& in)
{
    validate(in.model, "model");
    validate(in.gpu, "gpu");
    validate(in.cluster, "cluster");
    validate(in.training, "training");
    const GpuSpec& g = in.gpu;
    if (g.bf16Tflops <= 0)
        throw SpecError("gpu.bf16_tflops", "must be > 0 to estimate throughput for GPU '" + g.id + "'");
    if (g.hbmGBps <= 0)
        throw SpecError("gpu.hbm_gbps", "must be > 0 to estimate the optimizer step for GPU '" + g.id + "'");
    if (g.pcieGBps <= 0)
        throw SpecError("gpu.pcie_gbps", "must be > 0 to estimate offload copies for GPU '" + g.id + "'");
    const ClusterSpec& c = in.cluster;
    if (c.gpusPerNode > 1 && c.intraNodeGBps <= 0 && c.intraNode == Interconnect::NvLink && g.nvlinkGBps <= 0)
        throw SpecError("cluster.intra_node",
                        "nvlink was chosen but GPU '" + g.id + "' has no NVLink (nvlink_gbps is 0); use pcie");
    if (c.nodes > 1 && c.interNodeGBps <= 0)
        throw SpecError("cluster.inter_node_gbps", "must be > 0 when there is more than one node");
    if (auto problem = frameworkVersionProblem(in.framework))
        throw SpecError("framework.version", *problem);
    const TuningKnobs& k = in.knobs;
    if (k.reduceBucketElements <= 0)
        throw SpecError("knobs.reduce_bucket_elements", "must be > 0");
    if (k.prefetchBucketElements < 0)
        throw SpecError("knobs.prefetch_bucket_elements", "must be >= 0");
    if (k.fsdpLiveUnits < 1)
        throw SpecError("knobs.fsdp_live_units", "must be >= 1");
}

namespace {

Estimate memoryVerdict(const detail::MemoryContext& ctx, const EstimateInput& in, Strategy s)
{
    Estimate e;
    e.strategy = s;
    e.memory = detail::memoryBreakdown(ctx, in, s);
    e.deviceCapacityBytes = ctx.deviceCapacity;
    e.headroomBytes = ctx.headroom;
    e.hostCapacityBytes = ctx.hostCapacity;
    e.hostBytesPerNode = e.memory.hostPerRank() * in.cluster.gpusPerNode * ctx.hostBufferFactor;
    e.fitsDevice = e.memory.peakBytes() <= e.usableDeviceBytes();
    e.fitsHost = e.hostBytesPerNode <= e.hostCapacityBytes;
    e.supported = frameworkSupports(in.framework.framework, s);
    return e;
}

} // namespace

Estimate estimateMemory(const EstimateInput& in, Strategy s, const Calibration& c)
{
    return memoryVerdict(detail::memoryContext(in, c), in, s);
}

Estimate estimate(const EstimateInput& in, Strategy s, const Calibration& c)
{
    Estimate e = estimateMemory(in, s, c);
    e.throughput = detail::throughput(in, s, c);
    return e;
}

std::array<Estimate, kStrategyCount> estimateMemoryAll(const EstimateInput& in, const Calibration& c)
{
    const detail::MemoryContext ctx = detail::memoryContext(in, c);
    std::array<Estimate, kStrategyCount> out;
    const auto& table = allStrategies();
    for (std::size_t i = 0; i < kStrategyCount; ++i)
        out[i] = memoryVerdict(ctx, in, table[i].strategy);
    return out;
}

std::array<bool, kStrategyCount> fitsByMemory(const EstimateInput& in, const Calibration& c)
{
    const detail::MemoryContext ctx = detail::memoryContext(in, c);
    std::array<bool, kStrategyCount> out {};
    const auto& table = allStrategies();
    for (std::size_t i = 0; i < kStrategyCount; ++i) {
        out[i] = frameworkSupports(in.framework.framework, table[i].strategy)
            && detail::fitsMemory(detail::memoryBreakdown(ctx, in, table[i].strategy), ctx, in);
    }
    return out;
}

std::array<Estimate, kStrategyCount> estimateAll(const EstimateInput& in, const Calibration& c)
{
    std::array<Estimate, kStrategyCount> out = estimateMemoryAll(in, c);
    const detail::ThroughputContext ctx = detail::throughputContext(in, c);
    for (Estimate& e : out)
        e.throughput = detail::throughput(ctx, in, e.strategy, c);
    return out;
}

nlohmann::json toJson(const MemoryBreakdown& m)
{
    nlohmann::json j = {
        { "device_params", m.deviceParams / kGiB },       { "device_grads", m.deviceGrads / kGiB },
        { "device_optimizer", m.deviceOptimizer / kGiB }, { "gathered_params", m.gatheredParams / kGiB },
        { "activations", m.activations / kGiB },          { "logits_and_loss", m.logitsAndLoss / kGiB },
        { "comm_buffers", m.commBuffers / kGiB },         { "workspace", m.workspace / kGiB },
        { "fragmentation", m.fragmentation / kGiB },      { "runtime_context", m.runtimeContext / kGiB },
        { "host_params", m.hostParams / kGiB },           { "host_grads", m.hostGrads / kGiB },
        { "host_optimizer", m.hostOptimizer / kGiB },
    };
    // A framework target's allocator cache (counted in its peak); the native runner has none.
    if (m.allocatorCache > 0)
        j["allocator_cache"] = m.allocatorCache / kGiB;
    return j;
}

std::array<PeakPart, kPeakPartCount> peakParts(const MemoryBreakdown& m)
{
    // allocatedPeak()'s terms in its order, the allocator's cache, then the context: summed left to
    // right they are peakBytes().
    return { {
        { "device_params", m.deviceParams },
        { "device_grads", m.deviceGrads },
        { "device_optimizer", m.deviceOptimizer },
        { "gathered_params", m.gatheredParams },
        { "activations", m.activations },
        { "logits_and_loss", m.logitsAndLoss },
        { "comm_buffers", m.commBuffers },
        { "workspace", m.workspace },
        { "allocator_cache", m.allocatorCache },
        { "runtime_context", m.runtimeContext },
    } };
}

} // namespace shardwise
