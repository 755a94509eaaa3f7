#pragma once
// The user's OpenSSH client configuration (ssh_config(5), usually ~/.ssh/config), read the way ssh
// reads it for the settings Shardwise uses: Host blocks with pattern lists (* ? !negation), the first
// value obtained for a keyword wins (IdentityFile accumulates), Include (globs; relative paths from
// the including file's folder), HostName (%h), User, Port, IdentityFile, IdentitiesOnly, ProxyJump,
// ServerAliveInterval, ServerAliveCountMax. Every other keyword ssh knows is accepted
// and ignored; a keyword ssh does not know (unless listed in IgnoreUnknown), a missing or malformed
// argument, or an unreadable Include is an SshConfigError naming FILE:LINE, as ssh refuses them too.
// Match blocks are not evaluated: their settings never apply (see docs/ssh.md). A ProxyCommand that
// applies to a host is reported (proxyCommandWhere) so the connection can refuse it.

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardwise::dispatch {

class SshConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One ProxyJump hop as written: [user@]host[:port] (or ssh://[user@]host[:port]).
struct SshJumpSpec {
    std::string host;
    std::optional<int> port;
    std::optional<std::string> user;
};

// What the configuration says for one host name given by the user (an alias or a real name).
struct SshHostConfig {
    std::string alias;    // the name looked up
    std::string hostName; // HostName with %h expanded, else the alias
    std::optional<int> port;
    std::optional<std::string> user;
    std::vector<std::string> identityFiles;     // as written (~ and %-tokens expanded later: %r needs the final user)
    std::vector<std::string> identityFileWhere; // FILE:LINE of each, for errors about its tokens
    std::optional<bool> identitiesOnly;
    std::optional<std::vector<SshJumpSpec>> proxyJump; // set and empty: "ProxyJump none"
    std::optional<int> serverAliveInterval;            // seconds
    std::optional<int> serverAliveCountMax;
    std::string proxyCommandWhere; // FILE:LINE of a ProxyCommand that applies (not supported: refused)
};

// ~/.ssh/config, or $SHARDWISE_SSH_CONFIG when that is set ("none" or empty there: no file).
std::filesystem::path standardSshConfigPath();

// Looks `host` up in `file` (and what it includes). A file that does not exist reads as empty.
SshHostConfig lookupSshConfig(const std::filesystem::path& file, const std::string& host);

// Parses a ProxyJump value ("none" gives an empty list); throws SshConfigError naming `where`.
std::vector<SshJumpSpec> parseProxyJump(const std::string& value, const std::string& where);

// Expands a leading ~ and the tokens %% %d %h %i %l %L %n %p %r %u of an IdentityFile as ssh does;
// an unknown token is an SshConfigError naming `where`.
std::string expandIdentityFile(const std::string& path, const std::string& alias, const std::string& hostName, int port,
                               const std::string& remoteUser, const std::string& where);

} // namespace shardwise::dispatch
