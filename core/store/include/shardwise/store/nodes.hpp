#pragma once
// The machines runs are dispatched to: this machine, or SSH-reachable nodes with their credentials'
// location (never the secrets themselves), the host key the user accepted and the GPU/software facts
// discovered on them.

#include "shardwise/store/database.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise::store {

enum class NodeKind { Local, Ssh };
enum class SshAuth { Agent, KeyFile };

std::string_view nodeKindId(NodeKind k); // "local" | "ssh"
std::string_view sshAuthId(SshAuth a);   // "agent" | "key_file"

struct Node {
    std::int64_t id = 0; // 0 until stored
    std::string name;
    NodeKind kind = NodeKind::Local;
    std::string host;
    int port = 22;
    std::string user;
    SshAuth auth = SshAuth::Agent;
    std::string keyFile;                 // path to the private key when auth is KeyFile
    nlohmann::json facts = nlohmann::json::object(); // discovered GPUs, driver, CUDA, NCCL, ...
    std::string hostKeyFingerprint;      // accepted by the user; empty = not yet accepted
    double createdAt = 0;
    double updatedAt = 0;
};

// Throws StoreError naming the field when the node cannot be stored as it is (empty name, an SSH
// node without host or user, a port out of range, key-file auth without a key file).
void validateNode(const Node& node);

std::int64_t addNode(Database& db, const Node& node);   // returns the new id; names are unique
void updateNode(Database& db, const Node& node);        // by id; facts and fingerprint included
void setNodeFacts(Database& db, std::int64_t id, const nlohmann::json& facts);
void acceptHostKey(Database& db, std::int64_t id, const std::string& fingerprint);
bool removeNode(Database& db, std::int64_t id);         // runs keep the node's name

std::vector<Node> listNodes(const Database& db);        // by name
std::optional<Node> findNode(const Database& db, std::int64_t id);
std::optional<Node> findNodeByName(const Database& db, const std::string& name);

} // namespace shardwise::store
