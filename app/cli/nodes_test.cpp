// shardwise-cli nodes test: connect to a stored node (`nodes test NAME`, through core/session's
// connection test, the one the Nodes page runs) and report whether it is reachable, the version of
// the runner its preparation built and its GPUs; or to a node not stored yet (--host, the same
// connection the app makes: host key checked against ~/.ssh/known_hosts and the app's own
// known_hosts before any authentication) and print what discovery finds there; or --local.
#include "command.hpp"
#include "nodes_manage.hpp"
#include "terminal_prompt.hpp"

#include "shardwise/dispatch/node.hpp"
#include "shardwise/dispatch/ssh_host_key.hpp"
#include "shardwise/session/node_management.hpp"
#include "shardwise/session/prepared_runner.hpp"
#include "shardwise/store/location.hpp"

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <ostream>

namespace shardwise::cli {

namespace {

int positive(const std::string& flag, const std::string& value, int most)
{
    int n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size() || n < 1 || n > most)
        throw UsageError(flag + ": expected a number in 1.." + std::to_string(most) + ", got '" + value + "'");
    return n;
}

std::string gpusLine(const dispatch::NodeFacts& facts)
{
    if (facts.gpus.empty())
        return "none (CPU only)";
    return std::to_string(facts.gpus.size()) + " x " + facts.gpus.front().name;
}

std::string firstLine(const std::string& text)
{
    const std::string line = text.substr(0, text.find('\n'));
    return line.empty() ? std::string("(no output)") : line;
}

// `nodes test NAME`: reachability, the prepared runner's version and the GPUs of a stored node.
int testStoredNode(const std::string& name, const dispatch::SshOptions& ssh, bool acceptNew, const std::string& dbPath,
                   std::ostream& out, std::ostream& err)
{
    std::optional<store::Database> db;
    store::Node node;
    try {
        db.emplace(store::Database::open(store::resolveDatabasePath(dbPath)));
        node = session::requireNode(*db, name);
    } catch (const session::NodeError& e) {
        err << "shardwise-cli nodes test: " << e.what() << " (shardwise-cli nodes list shows the stored nodes)\n";
        return kExitUsage;
    } catch (const std::exception& e) {
        err << "shardwise-cli nodes test: --db: cannot open the store: " << e.what() << "\n";
        return kExitFailed;
    }
    if (node.kind == store::NodeKind::Local) {
        const dispatch::NodeFacts facts = dispatch::discoverLocalNode();
        out << "node '" << name << "': this machine\n  GPUs: " << gpusLine(facts) << "\n";
        return kExitOk;
    }
    try {
        if (acceptNew) // trusts each unknown key on the way (a jump host, then the node), printing it
            openAcceptingNewKeys([&] { return session::openNodeSession(node, ssh, nullptr, askPassphraseOnTerminal); },
                                 true, ssh.knownHosts.app, out);
        const session::ConnectionTest test = session::testNodeConnection(node, ssh, nullptr, askPassphraseOnTerminal);
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.0f ms", test.connectMs);
        out << "node '" << name << "': reachable as " << test.user << "@"
            << dispatch::knownHostsName(test.host, test.port) << " in " << ms << ", host key " << test.hostKey.type
            << " " << test.hostKey.fingerprint << "\n"
            << "  system: " << test.system << "\n";
        const auto session = session::openNodeSession(node, ssh, nullptr, askPassphraseOnTerminal);
        const std::string runner = session::preparedRunnerPath(node.facts);
        if (runner.empty()) {
            out << "  runner: not prepared (shardwise-cli nodes prepare " << name << ")\n";
        } else {
            dispatch::CommandIo io;
            io.timeout = std::chrono::seconds(30);
            const dispatch::CommandOutcome version = session->run(std::vector<std::string> { runner, "--version" }, io);
            out << "  runner: " << runner << ": "
                << (version.succeeded() ? firstLine(version.stdoutData)
                                        : "does not answer --version (" + version.describe() + ")")
                << "\n";
        }
        const dispatch::NodeFacts facts = dispatch::discoverNode(*session);
        out << "  GPUs: " << gpusLine(facts) << "\n";
        for (const auto& gpu : facts.gpus)
            out << "    " << gpu.name << "\n";
        return kExitOk;
    } catch (const dispatch::SshError& e) {
        out << "node '" << name << "': unreachable: " << e.what() << "\n";
        if (e.failure() == dispatch::SshFailure::HostKeyUnknown)
            err << "check the fingerprint with the node's administrator (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub on "
                   "the node), then rerun with --accept-new-host-key\n";
        return kExitFailed;
    }
}

} // namespace

