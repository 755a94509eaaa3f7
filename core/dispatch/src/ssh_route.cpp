#include "ssh_route.hpp"

#include "shardwise/dispatch/ssh_config.hpp"

#include <pwd.h>
#include <unistd.h>

namespace shardwise::dispatch {

namespace {

constexpr std::size_t kMaxHops = 8;

// A ProxyJump hop's own user and port are given to ssh as -l and -p, as ssh does for its jump hosts.
SshHostConfig lookupHop(const SshOptions& options, const SshJumpSpec& hop)
{
    return lookupSshConfig(options.sshConfig, hop.host, SshLookupHints { hop.user, hop.port });
}

SshHop resolveHop(const std::string& alias, std::optional<int> port, std::optional<std::string> user,
                  const SshHostConfig& cfg, const SshOptions& options)
{
    if (!cfg.proxyCommandWhere.empty())
        throw SshConfigError(cfg.proxyCommandWhere + ": ProxyCommand (for " + alias
                             + ") is not supported by Shardwise, which connects with libssh2; use ProxyJump");
    SshHop hop;
    hop.alias = alias;
    hop.endpoint.host = cfg.hostName;
    hop.endpoint.port = port.value_or(cfg.port.value_or(22));
    hop.endpoint.user = user.value_or(cfg.user.value_or(localLoginName()));
    hop.identitiesOnly = cfg.identitiesOnly.value_or(false);
    for (std::size_t i = 0; i < cfg.identityFiles.size(); ++i)
        hop.identityFiles.emplace_back(expandIdentityFile(cfg.identityFiles[i], alias, hop.endpoint.host,
                                                          hop.endpoint.port, hop.endpoint.user,
                                                          cfg.identityFileWhere[i]));
    hop.timeouts = options.timeouts;
    // ServerAliveInterval 0 means "off" to ssh; Shardwise keeps its own keepalive then, because it
    // detects a stalled node by it.
    if (cfg.serverAliveInterval && *cfg.serverAliveInterval > 0)
        hop.timeouts.keepaliveInterval = std::chrono::seconds(*cfg.serverAliveInterval);
    if (cfg.serverAliveCountMax && *cfg.serverAliveCountMax > 0)
        hop.timeouts.keepaliveCountMax = *cfg.serverAliveCountMax;
    return hop;
}

// ssh -J a,b,c target runs "ssh -J a,b c" as the forward for target, down to "ssh a" for the first
// hop: so the first hop's own ProxyJump applies, the later hops' own ProxyJump lines do not.
void appendRouteTo(const SshJumpSpec& first, const SshOptions& options, std::vector<SshHop>& route, std::size_t depth)
{
    if (depth > kMaxHops)
        throw SshError(SshFailure::Config,
                       "ProxyJump: the chain to " + first.host + " is longer than " + std::to_string(kMaxHops)
                           + " hops (does a jump host's ProxyJump lead back to itself?)");
    const SshHostConfig cfg = lookupHop(options, first);
    if (cfg.proxyJump && !cfg.proxyJump->empty()) {
        appendRouteTo(cfg.proxyJump->front(), options, route, depth + 1);
        for (std::size_t i = 1; i < cfg.proxyJump->size(); ++i) {
            const auto& spec = (*cfg.proxyJump)[i];
            route.push_back(resolveHop(spec.host, spec.port, spec.user, lookupHop(options, spec), options));
        }
    }
    route.push_back(resolveHop(first.host, first.port, first.user, cfg, options));
    if (route.size() > kMaxHops)
        throw SshError(SshFailure::Config,
                       "ProxyJump: more than " + std::to_string(kMaxHops) + " jump hosts on the way to " + first.host);
}

} // namespace

std::string localLoginName()
{
    if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_name)
        return pw->pw_name;
    return "root";
}

std::vector<SshHop> resolveSshRoute(const SshEndpoint& node, const SshOptions& options)
{
    try {
        // The node's own user and port (when not 22) are what `ssh -l USER -p PORT HOST` would be
        // given, so a `Match user` block or a %r token sees them as ssh's would.
        SshLookupHints hints;
        if (!node.user.empty())
            hints.user = node.user;
        if (node.port != 22)
            hints.port = node.port;
        const SshHostConfig cfg = lookupSshConfig(options.sshConfig, node.host, hints);
        std::vector<SshHop> route;
        if (cfg.proxyJump && !cfg.proxyJump->empty()) {
            appendRouteTo(cfg.proxyJump->front(), options, route, 1);
            for (std::size_t i = 1; i < cfg.proxyJump->size(); ++i) {
                const auto& spec = (*cfg.proxyJump)[i];
                route.push_back(resolveHop(spec.host, spec.port, spec.user, lookupHop(options, spec), options));
            }
        }
        SshHop target
            = resolveHop(node.host, node.port != 22 ? std::optional<int>(node.port) : std::nullopt,
                         node.user.empty() ? std::nullopt : std::optional<std::string>(node.user), cfg, options);
        target.isNode = true;
        route.push_back(std::move(target));
        return route;
    } catch (const SshConfigError& e) {
        throw SshError(SshFailure::Config, e.what());
    }
}

} // namespace shardwise::dispatch
