#pragma once
// Where the ranks meet before their first collective: a small key-value exchange that rank 0 serves
// on the address MASTER_ADDR names, and nowhere else, for as long as the communicator is being set up.
//
// c10d's TCPStore (LibTorch 1.13) listens on every interface (*:PORT, IPv4 and IPv6) for the whole
// life of the store and takes no address to bind to; PyTorch documents the store as unauthenticated.
// Rank 0 here binds each address MASTER_ADDR resolves to that is one of this host's, and closes the
// listening socket and every connection once every rank has said it is connected (close()), so a
// training run has no rendezvous port open at all. The exchange carries only what the communicators
// publish (Gloo's pair addresses, NCCL's unique id); every size is bounded.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shardwise::runner {

using Bytes = std::vector<std::uint8_t>;

class RendezvousServer;

// One rank's connection to the exchange. Every call blocks at most the timeout it was created with
// (a key that never appears throws CommError naming it). Safe to call from several threads.
class RendezvousClient {
public:
    RendezvousClient(const std::string& masterAddr, int masterPort, std::chrono::milliseconds timeout);
    ~RendezvousClient();
    RendezvousClient(const RendezvousClient&) = delete;
    RendezvousClient& operator=(const RendezvousClient&) = delete;

    void set(const std::string& key, const Bytes& value);
    // Waits for the key.
    Bytes get(const std::string& key);
    Bytes get(const std::string& key, std::chrono::milliseconds timeout);
    std::int64_t add(const std::string& key, std::int64_t delta);
    // Sets `desired` when the key holds `expected` (or is absent and `expected` is empty); returns the
    // value the key holds afterwards.
    Bytes compareSet(const std::string& key, const Bytes& expected, const Bytes& desired);
    bool check(const std::vector<std::string>& keys);
    bool deleteKey(const std::string& key);
    std::int64_t numKeys();
    void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout);
    // Drops the connection; later calls throw CommError.
    void close();

    std::chrono::milliseconds timeout() const { return m_timeout; }
    const std::string& masterAddr() const { return m_addr; }
    int masterPort() const { return m_port; }

private:
    struct Reply;
    Reply call(std::uint8_t op, const std::vector<Bytes>& args, std::chrono::milliseconds wait);

    std::string m_addr;
    int m_port;
    std::chrono::milliseconds m_timeout;
    struct Connection;
    std::unique_ptr<Connection> m_conn;
};

// Rank 0 serves the exchange, every rank (rank 0 too) is a client of it.
class RendezvousSession {
public:
    // Rank 0 binds MASTER_ADDR:MASTER_PORT first (a ConfigError-style CommError when MASTER_ADDR is not
    // an address of this host), then every rank connects, retrying until the timeout.
    RendezvousSession(int rank, int world, const std::string& masterAddr, int masterPort,
                      std::chrono::milliseconds timeout);
    ~RendezvousSession();
    RendezvousSession(const RendezvousSession&) = delete;
    RendezvousSession& operator=(const RendezvousSession&) = delete;

    std::shared_ptr<RendezvousClient> client() const { return m_client; }

    // Every rank calls this once its communicator is connected: it says so through the exchange;
    // rank 0 waits until every rank has, then closes the server (its port is no longer listened on).
    // Other ranks drop their connection.
    void finish();

private:
    int m_rank;
    int m_world;
    std::unique_ptr<RendezvousServer> m_server;
    std::shared_ptr<RendezvousClient> m_client;
};

// This host's address on the route toward MASTER_ADDR (what a UDP socket connected to it reports as
// its own address): the address a rank's own listening sockets (Gloo's pairs, NCCL's bootstrap) should
// bind so they are reachable by the peers and by nothing the run does not use. Empty when it cannot be
// found.
std::string localAddressToward(const std::string& masterAddr, int masterPort);

// The name of the interface that holds `address` on this host (getifaddrs), empty when none does.
std::string interfaceHolding(const std::string& address);

} // namespace shardwise::runner
