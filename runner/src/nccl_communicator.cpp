// Raw NCCL on its own CUDA stream. Every collective first makes the comm stream wait for the compute
// stream (the buffers it touches may have just been allocated or written there), and hands back an
// event the compute stream waits on before it reads the result, so communication overlaps compute
// without host synchronisation. The unique id travels through the rendezvous exchange (rendezvous.hpp:
// rank 0 listens on MASTER_ADDR only, and only until every rank holds the id). The communicator is
// created non-blocking and every host wait polls ncclCommGetAsyncError against a deadline, so a dead
// peer turns into ncclCommAbort + CommError within --timeout-s instead of a hang.
#include "communicator.hpp"
#include "rehearsal.hpp"
#include "rendezvous.hpp"
#include "runner_options.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>

#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <thread>
#include <type_traits>
#include <utility>

#define SHARDWISE_NCCL_CHECK(expr) checkNccl((expr), #expr, __FILE__, __LINE__)

namespace shardwise::runner {

namespace {

using Clock = std::chrono::steady_clock;

class NcclCompletion final : public CommCompletion {
public:
    explicit NcclCompletion(c10::DeviceIndex device)
        : m_device(device)
    {
    }
    at::cuda::CUDAEvent done;
    bool finished() const override
    {
        // The asking thread may be one that never chose a device: without the guard the runtime would
        // create a context on device 0 for it.
        c10::cuda::CUDAGuard guard(m_device);
        return done.query();
    }

private:
    c10::DeviceIndex m_device;
};

ncclDataType_t ncclType(const at::Tensor& t)
{
    switch (t.scalar_type()) {
    case at::kBFloat16:
        return ncclBfloat16;
    case at::kHalf:
        return ncclFloat16;
    case at::kFloat:
        return ncclFloat32;
    case at::kDouble:
        return ncclFloat64;
    case at::kLong:
        return ncclInt64;
    case at::kInt:
        return ncclInt32;
    default:
        throw std::invalid_argument("NCCL: unsupported dtype " + std::string(c10::toString(t.scalar_type())));
    }
}

// NCCL's bootstrap (the root ncclGetUniqueId starts on rank 0, and each rank's own bootstrap and proxy
// sockets) listens on the interface NCCL_SOCKET_IFNAME selects; unset, NCCL picks the first interface
// that is not loopback or docker, which for a run whose MASTER_ADDR is 127.0.0.1 would be a network
// interface. Unless the user chose (NCCL_SOCKET_IFNAME, or NCCL_COMM_ID's fixed root address), it is set
// to the interface holding this host's address on the route to MASTER_ADDR, before NCCL reads it.
void bindNcclSocketsToward(const std::string& masterAddr, int masterPort)
{
    if (std::getenv("NCCL_SOCKET_IFNAME") || std::getenv("NCCL_COMM_ID"))
        return;
    const auto ifname = interfaceHolding(localAddressToward(masterAddr, masterPort));
    if (!ifname.empty())
        ::setenv("NCCL_SOCKET_IFNAME", ("=" + ifname).c_str(), 0);
}

class NcclCommunicator final : public Communicator {
public:
    explicit NcclCommunicator(const Rendezvous& rv)
        : m_rank(rv.rank)
        , m_world(rv.world)
        , m_timeout(rv.timeout)
        , m_device(static_cast<c10::DeviceIndex>(rv.localRank))
        , m_stream(at::cuda::getStreamFromPool(/*isHighPriority=*/true, m_device))
        , m_downloadStream(at::cuda::getStreamFromPool(/*isHighPriority=*/false, m_device))
    {
        c10::cuda::CUDAGuard guard(m_device);
        bindNcclSocketsToward(rv.masterAddr, rv.masterPort);
        ncclUniqueId id;
        try {
            RendezvousSession session(rv.rank, rv.world, rv.masterAddr, rv.masterPort,
                                      std::chrono::duration_cast<std::chrono::milliseconds>(rv.timeout));
            const auto client = session.client();
            const std::string key = "shardwise/nccl_unique_id";
            if (rv.rank == 0) {
                SHARDWISE_NCCL_CHECK(ncclGetUniqueId(&id));
                std::vector<std::uint8_t> bytes(sizeof id);
                std::memcpy(bytes.data(), &id, sizeof id);
                client->set(key, bytes);
            } else {
                const auto bytes = client->get(key);
                if (bytes.size() != sizeof id)
                    throw CommError("NCCL unique id from the rendezvous has the wrong size");
                std::memcpy(&id, bytes.data(), sizeof id);
            }
            // The id is all NCCL needs from it: every rank holds it, and rank 0 stops listening.
            session.finish();
        } catch (const CommError&) {
            throw;
        } catch (const ConfigError&) {
            throw;
        } catch (const std::exception& e) {
            throw CommError(std::string("NCCL rendezvous through ") + rv.masterAddr + ":"
                            + std::to_string(rv.masterPort) + " failed: " + e.what());
        }
        ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
        config.blocking = 0;
        SHARDWISE_NCCL_CHECK(ncclCommInitRankConfig(&m_comm, m_world, id, m_rank, &config));
        waitUntilIdle("ncclCommInitRankConfig");
    }

