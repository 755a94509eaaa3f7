#include "shardwise/store/nodes.hpp"

#include "shardwise/store/schema.hpp"

#include "statement.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <set>

namespace shardwise::store {

using detail::Statement;

namespace {

constexpr std::string_view kNodeColumns = R"sql(SELECT id, name, kind, host, port, user_name, auth, key_file,
    facts_json, host_key_fingerprint, created_at, updated_at)sql";

// Files older than kNodeNcclEnvSchema keep no NCCL environment: it reads as none.
std::string nodeQuery(const Database& db)
{
    return std::string(kNodeColumns) + (db.schemaVersion() >= kNodeNcclEnvSchema ? ", nccl_env_json" : ", '{}'")
        + " FROM nodes";
}

std::map<std::string, std::string> ncclEnvFromJson(const std::string& text)
{
    std::map<std::string, std::string> env;
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_object())
        for (const auto& [k, v] : j.items())
            if (v.is_string())
                env[k] = v.get<std::string>();
    return env;
}

void writeNcclEnv(Database& db, std::int64_t id, const std::map<std::string, std::string>& env)
{
    if (db.schemaVersion() < kNodeNcclEnvSchema) {
        if (!env.empty())
            throw StoreError("node.nccl_env: this store file (schema " + std::to_string(db.schemaVersion())
                             + ") is older than the NCCL settings; open it writable once to upgrade it");
        return;
    }
    Statement s(db.handle(), "UPDATE nodes SET nccl_env_json = ?1 WHERE id = ?2");
    s.bind(1, nlohmann::json(env).dump()).bind(2, id).run();
}

Node readNode(const Statement& s)
{
    Node n;
    n.id = s.integer(0);
    n.name = s.text(1);
    n.kind = s.text(2) == "ssh" ? NodeKind::Ssh : NodeKind::Local;
    n.host = s.text(3);
    n.port = static_cast<int>(s.integer(4));
    n.user = s.text(5);
    n.auth = s.text(6) == "key_file" ? SshAuth::KeyFile : SshAuth::Agent;
    n.keyFile = s.text(7);
    n.facts = nlohmann::json::parse(s.text(8), nullptr, false);
    n.hostKeyFingerprint = s.text(9);
    n.createdAt = s.real(10);
    n.updatedAt = s.real(11);
    n.ncclEnv = ncclEnvFromJson(s.text(12));
    return n;
}

void requireNodeChanged(sqlite3* db, std::int64_t id)
{
    if (detail::changes(db) != 1)
        throw StoreError("no node with id " + std::to_string(id));
}

// Turns the UNIQUE violation on nodes.name into a message about the name.
[[noreturn]] void rethrowNodeWrite(const Node& node, const StoreError& e)
{
    if (std::string(e.what()).find("UNIQUE constraint failed: nodes.name") != std::string::npos)
        throw StoreError("node.name: a node named '" + node.name + "' already exists");
    throw e;
}

void bindNode(Statement& s, const Node& n)
{
    s.bind(1, n.name)
        .bind(2, nodeKindId(n.kind))
        .bind(3, n.host)
        .bind(4, n.port)
        .bind(5, n.user)
        .bind(6, sshAuthId(n.auth))
        .bind(7, n.keyFile)
        .bind(8, n.facts.is_null() ? std::string("{}") : n.facts.dump())
        .bind(9, n.hostKeyFingerprint);
}

} // namespace

std::string_view nodeKindId(NodeKind k)
{
    return k == NodeKind::Ssh ? "ssh" : "local";
}
std::string_view sshAuthId(SshAuth a)
{
    return a == SshAuth::KeyFile ? "key_file" : "agent";
}

void validateNode(const Node& node)
{
    if (node.name.empty())
        throw StoreError("node.name: must not be empty");
    // Probes of the network between nodes are stored under the nodes' names joined by '+'.
    if (node.name.find('+') != std::string::npos)
        throw StoreError("node.name: '" + node.name
                         + "' contains '+', which joins node names in the name of a network probe");
    if (node.port < 1 || node.port > 65535)
        throw StoreError("node.port: must be in [1, 65535], got " + std::to_string(node.port));
    if (node.kind == NodeKind::Ssh) {
        if (node.host.empty())
            throw StoreError("node.host: an SSH node needs a host name or address");
        if (node.auth == SshAuth::KeyFile && node.keyFile.empty())
            throw StoreError("node.key_file: key-file authentication needs the path of a private key");
    }
    static const std::set<std::string> launcherOwned {
        "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "SHARDWISE_LAUNCHER"
    };
    for (const auto& [name, value] : node.ncclEnv) {
        const bool wellFormed
            = !name.empty() && !(name[0] >= '0' && name[0] <= '9') && std::all_of(name.begin(), name.end(), [](char c) {
                  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
              });
        if (!wellFormed)
            throw StoreError("node.nccl_env: '" + name
                             + "' is not an environment variable name (letters, digits and underscores)");
        if (launcherOwned.count(name) != 0)
            throw StoreError("node.nccl_env: " + name + " is set by the launcher for each rank, not by a node setting");
        if (value.find('\0') != std::string::npos || value.find('\n') != std::string::npos)
            throw StoreError("node.nccl_env: the value of " + name + " must be one line");
    }
}

