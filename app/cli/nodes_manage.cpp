// shardwise-cli nodes add | remove | list: the store's nodes, validated and written by core/session.
// `nodes prepare` is in nodes_prepare.cpp.
#include "nodes_manage.hpp"

#include "command.hpp"
#include "options.hpp"

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

const Option kDbOption { "--db",
                         "PATH",
                         "the store (default: $SHARDWISE_DB, else ~/.local/share/shardwise/shardwise.sqlite)",
                         {},
                         Complete::File };

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

CommandSpec nodesAddSpec()
{
    return {
        "nodes add",
        "store a node (an ssh config alias behind a bastion included)",
        "NAME --host HOST [--port P] [--user USER] [--key FILE | --agent] [--ssh-config FILE] [--nccl-env "
        "NAME=VALUE ...] [--db PATH] | NAME --local [--nccl-env NAME=VALUE ...] [--db PATH]",
        "Stores a node runs can be dispatched to (nothing is connected: `nodes test NAME` and `nodes prepare "
        "NAME` do that).",
        { { "NAME", "the node's name in the store (unique)" } },
        false,
        { { "--local", "", "this machine (one node of this kind per store)" },
          { "--host", "HOST",
            "the node's name, address or ssh client config alias; an alias's HostName, Port, User, IdentityFile "
            "and ProxyJump (bastions) apply whenever it is used" },
          { "--port", "P", "SSH port (default 22, which lets the config's Port decide)" },
          { "--user", "USER", "login name; may be left out when the config gives the alias a User" },
          { "--key",
            "FILE",
            "authenticate with this private key (else the SSH agent, then the config's IdentityFile)",
            {},
            Complete::File },
          { "--agent", "", "authenticate through the SSH agent (the default)" },
          { "--ssh-config",
            "FILE",
            "the ssh client configuration that resolves HOST (default: $SHARDWISE_SSH_CONFIG, else ~/.ssh/config); "
            "later commands read the default one, so name the same file there",
            {},
            Complete::File },
          { "--nccl-env",
            "NAME=VALUE",
            "an environment variable for NCCL on this node's ranks, e.g. NCCL_NVLS_ENABLE=0 where NVLink multicast "
            "is forbidden; none by default",
            {},
            Complete::Nothing,
            true },
          kDbOption },
        "Exit status: 0 stored, 1 the store could not be opened or written, 2 bad input (named; nothing stored)."
    };
}

CommandSpec nodesRemoveSpec()
{
    return { "nodes remove",
             "remove a node from the store",
             "NAME [--db PATH]",
             "Removes the node from the store; runs measured on it keep its name.",
             { { "NAME", "the node to remove", Complete::Node } },
             false,
             { kDbOption },
             "Exit status: 0 removed, 1 the store could not be opened or written, 2 no such node or bad usage." };
}

CommandSpec nodesListSpec()
{
    return { "nodes list",
             "list the store's nodes",
             "[--format table|json] [--db PATH]",
             "Lists the store's nodes: address, GPUs found, the runner a preparation built, NCCL settings.",
             {},
             false,
             { { "--format", "F", "table or json (default table)", { "table", "json" } }, kDbOption } };
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

int nodesAdd(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    store::Node node;
    node.kind = store::NodeKind::Ssh;
    dispatch::SshOptions ssh;
    std::string db;
    bool local = false;
    bool sawKey = false, sawAgent = false;
    try {
        const ParsedArgs parsed = parseArgs(nodesAddSpec(), args);
        if (parsed.help) {
            out << usageText(nodesAddSpec());
            return kExitOk;
        }
        if (!parsed.operands.empty())
            node.name = parsed.operands.front();
        for (const auto& [flag, value] : parsed.options) {
            if (flag == "--local") {
                local = true;
            } else if (flag == "--host") {
                node.host = value;
            } else if (flag == "--user") {
                node.user = value;
            } else if (flag == "--port") {
                const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), node.port);
                if (ec != std::errc() || end != value.data() + value.size() || node.port < 1 || node.port > 65535)
                    throw UsageError("--port: expected a number in 1..65535, got '" + value + "'");
            } else if (flag == "--key") {
                node.auth = store::SshAuth::KeyFile;
                node.keyFile = value;
                sawKey = true;
            } else if (flag == "--agent") {
                sawAgent = true;
            } else if (flag == "--ssh-config") {
                std::error_code ec;
                if (value != "none" && !std::filesystem::is_regular_file(value, ec))
                    throw UsageError("--ssh-config: " + value + ": no such file");
                ssh.sshConfig = value == "none" ? std::filesystem::path() : std::filesystem::path(value);
            } else if (flag == "--nccl-env") {
                std::pair<std::string, std::string> assignment;
                try {
                    assignment = session::parseEnvAssignment(value);
                } catch (const session::NodeError& e) {
                    throw UsageError(std::string("--nccl-env: ") + e.what());
                }
                if (node.ncclEnv.count(assignment.first) != 0)
                    throw UsageError("--nccl-env: " + assignment.first + " is given twice");
                node.ncclEnv[assignment.first] = assignment.second;
            } else if (flag == "--db") {
                db = value;
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

int nodesRemove(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string name, db;
    try {
        const ParsedArgs parsed = parseArgs(nodesRemoveSpec(), args);
        if (parsed.help) {
            out << usageText(nodesRemoveSpec());
            return kExitOk;
        }
        name = parsed.operands.empty() ? std::string() : parsed.operands.front();
        db = parsed.value("--db").value_or("");
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

int nodesList(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string db;
    bool json = false;
    try {
        const ParsedArgs parsed = parseArgs(nodesListSpec(), args);
        if (parsed.help) {
            out << usageText(nodesListSpec());
            return kExitOk;
        }
        db = parsed.value("--db").value_or("");
        json = parsed.value("--format").value_or("table") == "json";
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