    // Rank 0 of a rehearsed world (communicator.hpp): the same streams, events and stream bookkeeping of
    // freed buffers as a real run, with every collective replaced by its local effect (rehearsal.hpp)
    // on the comm stream, untimed: the step's time holds no communication.
    struct Rehearsal {
        int world;
    };
    NcclCommunicator(Rehearsal r, int localRank)
        : m_rank(0)
        , m_world(r.world)
        , m_timeout(std::chrono::seconds(60))
        , m_device(static_cast<c10::DeviceIndex>(localRank))
        , m_stream(at::cuda::getStreamFromPool(/*isHighPriority=*/true, m_device))
        , m_downloadStream(at::cuda::getStreamFromPool(/*isHighPriority=*/false, m_device))
        , m_rehearsal(true)
    {
    }

    ~NcclCommunicator() override
    {
        if (m_comm)
            ncclCommDestroy(m_comm);
    }

    int rank() const override { return m_rank; }
    int world() const override { return m_world; }
    std::string backendName() const override { return m_rehearsal ? "rehearsal (no data moves)" : "nccl"; }

    CommTicket allGather(const at::Tensor& shard, const at::Tensor& full) override
    {
        TORCH_CHECK(full.numel() == shard.numel() * m_world, "allGather: full buffer is not world x shard");
        if (m_rehearsal)
            return rehearsed([&] { rehearsal::allGather(shard, full, m_world); });
        if (m_world == 1)
            return alone([&] { full.copy_(shard, /*non_blocking=*/true); });
        return collective([&] {
            return ncclAllGather(shard.data_ptr(), full.data_ptr(), static_cast<std::size_t>(shard.numel()),
                                 ncclType(shard), m_comm, m_stream.stream());
        });
    }

    CommTicket reduceScatterMean(const at::Tensor& full, const at::Tensor& shard) override
    {
        TORCH_CHECK(full.numel() == shard.numel() * m_world, "reduceScatter: full buffer is not world x shard");
        if (m_rehearsal)
            return rehearsed([&] { rehearsal::reduceScatter(full, shard); });
        if (m_world == 1)
            return alone([&] { shard.copy_(full, /*non_blocking=*/true); });
        return collective([&] {
            return ncclReduceScatter(full.data_ptr(), shard.data_ptr(), static_cast<std::size_t>(shard.numel()),
                                     ncclType(full), ncclAvg, m_comm, m_stream.stream());
        });
    }

    CommTicket reduceScatterMeanInPlace(const at::Tensor& full) override
    {
        const auto count = static_cast<std::size_t>(full.numel() / m_world);
        TORCH_CHECK(static_cast<std::int64_t>(count) * m_world == full.numel(),
                    "reduceScatter: full buffer is not world x shard");
        if (m_world == 1 || m_rehearsal)
            return alone(nullptr);
        return collective([&] {
            // In place in NCCL's sense: recvbuff == sendbuff + rank * recvcount.
            auto* base = static_cast<char*>(full.data_ptr());
            void* mine = base + static_cast<std::size_t>(m_rank) * count * full.element_size();
            return ncclReduceScatter(base, mine, count, ncclType(full), ncclAvg, m_comm, m_stream.stream());
        });
    }

    CommTicket allReduceMean(const at::Tensor& t) override
    {
        if (m_world == 1 || m_rehearsal)
            return alone(nullptr);
        return collective([&] {
            return ncclAllReduce(t.data_ptr(), t.data_ptr(), static_cast<std::size_t>(t.numel()), ncclType(t), ncclAvg,
                                 m_comm, m_stream.stream());
        });
    }

    CommTicket allReduceMeanEach(const std::vector<at::Tensor>& ts) override
    {
        if (m_world == 1 || m_rehearsal)
            return alone(nullptr);
        return collective([&] {
            return grouped(ts.size(), [&](std::size_t i) {
                return ncclAllReduce(ts[i].data_ptr(), ts[i].data_ptr(), static_cast<std::size_t>(ts[i].numel()),
                                     ncclType(ts[i]), ncclAvg, m_comm, m_stream.stream());
            });
        });
    }

