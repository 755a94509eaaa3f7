#pragma once
// Internal: one ProxyJump hop's forward. A direct-tcpip channel on an authenticated session to the
// jump host carries the next hop's SSH connection. libssh2 drives a session over a socket, so the
// channel is bridged to one end of a socketpair by a pump thread; the next session gets the other
// end. The pump thread is the only user of the jump host's session from then on (libssh2 sessions
// are not thread-safe), and it sends that session's keepalives.

#include "ssh_session_state.hpp"

#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace shardwise::dispatch {

class JumpTunnel {
public:
    // Opens the channel to host:port through `carrier` (waiting at most until `deadline`), then
    // starts the pump. Throws SshError naming the jump host when it refuses the forward.
    static std::unique_ptr<JumpTunnel> open(std::unique_ptr<SshSession::State> carrier, const std::string& host,
                                            int port, Clock::time_point deadline, const std::atomic<bool>* cancel);
    ~JumpTunnel(); // stops the pump, then closes the channel and the jump host's session
    JumpTunnel(const JumpTunnel&) = delete;
    JumpTunnel& operator=(const JumpTunnel&) = delete;

    // The socket the next session runs over (non-blocking). Owned by the caller after this call.
    int takeSocket();
    // Why the forward ended early (empty while it works): e.g. the jump host stopped answering.
    std::string problem() const;
    // "user@host:port" of the jump host, for messages.
    std::string via() const;

private:
    JumpTunnel() = default;
    void pump();
    void setProblem(const std::string& what);

    std::unique_ptr<SshSession::State> m_carrier;
    LIBSSH2_CHANNEL* m_channel = nullptr;
    int m_pumpEnd = -1;    // the pump's end of the socketpair
    int m_sessionEnd = -1; // the next session's end, until taken
    int m_stopEvent = -1;  // eventfd: the destructor wakes the pump with it
    std::thread m_thread;
    mutable std::mutex m_mutex;
    std::string m_problem;
};

} // namespace shardwise::dispatch
