#pragma once
// Collectives the sharding schedules need, behind one interface with two backends: raw NCCL on its
// own CUDA stream (nccl_communicator.cpp) and c10d's ProcessGroupGloo on CPU tensors
// (gloo_communicator.cpp). A communicator is driven from one thread at a time: the main thread, or
// the autograd thread while the main thread is blocked in backward().

#include <ATen/ATen.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardwise::runner {

// A peer died, a collective failed or timed out. Maps to the protocol's "comm" error (exit code 4).
class CommError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Completion of one enqueued collective. On Gloo everything is synchronous and a ticket is empty.
class CommCompletion {
public:
    virtual ~CommCompletion() = default;
    // Whether the work it stands for is done, without blocking (any thread may ask).
    virtual bool finished() const { return true; }
};
using CommTicket = std::shared_ptr<CommCompletion>;

struct Rendezvous {
    int rank = 0;
    int world = 1;
    int localRank = 0;
    std::string masterAddr = "127.0.0.1";
    int masterPort = 29500;
    std::chrono::seconds timeout { 60 };
};

class Communicator {
public:
    virtual ~Communicator() = default;

    virtual int rank() const = 0;
    virtual int world() const = 0;
    virtual std::string backendName() const = 0;

    // full = concat over ranks of each rank's shard; full.numel() == shard.numel() * world.
    virtual CommTicket allGather(const at::Tensor& shard, const at::Tensor& full) = 0;
    // shard = this rank's slice of the element-wise mean of `full` over ranks.
    virtual CommTicket reduceScatterMean(const at::Tensor& full, const at::Tensor& shard) = 0;
    // The same with the output in place: this rank's slice of `full` (offset rank * numel / world)
    // becomes its mean over ranks; the rest of `full` is not to be read afterwards. NCCL reduces in
    // place when recvbuff == sendbuff + rank * recvcount; at world 1 nothing moves.
    virtual CommTicket reduceScatterMeanInPlace(const at::Tensor& full) = 0;
    // In place: t = mean over ranks of t.
    virtual CommTicket allReduceMean(const at::Tensor& t) = 0;
    // The same collectives over several buffers, issued as one group (NCCL: ncclGroupStart/End, one
    // launch): how the bucketed strategies reduce and gather a bucket of units without copying their
    // buffers into a staging bucket first. One ticket covers the whole group.
    virtual CommTicket allReduceMeanEach(const std::vector<at::Tensor>& ts) = 0;
    // Each full buffer holds this rank's shard at offset rank * numel / world already (in place).
    virtual CommTicket allGatherInPlaceEach(const std::vector<at::Tensor>& fulls) = 0;
    // fulls[i] -> shards[i], as reduceScatterMean.
    virtual CommTicket reduceScatterMeanEach(const std::vector<at::Tensor>& fulls,
                                             const std::vector<at::Tensor>& shards)
        = 0;
    // dst.copy_(src) ordered after the communication enqueued so far. Device-to-host copies (reduced
    // gradient shards on their way to the host optimizer) run on a stream of their own so they
    // overlap the host-to-device copies and collectives queued behind them (PCIe is full duplex).
    // The caller keeps `src` alive, and its memory unused, until the ticket is waited for.
    virtual CommTicket copyAfterComm(const at::Tensor& dst, const at::Tensor& src) = 0;

    // The compute stream waits for `ticket` (no host block). Null tickets are ignored.
    virtual void computeWaits(const CommTicket& ticket) = 0;
    // The calling thread's current stream waits for `ticket`, untimed: a stream other than the compute
    // stream (side_stream.hpp) ordering its work after a collective. Null tickets are ignored.
    virtual void streamWaits(const CommTicket& ticket) = 0;
    // `t`'s memory was read or written by communication still in flight; freeing it must wait for it.
    virtual void markUsedByComm(const at::Tensor& t) = 0;
    // The host waits for all enqueued communication; a timeout or peer failure throws CommError.
    virtual void synchronize() = 0;

    // Seconds spent in collectives since the last call, and the part of it the compute stream
    // stalled on; both reset by the call.
    struct CommTime {
        double total = 0;
        double exposed = 0;
    };
    virtual CommTime takeCommTime() = 0;

    // CUDA graphs. joinCompute: the compute stream waits for everything enqueued on the
    // communicator's own streams (a captured step must end with every stream it forked joined back).
    // keepCapturedTimings: the collectives and stalls timed while a step was captured are timed again
    // by each replay of it; from now on takeCommTime counts them every step, besides any new ones.
    virtual void joinCompute() { }
    virtual void keepCapturedTimings() { }
};

// The communicators that work on the calling thread (Gloo, the CPU's rehearsal): every collective is
// done when it returns, so tickets are empty, waits and stream bookkeeping are nothing, a copy is a
// copy, and a group of reduce-scatters is one after another.
class HostSynchronousCommunicator : public Communicator {
public:
    CommTicket reduceScatterMeanEach(const std::vector<at::Tensor>& fulls,
                                     const std::vector<at::Tensor>& shards) override
    {
        TORCH_CHECK(fulls.size() == shards.size(), "reduceScatterMeanEach: one shard per full buffer");
        for (std::size_t i = 0; i < fulls.size(); ++i)
            reduceScatterMean(fulls[i], shards[i]);
        return nullptr;
    }
    CommTicket copyAfterComm(const at::Tensor& dst, const at::Tensor& src) override
    {
        dst.copy_(src);
        return nullptr;
    }
    void computeWaits(const CommTicket&) override { }
    void streamWaits(const CommTicket&) override { }
    void markUsedByComm(const at::Tensor&) override { }
    void synchronize() override { }
};

// Rank 0 of a rehearsed world of `world` ranks (RunConfig::rehearseWorld), alone in this process: no
// rendezvous, and collectives leave the local effects of rehearsal.hpp. The CPU's runs synchronously;
// the CUDA one keeps the NCCL communicator's streams and events, with nothing handed to NCCL.
std::unique_ptr<Communicator> createCpuRehearsalCommunicator(int world);
#ifdef SHARDWISE_WITH_CUDA
std::unique_ptr<Communicator> createNcclRehearsalCommunicator(int world, int localRank);
#endif

#ifdef SHARDWISE_WITH_GLOO
std::unique_ptr<Communicator> createGlooCommunicator(const Rendezvous& rv);
#endif
#ifdef SHARDWISE_WITH_CUDA
std::unique_ptr<Communicator> createNcclCommunicator(const Rendezvous& rv);
#endif

} // namespace shardwise::runner