    CommTicket allGatherInPlaceEach(const std::vector<at::Tensor>& fulls) override
    {
        // In place in NCCL's sense: sendbuff == recvbuff + rank * sendcount, so nothing is copied locally.
        if (m_rehearsal)
            return rehearsed([&] {
                for (const auto& full : fulls)
                    rehearsal::allGatherInPlace(full, m_world);
            });
        if (m_world == 1)
            return alone(nullptr);
        return collective([&] {
            return grouped(fulls.size(), [&](std::size_t i) {
                const auto count = static_cast<std::size_t>(fulls[i].numel() / m_world);
                auto* base = static_cast<char*>(fulls[i].data_ptr());
                const void* mine = base + static_cast<std::size_t>(m_rank) * count * fulls[i].element_size();
                return ncclAllGather(mine, base, count, ncclType(fulls[i]), m_comm, m_stream.stream());
            });
        });
    }

    CommTicket reduceScatterMeanEach(const std::vector<at::Tensor>& fulls,
                                     const std::vector<at::Tensor>& shards) override
    {
        TORCH_CHECK(fulls.size() == shards.size(), "reduceScatterMeanEach: one shard per full buffer");
        if (m_rehearsal)
            return rehearsed([&] {
                for (std::size_t i = 0; i < fulls.size(); ++i)
                    rehearsal::reduceScatter(fulls[i], shards[i]);
            });
        if (m_world == 1)
            return alone([&] {
                for (std::size_t i = 0; i < fulls.size(); ++i)
                    shards[i].copy_(fulls[i], /*non_blocking=*/true);
            });
        return collective([&] {
            return grouped(fulls.size(), [&](std::size_t i) {
                return ncclReduceScatter(fulls[i].data_ptr(), shards[i].data_ptr(),
                                         static_cast<std::size_t>(shards[i].numel()), ncclType(fulls[i]), ncclAvg,
                                         m_comm, m_stream.stream());
            });
        });
    }

    CommTicket copyAfterComm(const at::Tensor& dst, const at::Tensor& src) override
    {
        c10::cuda::CUDAGuard guard(m_device);
        followCompute();
        auto ticket = std::make_shared<NcclCompletion>(m_device);
        if (dst.is_cpu() && src.is_cuda()) {
            at::cuda::CUDAEvent queued;
            queued.record(m_stream);
            queued.block(m_downloadStream);
            c10::cuda::CUDAStreamGuard onDownload(m_downloadStream);
            dst.copy_(src, /*non_blocking=*/true);
            ticket->done.record(m_downloadStream);
            return ticket;
        }
        {
            c10::cuda::CUDAStreamGuard onComm(m_stream);
            dst.copy_(src, /*non_blocking=*/true);
        }
        ticket->done.record(m_stream);
        return ticket;
    }

    void computeWaits(const CommTicket& ticket) override
    {
        if (!ticket)
            return;
        c10::cuda::CUDAGuard guard(m_device);
        auto compute = at::cuda::getCurrentCUDAStream(m_device);
        // Timing events around the wait measure how long compute stalled on communication.
        Interval stall;
        stall.begin(compute.stream());
        static_cast<NcclCompletion&>(*ticket).done.block(compute);
        stall.end(compute.stream());
        m_stalls.push_back(std::move(stall));
    }

    void streamWaits(const CommTicket& ticket) override
    {
        if (!ticket)
            return;
        c10::cuda::CUDAGuard guard(m_device);
        static_cast<NcclCompletion&>(*ticket).done.block(at::cuda::getCurrentCUDAStream(m_device));
    }

    void markUsedByComm(const at::Tensor& t) override
    {
        c10::cuda::CUDACachingAllocator::recordStream(t.storage().data_ptr(), m_stream);
    }

    void synchronize() override
    {
        if (m_rehearsal) {
            c10::cuda::CUDAGuard guard(m_device);
            m_stream.synchronize();
            m_downloadStream.synchronize();
            return;
        }
        waitForStream("synchronize");
        c10::cuda::CUDAGuard guard(m_device);
        m_downloadStream.synchronize(); // copies only: nothing there can hang on a peer
    }

