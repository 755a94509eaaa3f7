// The rendezvous exchange (rendezvous.hpp). Wire format, both directions: one byte (request: the
// operation; reply: 0 ok, 1 timed out, 2 refused), a 32-bit wait in milliseconds (requests only), a
// 32-bit count of fields, then each field as a 32-bit length and its bytes; integers big-endian.
// One thread per connection: a rank's connection spends most of the rendezvous blocked in a get.
#include "rendezvous.hpp"

#include "communicator.hpp"
#include "runner_options.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

namespace shardwise::runner {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

enum Op : std::uint8_t { OpSet = 1, OpGet, OpAdd, OpCompareSet, OpCheck, OpDelete, OpNumKeys, OpWait };
enum Status : std::uint8_t { StatusOk = 0, StatusTimeout = 1, StatusRefused = 2 };

// Bounds on what a peer (or anything else that reaches the port) can make the server hold.
constexpr std::uint32_t kMaxField = 16u << 20;      // one key or value
constexpr std::uint32_t kMaxFields = 4096;          // keys in one check / wait
constexpr std::size_t kMaxStoredBytes = 256u << 20; // all keys and values together
constexpr std::size_t kMaxKeyBytes = 4096;

std::string errnoText(int err)
{
    return std::strerror(err);
}

bool writeAll(int fd, const void* data, std::size_t n)
{
    const auto* p = static_cast<const char*>(data);
    while (n > 0) {
        const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

// Reads exactly n bytes; a deadline (client side) bounds the wait, none (server side) blocks until
// the peer or close() ends the connection.
bool readAll(int fd, void* data, std::size_t n, std::optional<Clock::time_point> deadline = std::nullopt)
{
    auto* p = static_cast<char*>(data);
    while (n > 0) {
        if (deadline) {
            const auto left = std::chrono::duration_cast<milliseconds>(*deadline - Clock::now()).count();
            if (left <= 0)
                return false;
            pollfd pfd { fd, POLLIN, 0 };
            const int rc = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left, 1000)));
            if (rc < 0 && errno != EINTR)
                return false;
            if (rc <= 0)
                continue;
        }
        const ssize_t r = ::recv(fd, p, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        n -= static_cast<std::size_t>(r);
    }
    return true;
}

void putU32(Bytes& out, std::uint32_t v)
{
    const std::uint32_t be = htonl(v);
    const auto* b = reinterpret_cast<const std::uint8_t*>(&be);
    out.insert(out.end(), b, b + 4);
}

Bytes encodeI64(std::int64_t v)
{
    Bytes out(8);
    auto u = static_cast<std::uint64_t>(v);
    for (int i = 7; i >= 0; --i, u >>= 8)
        out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(u & 0xff);
    return out;
}

std::optional<std::int64_t> decodeI64(const Bytes& b)
{
    if (b.size() != 8)
        return std::nullopt;
    std::uint64_t u = 0;
    for (auto byte : b)
        u = (u << 8) | byte;
    return static_cast<std::int64_t>(u);
}

Bytes frame(std::uint8_t head, std::optional<std::uint32_t> waitMs, const std::vector<Bytes>& fields)
{
    Bytes out { head };
    if (waitMs)
        putU32(out, *waitMs);
    putU32(out, static_cast<std::uint32_t>(fields.size()));
    for (const auto& f : fields) {
        putU32(out, static_cast<std::uint32_t>(f.size()));
        out.insert(out.end(), f.begin(), f.end());
    }
    return out;
}

// Reads the fields after the head; false on a closed connection, a timeout or a field over the bounds.
bool readFields(int fd, std::vector<Bytes>& fields, std::optional<Clock::time_point> deadline)
{
    std::uint32_t count = 0;
    if (!readAll(fd, &count, 4, deadline))
        return false;
    count = ntohl(count);
    if (count > kMaxFields)
        return false;
    fields.resize(count);
    for (auto& f : fields) {
        std::uint32_t len = 0;
        if (!readAll(fd, &len, 4, deadline))
            return false;
        len = ntohl(len);
        if (len > kMaxField)
            return false;
        f.resize(len);
        if (len > 0 && !readAll(fd, f.data(), len, deadline))
            return false;
    }
    return true;
}

std::string text(const Bytes& b)
{
    return std::string(b.begin(), b.end());
}
Bytes bytes(const std::string& s)
{
    return Bytes(s.begin(), s.end());
}

struct AddrInfoList {
    addrinfo* head = nullptr;
    ~AddrInfoList()
    {
        if (head)
            ::freeaddrinfo(head);
    }
};

std::string numericHost(const sockaddr* sa, socklen_t len)
{
    char host[NI_MAXHOST] = {};
    if (::getnameinfo(sa, len, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0)
        return "?";
    return host;
}

} // namespace

// ---- server ----

class RendezvousServer {
public:
    RendezvousServer(const std::string& addr, int port, std::size_t maxConnections)
        : m_maxConnections(maxConnections)
    {
        addrinfo hints {};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_NUMERICSERV;
        AddrInfoList found;
        const std::string service = std::to_string(port);
        if (const int rc = ::getaddrinfo(addr.c_str(), service.c_str(), &hints, &found.head); rc != 0)
            throw ConfigError("MASTER_ADDR '" + addr + "' does not resolve to an address (" + ::gai_strerror(rc) + ")");
        std::string notHere;
        for (const addrinfo* ai = found.head; ai; ai = ai->ai_next) {
            const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
            if (fd < 0)
                continue;
            const int one = 1;
            ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
            if (ai->ai_family == AF_INET6)
                ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
            const std::string where = numericHost(ai->ai_addr, ai->ai_addrlen);
            if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
                const int err = errno;
                ::close(fd);
                if (err == EADDRINUSE)
                    throw CommError("rendezvous: port " + service + " on " + where + " (MASTER_ADDR '" + addr
                                    + "') is in use; choose another MASTER_PORT");
                notHere += (notHere.empty() ? "" : ", ") + where + " (" + errnoText(err) + ")";
                continue;
            }
            if (::listen(fd, 128) != 0) {
                ::close(fd);
                continue;
            }
            m_listeners.push_back(fd);
        }
        if (m_listeners.empty())
            throw ConfigError("MASTER_ADDR '" + addr + "' names no address of rank 0's host"
                              + (notHere.empty() ? std::string() : ": cannot bind " + notHere)
                              + "; rank 0 serves the rendezvous on that address, so start rank 0 on the host "
                                "MASTER_ADDR names");
        if (::pipe2(m_wake, O_CLOEXEC) != 0)
            throw CommError("rendezvous: pipe: " + errnoText(errno));
        m_acceptThread = std::thread([this] { acceptLoop(); });
    }

