// The CPU's rehearsal communicator: rank 0 of a world of N ranks, in this process alone, with the
// local effects of rehearsal.hpp run synchronously on the calling thread. No rendezvous, no sockets.
// (On CUDA the NCCL communicator rehearses instead, so the comm and copy streams, and the allocator's
// stream bookkeeping that holds freed buffers until they finish, stay those of a real run.)
#include "communicator.hpp"
#include "rehearsal.hpp"

namespace shardwise::runner {

namespace {

class CpuRehearsalCommunicator final : public HostSynchronousCommunicator {
public:
    explicit CpuRehearsalCommunicator(int world)
        : m_world(world)
    {
    }

    int rank() const override { return 0; }
    int world() const override { return m_world; }
    std::string backendName() const override { return "rehearsal (no data moves)"; }

    CommTicket allGather(const at::Tensor& shard, const at::Tensor& full) override
    {
        TORCH_CHECK(full.numel() == shard.numel() * m_world, "allGather: full buffer is not world x shard");
        rehearsal::allGather(shard, full, m_world);
        return nullptr;
    }

    CommTicket reduceScatterMean(const at::Tensor& full, const at::Tensor& shard) override
    {
        TORCH_CHECK(full.numel() == shard.numel() * m_world, "reduceScatter: full buffer is not world x shard");
        rehearsal::reduceScatter(full, shard);
        return nullptr;
    }

    CommTicket reduceScatterMeanInPlace(const at::Tensor& full) override
    {
        TORCH_CHECK(full.numel() % m_world == 0, "reduceScatter: full buffer is not world x shard");
        return nullptr;
    }

    CommTicket allReduceMean(const at::Tensor&) override { return nullptr; }
    CommTicket allReduceMeanEach(const std::vector<at::Tensor>&) override { return nullptr; }

    CommTicket allGatherInPlaceEach(const std::vector<at::Tensor>& fulls) override
    {
        for (const auto& full : fulls)
            rehearsal::allGatherInPlace(full, m_world);
        return nullptr;
    }

    CommTime takeCommTime() override { return {}; }

private:
    int m_world;
};

} // namespace

std::unique_ptr<Communicator> createCpuRehearsalCommunicator(int world)
{
    return std::make_unique<CpuRehearsalCommunicator>(world);
}

} // namespace shardwise::runner
