#pragma once
// The SSH nodes of `shardwise-cli run --node NAME` and `runs attach`: looked up in the store's nodes,
// connected the way the app connects (host key checked before authentication, never accepted
// silently), and the runner each node should start: --remote-runner, else the one the node's
// preparation recorded. Also the terminal interrupt that stops, or detaches from, following them.

#include "shardwise/dispatch/ssh_session.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/nodes.hpp"

#include <atomic>
#include <csignal>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardwise::cli {

// A node name, runner or connection problem, said in one line that names the node.
struct NodeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ConnectedNodes {
    std::vector<store::Node> nodes;
    std::vector<std::unique_ptr<dispatch::SshSession>> sessions; // sessions[i] reaches nodes[i]
    std::vector<std::string> runnerPaths;                        // on each node

    std::vector<dispatch::SshSession*> sessionPointers() const;
    std::vector<std::string> names() const;
};

// Throws NodeError: an unknown node, the local node, a node without a runner, a refused host key
// or a failed login.
ConnectedNodes connectNodes(const store::Database& db, const std::vector<std::string>& names,
                            const std::string& remoteRunner, const dispatch::SshOptions& options);

// The nodes a stored run used, to follow its ranks again: as connectNodes, without a runner (the
// ranks already run). `flag` names what the names came from in messages.
ConnectedNodes connectRunNodes(const store::Database& db, const std::vector<std::string>& names,
                               const dispatch::SshOptions& options, const std::string& flag);

// Set by SIGINT/SIGTERM while an InterruptOnSignals lives. The ranks live in their own process
// groups (or on other machines), so the terminal's Ctrl-C reaches only this process, which then
// cancels the ranks or detaches from them as the command was told.
const std::atomic<bool>& terminalInterrupt();

class InterruptOnSignals {
public:
    InterruptOnSignals(); // clears the flag
    ~InterruptOnSignals();
    InterruptOnSignals(const InterruptOnSignals&) = delete;
    InterruptOnSignals& operator=(const InterruptOnSignals&) = delete;

private:
    struct sigaction m_oldInt { };
    struct sigaction m_oldTerm { };
};

} // namespace shardwise::cli
