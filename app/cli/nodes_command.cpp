// shardwise-cli nodes: the subcommands, and `nodes test`: connect to an SSH node the way the app
// does (host key checked against ~/.ssh/known_hosts and the app's own known_hosts before any
// authentication), then print what discovery finds there: GPUs, driver, CUDA, NCCL, LibTorch, CPU
// cores and RAM. add / remove / list are in nodes_manage.cpp, prepare in nodes_prepare.cpp, probe
// in nodes_probe.cpp.
#include "command.hpp"
#include "nodes_manage.hpp"
#include "nodes_probe.hpp"
#include "terminal_prompt.hpp"

#include "shardwise/dispatch/node.hpp"
#include "shardwise/dispatch/ssh_host_key.hpp"
#include "shardwise/dispatch/ssh_session.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <ostream>

namespace shardwise::cli {

namespace {

constexpr const char* kSubcommands
    = R"(usage: shardwise-cli nodes add ...     store a node (an ssh config alias behind a bastion included)
       shardwise-cli nodes remove ...  remove a node from the store
       shardwise-cli nodes list ...    list the store's nodes
       shardwise-cli nodes test ...    connect to an SSH node and show what it has
       shardwise-cli nodes prepare ... build the runner on a stored SSH node
       shardwise-cli nodes probe ...   measure a node's hardware and store it for calibration
(shardwise-cli nodes <subcommand> --help for its options)
)";

constexpr const char* kUsage = R"(usage: shardwise-cli nodes test --host HOST [--user USER] [--port P] [--key FILE | --agent]
                                [--accept-new-host-key] [--known-hosts FILE] [--ssh-config FILE]
       shardwise-cli nodes test --local

Connects to an SSH node and prints the facts Shardwise discovers there (GPUs, NVIDIA driver, CUDA,
NCCL, LibTorch, CPU cores, RAM, build tools; Python, PyTorch and Transformers for python3 and
what the torch backend lacks) or why it cannot connect. --local prints this machine's.

  --local                   discover this machine instead of an SSH node

  --host HOST               the node's name, address or ~/.ssh/config alias (required): the
                            config's HostName, Port, User, IdentityFile, ProxyJump ... apply
  --port P                  SSH port (default 22, which lets the config's Port decide)
  --user USER               login name (default: the config's User, else your login name)
  --key FILE                authenticate with this private key (asks for its passphrase on the
                            terminal when it is encrypted)
  --agent                   authenticate through the SSH agent at $SSH_AUTH_SOCK (the default)
  --accept-new-host-key     trust the host's key if no known_hosts file knows the host yet (the
                            node, or a jump host on the way); the fingerprint is printed and the
                            key written to the app's known_hosts. A CHANGED key (any key other than
                            those recorded for the host, whatever its type) or a @revoked one is
                            never accepted.
  --known-hosts FILE        the app's own known_hosts (default: $XDG_CONFIG_HOME/shardwise/known_hosts)
  --user-known-hosts FILE   the user's known_hosts, read only (default: ~/.ssh/known_hosts)
  --ssh-config FILE         the ssh client configuration to read (default: $SHARDWISE_SSH_CONFIG,
                            else ~/.ssh/config); "none" reads none
  --connect-timeout-s N     TCP connect + key exchange + authentication limit (default 10)

Exit status: 0 connected and discovered, 1 refused or failed (the reason is printed), 2 bad usage.
)";

