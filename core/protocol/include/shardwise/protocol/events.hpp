#pragma once
// The runner's JSON Lines protocol (docs/protocol.md). One JSON object per stdout line; every object
// carries "v" (protocol version), "event" and "rank". Readers accept any version <= kProtocolVersion
// and ignore unknown fields, so a newer runner can add fields without breaking an older app.

#include "shardwise/spec/specs.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace shardwise::protocol {

inline constexpr int kProtocolVersion = 1;

class ProtocolError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct SoftwareVersions {
    std::string runner;   // shardwise-runner version
    std::string libtorch; // e.g. "1.13.1" or "2.11.0"
    std::string cuda;     // CUDA runtime, empty on CPU builds
    std::string nccl;     // empty when not linked
    std::string driver;   // NVIDIA driver, empty without a GPU
    std::string compiler;
    // The runner's own CUDA kernels that ran in place of ATen compositions: "fused <parts> on CUDA bf16,
    // ATen elsewhere", the parts among kFusedRotary, kFusedSwiglu, kFusedCrossEntropy and kFusedAdamW; kKernelsAten
    // where none ran (a build without them, SHARDWISE_FUSED_KERNELS=0, a CPU run). Empty: a runner from
    // before this field, which had none.
    std::string kernels;
    // What the decoder layers keep for backward (kNormInputsRecomputed below); empty: a runner from before
    // this field, which kept the RMSNorm outputs feeding the q/k/v and gate/up projections.
    std::string activations;
    // How the offload strategies move gradients down and parameter shards up (kOffloadStagingInPlace
    // below); empty: a runner from before this field, which kept device staging buffers sized for the
    // largest unit's shard (two for gradients, one more for fsdp2_reshard_offload's uploads). The
    // default member initializer keeps brace lists written before this field complete.
    std::string offloadStaging {};
    // The PyTorch harness (shardwise-torch-runner) says which backend ran and what it ran on; the
    // native runner leaves these empty. backend: "torch" (empty = native); python, torch: the
    // interpreter's and PyTorch's versions; transformers: the Transformers version, empty when not
    // installed; modelImpl: the decoder it trained, "transformers" or "plain" (plain PyTorch modules).
    std::string backend {};
    std::string python {};
    std::string torch {};
    std::string transformers {};
    std::string modelImpl {};
};

// SoftwareVersions::backend of a run of the PyTorch harness; empty means the native runner.
inline constexpr const char* kTorchBackend = "torch";

// SoftwareVersions::activations of a runner whose projections recompute their RMSNorm input in backward.
inline constexpr const char* kNormInputsRecomputed = "norm-inputs-recomputed";
// SoftwareVersions::offloadStaging of a runner whose offload strategies reduce and copy gradients from
// this rank's slice of the unit's full gradient buffer, and copy host shards straight into the
// gathered buffer: no device staging buffers.
inline constexpr const char* kOffloadStagingInPlace = "in-place";
// The same, and each unit's host AdamW runs as its gradient arrives in host memory, overlapping the
// rest of the backward and the next step's forward (runner/src/host_step_pipeline.hpp). A runner told
// SHARDWISE_HOST_STEP_OVERLAP=0 steps after the whole backward and reports kOffloadStagingInPlace.
inline constexpr const char* kOffloadStagingInPlaceHostStepOverlapped = "in-place; host step per unit";
// Parts of SoftwareVersions::offloadStaging, which lists the runner's step schedule as "; "-separated
// parts after kOffloadStagingInPlace: kHostStepPerUnit (above), and kDeviceStepPerUnit for a runner
// that steps each unit's device AdamW on a stream of its own as soon as the unit's gradient is
// reduced, beside the rest of the backward (CUDA builds with SHARDWISE_DEVICE_STEP_OVERLAP=1).
inline constexpr const char* kHostStepPerUnit = "host step per unit";
inline constexpr const char* kDeviceStepPerUnit = "device step per unit";
// SoftwareVersions::kernels of a runner that ran the ATen compositions only, and the names of the fused
// kernels its list may carry (runner/src/fused_path.hpp).
inline constexpr const char* kKernelsAten = "ATen";
inline constexpr const char* kFusedRotary = "rotary";
inline constexpr const char* kFusedSwiglu = "SwiGLU";
inline constexpr const char* kFusedCrossEntropy = "cross-entropy";
inline constexpr const char* kFusedAdamW = "AdamW"; // the device optimizer step in one pass per unit
// Whether SoftwareVersions::kernels says the fused kernel `name` ran.
bool ranFusedKernel(const std::string& kernels, const std::string& name);
// Whether `offloadStaging` lists `part` among its "; "-separated parts.
bool offloadStagingHas(const std::string& offloadStaging, const std::string& part);

struct AllocatorSettings {
    std::string conf; // PYTORCH_ALLOC_CONF / PYTORCH_CUDA_ALLOC_CONF as seen by the runner
    bool expandableSegments = false;
    // SHARDWISE_MEMORY_CAP_GIB as applied: the caching allocator may hold at most this many bytes
    // (its memory fraction of the device), so a run shows whether it fits a smaller GPU. 0: no cap.
    std::int64_t memoryCapBytes = 0;
};

// Memory as measured on one rank. Device numbers come from the caching allocator (0 on CPU);
// hostPeakRss from getrusage.
struct MemorySample {
    std::int64_t allocated = 0;
    std::int64_t reserved = 0;
    std::int64_t peakAllocated = 0;
    std::int64_t peakReserved = 0;
    std::int64_t allocRetries = 0;
    std::int64_t deviceFree = -1;  // cudaMemGetInfo free bytes, -1 when unknown
    std::int64_t deviceTotal = -1; // cudaMemGetInfo total bytes, -1 when unknown
    std::int64_t hostPeakRss = 0;
};

