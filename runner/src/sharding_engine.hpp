#pragma once
// The sharding engine: owns every unit's flat buffers and optimizer state as the strategy places them,
// and runs the strategy's schedule: when a unit is gathered, freed, reduced and stepped.
//
// Schedules (docs/runner.md; DeepSpeed ZeRO, Rajbhandari et al. 2020; PyTorch FSDP2 fully_shard):
//   zero0            full replicas; each unit's gradient all-reduced (mean) as its backward finishes.
//   zero1 / zero2    full replicas; gradients reduced in DeepSpeed-style buckets of reduce_bucket_size
//                    elements, a bucket being one group of collectives over its units' own buffers
//                    (no staging copy); zero1 all-reduces and keeps the full gradient, zero2
//                    reduce-scatters into a persistent shard and frees the full gradient; each rank
//                    steps its shard and all-gathers parameters in place after the step, in buckets
//                    of allgather_bucket_size elements.
//   zero3            parameter shards; a unit is gathered before use and freed after its forward,
//                    re-gathered in backward; from the second step on, units are prefetched along the
//                    traced order up to stage3_prefetch_bucket_size elements; units no larger than
//                    stage3_param_persistence_threshold stay gathered.
//   fsdp2_reshard    one unit prefetched ahead in forward and one behind in backward; freed after
//                    forward (the root excepted, as FSDP2 does) and after backward.
//   fsdp2_noreshard  gathered in forward and kept until the unit's backward is done.
//   zero2_offload    zero2's buckets and replicas with zero3_offload's host optimizer: each bucket is
//                    reduce-scattered in place and this rank's slices copied to the host; after the
//                    CPU AdamW the updated slices are copied up into the replicas and all-gathered as
//                    zero2 does (DeepSpeed stage 2 with offload_optimizer, "ZeRO-Offload").
//   *_offload        master weights and Adam moments in host memory (bf16 under the pure-bf16 policy,
//                    fp32 with fp32 master weights); each unit's gradient reduce-scattered in place
//                    into its own slice of the unit's full gradient buffer and copied from there to a
//                    pinned host buffer on a stream of its own, a vectorised multithreaded AdamW on the
//                    CPU, updated shards copied up on the comm stream ahead of their gathers;
//                    fsdp2_reshard_offload keeps the parameter shards on the host only and copies them
//                    up for every gather, straight into this rank's slice of the gathered buffer. No
//                    device staging buffer exists (unit_schedule.cpp says why).

#include "adamw.hpp"
#include "communicator.hpp"
#include "decoder_model.hpp"
#include "flat_buffer.hpp"
#include "host_step_pipeline.hpp"
#include "side_stream.hpp"

#include "shardwise/protocol/events.hpp"
#include "shardwise/spec/specs.hpp"

#include <deque>
#include <filesystem>
#include <memory>
#include <string>

namespace shardwise::runner {

struct EngineSettings {
    Strategy strategy = Strategy::Zero0;
    TuningKnobs knobs;
    PrecisionPolicy precision = PrecisionPolicy::PureBf16;
    at::TensorOptions compute; // device + dtype of parameters and gradients
    std::uint64_t seed = 0;
    AdamWSettings adamw;
    // The step is captured as a CUDA graph (--cuda-graphs): the device AdamW then steps after the
    // backward unless SHARDWISE_DEVICE_STEP_OVERLAP=1 (step_schedule.hpp).
    bool capturedStep = false;
};

class ShardingEngine final : public UnitHooks {
public:
    ShardingEngine(const ModelSpec& model, const EngineSettings& settings, Communicator& comm);

    // One training step, in this order: advanceStep counts the optimizer step about to run and writes
    // the count where the fused AdamW reads it, on the device, so a step captured as a CUDA graph reads
    // each replay's count from there; the rest is device work plus host bookkeeping that repeats
    // identically from the second step on.
    void advanceStep();
    // Gradient accumulation: each optimizer step runs beginStep .. finishBackward once per micro-batch
    // (microStep 0 .. microSteps - 1), then optimizerStep once. Strategies that keep the full gradient
    // (no sharded gradient: zero0's DDP, zero1) let it accumulate in place and reduce it at the last
    // micro-step only (DDP's no_sync, DeepSpeed stage 1 at the accumulation boundary); those with a
    // sharded gradient reduce-scatter every micro-step and add the result into the shard (what
    // DeepSpeed stage 2/3 and FSDP2 do by default), on the host for offloaded ones.
    void beginStep(int microStep = 0, int microSteps = 1);
    void beforeBackward();
    void finishBackward();
    void optimizerStep();
    // Offload strategies step each unit on the host as its gradient arrives (host_step_pipeline.hpp),
    // and zero3_offload / fsdp2_reshard_offload send a unit's update up only when the next forward
    // gathers it. This waits for every unit's host step and sends what is still due, so the device and
    // host state are the step's whole result; checkpoints and parameter dumps call it themselves.
    void settleHostSteps();
    // Whether the host steps overlap the backward (offload strategies, unless
    // SHARDWISE_HOST_STEP_OVERLAP=0 asks for the whole step after the backward).
    bool overlapsHostSteps() const { return m_hostSteps != nullptr; }
    // Whether each unit's device AdamW runs beside the backward, on a stream of its own, as soon as the
    // unit's gradient is reduced (CUDA runs with one fused AdamW kernel per unit: zero0, zero3 and the
    // fsdp2 strategies without offload; with fp32 master weights where the runner's own AdamW kernel
    // steps the master and writes its bf16 copy in the same pass; the sharded ones without gradient
    // accumulation), by default in eager steps (step_schedule.hpp); otherwise one fused step after the
    // backward. The arithmetic is the same kernel's either way.
    bool overlapsDeviceSteps() const { return m_deviceSteps != nullptr; }

