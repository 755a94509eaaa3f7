#pragma once
// One authenticated SSH connection to a node, through libssh2 with a non-blocking socket. The host
// key is checked against the known_hosts files right after key exchange and before any
// authentication request is sent, so an untrusted server never sees which user or key we hold.
// Remote commands run on their own channel; the session sends keepalives and declares the peer
// stalled when nothing arrives from it for keepaliveInterval * keepaliveCountMax.

#include "shardwise/dispatch/ssh_error.hpp"
#include "shardwise/dispatch/ssh_host_key.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise::dispatch {

struct SshEndpoint {
    std::string host;
    int port = 22;
    std::string user;
};

enum class SshAuthMethod { Agent, KeyFile };

// Asked only when the key file is encrypted; returns nullopt when the user declines. The answer is
// used once and wiped; it is never stored or logged.
using PassphrasePrompt = std::function<std::optional<std::string>(const std::filesystem::path& keyFile)>;

struct SshCredentials {
    SshAuthMethod method = SshAuthMethod::Agent;
    std::filesystem::path keyFile;     // KeyFile: the private key (OpenSSH or PEM format)
    std::filesystem::path agentSocket; // Agent: empty = $SSH_AUTH_SOCK
    PassphrasePrompt askPassphrase;
};

struct SshTimeouts {
    std::chrono::milliseconds connect{10000};           // TCP connect + key exchange + authentication
    std::chrono::milliseconds keepaliveInterval{10000}; // a keepalive@openssh.com request when idle this long
    int keepaliveCountMax = 3;                           // unanswered intervals before the peer counts as stalled
    std::chrono::milliseconds peerSilenceLimit() const { return keepaliveInterval * keepaliveCountMax; }
};

struct SshOptions {
    SshTimeouts timeouts;
    KnownHostsFiles knownHosts = KnownHostsFiles::standard();
};

// How a remote command ended. libssh2 1.10 reports exit status 0 both for "exit-status 0" and for
// "no exit-status at all", so Exited(0) is only reported when the channel also delivered EOF and a
// clean close; anything else is Lost, never success.
enum class CommandEnding { Exited, Signalled, Lost, TimedOut, Cancelled };

struct CommandOutcome {
    CommandEnding ending = CommandEnding::Lost;
    int exitCode = -1;      // Exited only
    std::string signal;     // Signalled only: the name without "SIG", e.g. "KILL"
    std::string lostReason; // Lost only
    std::string stdoutData; // kept unless CommandIo::keepOutput is false
    std::string stderrData;
    bool succeeded() const { return ending == CommandEnding::Exited && exitCode == 0; }
    std::string describe() const; // "exit 2", "killed by SIGKILL", "lost: ..."
};

struct CommandIo {
    std::string stdinData;                         // written, then EOF
    std::function<void(std::string_view)> onStdout; // chunks as they arrive
    std::function<void(std::string_view)> onStderr;
    std::chrono::milliseconds timeout{0}; // whole-command limit; 0 = none (peer stalls are still caught)
    bool keepOutput = true;
};

class SshSession {
public:
    // Connects, checks the host key (throws SshError HostKeyUnknown / HostKeyChanged carrying the
    // presented key), then authenticates. `cancel` is polled while waiting.
    static std::unique_ptr<SshSession> open(const SshEndpoint& endpoint, const SshCredentials& credentials,
                                            const SshOptions& options = {},
                                            const std::atomic<bool>* cancel = nullptr);
    // Connects and performs key exchange only, to show the user the key before accepting it.
    static HostKey presentedHostKey(const SshEndpoint& endpoint, const SshOptions& options = {});

    ~SshSession();
    SshSession(const SshSession&) = delete;
    SshSession& operator=(const SshSession&) = delete;

    // Runs `commandLine` through the remote user's shell. Transport failures (stalled peer, dropped
    // connection) throw SshError and leave the session unusable.
    CommandOutcome run(const std::string& commandLine, const CommandIo& io = {},
                       const std::atomic<bool>* cancel = nullptr);
    // Runs argv with every word shell-quoted.
    CommandOutcome run(const std::vector<std::string>& argv, const CommandIo& io = {},
                       const std::atomic<bool>* cancel = nullptr);

    // Writes `bytes` to remotePath (via `cat`, created with mode 0600 by the remote umask).
    void writeFile(const std::string& remotePath, std::string_view bytes, const std::atomic<bool>* cancel = nullptr);

    const SshEndpoint& endpoint() const;
    const HostKey& hostKey() const;
    bool usable() const;

    struct State;

private:
    explicit SshSession(std::unique_ptr<State> state);
    std::unique_ptr<State> m_state;
};

} // namespace shardwise::dispatch
