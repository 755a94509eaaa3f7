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
    HostKeyChanged, // the host presents a key different from the recorded one: always refused
    AuthFailed,     // every offered key was rejected, or the key file could not be used
    Protocol,       // the SSH layer reported an error
    Cancelled,
};

// The host key as the server presented it during key exchange.
struct HostKey {
    std::string type;        // OpenSSH name, e.g. "ssh-ed25519"
    std::string base64;      // the public key blob as written in known_hosts
    std::string fingerprint; // "SHA256:" + unpadded base64 of the blob's SHA-256, as ssh-keygen -l prints it
};

class SshError : public std::runtime_error {
public:
    SshError(SshFailure failure, const std::string& message, std::optional<HostKey> hostKey = std::nullopt)
        : std::runtime_error(message), m_failure(failure), m_hostKey(std::move(hostKey))
    {
    }
    SshFailure failure() const { return m_failure; }
    // Set for HostKeyUnknown and HostKeyChanged: what the server presented.
    const std::optional<HostKey>& hostKey() const { return m_hostKey; }

private:
    SshFailure m_failure;
    std::optional<HostKey> m_hostKey;
};

} // namespace shardwise::dispatch
