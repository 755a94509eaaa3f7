#pragma once
// Internal: what an SshSession holds, shared by the connection code (ssh_session.cpp) and the
// command channel code (ssh_channel.cpp).

#include "shardwise/dispatch/known_hosts.hpp"
#include "shardwise/dispatch/ssh_session.hpp"

#include <libssh2.h>

#include <atomic>
#include <chrono>
#include <memory>

namespace shardwise::dispatch {

using Clock = std::chrono::steady_clock;

class JumpTunnel;

struct SshSession::State {
    SshEndpoint endpoint;
    SshTimeouts timeouts;
    int socket = -1;
    LIBSSH2_SESSION* session = nullptr;
    HostKey hostKey;
    KnownHostRecords knownHost; // what the known_hosts files record for this host
    // The server's first bytes (banner and KEXINIT), kept until key exchange ends so a failed one
    // can be explained by the host key algorithms the server offered.
    bool capturingKexinit = true;
    std::string receivedBeforeKex;
    bool serverOffersRsa = false; // its KEXINIT listed an RSA host key algorithm
    // The ProxyJump forward this session's socket belongs to; outlives the session (see ~State).
    std::unique_ptr<JumpTunnel> tunnel;
    bool keepaliveOn = false;
    bool broken = false;
    // Updated by the receive callback whenever bytes arrive from the peer: keepalive replies count,
    // so a quiet but healthy command never looks stalled.
    Clock::time_point lastReceived = Clock::now();

    ~State();

    std::string lastError() const;
    // Waits until the socket is ready in the direction libssh2 is blocked on, at most until
    // `deadline` (Clock::time_point::max() = none). Sends keepalives, throws SshError on cancel,
    // deadline (Timeout), or silence of the peer since max(lastReceived, since) (PeerStalled).
    void waitSocket(Clock::time_point deadline, Clock::time_point since, const std::atomic<bool>* cancel);
    // Throws the SshError matching a libssh2 error code (marks the session broken for transport errors).
    [[noreturn]] void fail(int code, const std::string& what);
};

} // namespace shardwise::dispatch
