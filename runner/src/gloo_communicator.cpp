// c10d ProcessGroupGloo on CPU tensors. LibTorch 1.13's Gloo backend lacks reduce_scatter,
// _allgather_base, _reduce_scatter_base, the AVG op and bf16, so all-gather uses the list form with
// views of the output buffer, and reductions are built on it: every rank's buffer is gathered and
// summed in rank order (0, 1, 2, ...), then divided by the world size. Gloo's ring all-reduce would
// sum each element in an order that depends on where it falls in the buffer, so a bucketed reduction
// (zero1/zero2) and a per-unit one (zero0) would differ in the last bits, and Adam turns those into
// visible parameter differences; the rank-ordered sum makes every strategy's gradients bit-identical
// at the cost of world-times the traffic, which the CPU path (CI, equivalence tests) can afford.
#include "communicator.hpp"
#include "rendezvous.hpp"
#include "runner_options.hpp"

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/version.h>

#include <cstdlib>
#include <exception>

namespace shardwise::runner {

namespace {

using Clock = std::chrono::steady_clock;

// c10d's Store over the rendezvous exchange (rendezvous.hpp), which listens only on MASTER_ADDR and
// only until every rank's Gloo pairs are connected; c10d's TCPStore would listen on every interface
// for the whole run. ProcessGroupGloo uses the store only while it connects its full mesh.
class RendezvousStore final : public c10d::Store {
public:
    explicit RendezvousStore(std::shared_ptr<RendezvousClient> client)
        : c10d::Store(client->timeout())
        , m_client(std::move(client))
    {
    }

    using c10d::Store::set;
    void set(const std::string& key, const std::vector<uint8_t>& value) override { m_client->set(key, value); }
    std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expected,
                                    const std::vector<uint8_t>& desired) override
    {
        return m_client->compareSet(key, expected, desired);
    }
    std::vector<uint8_t> get(const std::string& key) override { return m_client->get(key, timeout_); }
    int64_t add(const std::string& key, int64_t value) override { return m_client->add(key, value); }
    bool deleteKey(const std::string& key) override { return m_client->deleteKey(key); }
    bool check(const std::vector<std::string>& keys) override { return m_client->check(keys); }
    int64_t getNumKeys() override { return m_client->numKeys(); }
    void wait(const std::vector<std::string>& keys) override { m_client->wait(keys, timeout_); }
    void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override
    {
        m_client->wait(keys, timeout);
    }
#if defined(TORCH_VERSION_MAJOR) && TORCH_VERSION_MAJOR >= 2
    // Newer LibTorch declares Store::clone() (a copy pointing at the same store); older ones do not,
    // so it carries no `override` and simply overrides where the base has it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsuggest-override"
    c10::intrusive_ptr<c10d::Store> clone()
    {
        return c10::make_intrusive<RendezvousStore>(m_client);
    }
#pragma GCC diagnostic pop
#endif

private:
    std::shared_ptr<RendezvousClient> m_client;
};

class GlooCommunicator final : public HostSynchronousCommunicator {
public:
    explicit GlooCommunicator(const Rendezvous& rv)
        : m_rank(rv.rank)
        , m_world(rv.world)
    {
        const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(rv.timeout);
        try {
            // Rank 0 listens on MASTER_ADDR only; once every rank's pairs are connected the exchange
            // is closed (finish()) and the run holds no listening socket at all.
            RendezvousSession session(rv.rank, rv.world, rv.masterAddr, rv.masterPort, timeout);
            auto store = c10::make_intrusive<RendezvousStore>(session.client());
            auto options = c10d::ProcessGroupGloo::Options::create(timeout);
            options->devices.push_back(transportDevice(rv.masterAddr, rv.masterPort));
            options->threads = 2;
            m_group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rv.rank, rv.world, options);
            session.finish();
        } catch (const ConfigError&) {
            throw;
        } catch (const std::exception& e) {
            throw CommError(std::string("Gloo rendezvous with ") + rv.masterAddr + ":" + std::to_string(rv.masterPort)
                            + " failed: " + e.what());
        }
    }

    int rank() const override { return m_rank; }
    int world() const override { return m_world; }
    std::string backendName() const override { return "gloo"; }

    CommTicket allGather(const at::Tensor& shard, const at::Tensor& full) override
    {
        const auto shardNumel = shard.numel();
        TORCH_CHECK(full.numel() == shardNumel * m_world, "allGather: full buffer is not world x shard");
        timed([&] {
            std::vector<std::vector<at::Tensor>> outputs(1);
            for (int r = 0; r < m_world; ++r)
                outputs[0].push_back(full.narrow(0, r * shardNumel, shardNumel));
            std::vector<at::Tensor> inputs { shard };
            m_group->allgather(outputs, inputs)->wait();
        });
        return nullptr;
    }