// Persistent training state a rank holds between steps, by kind and place (bytes).
struct StateBytes {
    std::int64_t deviceParams = 0;
    std::int64_t deviceGrads = 0;
    std::int64_t deviceOptimizer = 0; // Adam moments + fp32 master on the device
    std::int64_t hostParams = 0;
    std::int64_t hostGrads = 0;
    std::int64_t hostOptimizer = 0;
};

struct StartEvent {
    int rank = 0;
    int world = 1;
    int localRank = 0;
    std::string host;
    double time = 0; // unix seconds
    RunConfig config;
    SoftwareVersions versions;
    AllocatorSettings allocator;
    std::string launcher;   // "shardwise", "torchrun", "srun", "manual"
    std::string deviceName; // e.g. "NVIDIA H200" or "cpu"
};

struct StepEvent {
    int rank = 0;
    int step = 0;       // 0-based over all steps, warm-up included
    bool timed = false; // false for warm-up steps
    double loss = 0;
    double stepTimeS = 0;
    double commTimeS = 0;    // collective kernel time on the comm streams
    double exposedCommS = 0; // time compute waited for communication
    std::int64_t tokens = 0; // tokens processed by this rank in this step
    MemorySample memory;
    double time = 0;
};

// Peak allocated device bytes within each part of a step, over the timed steps: where the step's
// memory peak happens (the forward pass includes the chunked head + loss, whose gradients are
// computed there).
struct PhasePeaks {
    std::int64_t forward = 0;
    std::int64_t backward = 0;
    std::int64_t optimizer = 0;
};

struct SummaryEvent {
    int rank = 0;
    int world = 1;
    int warmupSteps = 0;
    int timedSteps = 0;
    double medianStepS = 0;
    double p10StepS = 0;
    double p90StepS = 0;
    double tokensPerS = 0; // global tokens/s (all ranks) from the median step time; 0 in a rehearsal
    double ncclShare = 0;  // median comm kernel time / median step time, 0..1
    double exposedCommShare = 0;
    std::vector<double> losses;                   // one per step, warm-up included
    MemorySample memory;                          // peaks over the timed steps
    std::optional<PhasePeaks> phasePeakAllocated; // GPU runs
    StateBytes state;
    // --checkpoint-every: median seconds one checkpoint save took on this rank (write + flush +
    // the barrier before the completion marker), and how many were written; 0 without checkpoints.
    double checkpointSaveS = 0;
    int checkpointsWritten = 0;
    int resumedFromStep = -1; // the checkpoint this run started from, -1 for a fresh start
    // A rehearsal of one rank of world N (RunConfig::rehearseWorld): N, else 0. Its memory, state and
    // phase peaks are one rank's at world N; its step times are compute (and host work) without any
    // communication, so tokensPerS is 0 and must never stand for world N.
    int rehearsedWorld = 0;
    // Native runner: the most bytes of the units' full parameter and gradient buffers resident at once
    // over the timed steps (gathered units and full gradients, whatever the device), 0 when not
    // reported. A schedule's own figure, independent of any allocator.
    std::int64_t unitBufferPeak = 0;
    double time = 0;
};

enum class ErrorKind { Oom, Comm, Config, Internal };

struct ErrorEvent {
    int rank = 0;
    ErrorKind kind = ErrorKind::Internal;
    std::string message;
    std::optional<int> step;              // the step it happened in, if any
    std::optional<MemorySample> memory;   // allocator numbers at the failure (OOM)
    std::int64_t reservedUnallocated = 0; // reserved - allocated at the failure (fragmentation)
    double time = 0;
};

// Free-form progress or diagnostic text that belongs in the event stream (stderr carries the rest).
struct LogEvent {
    int rank = 0;
    std::string level; // "info" | "warning"
    std::string message;
    double time = 0;
};

// One hardware measurement of `shardwise-runner --probe` (docs/protocol.md lists the kinds).
// kind: "matmul_bf16" (TFLOP/s), "device_copy" (GB/s, read+write), "h2d_pinned" / "d2h_pinned" (GB/s),
// "cpu_adamw" (parameters/s over all threads), "all_gather" / "reduce_scatter" / "all_reduce"
// (bus bandwidth GB/s, nccl-tests convention).
struct ProbeResult {
    std::string kind;
    std::int64_t bytes = 0; // message or buffer size; 0 where size does not apply
    double value = 0;
    std::string unit; // "TFLOP/s" | "GB/s" | "params/s"
    int samples = 0;  // timed repetitions behind the median value
};

// All probe results of one rank, emitted once at the end of `--probe`.
struct ProbeEvent {
    int rank = 0;
    int world = 1;
    std::string host;
    std::string deviceName;
    SoftwareVersions versions;
    std::vector<ProbeResult> results;
    double time = 0;
};

using Event = std::variant<StartEvent, StepEvent, SummaryEvent, ErrorEvent, LogEvent, ProbeEvent>;

std::string_view errorKindId(ErrorKind k); // "oom" | "comm" | "config" | "internal"
std::optional<ErrorKind> errorKindFromId(std::string_view id);

nlohmann::json toJson(const Event& e);
// One line, no trailing newline.
std::string serialize(const Event& e);

// Parses one line. Throws ProtocolError naming what is wrong (not JSON, missing "event", unknown
// event, version too new, a field of the wrong type).
Event parseEvent(std::string_view line);
// Returns nullopt for lines that are not protocol events at all (e.g. a library printing to stdout);
// throws ProtocolError only for lines that claim to be events but are malformed.
std::optional<Event> tryParseEvent(std::string_view line);

int eventRank(const Event& e);
std::string_view eventName(const Event& e);

} // namespace shardwise::protocol