    CommTime takeCommTime() override
    {
        CommTime t;
        for (const auto* list : { &m_collectives, &m_capturedCollectives })
            for (const auto& i : *list)
                t.total += i.elapsedSeconds();
        for (const auto* list : { &m_stalls, &m_capturedStalls })
            for (const auto& i : *list)
                t.exposed += i.elapsedSeconds();
        m_collectives.clear();
        m_stalls.clear();
        return t;
    }

    void joinCompute() override
    {
        c10::cuda::CUDAGuard guard(m_device);
        auto compute = at::cuda::getCurrentCUDAStream(m_device);
        for (const auto& s : { m_stream, m_downloadStream }) {
            if (!capturing(s.stream()))
                continue; // never forked into this capture: nothing of it belongs to the graph
            at::cuda::CUDAEvent joined;
            joined.record(s);
            joined.block(compute);
        }
    }

    void keepCapturedTimings() override
    {
        for (auto& i : m_collectives)
            m_capturedCollectives.push_back(std::move(i));
        for (auto& i : m_stalls)
            m_capturedStalls.push_back(std::move(i));
        m_collectives.clear();
        m_stalls.clear();
    }

private:
    static bool capturing(cudaStream_t s)
    {
        cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
        C10_CUDA_CHECK(cudaStreamIsCapturing(s, &status));
        return status == cudaStreamCaptureStatusActive;
    }

    // Two timing events around a collective or a stall. Recorded while a step is captured, they
    // become external event-record nodes of the graph, so every replay records them again and the
    // interval is read after each replay like an eager one.
    class Interval {
    public:
        Interval()
        {
            C10_CUDA_CHECK(cudaEventCreateWithFlags(&m_begin, cudaEventDefault));
            C10_CUDA_CHECK(cudaEventCreateWithFlags(&m_end, cudaEventDefault));
        }
        Interval(Interval&& o) noexcept
            : m_begin(std::exchange(o.m_begin, nullptr))
            , m_end(std::exchange(o.m_end, nullptr))
        {
        }
        Interval& operator=(Interval&&) = delete;
        Interval(const Interval&) = delete;
        ~Interval()
        {
            if (m_begin)
                cudaEventDestroy(m_begin);
            if (m_end)
                cudaEventDestroy(m_end);
        }

        void begin(cudaStream_t s) { record(m_begin, s); }
        void end(cudaStream_t s) { record(m_end, s); }

        double elapsedSeconds() const
        {
            if (cudaEventQuery(m_end) != cudaSuccess) {
                (void)cudaGetLastError(); // not finished: not counted (the caller synchronised first)
                return 0;
            }
            float ms = 0;
            if (cudaEventElapsedTime(&ms, m_begin, m_end) != cudaSuccess) {
                (void)cudaGetLastError();
                return 0;
            }
            return static_cast<double>(ms) / 1000.0;
        }

    private:
        static void record(cudaEvent_t e, cudaStream_t s)
        {
            if (capturing(s))
                C10_CUDA_CHECK(cudaEventRecordWithFlags(e, s, cudaEventRecordExternal));
            else
                C10_CUDA_CHECK(cudaEventRecord(e, s));
        }

        cudaEvent_t m_begin = nullptr;
        cudaEvent_t m_end = nullptr;
    };

    void checkNccl(ncclResult_t r, const char* expr, const char* file, int line)
    {
        if (r == ncclSuccess || r == ncclInProgress)
            return;
        const std::string message = std::string(expr) + " failed at " + file + ":" + std::to_string(line) + ": "
            + ncclGetErrorString(r) + " (" + (ncclGetLastError(m_comm) ? ncclGetLastError(m_comm) : "") + ")";
        abort();
        throw CommError(message);
    }

    void abort()
    {
        if (m_comm) {
            ncclCommAbort(m_comm);
            m_comm = nullptr;
        }
    }