    // Whether a whole step can be captured as a CUDA graph: CUDA compute, and an optimizer that is one
    // fused kernel reading the step count from the device (pure bf16, no offload).
    bool capturable() const;
    // From now on a gradient buffer that communication still reads is freed once the compute stream
    // has waited for that communication, one reduction later, instead of through recordStream. The
    // caching allocator defers frees with pending stream uses to the end of a graph capture, which
    // would keep every such buffer of the step allocated in the graph's memory.
    void orderReleasesByStream() { m_streamOrderedRelease = true; }

    // UnitHooks (called from the model's forward and from autograd hooks).
    const std::vector<at::Tensor>& parameters(std::size_t unit) override;
    GradientSink gradientSink(std::size_t unit, std::size_t slot) override;
    NormWeight normWeight(std::size_t unit, std::size_t slot) override;
    LinearWeight linearWeight(std::size_t unit, std::size_t first, std::size_t count,
                              std::optional<std::size_t> biasFirst) override;
    at::Tensor enterLayer(std::size_t unit, const at::Tensor& hidden) override;
    at::Tensor leaveLayer(std::size_t unit, const at::Tensor& hidden) override;
    void preBackward(std::size_t unit);
    void postBackward(std::size_t unit);

    // Bytes of persistent training state this rank holds right now, measured from the buffers.
    protocol::StateBytes stateBytes() const;

    // Writes the full fp32 parameters in canonical order (a JSON header line, then raw little-endian
    // float32). Collective: every rank must call it.
    void dumpParameters(const std::filesystem::path& path);

    std::int64_t parameterCount() const;

    // Checkpoints: the tensors that are this rank's training state between steps (parameters or
    // their shard, master weights, Adam moments), named, in a fixed order; and what to redo after
    // they were overwritten from a checkpoint written after `optimizerSteps` steps (collective).
    std::vector<std::pair<std::string, at::Tensor>> checkpointTensors();
    void restoredFromCheckpoint(std::int64_t optimizerSteps);

    // A communication failure raised inside an autograd hook; the engine rethrows it as CommError
    // even when autograd wrapped it.
    const std::string& commFailure() const { return m_commFailure; }

private:
    struct Unit {
        UnitLayout layout;
        FlatBuffer params; // gathered compute-dtype parameters
        FlatBuffer grads;  // full compute-dtype gradients
        std::vector<at::Tensor> views;
        at::Tensor paramShard;  // persistent compute-dtype shard (sharded strategies, not fsdp2 offload)
        at::Tensor gradShard;   // persistent reduced gradient shard (zero2, zero3, fsdp2 without offload)
        at::Tensor hostGrad;    // fp32 gradient shard in host memory (offload)
        at::Tensor hostGradSum; // fp32 sum of the earlier micro-steps' host gradient shards (accumulation)
        at::Tensor master;      // fp32 master weights when they differ from the parameters
        at::Tensor expAvg;
        at::Tensor expAvgSq;
        bool uploadPending = false; // zero3_offload: the host step's result is yet to go up
        bool persistent = false;    // never freed once gathered
        bool gathered = false;
        CommTicket gatherDone;
        bool reduced = false; // gradient reduction issued this step
        // Gradient ranges one writer fills whole each step (a linear's weight or bias rows, the head's
        // gradient sink), by their first slot: not zeroed, their writer overwrites them (linear.hpp).
        // Learnt from the first step's forward, whose buffers are zeroed whole.
        std::vector<std::pair<std::int64_t, std::int64_t>> overwritten; // per slot: offset, numel (0: none)
        std::unique_ptr<std::uint8_t[]> unwritten;                      // per slot
        std::vector<std::pair<std::int64_t, std::int64_t>> zeroed;      // the rest: offset, numel
    };

