#pragma once
// The estimate's two halves, shared by estimate.cpp; not part of the public API.

#include "shardwise/estimate/estimate.hpp"

namespace shardwise::detail {

// Bytes per element of the compute copies: parameters, gradients and collectives move bf16.
inline constexpr double kBf16Bytes = 2.0;

// Bytes per parameter of the optimizer state: bf16 Adam m and v (pure bf16), or fp32 master + m + v.
inline double optimizerBytesPerParam(PrecisionPolicy p)
{
    return p == PrecisionPolicy::PureBf16 ? 4.0 : 12.0;
}

// The largest FSDP2 unit (one decoder layer, or the root: embedding + untied head + final norm).
inline double largestUnitParams(const ModelSpec& m)
{
    const auto layer = static_cast<double>(m.layerParams());
    const auto root = static_cast<double>(m.rootParams());
    return layer > root ? layer : root;
}

// Units the runner groups parameters into: one per decoder layer plus the root unit (docs/runner.md).
inline int unitCount(const ModelSpec& m)
{
    return static_cast<int>(m.layers) + 1;
}

// Whether the figures describe a framework's eager PyTorch decoder rather than the native runner's.
inline bool eagerDecoder(const EstimateInput& in)
{
    return in.framework.framework != Framework::Native;
}

double layerActivationBytesPerToken(const EstimateInput& in);
double eagerLayerActivationBytesPerToken(const EstimateInput& in);
double selectiveLayerActivationBytesPerToken(const EstimateInput& in);
double nativeSelectiveLayerActivationBytesPerToken(const EstimateInput& in);
double finalActivationBytesPerToken(const ModelSpec& m);
double gemmParams(const ModelSpec& m);
double causalAttentionFlopsPerToken(const ModelSpec& m, int seqLen);
// HBM bytes per micro-step that the native runner's ATen compositions move beyond the fused kernels
// they stand in for (EstimateInput::fusedKernels): the decoder layers' part, which checkpointing
// recomputes with the forward, and the head's.
struct AtenCompositionBytes {
    double layers = 0;
    double head = 0;
};
AtenCompositionBytes atenCompositionBytes(const EstimateInput& in);
// Transient bytes of the last layer's backward that grow with the tokens (MLP input gradients).
double backwardWorkingBytes(const EstimateInput& in);

// Per-parameter bytes of the persistent state by place, unrounded (modelStateBytes rounds to bytes).
struct StateShares {
    double deviceParams = 0, deviceGrads = 0, deviceOptimizer = 0;
    double hostParams = 0, hostGrads = 0, hostOptimizer = 0;
};
StateShares stateShares(Strategy s, double params, double world, PrecisionPolicy precision);

// Everything of one input the memory model needs that does not depend on the strategy, computed once
// per input so that evaluating all eight strategies (and the planner's searches) stays cheap.
struct MemoryContext {
    double params = 0;
    double world = 1;
    double largestUnit = 0; // FSDP2 unit
    double layer = 0;       // one decoder layer's parameters
    double activations = 0;
    double logits = 0;          // one chunk of the head's logits
    double backwardWorking = 0; // the last layer's MLP input gradients
    double workspace = 0;
    double fragmentationFraction = 0;
    double fragmentationBytes = 0;     // a constant part of the allocator's cache (framework targets)
    double adamwStepTemporaries = 1.0; // framework targets: AdamW step temporaries per parameter byte
    double runtimeContext = 0;
    double deviceCapacity = 0;
    double headroom = 0;
    double hostCapacity = 0;
    // Host bytes a rank's offloaded state needs per byte of that state: DeepSpeed's pinned buffers
    // (Calibration::deepspeedHostBufferFactor), 1 elsewhere.
    double hostBufferFactor = 1.0;
    // The largest module whose parameters DeepSpeed ZeRO-3 gathers at once (framework targets).
    double largestModule = 0;
    // Leaf modules per decoder layer that ZeRO-3 fetches one by one (above the persistence threshold).
    double fetchedModulesPerLayer = 0;
};
ModelConstants modelConstants(const ModelSpec& m, const TuningKnobs& k);
MemoryContext memoryContext(const ModelConstants& mc, const EstimateInput& in, const Calibration& c);
MemoryContext memoryContext(const EstimateInput& in, const Calibration& c);
MemoryBreakdown memoryBreakdown(const MemoryContext& ctx, const EstimateInput& in, Strategy s);
// The same for a framework target (framework_memory.cpp): what DeepSpeed, FSDP2 or torchtitan
// allocate at their defaults.
MemoryBreakdown frameworkMemoryBreakdown(const MemoryContext& ctx, const EstimateInput& in, Strategy s);
// The largest single module's parameters (DeepSpeed's "largest layer": the embedding, an untied
// head or the largest projection) and the leaf modules per decoder layer above a size threshold.
double largestModuleParams(const ModelSpec& m);
double modulesAboveThreshold(const ModelSpec& m, double threshold);
// The fit verdict on device and host memory; estimate()'s fitsDevice && fitsHost.
bool fitsMemory(const MemoryBreakdown& m, const MemoryContext& ctx, const EstimateInput& in);
// The throughput model's quantities that do not depend on the strategy, computed once per input.
struct ThroughputContext {
    double params = 0;
    int units = 0;
    double modelFlopsPerToken = 0;
    double gemmParams = 0;
    double attentionFlopsPerToken = 0; // causal, forward + backward
    double activationBytes = 0;        // per micro-step, without checkpointing
    double busBandwidthBytesPerS = 0;
};
ThroughputContext throughputContext(const EstimateInput& in, const Calibration& c);
ThroughputEstimate throughput(const EstimateInput& in, Strategy s, const Calibration& c);
ThroughputEstimate throughput(const ThroughputContext& ctx, const EstimateInput& in, Strategy s, const Calibration& c);

} // namespace shardwise::detail