    // Non-blocking communicators may still be working on the last call; wait for that, not the GPU.
    void waitUntilIdle(const char* what)
    {
        const auto deadline = Clock::now() + m_timeout;
        for (;;) {
            ncclResult_t state = ncclSuccess;
            SHARDWISE_NCCL_CHECK(ncclCommGetAsyncError(m_comm, &state));
            if (state == ncclSuccess)
                return;
            if (state != ncclInProgress) {
                const std::string message = std::string(what) + ": " + ncclGetErrorString(state);
                abort();
                throw CommError(message);
            }
            if (Clock::now() > deadline) {
                abort();
                throw CommError(std::string(what) + " did not finish within the collective timeout");
            }
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    }

    void waitForStream(const char* what)
    {
        if (!m_comm)
            throw CommError("the NCCL communicator was aborted after an earlier failure");
        c10::cuda::CUDAGuard guard(m_device);
        at::cuda::CUDAEvent marker;
        marker.record(m_stream);
        const auto deadline = Clock::now() + m_timeout;
        while (!marker.query()) {
            ncclResult_t state = ncclSuccess;
            SHARDWISE_NCCL_CHECK(ncclCommGetAsyncError(m_comm, &state));
            if (state != ncclSuccess && state != ncclInProgress) {
                const std::string message = std::string(what) + ": NCCL reported " + ncclGetErrorString(state);
                abort();
                throw CommError(message);
            }
            if (Clock::now() > deadline) {
                abort();
                throw CommError(std::string(what) + ": communication did not finish within "
                                + std::to_string(m_timeout.count()) + " s (a peer died or hangs)");
            }
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    }

    void followCompute()
    {
        at::cuda::CUDAEvent computed;
        computed.record(at::cuda::getCurrentCUDAStream(m_device));
        computed.block(m_stream);
    }

    // ncclGroupStart; one call per index; ncclGroupEnd. The first failing call ends the group and wins.
    template <typename F> ncclResult_t grouped(std::size_t n, F&& enqueueOne)
    {
        ncclResult_t r = ncclGroupStart();
        if (r != ncclSuccess)
            return r;
        for (std::size_t i = 0; i < n; ++i) {
            r = enqueueOne(i);
            if (r != ncclSuccess && r != ncclInProgress) {
                ncclGroupEnd();
                return r;
            }
        }
        return ncclGroupEnd();
    }

    template <typename F> CommTicket collective(F&& enqueue)
    {
        if (!m_comm)
            throw CommError("the NCCL communicator was aborted after an earlier failure");
        c10::cuda::CUDAGuard guard(m_device);
        followCompute();
        Interval timing;
        timing.begin(m_stream.stream());
        SHARDWISE_NCCL_CHECK(enqueue());
        waitUntilIdle("enqueueing a collective");
        timing.end(m_stream.stream());
        m_collectives.push_back(std::move(timing));
        auto ticket = std::make_shared<NcclCompletion>(m_device);
        ticket->done.record(m_stream);
        return ticket;
    }

    // World 1: the mean over one rank is the identity. NCCL's single-rank path would still launch a
    // kernel over the whole buffer for ncclAvg (5 ms a step for zero0's 6 GB of bf16 gradients on an
    // H200), so an in-place collective becomes an ordering point on the comm stream only, and an
    // out-of-place one a device copy there, timed like the collective it stands for.
    template <typename F> CommTicket alone(F&& copy)
    {
        c10::cuda::CUDAGuard guard(m_device);
        followCompute();
        if constexpr (!std::is_same_v<std::decay_t<F>, std::nullptr_t>) {
            Interval timing;
            timing.begin(m_stream.stream());
            {
                c10::cuda::CUDAStreamGuard onComm(m_stream);
                copy();
            }
            timing.end(m_stream.stream());
            m_collectives.push_back(std::move(timing));
        }
        auto ticket = std::make_shared<NcclCompletion>(m_device);
        ticket->done.record(m_stream);
        return ticket;
    }

    // A rehearsal's collective: its local effect on the comm stream, ordered as a real one, untimed.
    template <typename F> CommTicket rehearsed(F&& effect)
    {
        c10::cuda::CUDAGuard guard(m_device);
        followCompute();
        {
            c10::cuda::CUDAStreamGuard onComm(m_stream);
            effect();
        }
        auto ticket = std::make_shared<NcclCompletion>(m_device);
        ticket->done.record(m_stream);
        return ticket;
    }

    int m_rank;
    int m_world;
    std::chrono::seconds m_timeout;
    c10::DeviceIndex m_device;
    at::cuda::CUDAStream m_stream;
    at::cuda::CUDAStream m_downloadStream;
    ncclComm_t m_comm = nullptr;
    std::vector<Interval> m_collectives;
    std::vector<Interval> m_stalls;
    std::vector<Interval> m_capturedCollectives; // recorded by every replay of the captured step
    std::vector<Interval> m_capturedStalls;
    bool m_rehearsal = false;
};

} // namespace

std::unique_ptr<Communicator> createNcclCommunicator(const Rendezvous& rv)
{
    return std::make_unique<NcclCommunicator>(rv);
}

std::unique_ptr<Communicator> createNcclRehearsalCommunicator(int world, int localRank)
{
    return std::make_unique<NcclCommunicator>(NcclCommunicator::Rehearsal { world }, localRank);
}

} // namespace shardwise::runner