    ~RendezvousServer() { close(); }

    void close()
    {
        {
            std::lock_guard lock(m_mutex);
            if (m_closed)
                return;
            m_closed = true;
            for (int fd : m_connections)
                ::shutdown(fd, SHUT_RDWR);
        }
        m_changed.notify_all();
        const char wake = 1;
        [[maybe_unused]] const auto w = ::write(m_wake[1], &wake, 1);
        m_acceptThread.join();
        for (int fd : m_listeners)
            ::close(fd);
        m_listeners.clear();
        for (auto& t : m_threads)
            t.join();
        ::close(m_wake[0]);
        ::close(m_wake[1]);
    }

private:
    void acceptLoop()
    {
        std::vector<pollfd> fds;
        for (int fd : m_listeners)
            fds.push_back({ fd, POLLIN, 0 });
        fds.push_back({ m_wake[0], POLLIN, 0 });
        for (;;) {
            if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR)
                return;
            if (fds.back().revents)
                return;
            for (std::size_t i = 0; i + 1 < fds.size(); ++i) {
                if (!(fds[i].revents & POLLIN))
                    continue;
                const int conn = ::accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
                if (conn < 0)
                    continue;
                std::lock_guard lock(m_mutex);
                if (m_closed || m_connections.size() >= m_maxConnections) {
                    ::close(conn);
                    continue;
                }
                const int one = 1;
                ::setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                m_connections.push_back(conn);
                m_threads.emplace_back([this, conn] { serve(conn); });
            }
        }
    }

    void serve(int fd)
    {
        for (;;) {
            std::uint8_t op = 0;
            std::uint32_t waitMs = 0;
            std::vector<Bytes> args;
            if (!readAll(fd, &op, 1) || !readAll(fd, &waitMs, 4) || !readFields(fd, args, std::nullopt))
                break;
            waitMs = ntohl(waitMs);
            std::vector<Bytes> out;
            const Status status = handle(op, milliseconds(waitMs), args, out);
            const Bytes reply = frame(status, std::nullopt, out);
            if (!writeAll(fd, reply.data(), reply.size()) || status == StatusRefused)
                break;
        }
        std::lock_guard lock(m_mutex);
        m_connections.erase(std::remove(m_connections.begin(), m_connections.end(), fd), m_connections.end());
        ::close(fd);
    }

    bool fits(const std::string& key, const Bytes& value) const
    {
        const auto old = m_data.find(key);
        const std::size_t before = old == m_data.end() ? 0 : old->first.size() + old->second.size();
        return key.size() <= kMaxKeyBytes && m_bytes - before + key.size() + value.size() <= kMaxStoredBytes;
    }

    void put(const std::string& key, Bytes value)
    {
        if (const auto old = m_data.find(key); old != m_data.end())
            m_bytes -= old->first.size() + old->second.size();
        m_bytes += key.size() + value.size();
        m_data[key] = std::move(value);
    }

    Status handle(std::uint8_t op, milliseconds wait, const std::vector<Bytes>& args, std::vector<Bytes>& out)
    {
        std::unique_lock lock(m_mutex);
        const auto present = [&](const std::vector<Bytes>& keys) {
            return std::all_of(keys.begin(), keys.end(), [&](const Bytes& k) { return m_data.count(text(k)) > 0; });
        };
        switch (op) {
        case OpSet:
            if (args.size() != 2 || !fits(text(args[0]), args[1]))
                return StatusRefused;
            put(text(args[0]), args[1]);
            m_changed.notify_all();
            return StatusOk;
        case OpGet:
        case OpWait: {
            if (args.empty() || (op == OpGet && args.size() != 1))
                return StatusRefused;
            if (!m_changed.wait_for(lock, wait, [&] { return m_closed || present(args); }) || m_closed)
                return StatusTimeout;
            if (op == OpGet)
                out.push_back(m_data[text(args[0])]);
            return StatusOk;
        }
        case OpAdd: {
            const auto delta = args.size() == 2 ? decodeI64(args[1]) : std::nullopt;
            if (!delta)
                return StatusRefused;
            const std::string key = text(args[0]);
            std::int64_t value = 0;
            if (const auto it = m_data.find(key); it != m_data.end()) {
                const std::string held = text(it->second);
                const auto [end, ec] = std::from_chars(held.data(), held.data() + held.size(), value);
                if (ec != std::errc() || end != held.data() + held.size())
                    return StatusRefused;
            }
            if (__builtin_add_overflow(value, *delta, &value))
                return StatusRefused;
            const Bytes stored = bytes(std::to_string(value));
            if (!fits(key, stored))
                return StatusRefused;
            put(key, stored);
            m_changed.notify_all();
            out.push_back(encodeI64(value));
            return StatusOk;
        }
        case OpCompareSet: {
            if (args.size() != 3)
                return StatusRefused;
            const std::string key = text(args[0]);
            const auto it = m_data.find(key);
            if ((it == m_data.end() && args[1].empty()) || (it != m_data.end() && it->second == args[1])) {
                if (!fits(key, args[2]))
                    return StatusRefused;
                put(key, args[2]);
                m_changed.notify_all();
            }
            out.push_back(m_data.count(key) ? m_data[key] : args[1]);
            return StatusOk;
        }
        case OpCheck:
            out.push_back(Bytes { static_cast<std::uint8_t>(present(args) ? 1 : 0) });
            return StatusOk;
        case OpDelete: {
            if (args.size() != 1)
                return StatusRefused;
            const auto it = m_data.find(text(args[0]));
            const bool had = it != m_data.end();
            if (had) {
                m_bytes -= it->first.size() + it->second.size();
                m_data.erase(it);
            }
            out.push_back(Bytes { static_cast<std::uint8_t>(had ? 1 : 0) });
            return StatusOk;
        }
        case OpNumKeys:
            out.push_back(encodeI64(static_cast<std::int64_t>(m_data.size())));
            return StatusOk;
        default:
            return StatusRefused;
        }
    }

    std::size_t m_maxConnections;
    std::vector<int> m_listeners;
    int m_wake[2] = { -1, -1 };
    std::thread m_acceptThread;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::map<std::string, Bytes> m_data;
    std::size_t m_bytes = 0;
    bool m_closed = false;
    std::vector<int> m_connections;
    std::vector<std::thread> m_threads;
};

