#pragma once
// Failures of an SSH node, by what the user can do about them: accept a new host key, investigate a
// changed one, fix credentials, or retry a network problem.

#include <optional>
#include <stdexcept>
#include <string>

namespace shardwise::dispatch {

enum class SshFailure {
    Resolve,        // the host name did not resolve
    Connect,        // TCP connect refused or unreachable
    Timeout,        // connect or command exceeded its time limit
    PeerStalled,    // no bytes from the peer within the keepalive window
    Disconnected,   // the connection dropped
    HostKeyUnknown, // the host's key is in no known_hosts file: the user must accept it
    HostKeyChanged, // the host presents a key (of any type) that none of its recorded keys equals: always refused
    HostKeyRevoked, // the host presents a key marked @revoked in a known_hosts file: always refused
    AuthFailed,     // every offered key was rejected, or the key file could not be used
    Protocol,       // the SSH layer reported an error
    Config,         // the ssh client configuration (~/.ssh/config) is malformed: the message names FILE:LINE
    Cancelled,
};

// The host key as the server presented it during key exchange.
struct HostKey {
    std::string type;        // OpenSSH name, e.g. "ssh-ed25519"
    std::string base64;      // the public key blob as written in known_hosts
    std::string fingerprint; // "SHA256:" + unpadded base64 of the blob's SHA-256, as ssh-keygen -l prints it
    // Who presented it, as known_hosts names it: the resolved host name and port of the node, or of
    // a jump host on the way to it (empty / 0 when not known).
    std::string host;
    int port = 0;
    bool jumpHost = false; // presented by a ProxyJump host on the way, not by the node itself
};

class SshError : public std::runtime_error {
public:
    SshError(SshFailure failure, const std::string& message, std::optional<HostKey> hostKey = std::nullopt)
        : std::runtime_error(message)
        , m_failure(failure)
        , m_hostKey(std::move(hostKey))
    {
    }
    SshFailure failure() const { return m_failure; }
    // Set for HostKeyUnknown, HostKeyChanged and HostKeyRevoked: what the server presented, and which.
    const std::optional<HostKey>& hostKey() const { return m_hostKey; }

private:
    SshFailure m_failure;
    std::optional<HostKey> m_hostKey;
};

} // namespace shardwise::dispatch