int nodesTest(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    using namespace shardwise::dispatch;
    SshEndpoint endpoint;
    SshCredentials credentials;
    SshOptions options;
    bool acceptNew = false;
    bool local = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& flag = args[i];
        auto value = [&]() -> std::optional<std::string> {
            if (i + 1 >= args.size())
                return std::nullopt;
            return args[++i];
        };
        auto number = [&](int& target) {
            const auto v = value();
            if (!v)
                return false;
            const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), target);
            return ec == std::errc() && end == v->data() + v->size() && target > 0;
        };
        if (flag == "--help" || flag == "-h") {
            out << kUsage;
            return kExitOk;
        } else if (flag == "--local") {
            local = true;
        } else if (flag == "--host") {
            endpoint.host = value().value_or("");
        } else if (flag == "--user") {
            endpoint.user = value().value_or("");
        } else if (flag == "--port") {
            if (!number(endpoint.port) || endpoint.port > 65535) {
                err << "shardwise-cli nodes test: --port needs a number in 1..65535\n";
                return kExitUsage;
            }
        } else if (flag == "--key") {
            const auto v = value();
            if (!v || v->empty()) {
                err << "shardwise-cli nodes test: --key needs a file\n";
                return kExitUsage;
            }
            credentials.method = SshAuthMethod::KeyFile;
            credentials.keyFile = *v;
        } else if (flag == "--agent") {
            credentials.method = SshAuthMethod::Agent;
        } else if (flag == "--accept-new-host-key") {
            acceptNew = true;
        } else if (flag == "--known-hosts" || flag == "--user-known-hosts") {
            const auto v = value();
            if (!v || v->empty()) {
                err << "shardwise-cli nodes test: " << flag << " needs a file\n";
                return kExitUsage;
            }
            (flag == "--known-hosts" ? options.knownHosts.app : options.knownHosts.user) = *v;
        } else if (flag == "--ssh-config") {
            const auto v = value();
            if (!v || v->empty()) {
                err << "shardwise-cli nodes test: --ssh-config needs a file (or none)\n";
                return kExitUsage;
            }
            std::error_code ec;
            if (*v != "none" && !std::filesystem::is_regular_file(*v, ec)) {
                err << "shardwise-cli nodes test: --ssh-config " << *v << ": no such file\n";
                return kExitUsage;
            }
            options.sshConfig = *v == "none" ? std::filesystem::path() : std::filesystem::path(*v);
        } else if (flag == "--connect-timeout-s") {
            int seconds = 0;
            if (!number(seconds)) {
                err << "shardwise-cli nodes test: --connect-timeout-s needs a positive number of seconds\n";
                return kExitUsage;
            }
            options.timeouts.connect = std::chrono::seconds(seconds);
        } else {
            err << "shardwise-cli nodes test: unknown option '" << flag << "'\n\n" << kUsage;
            return kExitUsage;
        }
    }
    if (local) {
        if (!endpoint.host.empty() || !endpoint.user.empty()) {
            err << "shardwise-cli nodes test: --local and --host/--user: choose one\n";
            return kExitUsage;
        }
        out << describeNodeFacts(discoverLocalNode());
        return kExitOk;
    }
    if (endpoint.host.empty()) {
        err << "shardwise-cli nodes test: --host is required\n\n" << kUsage;
        return kExitUsage;
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
            err << "check the fingerprint with the node's administrator (ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub on the node),"
                   " then rerun with --accept-new-host-key\n";
        return kExitFailed;
    }
}

const CommandRegistration registration { "nodes",
                                         "manage nodes: `nodes add|remove|list`, `nodes test` shows GPUs and software, "
                                         "`nodes prepare` builds the runner, `nodes probe` measures",
                                         [](const std::vector<std::string>& args, std::ostream& out,
                                            std::ostream& err) {
                                             if (args.empty() || args[0] == "--help" || args[0] == "-h") {
                                                 (args.empty() ? err : out) << kSubcommands;
                                                 return args.empty() ? kExitUsage : kExitOk;
                                             }
                                             const std::vector<std::string> rest(args.begin() + 1, args.end());
                                             if (args[0] == "add")
                                                 return nodesAdd(rest, out, err);
                                             if (args[0] == "remove")
                                                 return nodesRemove(rest, out, err);
                                             if (args[0] == "list")
                                                 return nodesList(rest, out, err);
                                             if (args[0] == "prepare")
                                                 return nodesPrepare(rest, out, err);
                                             if (args[0] == "test")
                                                 return nodesTest(rest, out, err);
                                             if (args[0] == "probe")
                                                 return nodesProbe(rest, out, err);
                                             err << "shardwise-cli nodes: unknown subcommand '" << args[0] << "'\n\n"
                                                 << kSubcommands;
                                             return kExitUsage;
                                         } };

} // namespace

} // namespace shardwise::cli