// ---- client ----

struct RendezvousClient::Connection {
    int fd = -1;
    std::mutex mutex;
    ~Connection()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

struct RendezvousClient::Reply {
    Status status = StatusRefused;
    std::vector<Bytes> fields;
};

RendezvousClient::RendezvousClient(const std::string& masterAddr, int masterPort, milliseconds timeout)
    : m_addr(masterAddr)
    , m_port(masterPort)
    , m_timeout(timeout)
    , m_conn(std::make_unique<Connection>())
{
    // Rank 0 may not be listening yet: retry every address until the timeout, as c10d's store does.
    const auto deadline = Clock::now() + timeout;
    std::string last = "no address";
    for (;;) {
        addrinfo hints {};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_NUMERICSERV;
        AddrInfoList found;
        const std::string service = std::to_string(masterPort);
        if (const int rc = ::getaddrinfo(masterAddr.c_str(), service.c_str(), &hints, &found.head); rc != 0)
            last = ::gai_strerror(rc);
        for (const addrinfo* ai = found.head; ai; ai = ai->ai_next) {
            const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
            if (fd < 0)
                continue;
            if (::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
                const int one = 1;
                ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                m_conn->fd = fd;
                return;
            }
            last = numericHost(ai->ai_addr, ai->ai_addrlen) + ": " + errnoText(errno);
            ::close(fd);
        }
        if (Clock::now() >= deadline)
            throw CommError("rendezvous: could not connect to " + masterAddr + ":" + service + " within "
                            + std::to_string(timeout.count() / 1000) + " s (" + last + ")");
        std::this_thread::sleep_for(milliseconds(100));
    }
}

RendezvousClient::~RendezvousClient() = default;

RendezvousClient::Reply RendezvousClient::call(std::uint8_t op, const std::vector<Bytes>& args, milliseconds wait)
{
    // c10d's kNoTimeout (0) and anything absurd become this client's own timeout.
    if ((op == OpGet || op == OpWait) && (wait <= milliseconds(0) || wait > std::chrono::hours(24)))
        wait = m_timeout;
    std::lock_guard lock(m_conn->mutex);
    const auto where = m_addr + ":" + std::to_string(m_port);
    if (m_conn->fd < 0)
        throw CommError("rendezvous with " + where + ": connection already closed");
    const Bytes request = frame(op, static_cast<std::uint32_t>(wait.count()), args);
    if (!writeAll(m_conn->fd, request.data(), request.size()))
        throw CommError("rendezvous with " + where + ": connection lost (" + errnoText(errno) + ")");
    // The server answers a wait when it ends; the whole timeout again covers a round trip on a host
    // too busy to schedule rank 0's server promptly.
    const auto deadline = Clock::now() + wait + m_timeout;
    Reply reply;
    std::uint8_t status = 0;
    if (!readAll(m_conn->fd, &status, 1, deadline) || !readFields(m_conn->fd, reply.fields, deadline))
        throw CommError("rendezvous with " + where + ": no answer within "
                        + std::to_string((wait + m_timeout).count() / 1000)
                        + " s (rank 0 gone, or the connection closed)");
    reply.status = static_cast<Status>(status);
    if (reply.status == StatusRefused)
        throw CommError("rendezvous with " + where + ": request refused (a key or value over the bounds)");
    return reply;
}

void RendezvousClient::set(const std::string& key, const Bytes& value)
{
    call(OpSet, { bytes(key), value }, milliseconds(0));
}

Bytes RendezvousClient::get(const std::string& key)
{
    return get(key, m_timeout);
}

Bytes RendezvousClient::get(const std::string& key, milliseconds timeout)
{
    auto reply = call(OpGet, { bytes(key) }, timeout);
    if (reply.status == StatusTimeout || reply.fields.size() != 1)
        throw CommError("rendezvous: key '" + key + "' did not appear within " + std::to_string(timeout.count())
                        + " ms (a peer rank did not arrive)");
    return std::move(reply.fields[0]);
}

std::int64_t RendezvousClient::add(const std::string& key, std::int64_t delta)
{
    const auto reply = call(OpAdd, { bytes(key), encodeI64(delta) }, milliseconds(0));
    const auto v = reply.fields.size() == 1 ? decodeI64(reply.fields[0]) : std::nullopt;
    if (!v)
        throw CommError("rendezvous: malformed answer to add '" + key + "'");
    return *v;
}

Bytes RendezvousClient::compareSet(const std::string& key, const Bytes& expected, const Bytes& desired)
{
    auto reply = call(OpCompareSet, { bytes(key), expected, desired }, milliseconds(0));
    return reply.fields.empty() ? Bytes {} : std::move(reply.fields[0]);
}

bool RendezvousClient::check(const std::vector<std::string>& keys)
{
    std::vector<Bytes> args;
    for (const auto& k : keys)
        args.push_back(bytes(k));
    const auto reply = call(OpCheck, args, milliseconds(0));
    return reply.fields.size() == 1 && reply.fields[0] == Bytes { 1 };
}

bool RendezvousClient::deleteKey(const std::string& key)
{
    const auto reply = call(OpDelete, { bytes(key) }, milliseconds(0));
    return reply.fields.size() == 1 && reply.fields[0] == Bytes { 1 };
}

std::int64_t RendezvousClient::numKeys()
{
    const auto reply = call(OpNumKeys, {}, milliseconds(0));
    return reply.fields.size() == 1 ? decodeI64(reply.fields[0]).value_or(0) : 0;
}

void RendezvousClient::wait(const std::vector<std::string>& keys, milliseconds timeout)
{
    std::vector<Bytes> args;
    for (const auto& k : keys)
        args.push_back(bytes(k));
    if (call(OpWait, args, timeout).status == StatusTimeout)
        throw CommError("rendezvous: waited " + std::to_string(timeout.count()) + " ms for "
                        + std::to_string(keys.size()) + " key(s) (first '" + (keys.empty() ? "" : keys[0])
                        + "'); a peer rank did not arrive");
}

void RendezvousClient::close()
{
    std::lock_guard lock(m_conn->mutex);
    if (m_conn->fd >= 0)
        ::close(m_conn->fd);
    m_conn->fd = -1;
}

// ---- session ----

RendezvousSession::RendezvousSession(int rank, int world, const std::string& masterAddr, int masterPort,
                                     milliseconds timeout)
    : m_rank(rank)
    , m_world(world)
{
    if (rank == 0)
        m_server = std::make_unique<RendezvousServer>(masterAddr, masterPort, static_cast<std::size_t>(world) * 2 + 8);
    m_client = std::make_shared<RendezvousClient>(masterAddr, masterPort, timeout);
}

RendezvousSession::~RendezvousSession() = default;

void RendezvousSession::finish()
{
    if (!m_client)
        return;
    try {
        m_client->set("shardwise/connected/" + std::to_string(m_rank), Bytes { 1 });
    } catch (const CommError&) {
        // Rank 0 closes the exchange as soon as it has seen every rank's key, which may be before the
        // answer to this rank's set was written: the connection then closes under it. Everything this
        // rank needed from the exchange it has (its pairs are connected, or it holds the NCCL id); had
        // the key not arrived, rank 0 fails the run when its wait for it times out.
        if (m_server)
            throw;
    }
    if (m_server) {
        std::vector<std::string> keys;
        for (int r = 0; r < m_world; ++r)
            keys.push_back("shardwise/connected/" + std::to_string(r));
        m_client->wait(keys, m_client->timeout());
        m_server->close();
    }
    m_client->close();
    m_client.reset();
}

std::string localAddressToward(const std::string& masterAddr, int masterPort)
{
    addrinfo hints {};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_NUMERICSERV;
    AddrInfoList found;
    if (::getaddrinfo(masterAddr.c_str(), std::to_string(masterPort).c_str(), &hints, &found.head) != 0)
        return {};
    for (const addrinfo* ai = found.head; ai; ai = ai->ai_next) {
        const int fd = ::socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        sockaddr_storage self {};
        socklen_t len = sizeof self;
        // A connected UDP socket sends nothing; the kernel only picks the route and source address.
        const bool ok = ::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0
            && ::getsockname(fd, reinterpret_cast<sockaddr*>(&self), &len) == 0;
        ::close(fd);
        if (ok)
            return numericHost(reinterpret_cast<sockaddr*>(&self), len);
    }
    return {};
}

std::string interfaceHolding(const std::string& address)
{
    ifaddrs* list = nullptr;
    if (address.empty() || ::getifaddrs(&list) != 0)
        return {};
    std::string name;
    for (const ifaddrs* i = list; i && name.empty(); i = i->ifa_next) {
        if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6))
            continue;
        const socklen_t len = i->ifa_addr->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
        if (numericHost(i->ifa_addr, len) == address)
            name = i->ifa_name;
    }
    ::freeifaddrs(list);
    return name;
}

} // namespace shardwise::runner
