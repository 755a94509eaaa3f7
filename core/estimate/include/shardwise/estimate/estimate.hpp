#pragma once
// Memory and throughput of one sharding strategy for one model, cluster and training setup.
// Pure functions of their inputs; the formulas and their sources are in docs/formulas.md.
// Bytes are doubles (exact below 2^53 bytes) so the GUI and the planner need no conversions.

#include "shardwise/estimate/calibration.hpp"
#include "shardwise/protocol/events.hpp"
#include "shardwise/spec/specs.hpp"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <optional>
#include <string_view>

namespace shardwise {

// Which attention kernel the runner uses: Flash/memory-efficient SDPA keeps only O(seq) per head for
// backward; the math path keeps the seq x seq probabilities.
enum class AttentionKernel { Flash, Math };

// Which flash attention kernel runs: the one written for the GPU's architecture (cuDNN's on Hopper,
// which LibTorch's SDPA and PyTorch releases with cuDNN 9.15.1 or newer pick), or FlashAttention-2's
// (PyTorch's SDPA flash backend: what SDPA ran on Hopper while cuDNN attention was opt-in, e.g. the
// 2024 nightlies, pytorch/pytorch#138522 and #142132). Only the speed differs
// (Calibration::flashAttention2HopperEfficiency); both keep the same tensors for backward.
// FrameworkDefault: the kernel the target's release picks (runsFlashAttention2).
enum class FlashKernel { FrameworkDefault, ArchitectureTuned, FlashAttention2 };

struct EstimateInput {
    ModelSpec model;
    GpuSpec gpu;
    ClusterSpec cluster;
    TrainingSpec training;
    TuningKnobs knobs;
    // The framework whose defaults the figures describe (docs/formulas.md, "Framework targets").
    FrameworkTarget framework;
    AttentionKernel attention = AttentionKernel::Flash;
    FlashKernel flashKernel = FlashKernel::FrameworkDefault;
    // Runners whose start events carry no versions.activations kept the RMSNorm outputs feeding the
    // q/k/v and gate/up projections for backward (2 x hidden bf16 per layer and token more than the
    // current runner, which recomputes them). Set for measurements of such runners only.
    bool normInputsKept = false;
    // Runners whose start events carry no versions.offload_staging kept device staging buffers for the
    // offload strategies the whole run: two gradient shards of the largest unit, and one more for
    // fsdp2_reshard_offload's uploads (the current runner reduces and copies in place). Set for
    // measurements of such runners only.
    bool offloadStagingKept = false;
    // Runners whose start events report versions.offload_staging "in-place" or older ran the offload
    // strategies' whole host AdamW after the backward; the current runner steps each unit on the host
    // as its gradient arrives, beside the rest of the backward and the next forward. Set for
    // measurements of such runners only.
    bool hostStepAfterBackward = false;
    // Runners whose start events do not list "device step per unit" in versions.offload_staging ran
    // one fused AdamW over every unit after the backward; the current runner steps each unit on a
    // stream of its own as soon as its gradient is reduced (zero0, zero3 and the fsdp2 strategies on
    // CUDA, without offload or fp32 master weights; docs/runner.md). Set for measurements of such
    // runners only.
    bool deviceStepAfterBackward = false;
    // Which of the native runner's fused CUDA kernels ran (SoftwareVersions::kernels); each that did
    // not ran as its ATen composition, which moves more bytes through HBM
    // (Calibration::atenCompositionHbmEfficiency). All three by default, as the runner runs on a CUDA
    // GPU in bf16; applyRunnerBehaviour sets them from a run's start event.
    struct FusedKernels {
        bool rotary = true;
        bool swiglu = true;
        bool crossEntropy = true;
        bool adamw = true; // the device AdamW in one pass per unit (Calibration::fusedAdamwHbmEfficiency)
    } fusedKernels {};
};

// Whether attention runs FlashAttention-2's kernels: as flashKernel says, or by default where the
// target's release picks them, the fsdp2 target's PyTorch releases before 2.11, whose SDPA prefers
// cuDNN on Hopper only with the cuDNN 9.15.1 that 2.11's wheels bring (check_prefer_cudnn_attention in
// aten/src/ATen/native/transformers/cuda/sdp_utils.cpp; before it FlashAttention-2 ran, #142132).
// The native runner, DeepSpeed and torchtitan (whose release does not name its PyTorch) take the
// architecture's kernel unless a setup says otherwise.
bool runsFlashAttention2(const EstimateInput& in);

// Sets the runner-behaviour flags above from what a run's start event reported, so a measurement of
// an older runner is predicted as that runner behaved (an empty field means a runner from before it).
void applyRunnerBehaviour(EstimateInput& in, const protocol::SoftwareVersions& versions);

// A run is predicted as what executed it: the torch backend (runner/torch: DDP and fully_shard on an
// eager PyTorch decoder) is the fsdp2 framework target, the native runner the native target.
void applyRunBackend(EstimateInput& in, const RunConfig& run);

// A rehearsal of one rank of world N (RunConfig::rehearseWorld) is predicted as a rank of world N:
// the one process held one rank's device and host state at world N, so the cluster becomes N nodes of
// one GPU each (per-rank device memory depends on the world size only; host memory per node is then
// one rank's, as the rehearsal held it), or, past ClusterSpec's 4096 nodes, the fewest GPUs per node
// that divide N. Its throughput prediction depends on a topology the rehearsal does not have and is
// not compared with anything. A real run is left as it is. False when no cluster of world N is within
// ClusterSpec's bounds (nodes <= 4096, GPUs per node <= 64): such a rehearsal cannot be predicted.
bool applyRehearsal(EstimateInput& in, const RunConfig& run);

// Whether the native runner steps each unit's device AdamW beside the backward for this input and
// strategy (EstimateInput::deviceStepAfterBackward; Calibration::deviceStepOverlap).
bool stepsDeviceOptimizerBesideBackward(const EstimateInput& in, Strategy s);

// Throws SpecError naming the field when the input cannot be estimated (zero sizes, a GPU without
// bandwidth figures, ...).
void validate(const EstimateInput& in);

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Per-GPU bytes at the step's peak, and per-rank host bytes. Device and host params/grads/optimizer
// use protocol::StateBytes's names and meanings, counted as live at the peak: FSDP2 creates sharded
// gradients during backward and frees them at zero_grad, so its deviceGrads is 0 when the peak is the
// start of backward. Compare measured StateBytes with modelStateBytes(), not with this breakdown.
struct MemoryBreakdown {
    double deviceParams = 0;    // persistent parameter storage (sharded or full)
    double deviceGrads = 0;     // persistent gradient storage
    double deviceOptimizer = 0; // Adam moments (+ fp32 master) on the device
    double gatheredParams = 0;  // unsharded units live at the peak (zero3/fsdp2 gathers, prefetch)
    double activations = 0;     // saved for backward by the decoder layers and the final norm
    double logitsAndLoss = 0;   // the larger transient of the step's peak: one chunk of the head's logits, or
                                // the last layer's MLP input gradients at the start of backward
    double commBuffers = 0;     // unsharded gradients in flight, offload staging
    double workspace = 0;       // cuBLAS workspaces, rotary tables, padding (Calibration::deviceWorkspaceGiB)
    double fragmentation = 0;   // caching-allocator waste (reserved but not allocated), not in the peak
    // What a framework's caching allocator holds beyond the allocated bytes at the peak, counted in the
    // peak (framework targets; Calibration::eagerFragmentationFraction / eagerFragmentationGiB): their
    // measured reserved bytes run 7-50 % above the allocated ones, so a peak without it says "fits"
    // where the framework runs out. 0 for the native runner, whose reserved bytes stay close to its
    // allocated ones (that gap is `fragmentation`).
    double allocatorCache = 0;
    double runtimeContext = 0; // CUDA context + NCCL buffers, outside the caching allocator
    double hostParams = 0;     // per rank, in host memory
    double hostGrads = 0;
    double hostOptimizer = 0;