    void allocateUnit(Unit& u, std::size_t index);
    void initialiseUnit(Unit& u, std::size_t index);
    void issueGather(std::size_t index, bool prefetch = false);
    bool hostStepSettled(std::size_t index, bool wait);
    void submitHostStep(std::size_t index, const CommTicket& arrival);
    void stepHostUnit(std::size_t index, std::int64_t step, bool sumMicroSteps);
    void ensureGathered(std::size_t index);
    void releaseParams(std::size_t index);
    void prefetchForward(std::size_t index);
    void prefetchBackward(std::size_t index);
    void materializeGrads(Unit& u);
    void resetGradients(Unit& u);
    UnwrittenFlag overwriteFlag(Unit& u, std::size_t firstSlot, std::int64_t offset, std::int64_t numel);
    void settleUnwritten(Unit& u);
    void learnOverwrittenRanges();
    void reduceUnit(std::size_t index);
    void stepBesideBackward(std::size_t index, const CommTicket& reduced);
    bool stepsBesideBackward() const;
    at::Tensor reducedShardTarget(std::size_t index);
    void queueAccumulations(const CommTicket& reduced);
    void retirePendingAccumulations(std::size_t keep);
    void accumulateHostGradients();
    void downloadReducedSlice(std::size_t index);
    void downloadReducedBucket(const std::vector<at::Tensor>& fulls);
    void retireOldestDownload();
    void addToBucket(std::size_t index);
    void flushBucket();
    void gatherUpdatedReplicas();
    bool deviceAdamWStep();
    bool deviceAdamWAppliesToEveryUnit();
    at::Tensor masterCopyTarget(Unit& u);
    bool fusedOptimizerStep();
    at::Tensor steppedParam(Unit& u);
    at::Tensor steppedGrad(Unit& u);
    at::Tensor steppedParamTarget(Unit& u);
    at::Tensor fp32Truth(Unit& u);
    template <typename F> void guardComm(F&& f);

    const StrategyTraits& m_traits;
    EngineSettings m_settings;
    Communicator& m_comm;
    int m_rank;
    int m_world;
    bool m_sharded;
    bool m_useMaster;
    std::vector<Unit> m_units;
    std::int64_t m_step = 0;
    int m_microStep = 0; // beginStep's
    int m_microSteps = 1;
    // Micro-steps after the first: reduced gradient shards on their way, added into the units' shards
    // once the compute stream has waited for their reduction, one reduction behind (as
    // m_pendingReleases) so the backward does not stall on the reduction it just issued.
    struct PendingAccumulation {
        std::vector<std::pair<std::size_t, at::Tensor>> partials; // unit, reduced shard
        CommTicket reduced;
    };
    std::vector<std::pair<std::size_t, at::Tensor>> m_unqueuedPartials;
    std::deque<PendingAccumulation> m_pendingAccumulations;
    bool m_overwritesKnown = false; // after the first step: zero only what no writer overwrites

    // DeepSpeed's independent-partition gradient bucket (zero1/zero2): the units whose reduction is
    // pending and their elements; reduced together once reduce_bucket_size is reached.
    std::vector<std::size_t> m_bucketUnits;
    std::int64_t m_bucketFill = 0;
    // The step count as the device tensor the fused CUDA AdamW reads.
    at::Tensor m_stepTensor;
    // Offload: units whose full gradient buffer stays allocated because this rank's reduced slice of
    // it is still on its way to the host, oldest first, with the copy's completion (zero2_offload: the
    // last flushed bucket's units).
    struct PendingDownload {
        std::size_t unit;
        CommTicket copied;
    };
    std::deque<PendingDownload> m_pendingDownloads;
    CommTicket m_lastReduction;
    // orderReleasesByStream: gradient buffers read by a reduction in flight, with its completion.
    struct PendingRelease {
        std::vector<std::size_t> units;
        CommTicket reduced;
    };
    std::deque<PendingRelease> m_pendingReleases;
    bool m_streamOrderedRelease = false;
    void releaseAfterReduction(std::vector<std::size_t> units, const CommTicket& reduced);
    void retirePendingReleases(std::size_t keep);

    // zero3: the unit order traced in the first step drives prefetching afterwards.
    std::vector<std::size_t> m_forwardTrace;
    bool m_traced = false;

    std::string m_commFailure;

    // overlapsDeviceSteps: the stream the units' AdamW runs on, and how many units it has stepped in
    // this optimizer step's backward.
    std::unique_ptr<SideStream> m_deviceSteps;
    std::size_t m_unitsSteppedBeside = 0;

    // Last: its thread steps units' buffers above, so it stops before they are freed.
    std::unique_ptr<HostStepPipeline> m_hostSteps;
};

} // namespace shardwise::runner
