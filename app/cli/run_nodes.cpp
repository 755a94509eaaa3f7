#include "run_nodes.hpp"

#include "terminal_prompt.hpp"

#include "shardwise/dispatch/ssh_error.hpp"
#include "shardwise/session/node_management.hpp"
#include "shardwise/session/prepared_runner.hpp"

namespace shardwise::cli {

std::vector<dispatch::SshSession*> ConnectedNodes::sessionPointers() const
{
    std::vector<dispatch::SshSession*> raw;
    for (const auto& s : sessions)
        raw.push_back(s.get());
    return raw;
}

std::vector<std::string> ConnectedNodes::names() const
{
    std::vector<std::string> out;
    for (const auto& n : nodes)
        out.push_back(n.name);
    return out;
}

namespace {

std::atomic<bool> g_interrupted { false };
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void noteInterrupt(int)
{
    g_interrupted.store(true);
}

store::Node registeredSshNode(const store::Database& db, const std::string& name, const std::string& flag,
                              const std::string& localHint)
{
    const std::optional<store::Node> node = store::findNodeByName(db, name);
    if (!node)
        throw NodeError(flag + ": no node named '" + name + "' in the store " + db.path().string()
                        + " (add it with shardwise-cli nodes add, or on the desktop app's Nodes page)");
    if (node->kind != store::NodeKind::Ssh)
        throw NodeError(flag + ": '" + name + "' is this machine" + localHint);
    return *node;
}

void connectEach(ConnectedNodes& connected, const dispatch::SshOptions& options, const std::string& flag)
{
    for (const store::Node& node : connected.nodes) {
        try {
            connected.sessions.push_back(session::openNodeSession(node, options, nullptr, askPassphraseOnTerminal));
        } catch (const dispatch::SshError& e) {
            std::string hint;
            if (e.failure() == dispatch::SshFailure::HostKeyUnknown)
                hint = "; check and accept its key first (shardwise-cli nodes test --accept-new-host-key, or the Nodes "
                       "page)";
            throw NodeError(flag + ": cannot connect to '" + node.name + "' (" + node.user + "@" + node.host + ":"
                            + std::to_string(node.port) + "): " + e.what() + hint);
        }
    }
}

} // namespace

ConnectedNodes connectNodes(const store::Database& db, const std::vector<std::string>& names,
                            const std::string& remoteRunner, const dispatch::SshOptions& options)
{
    ConnectedNodes connected;
    for (const std::string& name : names) {
        const store::Node node = registeredSshNode(db, name, "--node", "; use --local to run here");
        const std::string runner = remoteRunner.empty() ? session::preparedRunnerPath(node.facts) : remoteRunner;
        if (runner.empty())
            throw NodeError("--node: '" + name + "' has no prepared runner; prepare it (shardwise-cli nodes prepare "
                            + name + ", or the Nodes page) or pass --remote-runner PATH");
        connected.nodes.push_back(node);
        connected.runnerPaths.push_back(runner);
    }
    connectEach(connected, options, "--node");
    return connected;
}

ConnectedNodes connectRunNodes(const store::Database& db, const std::vector<std::string>& names,
                               const dispatch::SshOptions& options, const std::string& flag)
{
    ConnectedNodes connected;
    for (const std::string& name : names)
        connected.nodes.push_back(registeredSshNode(db, name, flag, ", not an SSH node"));
    connectEach(connected, options, flag);
    return connected;
}

const std::atomic<bool>& terminalInterrupt()
{
    return g_interrupted;
}

InterruptOnSignals::InterruptOnSignals()
{
    g_interrupted = false;
    struct sigaction sa { };
    sa.sa_handler = noteInterrupt;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &m_oldInt);
    ::sigaction(SIGTERM, &sa, &m_oldTerm);
}

InterruptOnSignals::~InterruptOnSignals()
{
    ::sigaction(SIGINT, &m_oldInt, nullptr);
    ::sigaction(SIGTERM, &m_oldTerm, nullptr);
}

} // namespace shardwise::cli