CommandSpec nodesTestSpec()
{
    return {
        "nodes test",
        "connect to a node and show whether it is reachable, its runner and its GPUs",
        "NAME [--accept-new-host-key] [--known-hosts FILE] [--user-known-hosts FILE] [--db PATH] | --host HOST "
        "[--user USER] [--port P] [--key FILE | --agent] [--accept-new-host-key] [--ssh-config FILE] | --local",
        "With NAME: connects to that node of the store as runs do and reports whether it is reachable (as whom, "
        "its host key, its system), the version of the runner its preparation built and its GPUs. With --host: "
        "connects to a node not stored yet and prints the facts Shardwise discovers there (GPUs, NVIDIA driver, "
        "CUDA, NCCL, LibTorch, CPU cores, RAM, build tools; Python, PyTorch and Transformers for python3 and what "
        "the torch backend lacks) or why it cannot connect. --local prints this machine's.",
        { { "NAME", "a node of the store", Complete::Node, true } },
        false,
        { { "--local", "", "discover this machine instead of an SSH node" },
          { "--host", "HOST",
            "a node not stored: its name, address or ~/.ssh/config alias (the config's HostName, Port, User, "
            "IdentityFile, ProxyJump ... apply)" },
          { "--port", "P", "with --host: SSH port (default 22, which lets the config's Port decide)" },
          { "--user", "USER", "with --host: login name (default: the config's User, else your login name)" },
          { "--key",
            "FILE",
            "with --host: authenticate with this private key (asks for its passphrase on the terminal when it is "
            "encrypted)",
            {},
            Complete::File },
          { "--agent", "", "with --host: authenticate through the SSH agent at $SSH_AUTH_SOCK (the default)" },
          { "--accept-new-host-key", "",
            "trust the host's key if no known_hosts file knows the host yet (the node, or a jump host on the way); "
            "the fingerprint is printed and the key written to the app's known_hosts. A changed key (any key other "
            "than those recorded for the host, whatever its type) or a @revoked one is never accepted." },
          appKnownHostsOption(),
          userKnownHostsOption(),
          { "--ssh-config",
            "FILE",
            "the ssh client configuration to read (default: $SHARDWISE_SSH_CONFIG, else ~/.ssh/config); \"none\" "
            "reads none",
            {},
            Complete::File },
          { "--connect-timeout-s", "N", "TCP connect + key exchange + authentication limit (default 10)" },
          { "--db",
            "PATH",
            "with NAME: the store (default: $SHARDWISE_DB, else the user's data folder)",
            {},
            Complete::File } },
        "Exit status: 0 connected (and discovered), 1 unreachable, refused or failed (the reason is printed), 2 "
        "bad usage or no such node."
    };
}

int nodesTest(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    using namespace shardwise::dispatch;
    SshEndpoint endpoint;
    SshCredentials credentials;
    SshOptions options;
    bool acceptNew = false, local = false;
    std::string name, db;
    try {
        const ParsedArgs parsed = parseArgs(nodesTestSpec(), args);
        if (parsed.help) {
            out << usageText(nodesTestSpec());
            return kExitOk;
        }
        name = parsed.operands.empty() ? std::string() : parsed.operands.front();
        for (const auto& [flag, value] : parsed.options) {
            if (flag == "--local") {
                local = true;
            } else if (flag == "--host") {
                endpoint.host = value;
            } else if (flag == "--user") {
                endpoint.user = value;
            } else if (flag == "--port") {
                endpoint.port = positive(flag, value, 65535);
            } else if (flag == "--key") {
                if (value.empty())
                    throw UsageError("--key: needs a file");
                credentials.method = SshAuthMethod::KeyFile;
                credentials.keyFile = value;
            } else if (flag == "--agent") {
                credentials.method = SshAuthMethod::Agent;
            } else if (flag == "--accept-new-host-key") {
                acceptNew = true;
            } else if (flag == "--known-hosts" || flag == "--user-known-hosts") {
                if (value.empty())
                    throw UsageError(flag + ": needs a file");
                (flag == "--known-hosts" ? options.knownHosts.app : options.knownHosts.user) = value;
            } else if (flag == "--ssh-config") {
                std::error_code ec;
                if (value != "none" && !std::filesystem::is_regular_file(value, ec))
                    throw UsageError("--ssh-config " + value + ": no such file");
                options.sshConfig = value == "none" ? std::filesystem::path() : std::filesystem::path(value);
            } else if (flag == "--connect-timeout-s") {
                options.timeouts.connect = std::chrono::seconds(positive(flag, value, 3600));
            } else if (flag == "--db") {
                db = value;
            }
        }
        const int ways = (local ? 1 : 0) + (endpoint.host.empty() ? 0 : 1) + (name.empty() ? 0 : 1);
        if (ways > 1 || (local && !endpoint.user.empty()))
            throw UsageError("NAME, --host and --local: choose one");
        if (ways == 0)
            throw UsageError("NAME: missing; name a stored node (or --host HOST, or --local)");
    } catch (const UsageError& e) {
        err << "shardwise-cli nodes test: " << e.what() << "\n";
        return kExitUsage;
    }
    if (!name.empty())
        return testStoredNode(name, options, acceptNew, db, out, err);
    if (local) {
        out << describeNodeFacts(discoverLocalNode());
        return kExitOk;
    }
    credentials.askPassphrase = askPassphraseOnTerminal;
    try {
        const std::unique_ptr<SshSession> session = openAcceptingNewKeys(
            [&] { return SshSession::open(endpoint, credentials, options); }, acceptNew, options.knownHosts.app, out);
        const SshEndpoint& reached = session->endpoint();
        out << "connected to " << reached.user << "@" << knownHostsName(reached.host, reached.port) << ", host key "
            << session->hostKey().type << " " << session->hostKey().fingerprint << "\n";
        out << describeNodeFacts(discoverNode(*session));
        return kExitOk;
    } catch (const SshError& e) {
        err << "refused: " << e.what() << "\n";
        if (e.failure() == SshFailure::HostKeyUnknown)
            err << "check the fingerprint with the node's administrator (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub on "
                   "the node),"
                   " then rerun with --accept-new-host-key\n";
        return kExitFailed;
    }
}

} // namespace shardwise::cli
