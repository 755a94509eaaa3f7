#pragma once
// The nodes runs are dispatched to, managed the same way by every face (shardwise-cli nodes ..., the
// desktop app's Nodes page): add (validate, then store), remove, turn a stored node into an SSH
// session, test the connection, discover facts, prepare (build the runner there), trust a host key,
// and keep what was found with the node. The stored facts document is node_facts_json.hpp's, with
// the prepared runner of prepared_runner.hpp beside it.

#include "shardwise/dispatch/node.hpp"
#include "shardwise/dispatch/node_preparation.hpp"
#include "shardwise/dispatch/ssh_session.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/nodes.hpp"
#include "shardwise/store/run_recorder.hpp"

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace shardwise::session {

// A node that cannot be stored as given, or a name the store does not hold: one line naming the
// field or the node.
class NodeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The one mapping from a stored SSH node to an SSH session: its host (a name, an address or an
// alias of the ssh client configuration in `options`, whose HostName, Port, User, IdentityFile and
// ProxyJump then apply), port, user and credentials; the host key is checked before any
// authentication and never accepted here. Throws SshError (or SshConfigError).
dispatch::SshEndpoint nodeEndpoint(const store::Node& node);
dispatch::SshCredentials nodeCredentials(const store::Node& node, dispatch::PassphrasePrompt askPassphrase = {});
std::unique_ptr<dispatch::SshSession> openNodeSession(const store::Node& node, const dispatch::SshOptions& options,
                                                      const std::atomic<bool>* cancel = nullptr,
                                                      dispatch::PassphrasePrompt askPassphrase = {});

// The node as a run records it: its name, id and NCCL setting (which the session gives its ranks).
store::RunNodeRef runNodeRef(const store::Node& node);

// Checks a node before it is stored: the store's rules (store::validateNode); a name of letters,
// digits, '.', '_' and '-' (at most 64); for an SSH node a host of letters, digits, '.', '_', '-',
// ':' and '%' (a name, an alias or an address; at most 253) and a user of letters, digits, '.', '_',
// '-' and '@' (at most 64), neither beginning with '-'; and for an SSH node stored without a user,
// that the ssh client configuration in `options` gives one for its host (an alias's User); the
// configuration must parse and must not route the host through a ProxyCommand. Throws NodeError
// naming the field and the value.
void checkNode(const store::Node& node, const dispatch::SshOptions& options);
// checkNode, then stores it; returns it as stored (id set). A taken name is a NodeError.
store::Node addNode(store::Database& db, const store::Node& node, const dispatch::SshOptions& options);
// Throws NodeError naming the store when no node has that name.
store::Node requireNode(const store::Database& db, const std::string& name);
// Removes the node named `name` (its runs keep the name); NodeError when there is none.
void removeNode(store::Database& db, const std::string& name);

// "NAME=VALUE" as one NCCL setting; NodeError naming `text` when it has no '=' or an empty name.
std::pair<std::string, std::string> parseEnvAssignment(const std::string& text);
// Replaces the node's NCCL setting (validated as store::validateNode does); NodeError on bad input.
void setNodeNcclEnv(store::Database& db, std::int64_t nodeId, const std::map<std::string, std::string>& env);

// Connects and runs one command (uname -srm).
struct ConnectionTest {
    std::string user; // the user logged in as
    std::string host; // the host reached (an alias's HostName)
    int port = 22;
    dispatch::HostKey hostKey;
    double connectMs = 0;
    bool commandSucceeded = false;
    std::string system; // uname -srm, trimmed; or how the command ended when it failed
};
ConnectionTest testNodeConnection(const store::Node& node, const dispatch::SshOptions& options,
                                  const std::atomic<bool>* cancel = nullptr,
                                  dispatch::PassphrasePrompt askPassphrase = {});

// Discovers the node's facts: this machine's through /bin/sh, an SSH node's over one command.
dispatch::NodeFacts discoverNodeFacts(const store::Node& node, const dispatch::SshOptions& options,
                                      const std::atomic<bool>* cancel = nullptr,
                                      dispatch::PassphrasePrompt askPassphrase = {});
// Stores discovered facts with the node, keeping the runner a preparation recorded; returns the node.
store::Node recordNodeFacts(store::Database& db, std::int64_t nodeId, const dispatch::NodeFacts& facts);
// Builds the runner on an SSH node (dispatch::prepareNode); NodeError for the local node.
dispatch::PreparedRunner prepareStoredNode(const store::Node& node, const dispatch::RemoteBundle& sources,
                                           const dispatch::SshOptions& options,
                                           const dispatch::PreparationOptions& preparation = {},
                                           const dispatch::PreparationCallback& onProgress = {},
                                           const std::atomic<bool>* cancel = nullptr,
                                           dispatch::PassphrasePrompt askPassphrase = {});
// Stores the prepared runner (and the facts found while preparing) with the node; returns the node.
store::Node recordPreparedRunner(store::Database& db, std::int64_t nodeId, const dispatch::PreparedRunner& runner);

// Trusts a host key the user accepted: written to the app's known_hosts under the name of the host
// that presented it (an alias's HostName, or a jump host), and kept as the node's fingerprint when
// it is the node's own key (not a jump host's).
void trustNodeHostKey(store::Database& db, const store::Node& node, const dispatch::HostKey& key,
                      const std::filesystem::path& appKnownHosts);

// The source tree a preparation uploads: $SHARDWISE_RUNNER_SOURCES when set, else the Debian
// package's <programDir>/../share/shardwise/runner-src, else a source tree at or above programDir
// (a build tree sits inside or beside its sources). NodeError when none holds the runner's sources.
std::filesystem::path findRunnerSources(const std::filesystem::path& programDir);

} // namespace shardwise::session
