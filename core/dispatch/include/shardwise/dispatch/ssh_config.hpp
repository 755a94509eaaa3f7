#pragma once
// The user's OpenSSH client configuration (ssh_config(5), usually ~/.ssh/config), resolved for the
// settings Shardwise uses: HostName, User, Port, IdentityFile, IdentitiesOnly, ProxyJump,
// ProxyCommand, ServerAliveInterval, ServerAliveCountMax.
//
// Where an `ssh` program is installed, OpenSSH itself resolves the host: `ssh -G HOST` prints the
// configuration that applies after every keyword, Match block, Include, CanonicalizeHostname and
// %-token of HostName has been evaluated (ssh(1), -G), and that output is read
// (lookupSshConfigWithOpenSsh). `ssh -G` connects nowhere and runs no ProxyCommand; a `Match exec`
// line in the user's configuration does run, as it would for `ssh HOST`.
//
// Only where no ssh program is found, Shardwise's own reader is the fallback
// (lookupSshConfigByParsing): Host blocks with pattern lists (* ? !negation), the first value
// obtained for a keyword wins (IdentityFile accumulates), Include (globs; relative paths from the
// including file's folder), HostName (%h). Every other keyword ssh knows is accepted and ignored; a
// keyword ssh does not know (unless listed in IgnoreUnknown), a missing or malformed argument, or an
// unreadable Include is an SshConfigError naming FILE:LINE, as ssh refuses them too. That reader
// does not evaluate Match blocks (their settings never apply) nor CanonicalizeHostname, and reads no
// system-wide file (see docs/ssh.md).
//
// Either way a ProxyCommand that applies to a host is reported (proxyCommandWhere) so the connection
// can refuse it.

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
    std::string proxyCommandWhere; // where a ProxyCommand that applies was found (not supported: refused)
};

// What the connection already knows about the host before the configuration is read: a user or port
// given with the node or in a ProxyJump hop. OpenSSH evaluates `Match user` and `%r`/`%p` with them
// (as `ssh -l USER -p PORT HOST`), so they are passed on to `ssh -G`.
struct SshLookupHints {
    std::optional<std::string> user;
    std::optional<int> port;
};

// ~/.ssh/config, or $SHARDWISE_SSH_CONFIG when that is set ("none" or empty there: no file).
std::filesystem::path standardSshConfigPath();

// Looks `host` up in `file` (and what it includes): through `ssh -G` where findSshProgram() finds
// ssh, else through lookupSshConfigByParsing. A file that does not exist reads as empty; an empty
// path is no file at all.
SshHostConfig lookupSshConfig(const std::filesystem::path& file, const std::string& host,
                              const SshLookupHints& hints = {});

// The `ssh` program on $PATH (the default search path where PATH is unset), or an empty path.
std::filesystem::path findSshProgram();

// Runs `ssh [-F FILE] -G [-l USER] [-p PORT] -- HOST` with `ssh` (argv, no shell; stdin /dev/null;
// at most 10 s and 1 MiB of output) and reads what it prints. Without -F exactly when `file` is the
// default ~/.ssh/config that ssh itself reads, so the system-wide /etc/ssh/ssh_config applies as it
// does for ssh; `-F none` for an empty path or a file that does not exist. A value equal to what
// OpenSSH prints for a host no configuration mentions (its defaults: port 22, the local user, the
// default identity files, ServerAliveCountMax 3, ...) counts as not configured. A host that could
// be read as an option or another destination (empty, a leading '-', whitespace or control
// characters, '@', "ssh://") is an SshConfigError, as is ssh refusing the configuration (its message,
// "FILE line N:" written "FILE:N:").
SshHostConfig lookupSshConfigWithOpenSsh(const std::filesystem::path& ssh, const std::filesystem::path& file,
                                         const std::string& host, const SshLookupHints& hints = {});

// The fallback reader (see the top of this file): `file` read by Shardwise itself, Match blocks not
// evaluated. A file that does not exist reads as empty.
SshHostConfig lookupSshConfigByParsing(const std::filesystem::path& file, const std::string& host);

// Parses a ProxyJump value ("none" gives an empty list); throws SshConfigError naming `where`.
std::vector<SshJumpSpec> parseProxyJump(const std::string& value, const std::string& where);

// Expands a leading ~ and the tokens %% %d %h %i %l %L %n %p %r %u of an IdentityFile as ssh does;
// an unknown token is an SshConfigError naming `where`.
std::string expandIdentityFile(const std::string& path, const std::string& alias, const std::string& hostName, int port,
                               const std::string& remoteUser, const std::string& where);

} // namespace shardwise::dispatch