    // Comparable to a run's peak allocated bytes.
    double allocatedPeak() const
    {
        return deviceParams + deviceGrads + deviceOptimizer + gatheredParams + activations + logitsAndLoss + commBuffers
            + workspace;
    }
    // THE peak of the plan: allocated peak + CUDA context and NCCL buffers, what the step needs on
    // the GPU. It is the one figure every face shows (the candidate table, the reasons, the CLI and
    // its JSON, the memory chart's stacked bar, which stacks peakParts()) and what the fit verdict
    // compares with the usable capacity (Estimate::usableDeviceBytes). The caching allocator's unused
    // cache (fragmentation) is not part of it: PyTorch frees that cache and retries before it reports
    // out of memory.
    double peakBytes() const { return allocatedPeak() + allocatorCache + runtimeContext; }
    // What nvidia-smi is expected to show at the peak: peakBytes() + the allocator's unused cache.
    // Compared with measurements of reserved memory only, never with capacity.
    double nvidiaSmiBytes() const { return peakBytes() + fragmentation; }
    double hostPerRank() const { return hostParams + hostGrads + hostOptimizer; }
};

// One named part of MemoryBreakdown::peakBytes(). `id` is the part's breakdown_gib key.
struct PeakPart {
    std::string_view id;
    double bytes = 0;
};
inline constexpr std::size_t kPeakPartCount = 10;
// The parts of the peak in the order peakBytes() sums them: their sum is peakBytes(), bit for bit.
// The CUDA context (with NCCL's buffers) is the last part, named runtime_context.
std::array<PeakPart, kPeakPartCount> peakParts(const MemoryBreakdown& m);

// Persistent model state of one rank for a parameter count (the ZeRO paper's "model states").
protocol::StateBytes modelStateBytes(Strategy s, double params, int world, PrecisionPolicy precision);
// The same as a framework target counts it, for a parameter count and the largest module's parameters:
// the native target is modelStateBytes (the ZeRO paper's 2 + 2 + 12 bytes partitioned by stage);
// DeepSpeed is its estimate_zero2/zero3_model_states_mem_needs (stages 1-2: 4N + 16N/W; stage 3:
// 18N/W + 4 x the largest layer, counted in deviceParams; offload moves the fp32 state to the host).
// The state behind the planner's DeepSpeed figures (framework_memory.cpp), one definition. SpecError
// "framework_target" for fsdp2 and torchtitan, whose state depends on the model's shape.
protocol::StateBytes frameworkModelStateBytes(Framework f, Strategy s, double params, double largestModuleParams,
                                              int world, PrecisionPolicy precision);

// Collective traffic one rank sends per optimizer step, in bytes, by collective kind, and the
// per-unit collectives issued (each pays Calibration::unitCollectiveOverheadS).
struct CommVolume {
    double allReduceBytes = 0;     // payload of all-reduces (gradients)
    double allGatherBytes = 0;     // payload of all-gathers (full-size output)
    double reduceScatterBytes = 0; // payload of reduce-scatters (full-size input)
    int unitCollectives = 0;
};

struct ThroughputEstimate {
    double modelFlopsPerToken = 0;    // 6N + 12 L h s (PaLM appendix B convention), used for MFU
    double hardwareFlopsPerToken = 0; // + a forward's recomputation with activation checkpointing
    double busBandwidthBytesPerS = 0; // achieved NCCL bus bandwidth of the slowest link in the group
    CommVolume volume;
    double computeS = 0;   // forward + backward: GPU kernels and CPU issue time (with per-unit collectives), overlapped
    double optimizerS = 0; // device AdamW step
    double commS = 0;      // NCCL kernel time (overlapped or not)
    double exposedCommS = 0;        // part of commS not hidden under compute
    double overheadS = 0;           // the strategy's per-parameter step cost (flat-buffer copies, casts)
    double offloadCopyS = 0;        // exposed host<->device copies
    double cpuOptimizerS = 0;       // CPU AdamW step: the part not hidden under the GPU's work
    double cpuOptimizerHiddenS = 0; // the rest of it, run while the GPU works (native offload runner)
    double optimizerHiddenS = 0;    // device AdamW run beside the backward (native runner), not in optimizerS
    double stepTimeS = 0;           // one optimizer step (all accumulation micro-steps)
    double tokensPerS = 0;          // all ranks together
    double mfu = 0;                 // model FLOPs / (world x bf16 peak), 0..1
    double ncclShare = 0;           // commS / stepTimeS, 0..1 (overlapped kernels count: not waiting time)
};

struct Estimate {
    Strategy strategy = Strategy::Zero0;
    MemoryBreakdown memory;
    double deviceCapacityBytes = 0; // the GPU's memory
    double headroomBytes = 0;       // kept free by the verdict
    double hostCapacityBytes = 0;   // usable host RAM per node
    double hostBytesPerNode = 0;    // hostPerRank x GPUs per node
    bool fitsDevice = false;
    bool fitsHost = false;
    // Whether the input's framework target can express the strategy at all (frameworkSupports); the
    // figures are still computed, as the strategy would behave there, for comparison.
    bool supported = true;
    ThroughputEstimate throughput;

