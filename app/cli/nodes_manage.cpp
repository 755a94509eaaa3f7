// shardwise-cli nodes add | remove | list: the store's nodes, validated and written by core/session.
// `nodes prepare` is in nodes_prepare.cpp.
#include "nodes_manage.hpp"

#include "command.hpp"

#include "shardwise/dispatch/ssh_host_key.hpp"
#include "shardwise/session/node_facts_json.hpp"
#include "shardwise/session/node_management.hpp"
#include "shardwise/session/prepared_runner.hpp"
#include "shardwise/store/location.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <optional>
#include <ostream>

namespace shardwise::cli {

namespace {

constexpr const char* kAddUsage
    = R"(usage: shardwise-cli nodes add NAME --host HOST [--port P] [--user USER] [--key FILE | --agent]
                               [--ssh-config FILE] [--nccl-env NAME=VALUE ...] [--db PATH]
       shardwise-cli nodes add NAME --local [--nccl-env NAME=VALUE ...] [--db PATH]

Stores a node runs can be dispatched to (nothing is connected: `nodes test NAME` and `nodes prepare
NAME` do that). Both --flag VALUE and --flag=VALUE work.

  NAME                      the node's name in the store (unique)
  --local                   this machine (one node of this kind per store)
  --host HOST               the node's name, address or ssh client config alias; an alias's HostName,
                            Port, User, IdentityFile and ProxyJump (bastions) apply whenever it is used
  --port P                  SSH port (default 22, which lets the config's Port decide)
  --user USER               login name; may be left out when the config gives the alias a User
  --key FILE                authenticate with this private key (else the SSH agent, then the
                            config's IdentityFile)
  --agent                   authenticate through the SSH agent (the default)
  --ssh-config FILE         the ssh client configuration that resolves HOST (default:
                            $SHARDWISE_SSH_CONFIG, else ~/.ssh/config); later commands read the
                            default one, so name the same file there
  --nccl-env NAME=VALUE     an environment variable for NCCL on this node's ranks (repeatable), e.g.
                            NCCL_NVLS_ENABLE=0 where NVLink multicast is forbidden; none by default
  --db PATH                 the store (default: $SHARDWISE_DB, else ~/.local/share/shardwise/shardwise.sqlite)

Exit status: 0 stored, 1 the store could not be opened or written, 2 bad input (named; nothing stored).
)";

constexpr const char* kRemoveUsage = R"(usage: shardwise-cli nodes remove NAME [--db PATH]

Removes the node from the store; runs measured on it keep its name.
Exit status: 0 removed, 1 the store could not be opened or written, 2 no such node or bad usage.
)";

constexpr const char* kListUsage = R"(usage: shardwise-cli nodes list [--format table|json] [--db PATH]

Lists the store's nodes: address, GPUs found, the runner a preparation built, NCCL settings.
)";

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Walks NAME and --flag [value] arguments; `value()` throws UsageError when the value is missing.
struct ArgWalker {
    const std::vector<std::string>& args;
    std::size_t i = 0;
    std::string value()
    {
        if (i + 1 >= args.size() || args[i + 1].empty())
            throw UsageError(args[i] + ": missing value");
        return args[++i];
    }
};

std::optional<store::Database> openStore(const std::string& path, const char* sub, std::ostream& err)
{
    try {
        return store::Database::open(store::resolveDatabasePath(path));
    } catch (const std::exception& e) {
        err << "shardwise-cli nodes " << sub << ": --db: cannot open the store: " << e.what() << "\n";
        return std::nullopt;
    }
}

std::string address(const store::Node& n)
{
    if (n.kind == store::NodeKind::Local)
        return "this machine";
    return (n.user.empty() ? std::string() : n.user + "@") + n.host
        + (n.port == 22 ? std::string() : ":" + std::to_string(n.port));
}

std::string envText(const std::map<std::string, std::string>& env)
{
    std::string text;
    for (const auto& [k, v] : env)
        text += (text.empty() ? "" : " ") + k + "=" + v;
    return text.empty() ? "-" : text;
}

} // namespace

std::vector<std::string> splitAssignedFlags(const std::vector<std::string>& args)
{
    std::vector<std::string> out;
    for (const std::string& a : args) {
        const auto eq = a.find('=');
        if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
            out.push_back(a.substr(0, eq));
            out.push_back(a.substr(eq + 1));
        } else {
            out.push_back(a);
        }
    }
    return out;
}

