#pragma once
// shardwise-cli nodes add | remove | list | prepare: the node registry of the store, managed through
// core/session (node_management.hpp) exactly as the desktop app's Nodes page manages it.

#include "options.hpp"

#include "shardwise/dispatch/ssh_session.hpp"

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace shardwise::cli {

int nodesAdd(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int nodesRemove(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int nodesList(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int nodesPrepare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// The option tables of the nodes actions (options.hpp).
CommandSpec nodesAddSpec();
CommandSpec nodesRemoveSpec();
CommandSpec nodesListSpec();
CommandSpec nodesPrepareSpec();
CommandSpec nodesProbeSpec();
CommandSpec nodesTestSpec();
int nodesTest(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Opens a session through `open`; with `acceptNew`, each host on the way whose key no known_hosts
// file knows yet (a jump host, then the node) is trusted in turn, once, its fingerprint printed on
// `out` and its key written to `appKnownHosts`. A changed or revoked key is never accepted: the
// SshError comes through.
std::unique_ptr<dispatch::SshSession>
openAcceptingNewKeys(const std::function<std::unique_ptr<dispatch::SshSession>()>& open, bool acceptNew,
                     const std::filesystem::path& appKnownHosts, std::ostream& out);

} // namespace shardwise::cli
