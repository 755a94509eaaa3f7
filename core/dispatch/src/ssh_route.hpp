#pragma once
// Internal: the way to a node as the ssh client configuration describes it: the jump hosts in order,
// then the node itself, each with its resolved address, user, identity files and keepalive.

#include "shardwise/dispatch/ssh_session.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace shardwise::dispatch {

struct SshHop {
    std::string alias;                                // the name as given (the node's host, or a ProxyJump entry)
    SshEndpoint endpoint;                             // resolved: HostName, port, user
    std::vector<std::filesystem::path> identityFiles; // existing or not; expanded
    bool identitiesOnly = false;
    SshTimeouts timeouts;
    bool isNode = false; // the last hop: the node itself
};

// Resolves `node` through options.sshConfig (none when empty). The node's own port wins over the
// configuration's Port unless it is 22 (the default); its user wins over User unless empty, and
// without either the local login name is used, as ssh does. Throws SshError (Config) for a
// malformed configuration or a ProxyJump chain of more than 8 hops.
std::vector<SshHop> resolveSshRoute(const SshEndpoint& node, const SshOptions& options);

std::string localLoginName();

} // namespace shardwise::dispatch
