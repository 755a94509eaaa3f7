#pragma once
// Plain value types describing what is trained (ModelSpec), on what (GpuSpec, ClusterSpec) and how
// (TrainingSpec, RunConfig). No behaviour beyond derived sizes and validation lives here.

#include "shardwise/spec/framework.hpp"
#include "shardwise/spec/strategy.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardwise {

enum class NormKind { RmsNorm, LayerNorm };
enum class ActivationKind { SwiGlu, Gelu };

// How the rotary frequencies are rescaled for long contexts (Hugging Face's rope_scaling /
// rope_parameters). Only schemes that change the frequencies once, not per sequence, are modelled:
// Linear divides every frequency by factor; Llama3 (Llama 3.1+) divides the low frequencies by
// factor, keeps the high ones and blends between (Transformers' _compute_llama3_parameters).
enum class RopeScalingKind { None, Linear, Llama3 };

struct RopeScaling {
    RopeScalingKind kind = RopeScalingKind::None;
    double factor = 1.0;
    double lowFreqFactor = 1.0;           // Llama3 only
    double highFreqFactor = 4.0;          // Llama3 only
    std::int64_t originalMaxPosition = 0; // Llama3 only: the context the model was pretrained at
    bool operator==(const RopeScaling&) const = default;
};

struct ModelSpec {
    std::string id;     // preset id, or the file name a config was loaded from
    std::string name;   // human name
    std::string family; // qwen2, llama, mistral, ...
    std::int64_t layers = 0;
    std::int64_t hidden = 0;
    std::int64_t ffn = 0;
    std::int64_t heads = 0;
    std::int64_t kvHeads = 0;
    std::int64_t headDim = 0;
    std::int64_t vocab = 0;
    bool tiedEmbeddings = false;
    bool qkvBias = false; // Qwen2 carries biases on the q/k/v projections
    NormKind norm = NormKind::RmsNorm;
    ActivationKind activation = ActivationKind::SwiGlu;
    double ropeTheta = 10000.0;
    double normEps = 1e-6;
    std::int64_t maxPosition = 0; // 0 = unknown
    RopeScaling ropeScaling;

    // Exact parameter counts of the decoder this spec describes. The products are checked: a count
    // that does not fit in 64 bits saturates at INT64_MAX instead of wrapping (validate() refuses any
    // model above kMaxModelParameters long before that).
    std::int64_t attentionParams() const; // q, k, v, o (+ q/k/v bias)
    std::int64_t mlpParams() const;       // gate, up, down (SwiGLU) or up, down (GELU)
    std::int64_t normParams() const;      // one norm's weights (+ bias for LayerNorm)
    std::int64_t layerParams() const;     // one decoder layer
    std::int64_t embeddingParams() const; // token embedding
    std::int64_t headParams() const;      // output projection if untied, else 0
    std::int64_t rootParams() const;      // embedding + head + final norm
    std::int64_t parameterCount() const;  // all of it
};

// The largest parameter count a model may have (1e13, about 25x the largest dense decoder trained so
// far); validate(ModelSpec) and the config readers refuse a model above it, naming its dimensions.
inline constexpr std::int64_t kMaxModelParameters = 10'000'000'000'000;

// The rotary inverse frequencies theta^(-2i/head_dim), i < head_dim/2, with ropeScaling applied:
// what the runner's rotary tables are built from.
std::vector<double> rotaryInverseFrequencies(const ModelSpec& m);
std::string_view ropeScalingId(RopeScalingKind k); // "none" | "linear" | "llama3"

struct GpuSpec {
    std::string id;
    std::string name;
    std::int64_t memoryMiB = 0; // device memory as the driver reports it
    double bf16Tflops = 0;      // dense bf16 tensor-core peak, TFLOP/s
    double hbmGBps = 0;         // device memory bandwidth, GB/s
    double nvlinkGBps = 0;      // NVLink bandwidth per GPU per direction, GB/s; 0 = no NVLink
    double pcieGBps = 0;        // host link bandwidth per direction, GB/s
    // Tensor-core generation ("ampere", "ada", "hopper", "blackwell"; empty: not stated): which
    // attention kernels run near the GPU's peak (docs/formulas.md, "Throughput").
    std::string architecture;
    std::string gkeMachineSeries; // A2 / G2 / A3 ... empty when not offered on GKE
    std::string gkeAccelerator;   // GKE accelerator type name

    double memoryGiB() const { return static_cast<double>(memoryMiB) / 1024.0; }
    std::int64_t memoryBytes() const { return memoryMiB * 1024 * 1024; }
};

enum class Interconnect { NvLink, Pcie };

struct ClusterSpec {
    int gpusPerNode = 1;
    int nodes = 1;
    Interconnect intraNode = Interconnect::NvLink;
    double intraNodeGBps = 0;    // per GPU per direction; 0 = take it from the GPU preset
    double interNodeGBps = 12.5; // per node per direction (100 Gb/s Ethernet/IB by default)
    double hostRamGiB = 512;
    int cpuCores = 64;

    int worldSize() const { return gpusPerNode * nodes; }
};

enum class PrecisionPolicy {
    PureBf16,       // bf16 params, grads and Adam moments (what the reference benchmark uses)
    Bf16Fp32Master, // bf16 compute copies, fp32 master weights and fp32 Adam moments
};

// What activation checkpointing recomputes in backward (when TrainingSpec::activationCheckpointing):
// Full recomputes each decoder layer's forward from its input; Selective keeps the matmul outputs and
// recomputes the cheap elementwise parts (torchtitan's selective "op" policy keeps every other matmul
// output; docs/formulas.md says what the estimate assumes).
enum class CheckpointPolicy { Full, Selective };