    bool fits() const { return supported && fitsDevice && fitsHost; }
    // The capacity the verdict compares the peak with: the GPU's memory less the headroom kept free.
    // fitsDevice == (memory.peakBytes() <= usableDeviceBytes()).
    double usableDeviceBytes() const { return deviceCapacityBytes - headroomBytes; }
    // Bytes the peak exceeds the usable capacity by (> 0 means it does not fit; < 0 is what is spare).
    double deviceShortfallBytes() const { return memory.peakBytes() - usableDeviceBytes(); }
    double hostShortfallBytes() const { return hostBytesPerNode - hostCapacityBytes; }
};

// 6N + 12 L h s: N parameters (embedding included), L layers, h = heads x head_dim, s the sequence.
double modelFlopsPerToken(const ModelSpec& m, int seqLen);
// Bytes saved for backward per GPU by the decoder and final norm (not the logits).
double activationBytes(const EstimateInput& in);
// Bytes live at the loss per GPU.
double logitsBytes(const EstimateInput& in, const Calibration& c);

// Pure; does not validate (call validate() once per input; the planner does).
Estimate estimate(const EstimateInput& in, Strategy s, const Calibration& c = {});
// Memory, capacities and the fit verdict only (throughput left zero): for searches over many inputs.
Estimate estimateMemory(const EstimateInput& in, Strategy s, const Calibration& c = {});
std::array<Estimate, kStrategyCount> estimateMemoryAll(const EstimateInput& in, const Calibration& c = {});
// Only the fit verdicts (device and host), in the strategy table's order: the planner's searches.
std::array<bool, kStrategyCount> fitsByMemory(const EstimateInput& in, const Calibration& c = {});

namespace detail {
// The memory model's quantities that depend on the model (and the DeepSpeed persistence threshold)
// only: parameter counts of the whole model and of the units it sizes buffers by.
struct ModelConstants {
    double params = 0;
    double largestUnit = 0;            // FSDP2 unit
    double layer = 0;                  // one decoder layer
    double largestModule = 0;          // DeepSpeed's largest layer: the largest single module
    double fetchedModulesPerLayer = 0; // ZeRO-3 leaf modules per layer above the persistence threshold
};
} // namespace detail

// Fit verdicts for variants of one input that differ only in nodes, sequence length, micro-batch or
// activation checkpointing: the planner's remedy searches probe dozens of such variants per input,
// so the model's parameter counts are computed once, and a probe stops at the first strategy that
// fits. Each verdict is fitsByMemory's, computed by the same code.
class FitProbe {
public:
    FitProbe(const EstimateInput& base, const Calibration& c);
    // The first strategy of `order` whose memory fits for `variant`, if any.
    std::optional<Strategy> firstFitting(const EstimateInput& variant,
                                         const std::array<Strategy, kStrategyCount>& order) const;

private:
    detail::ModelConstants constants_;
    Calibration calibration_;
};

// All eight, in the strategy table's order.
std::array<Estimate, kStrategyCount> estimateAll(const EstimateInput& in, const Calibration& c = {});

nlohmann::json toJson(const MemoryBreakdown& m); // GiB per category, names as in the CLI's breakdown_gib

} // namespace shardwise