std::unique_ptr<dispatch::SshSession>
openAcceptingNewKeys(const std::function<std::unique_ptr<dispatch::SshSession>()>& open, bool acceptNew,
                     const std::filesystem::path& appKnownHosts, std::ostream& out)
{
    std::vector<std::string> accepted;
    for (;;) {
        try {
            return open();
        } catch (const dispatch::SshError& e) {
            if (!acceptNew || e.failure() != dispatch::SshFailure::HostKeyUnknown || !e.hostKey())
                throw;
            const dispatch::HostKey& key = *e.hostKey();
            const std::string name = dispatch::knownHostsName(key.host, key.port);
            if (std::find(accepted.begin(), accepted.end(), name) != accepted.end())
                throw;
            out << "accepting new host key for " << name << ": " << key.type << " " << key.fingerprint
                << " (written to " << appKnownHosts.string() << ")\n";
            dispatch::acceptHostKey(key, appKnownHosts);
            accepted.push_back(name);
        }
    }
}

int nodesAdd(const std::vector<std::string>& rawArgs, std::ostream& out, std::ostream& err)
{
    const std::vector<std::string> args = splitAssignedFlags(rawArgs);
    store::Node node;
    node.kind = store::NodeKind::Ssh;
    dispatch::SshOptions ssh;
    std::string db;
    bool local = false;
    bool sawKey = false, sawAgent = false;
    try {
        for (ArgWalker w { args }; w.i < args.size(); ++w.i) {
            const std::string& flag = args[w.i];
            if (flag == "--help" || flag == "-h") {
                out << kAddUsage;
                return kExitOk;
            } else if (flag == "--local") {
                local = true;
            } else if (flag == "--host") {
                node.host = w.value();
            } else if (flag == "--user") {
                node.user = w.value();
            } else if (flag == "--port") {
                const std::string v = w.value();
                const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), node.port);
                if (ec != std::errc() || end != v.data() + v.size() || node.port < 1 || node.port > 65535)
                    throw UsageError("--port: expected a number in 1..65535, got '" + v + "'");
            } else if (flag == "--key") {
                node.auth = store::SshAuth::KeyFile;
                node.keyFile = w.value();
                sawKey = true;
            } else if (flag == "--agent") {
                sawAgent = true;
            } else if (flag == "--ssh-config") {
                const std::string v = w.value();
                std::error_code ec;
                if (v != "none" && !std::filesystem::is_regular_file(v, ec))
                    throw UsageError("--ssh-config: " + v + ": no such file");
                ssh.sshConfig = v == "none" ? std::filesystem::path() : std::filesystem::path(v);
            } else if (flag == "--nccl-env") {
                std::pair<std::string, std::string> assignment;
                try {
                    assignment = session::parseEnvAssignment(w.value());
                } catch (const session::NodeError& e) {
                    throw UsageError(std::string("--nccl-env: ") + e.what());
                }
                const auto& [name, value] = assignment;
                if (node.ncclEnv.count(name) != 0)
                    throw UsageError("--nccl-env: " + name + " is given twice");
                node.ncclEnv[name] = value;
            } else if (flag == "--db") {
                db = w.value();
            } else if (flag.rfind("-", 0) == 0 || !node.name.empty()) {
                throw UsageError("'" + flag + "': unknown option (see shardwise-cli nodes add --help)");
            } else {
                node.name = flag;
            }
        }
        if (node.name.empty())
            throw UsageError("NAME: missing; say what the node is called");
        if (sawKey && sawAgent)
            throw UsageError("--key and --agent: choose one");
        if (local) {
            if (!node.host.empty() || !node.user.empty() || sawKey || node.port != 22)
                throw UsageError("--local and --host/--user/--port/--key: choose one, this machine or an SSH node");
            node.kind = store::NodeKind::Local;
        } else if (node.host.empty()) {
            throw UsageError(
                "--host: missing; an SSH node needs a host name, address or ssh config alias (or --local)");
        }
        session::checkNode(node, ssh);
    } catch (const UsageError& e) {
        err << "shardwise-cli nodes add: " << e.what() << "\n";
        return kExitUsage;
    } catch (const session::NodeError& e) {
        err << "shardwise-cli nodes add: " << e.what() << "\n";
        return kExitUsage;
    }
    std::optional<store::Database> database = openStore(db, "add", err);
    if (!database)
        return kExitFailed;
    if (store::findNodeByName(*database, node.name)) {
        err << "shardwise-cli nodes add: node.name: a node named '" << node.name << "' already exists in "
            << database->path().string() << "\n";
        return kExitUsage;
    }
    if (local)
        for (const store::Node& n : store::listNodes(*database))
            if (n.kind == store::NodeKind::Local) {
                err << "shardwise-cli nodes add: --local: this machine is already the node '" << n.name << "'\n";
                return kExitUsage;
            }
    try {
        const store::Node stored = session::addNode(*database, node, ssh);
        out << "added node '" << stored.name << "' (" << address(stored) << ")"
            << (stored.ncclEnv.empty() ? std::string() : ", NCCL " + envText(stored.ncclEnv)) << "\n";
    } catch (const session::NodeError& e) {
        err << "shardwise-cli nodes add: " << e.what() << "\n";
        return kExitUsage;
    } catch (const std::exception& e) {
        err << "shardwise-cli nodes add: the store did not take the node: " << e.what() << "\n";
        return kExitFailed;
    }
    return kExitOk;
}