std::int64_t addNode(Database& db, const Node& node)
{
    validateNode(node);
    const double now = currentUnixTime();
    WriteTransaction tx(db);
    Statement s(db.handle(), R"sql(INSERT INTO nodes (name, kind, host, port, user_name, auth, key_file, facts_json,
                                                      host_key_fingerprint, created_at, updated_at)
                                   VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10))sql");
    bindNode(s, node);
    s.bind(10, now);
    try {
        s.run();
    } catch (const StoreError& e) {
        rethrowNodeWrite(node, e);
    }
    const std::int64_t id = detail::lastInsertId(db.handle());
    writeNcclEnv(db, id, node.ncclEnv);
    tx.commit();
    return id;
}

void updateNode(Database& db, const Node& node)
{
    validateNode(node);
    WriteTransaction tx(db);
    Statement s(db.handle(), R"sql(UPDATE nodes SET name = ?1, kind = ?2, host = ?3, port = ?4, user_name = ?5,
                                       auth = ?6, key_file = ?7, facts_json = ?8, host_key_fingerprint = ?9,
                                       updated_at = ?10 WHERE id = ?11)sql");
    bindNode(s, node);
    s.bind(10, currentUnixTime()).bind(11, node.id);
    try {
        s.run();
    } catch (const StoreError& e) {
        rethrowNodeWrite(node, e);
    }
    requireNodeChanged(db.handle(), node.id);
    writeNcclEnv(db, node.id, node.ncclEnv);
    tx.commit();
}

void setNodeNcclEnv(Database& db, std::int64_t id, const std::map<std::string, std::string>& env)
{
    std::optional<Node> node = findNode(db, id);
    if (!node)
        throw StoreError("no node with id " + std::to_string(id));
    node->ncclEnv = env;
    validateNode(*node);
    WriteTransaction tx(db);
    writeNcclEnv(db, id, env);
    Statement s(db.handle(), "UPDATE nodes SET updated_at = ?1 WHERE id = ?2");
    s.bind(1, currentUnixTime()).bind(2, id).run();
    tx.commit();
}

void setNodeFacts(Database& db, std::int64_t id, const nlohmann::json& facts)
{
    WriteTransaction tx(db);
    Statement s(db.handle(), "UPDATE nodes SET facts_json = ?1, updated_at = ?2 WHERE id = ?3");
    s.bind(1, facts.dump()).bind(2, currentUnixTime()).bind(3, id).run();
    requireNodeChanged(db.handle(), id);
    tx.commit();
}

void acceptHostKey(Database& db, std::int64_t id, const std::string& fingerprint)
{
    if (fingerprint.empty())
        throw StoreError("node.host_key_fingerprint: must not be empty");
    WriteTransaction tx(db);
    Statement s(db.handle(), "UPDATE nodes SET host_key_fingerprint = ?1, updated_at = ?2 WHERE id = ?3");
    s.bind(1, fingerprint).bind(2, currentUnixTime()).bind(3, id).run();
    requireNodeChanged(db.handle(), id);
    tx.commit();
}

bool removeNode(Database& db, std::int64_t id)
{
    WriteTransaction tx(db);
    Statement s(db.handle(), "DELETE FROM nodes WHERE id = ?1");
    s.bind(1, id).run();
    const bool removed = detail::changes(db.handle()) == 1;
    tx.commit();
    return removed;
}

std::vector<Node> listNodes(const Database& db)
{
    Statement s(db.handle(), nodeQuery(db) + " ORDER BY name COLLATE NOCASE");
    std::vector<Node> nodes;
    while (s.step())
        nodes.push_back(readNode(s));
    return nodes;
}

std::optional<Node> findNode(const Database& db, std::int64_t id)
{
    Statement s(db.handle(), nodeQuery(db) + " WHERE id = ?1");
    s.bind(1, id);
    if (!s.step())
        return std::nullopt;
    return readNode(s);
}

std::optional<Node> findNodeByName(const Database& db, const std::string& name)
{
    Statement s(db.handle(), nodeQuery(db) + " WHERE name = ?1");
    s.bind(1, name);
    if (!s.step())
        return std::nullopt;
    return readNode(s);
}

} // namespace shardwise::store
