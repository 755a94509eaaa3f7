#pragma once
// One authenticated SSH connection to a node, through libssh2 with a non-blocking socket. The node's
// host name may be an alias of the user's ssh client configuration (ssh_config.hpp): its HostName,
// Port, User, IdentityFile, IdentitiesOnly, ServerAliveInterval and ProxyJump apply, a jump host's
// own settings too. Every host key on the way (jump hosts and the node) is checked against the
// known_hosts files right after key exchange and before any authentication request is sent, so an
// untrusted server never sees which user or key we hold.
// Remote commands run on their own channel; the session sends keepalives and declares the peer
// stalled when nothing arrives from it for keepaliveInterval * keepaliveCountMax.

#include "shardwise/dispatch/ssh_config.hpp"
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
    std::string host; // a name, an address, or an alias of the ssh client configuration
    int port = 22;    // 22 lets the configuration's Port decide; any other port wins over it
    std::string user; // wins over the configuration's User; empty: User, else the local login name
};

enum class SshAuthMethod { Agent, KeyFile };

// Asked only when the key file is encrypted; returns nullopt when the user declines. The answer is
// used once and wiped; it is never stored or logged.
using PassphrasePrompt = std::function<std::optional<std::string>(const std::filesystem::path& keyFile)>;

// Tried in this order until one is accepted: the key file (KeyFile), the agent's keys (Agent; with
// IdentitiesOnly only those matching an IdentityFile), then the configuration's IdentityFiles that
// exist. Jump hosts get the agent (when one is set) and their own IdentityFiles.
struct SshCredentials {
    SshAuthMethod method = SshAuthMethod::Agent;
    std::filesystem::path keyFile;     // KeyFile: the private key (OpenSSH or PEM format)
    std::filesystem::path agentSocket; // Agent: empty = $SSH_AUTH_SOCK
    PassphrasePrompt askPassphrase;
};

struct SshTimeouts {
    std::chrono::milliseconds connect { 10000 };           // TCP connect + key exchange + authentication
    std::chrono::milliseconds keepaliveInterval { 10000 }; // a keepalive@openssh.com request when idle this long
    int keepaliveCountMax = 3;                             // unanswered intervals before the peer counts as stalled
    std::chrono::milliseconds peerSilenceLimit() const { return keepaliveInterval * keepaliveCountMax; }
};

struct SshOptions {
    SshTimeouts timeouts; // ServerAliveInterval / ServerAliveCountMax of the configuration win per host
    KnownHostsFiles knownHosts = KnownHostsFiles::standard();
    // The ssh client configuration read for host aliases (empty: none). A missing file reads as empty.
    std::filesystem::path sshConfig = standardSshConfigPath();
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
    std::string stdinData;                          // written, then EOF
    std::function<void(std::string_view)> onStdout; // chunks as they arrive
    std::function<void(std::string_view)> onStderr;
    std::chrono::milliseconds timeout { 0 }; // whole-command limit; 0 = none (peer stalls are still caught)
    bool keepOutput = true;
};

class SshSession {
public:
    // Connects (through the jump hosts the configuration names), checks each host key (throws SshError
    // HostKeyUnknown / HostKeyChanged / HostKeyRevoked carrying the presented key and which host
    // presented it), then authenticates. `cancel` is polled while waiting.
    static std::unique_ptr<SshSession> open(const SshEndpoint& endpoint, const SshCredentials& credentials,
                                            const SshOptions& options = {}, const std::atomic<bool>* cancel = nullptr);
    // Connects and performs key exchange with the node only (jump hosts are logged in to, and must
    // be trusted), to show the user the key before accepting it.
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

    // Where the session went: the resolved host name, port and user (not the alias).
    const SshEndpoint& endpoint() const;
    const HostKey& hostKey() const;
    bool usable() const;

    struct State;

private:
    explicit SshSession(std::unique_ptr<State> state);
    std::unique_ptr<State> m_state;
};

} // namespace shardwise::dispatch
