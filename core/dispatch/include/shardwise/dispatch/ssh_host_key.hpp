#pragma once
// Host key trust, OpenSSH style: a key is trusted when ~/.ssh/known_hosts or the app's own
// known_hosts records it for "host" (port 22) or "[host]:port" (how the files are read and judged:
// known_hosts.hpp). The app never writes the user's file; accepting a new key appends one line to
// its own file.

#include "shardwise/dispatch/ssh_error.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace shardwise::dispatch {

struct KnownHostsFiles {
    std::filesystem::path user; // usually ~/.ssh/known_hosts; read only
    std::filesystem::path app;  // the app's own; read, and appended to by acceptHostKey
    // ~/.ssh/known_hosts and $XDG_CONFIG_HOME/shardwise/known_hosts (~/.config/... without it).
    static KnownHostsFiles standard();
};

// "SHA256:<unpadded base64>" of a raw public key blob.
std::string sha256Fingerprint(std::string_view keyBlob);

std::string base64Encode(std::string_view bytes, bool pad = true);
std::string base64Decode(std::string_view text); // throws std::invalid_argument on a bad character

// The name known_hosts uses for host:port ("host" for 22, "[host]:port" otherwise).
std::string knownHostsName(const std::string& host, int port);

// Appends `key` for host:port to `appKnownHosts` (created with its folder, mode 0600). Only call this
// after the user explicitly accepted the fingerprint.
void acceptHostKey(const std::string& host, int port, const HostKey& key, const std::filesystem::path& appKnownHosts);
// The same for the host that presented `key` (key.host and key.port, as a refusal carries them: for a
// node reached through a jump host or an ssh_config alias this is the resolved name, not the alias).
void acceptHostKey(const HostKey& key, const std::filesystem::path& appKnownHosts);

} // namespace shardwise::dispatch
