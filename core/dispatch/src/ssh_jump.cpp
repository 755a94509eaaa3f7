#include "ssh_jump.hpp"

#include <cerrno>
#include <cstring>

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace shardwise::dispatch {

namespace {
constexpr std::size_t kBufferLimit = 256 * 1024; // per direction, before the pump stops reading
} // namespace

std::unique_ptr<JumpTunnel> JumpTunnel::open(std::unique_ptr<SshSession::State> carrier, const std::string& host,
                                             int port, Clock::time_point deadline, const std::atomic<bool>* cancel)
{
    std::unique_ptr<JumpTunnel> t(new JumpTunnel());
    t->m_carrier = std::move(carrier);
    LIBSSH2_SESSION* s = t->m_carrier->session;
    // The originator address is informational for the jump host (it logs it); OpenSSH's -W sends
    // 127.0.0.1 too.
    while (!(t->m_channel = libssh2_channel_direct_tcpip_ex(s, host.c_str(), port, "127.0.0.1", 22))) {
        const int rc = libssh2_session_last_errno(s);
        if (rc != LIBSSH2_ERROR_EAGAIN) {
            if (rc == LIBSSH2_ERROR_CHANNEL_FAILURE)
                throw SshError(SshFailure::Connect,
                               "jump host " + t->via() + " could not open a connection to " + host + ":"
                                   + std::to_string(port) + " (" + t->m_carrier->lastError() + ")");
            t->m_carrier->fail(rc, "ProxyJump forward to " + host + ":" + std::to_string(port));
        }
        t->m_carrier->waitSocket(deadline, Clock::now(), cancel);
    }
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) != 0)
        throw SshError(SshFailure::Protocol,
                       std::string("socketpair for the ProxyJump forward: ") + std::strerror(errno));
    t->m_pumpEnd = pair[0];
    t->m_sessionEnd = pair[1];
    t->m_stopEvent = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (t->m_stopEvent < 0)
        throw SshError(SshFailure::Protocol, std::string("eventfd for the ProxyJump forward: ") + std::strerror(errno));
    t->m_thread = std::thread([raw = t.get()] { raw->pump(); });
    return t;
}

JumpTunnel::~JumpTunnel()
{
    if (m_thread.joinable()) {
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto written = ::write(m_stopEvent, &one, sizeof one);
        m_thread.join();
    }
    if (m_channel)
        libssh2_channel_free(m_channel); // non-blocking: best effort, the session is freed next anyway
    m_carrier.reset();
    for (int fd : { m_pumpEnd, m_sessionEnd, m_stopEvent })
        if (fd >= 0)
            ::close(fd);
}

int JumpTunnel::takeSocket()
{
    const int fd = m_sessionEnd;
    m_sessionEnd = -1;
    return fd;
}

std::string JumpTunnel::problem() const
{
    std::lock_guard lock(m_mutex);
    return m_problem;
}

std::string JumpTunnel::via() const
{
    const auto& ep = m_carrier->endpoint;
    return ep.user + "@" + ep.host + ":" + std::to_string(ep.port);
}

void JumpTunnel::setProblem(const std::string& what)
{
    std::lock_guard lock(m_mutex);
    if (m_problem.empty())
        m_problem = what;
}

void JumpTunnel::pump()
{
    SshSession::State& carrier = *m_carrier;
    LIBSSH2_SESSION* s = carrier.session;
    std::string up;   // from the next session, to the channel
    std::string down; // from the channel, to the next session
    bool localEof = false;
    bool eofSent = false;
    bool channelEof = false;
    char buffer[32768];
    // Any way out of the loop ends the forward; the next session then sees its socket close.
    auto finish = [&](const std::string& why) {
        if (!why.empty())
            setProblem(why);
        ::shutdown(m_pumpEnd, SHUT_RDWR);
    };
    while (true) {
        if (!localEof && up.size() < kBufferLimit) {
            const ssize_t n = ::recv(m_pumpEnd, buffer, sizeof buffer, 0);
            if (n > 0)
                up.append(buffer, static_cast<std::size_t>(n));
            else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
                localEof = true;
        }
        while (!up.empty()) {
            const ssize_t w = libssh2_channel_write(m_channel, up.data(), up.size());
            if (w == LIBSSH2_ERROR_EAGAIN)
                break;
            if (w < 0)
                return finish("the forward through jump host " + via() + " failed: " + carrier.lastError());
            up.erase(0, static_cast<std::size_t>(w));
        }
        if (localEof && up.empty() && !eofSent) {
            const int rc = libssh2_channel_send_eof(m_channel);
            if (rc == 0)
                eofSent = true;
            else if (rc != LIBSSH2_ERROR_EAGAIN)
                return finish({});
        }
        while (!channelEof && down.size() < kBufferLimit) {
            const ssize_t r = libssh2_channel_read(m_channel, buffer, sizeof buffer);
            if (r > 0) {
                down.append(buffer, static_cast<std::size_t>(r));
            } else if (r == 0) {
                channelEof = libssh2_channel_eof(m_channel) != 0;
                break;
            } else if (r == LIBSSH2_ERROR_EAGAIN) {
                break;
            } else {
                return finish("the forward through jump host " + via() + " failed: " + carrier.lastError());
            }
        }
        while (!down.empty()) {
            const ssize_t w = ::send(m_pumpEnd, down.data(), down.size(), MSG_NOSIGNAL);
            if (w > 0)
                down.erase(0, static_cast<std::size_t>(w));
            else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                break;
            else
                return finish({}); // the next session closed its end
        }
        if (channelEof && down.empty())
            return finish("jump host " + via() + " closed the forwarded connection");
        if (localEof && eofSent && up.empty())
            return finish({});
        if (carrier.keepaliveOn) {
            int next = 0;
            const int rc = libssh2_keepalive_send(s, &next);
            if (rc != 0 && rc != LIBSSH2_ERROR_EAGAIN)
                return finish("jump host " + via() + " dropped the connection: " + carrier.lastError());
            const auto silent = Clock::now() - carrier.lastReceived;
            if (silent > carrier.timeouts.peerSilenceLimit())
                return finish("jump host " + via() + " stopped answering (nothing received for "
                              + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(silent).count())
                              + " ms despite keepalives)");
        }
        pollfd fds[3] = { { carrier.socket, POLLIN, 0 }, { m_pumpEnd, 0, 0 }, { m_stopEvent, POLLIN, 0 } };
        if (libssh2_session_block_directions(s) & LIBSSH2_SESSION_BLOCK_OUTBOUND)
            fds[0].events |= POLLOUT;
        if (!localEof && up.size() < kBufferLimit)
            fds[1].events |= POLLIN;
        if (!down.empty())
            fds[1].events |= POLLOUT;
        // The timeout only paces keepalives; data wakes the poll at once.
        ::poll(fds, 3, 500);
        if (fds[2].revents & POLLIN)
            return; // the destructor: no problem to report
        if (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL) && !(fds[0].revents & POLLIN))
            return finish("the connection to jump host " + via() + " dropped");
    }
}

} // namespace shardwise::dispatch