    CommTicket reduceScatterMean(const at::Tensor& full, const at::Tensor& shard) override
    {
        const auto shardNumel = shard.numel();
        TORCH_CHECK(full.numel() == shardNumel * m_world, "reduceScatter: full buffer is not world x shard");
        const auto everyRank = gatherEveryRank(full);
        sumInRankOrder(everyRank, m_rank * shardNumel, shardNumel, shard);
        return nullptr;
    }

    CommTicket reduceScatterMeanInPlace(const at::Tensor& full) override
    {
        const auto shardNumel = full.numel() / m_world;
        TORCH_CHECK(shardNumel * m_world == full.numel(), "reduceScatter: full buffer is not world x shard");
        // The output may alias the input: every rank's buffer is gathered into rows of their own
        // before the sum is written into this rank's slice.
        return reduceScatterMean(full, full.narrow(0, m_rank * shardNumel, shardNumel));
    }

    CommTicket allReduceMean(const at::Tensor& t) override
    {
        const auto everyRank = gatherEveryRank(t);
        sumInRankOrder(everyRank, 0, t.numel(), t);
        return nullptr;
    }

    // Gloo has no grouping: the collectives run one after another, with the same results.
    CommTicket allReduceMeanEach(const std::vector<at::Tensor>& ts) override
    {
        for (const auto& t : ts)
            allReduceMean(t);
        return nullptr;
    }

    CommTicket allGatherInPlaceEach(const std::vector<at::Tensor>& fulls) override
    {
        for (const auto& full : fulls) {
            const auto shardNumel = full.numel() / m_world;
            allGather(full.narrow(0, m_rank * shardNumel, shardNumel).clone(), full);
        }
        return nullptr;
    }

    CommTime takeCommTime() override
    {
        // Gloo runs on the calling thread: every second in a collective is exposed.
        CommTime t { m_commSeconds, m_commSeconds };
        m_commSeconds = 0;
        return t;
    }

private:
    // Gloo's pairs listen (until their peer connects) on the device's address: GLOO_SOCKET_IFNAME's
    // interface when set, otherwise this host's address on the route to MASTER_ADDR (127.0.0.1 for a
    // loopback MASTER_ADDR), never the wildcard address.
    static std::shared_ptr<::gloo::transport::Device> transportDevice(const std::string& masterAddr, int masterPort)
    {
        if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname)
            return c10d::ProcessGroupGloo::createDeviceForInterface(ifname);
        if (const auto local = localAddressToward(masterAddr, masterPort); !local.empty())
            return c10d::ProcessGroupGloo::createDeviceForHostname(local);
        return c10d::ProcessGroupGloo::createDefaultDevice();
    }

    // [world, n]: row r is rank r's `t`.
    at::Tensor gatherEveryRank(const at::Tensor& t)
    {
        auto rows = at::empty({ m_world, t.numel() }, t.options());
        timed([&] {
            std::vector<std::vector<at::Tensor>> outputs(1);
            for (int r = 0; r < m_world; ++r)
                outputs[0].push_back(rows[r]);
            std::vector<at::Tensor> inputs { t.reshape({ -1 }) };
            m_group->allgather(outputs, inputs)->wait();
        });
        return rows;
    }

    void sumInRankOrder(const at::Tensor& rows, std::int64_t offset, std::int64_t count, const at::Tensor& out)
    {
        auto flat = out.view({ -1 });
        flat.copy_(rows[0].narrow(0, offset, count));
        for (int r = 1; r < m_world; ++r)
            flat.add_(rows[r].narrow(0, offset, count));
        flat.div_(m_world);
    }

    template <typename F> void timed(F&& collective)
    {
        const auto begin = Clock::now();
        try {
            collective();
        } catch (const std::exception& e) {
            throw CommError(std::string("Gloo collective failed on rank ") + std::to_string(m_rank) + ": " + e.what());
        }
        m_commSeconds += std::chrono::duration<double>(Clock::now() - begin).count();
    }

    int m_rank;
    int m_world;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> m_group;
    double m_commSeconds = 0;
};

} // namespace

std::unique_ptr<Communicator> createGlooCommunicator(const Rendezvous& rv)
{
    return std::make_unique<GlooCommunicator>(rv);
}

} // namespace shardwise::runner