struct TrainingSpec {
    PrecisionPolicy precision = PrecisionPolicy::PureBf16;
    int microBatch = 1;
    int seqLen = 2048;
    bool activationCheckpointing = false;
    CheckpointPolicy checkpointPolicy = CheckpointPolicy::Full; // what is recomputed when checkpointing is on
    bool expandableSegments = false;
    int gradAccumulation = 1;
    // Capture one whole training step (forward, backward, reductions, optimizer) as a CUDA graph after
    // two eager steps and replay it: the CPU issues one graph launch per step instead of every kernel,
    // so small models stop being bound by the host. GPU-resident strategies under pure bf16 on CUDA.
    bool cudaGraphs = false;
};

enum class DeviceKind { Cpu, Cuda };

// Knobs of the runner's communication schedule; defaults follow DeepSpeed / FSDP2 defaults.
struct TuningKnobs {
    std::int64_t reduceBucketElements = 500'000'000;    // DeepSpeed reduce_bucket_size
    std::int64_t allgatherBucketElements = 500'000'000; // DeepSpeed allgather_bucket_size
    std::int64_t prefetchBucketElements = 50'000'000;   // DeepSpeed stage3_prefetch_bucket_size
    std::int64_t persistenceThreshold = 100'000;        // DeepSpeed stage3_param_persistence_threshold
    int fsdpLiveUnits = 2;                              // FSDP2 keeps at most two gathered units live
    std::int64_t maxLiveParameters = 1'000'000'000;     // DeepSpeed stage3_max_live_parameters
    std::int64_t maxReuseDistance = 1'000'000'000;      // DeepSpeed stage3_max_reuse_distance
    bool overlapComm = true;
    // Whether overlapComm was asked for (a config read with --from that states overlap_comm): a ds_config
    // export writes overlap_comm at stages 1 and 2 only then, and otherwise leaves DeepSpeed's default
    // (on for stage 3 only, runtime/zero/config.py). Not part of the JSON form.
    bool overlapCommStated = false;
};

// Everything one measured run needs: the runner's input and the store's key.
struct RunConfig {
    ModelSpec model;
    Strategy strategy = Strategy::Zero0;
    TrainingSpec training;
    TuningKnobs knobs;
    DeviceKind device = DeviceKind::Cpu;
    int worldSize = 1;
    int warmupSteps = 5;
    int timedSteps = 15;
    std::uint64_t seed = 1234;
    double learningRate = 1e-3;
    std::string tokenFile; // empty = synthetic tokens from the seed
    // What runs it: shardwise-runner, or the PyTorch harness (runner/torch) with DDP / fully_shard.
    RunBackend backend = RunBackend::Native;
    bool torchCompile = false; // torch backend only: torch.compile each decoder layer
    // Rehearsal of one rank of a larger world: 0 runs for real; N >= 1 runs one process as rank 0 of
    // world N through a communicator (native) or process group (torch: PyTorch's "fake" backend) that
    // moves no data, so every buffer has its world-N shape and the allocations are real. Its memory
    // is one rank's at world N; its step time has no communication in it and is not world N's.
    int rehearseWorld = 0;

    bool rehearsal() const { return rehearseWorld > 0; }
    // The world whose rank this run measures: rehearseWorld when rehearsing, else worldSize.
    int effectiveWorld() const { return rehearseWorld > 0 ? rehearseWorld : worldSize; }
};

// The largest world a rehearsal stands for: the runner's shard arithmetic (64-element multiples of
// world-divisible padded buffers, element counts in int64) and the store's world_size both hold it.
inline constexpr int kMaxRehearsedWorld = 65536;

std::string_view precisionId(PrecisionPolicy p);         // "bf16" | "bf16-fp32-master"
std::string_view interconnectId(Interconnect i);         // "nvlink" | "pcie"
std::string_view deviceId(DeviceKind d);                 // "cpu" | "cuda"
std::string_view checkpointPolicyId(CheckpointPolicy p); // "full" | "selective"

// The precision a framework's documented defaults imply when the user names none: DeepSpeed's
// "bf16": {"enabled": true} keeps fp32 master weights and fp32 Adam state; Accelerate's FSDP2 with
// mixed_precision bf16 loads the model in fp32 (its "aligned" mode) and torchtitan keeps fp32
// sharded parameters with bf16 compute: all three are Bf16Fp32Master. The native runner's default is
// pure bf16. docs/formulas.md, "Framework targets", cites each.
PrecisionPolicy defaultPrecision(Framework f);
// The activation checkpointing a framework turns on by default: torchtitan's llama3 configs use
// selective checkpointing; the others none.
std::optional<CheckpointPolicy> defaultCheckpointing(Framework f);

// Whether the runner can capture a step of `s` as a CUDA graph (TrainingSpec::cudaGraphs): on CUDA,
// under pure bf16 (the fused AdamW that reads its step count on the device), for a strategy whose
// step is device work alone (an offload strategy's optimizer and parameter copies run on the host).
bool canCaptureCudaGraphs(Strategy s, PrecisionPolicy precision, DeviceKind device);
// Warm-up a graphed run needs: two eager steps settle the schedule, the third is captured.
inline constexpr int kCudaGraphWarmupSteps = 3;
std::string_view normId(NormKind n);             // "rmsnorm" | "layernorm"
std::string_view activationId(ActivationKind a); // "swiglu" | "gelu"

} // namespace shardwise
