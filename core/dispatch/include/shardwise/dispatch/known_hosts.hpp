#pragma once
// OpenSSH known_hosts files, read by Shardwise itself rather than by libssh2 1.10, whose reader calls
// a key of another type "not found" (so a server switching from ed25519 to ECDSA looked new), and
// which knows neither @revoked nor @cert-authority lines. Understood here: comma-separated host
// patterns with * and ? and !negation, hashed names (|1|salt|hash, HMAC-SHA1 as OpenSSH's
// hostfile.c writes them), @revoked and @cert-authority markers. Lines that cannot be read are
// skipped, as OpenSSH does.

#include "shardwise/dispatch/ssh_host_key.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise::dispatch {

struct KnownHostEntry {
    enum class Marker { None, Revoked, CertAuthority };
    Marker marker = Marker::None;
    std::string hosts;   // the host field as written (patterns, or one hashed name)
    std::string keyType; // as written, e.g. "ssh-ed25519"
    std::string keyBlob; // the decoded public key
    std::filesystem::path file;
    int line = 0;

    // Whether this line is about `name` (a knownHostsName(): "host" or "[host]:port").
    bool matches(const std::string& name) const;
    std::string where() const; // "FILE:LINE"
};

std::vector<KnownHostEntry> readKnownHostsFile(const std::filesystem::path& file);

// Every line of both files about one host, sorted by marker.
struct KnownHostRecords {
    std::string name;                        // the knownHostsName() looked up
    std::vector<KnownHostEntry> keys;        // plain host keys
    std::vector<KnownHostEntry> revoked;     // @revoked keys
    std::vector<KnownHostEntry> authorities; // @cert-authority keys
    // The distinct key types recorded for the host, in file order.
    std::vector<std::string> recordedTypes() const;
};

KnownHostRecords lookupKnownHosts(const KnownHostsFiles& files, const std::string& name);

enum class HostKeyVerdict {
    Trusted, // a recorded key equals the presented one
    Unknown, // no plain key is recorded for the host
    Changed, // keys are recorded for the host, and the presented one is none of them (any type)
    Revoked, // the presented key is marked @revoked for the host, whatever else is recorded
};

HostKeyVerdict judgeHostKey(const KnownHostRecords& records, std::string_view presentedBlob);

// OpenSSH host name pattern matching (match_hostname): a comma-separated list of patterns with * and
// ?; a matching !pattern vetoes the whole list. Case-insensitive.
bool hostMatchesPatternList(const std::string& host, const std::string& patternList);
// One pattern with * and ? (no list, no negation). Case-insensitive.
bool wildcardMatch(std::string_view pattern, std::string_view text);

} // namespace shardwise::dispatch