int nodesRemove(const std::vector<std::string>& rawArgs, std::ostream& out, std::ostream& err)
{
    const std::vector<std::string> args = splitAssignedFlags(rawArgs);
    std::string name, db;
    try {
        for (ArgWalker w { args }; w.i < args.size(); ++w.i) {
            const std::string& flag = args[w.i];
            if (flag == "--help" || flag == "-h") {
                out << kRemoveUsage;
                return kExitOk;
            } else if (flag == "--db") {
                db = w.value();
            } else if (flag.rfind("-", 0) == 0 || !name.empty()) {
                throw UsageError("'" + flag + "': unknown option (see shardwise-cli nodes remove --help)");
            } else {
                name = flag;
            }
        }
        if (name.empty())
            throw UsageError("NAME: missing; say which node to remove");
    } catch (const UsageError& e) {
        err << "shardwise-cli nodes remove: " << e.what() << "\n";
        return kExitUsage;
    }
    std::optional<store::Database> database = openStore(db, "remove", err);
    if (!database)
        return kExitFailed;
    try {
        session::removeNode(*database, name);
    } catch (const session::NodeError& e) {
        err << "shardwise-cli nodes remove: " << e.what() << "\n";
        return kExitUsage;
    } catch (const std::exception& e) {
        err << "shardwise-cli nodes remove: " << e.what() << "\n";
        return kExitFailed;
    }
    out << "removed node '" << name << "'\n";
    return kExitOk;
}

int nodesList(const std::vector<std::string>& rawArgs, std::ostream& out, std::ostream& err)
{
    const std::vector<std::string> args = splitAssignedFlags(rawArgs);
    std::string db;
    bool json = false;
    try {
        for (ArgWalker w { args }; w.i < args.size(); ++w.i) {
            const std::string& flag = args[w.i];
            if (flag == "--help" || flag == "-h") {
                out << kListUsage;
                return kExitOk;
            } else if (flag == "--db") {
                db = w.value();
            } else if (flag == "--format") {
                const std::string f = w.value();
                if (f != "table" && f != "json")
                    throw UsageError("--format: expected table or json, got '" + f + "'");
                json = f == "json";
            } else {
                throw UsageError("'" + flag + "': unknown option (see shardwise-cli nodes list --help)");
            }
        }
    } catch (const UsageError& e) {
        err << "shardwise-cli nodes list: " << e.what() << "\n";
        return kExitUsage;
    }
    std::optional<store::Database> database = openStore(db, "list", err);
    if (!database)
        return kExitFailed;
    const std::vector<store::Node> nodes = store::listNodes(*database);
    if (json) {
        nlohmann::json list = nlohmann::json::array();
        for (const store::Node& n : nodes)
            list.push_back({ { "name", n.name },
                             { "kind", store::nodeKindId(n.kind) },
                             { "host", n.host },
                             { "port", n.port },
                             { "user", n.user },
                             { "auth", store::sshAuthId(n.auth) },
                             { "key_file", n.keyFile },
                             { "host_key_fingerprint", n.hostKeyFingerprint },
                             { "nccl_env", n.ncclEnv },
                             { "facts", n.facts } });
        out << list.dump(2) << "\n";
        return kExitOk;
    }
    if (nodes.empty()) {
        out << "no nodes in " << database->path().string() << " (shardwise-cli nodes add NAME --host HOST)\n";
        return kExitOk;
    }
    for (const store::Node& n : nodes) {
        const dispatch::NodeFacts facts = session::nodeFactsFromJson(n.facts);
        const std::string runner = session::preparedRunnerPath(n.facts);
        out << n.name << "  " << address(n) << "\n"
            << "  GPUs: "
            << (n.facts.is_object() && n.facts.contains("gpus") ? std::to_string(facts.gpus.size())
                                                                : std::string("not discovered"))
            << (facts.gpus.empty() ? std::string() : " x " + facts.gpus.front().name) << "\n"
            << "  runner: " << (runner.empty() ? std::string("not prepared") : runner) << "\n"
            << "  NCCL: " << envText(n.ncclEnv) << "\n";
    }
    return kExitOk;
}

} // namespace shardwise::cli
