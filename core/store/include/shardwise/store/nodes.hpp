#pragma once
// The machines runs are dispatched to: this machine, or SSH-reachable nodes with their credentials'
// location (never the secrets themselves), the host key the user accepted and the GPU/software facts
// discovered on them.

#include "shardwise/store/database.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
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
    std::string host; // a name, an address or an alias of the user's ssh client config
    int port = 22;
    std::string user; // empty: the ssh config's User for the host, else the login name
    SshAuth auth = SshAuth::Agent;
    std::string keyFile;                             // path to the private key when auth is KeyFile
    nlohmann::json facts = nlohmann::json::object(); // discovered GPUs, driver, CUDA, NCCL, ...
    std::string hostKeyFingerprint;                  // accepted by the user; empty = not yet accepted
    // Environment variables for NCCL (and its companions, e.g. NCCL_NVLS_ENABLE=0,
    // TORCH_SYMM_MEM_DISABLE_MULTICAST=1) that the node's ranks get: the user's setting, none by default.
    std::map<std::string, std::string> ncclEnv;
    double createdAt = 0;
    double updatedAt = 0;
};

// Throws StoreError naming the field when the node cannot be stored as it is (empty name, an SSH
// node without host, a port out of range, key-file auth without a key file, an NCCL setting whose
// name is not an environment variable name or is one the launcher sets per rank, such as RANK).
void validateNode(const Node& node);

std::int64_t addNode(Database& db, const Node& node); // returns the new id; names are unique
void updateNode(Database& db, const Node& node);      // by id; facts and fingerprint included
void setNodeFacts(Database& db, std::int64_t id, const nlohmann::json& facts);
void setNodeNcclEnv(Database& db, std::int64_t id, const std::map<std::string, std::string>& env);
void acceptHostKey(Database& db, std::int64_t id, const std::string& fingerprint);
bool removeNode(Database& db, std::int64_t id); // runs keep the node's name

std::vector<Node> listNodes(const Database& db); // by name
std::optional<Node> findNode(const Database& db, std::int64_t id);
std::optional<Node> findNodeByName(const Database& db, const std::string& name);

} // namespace shardwise::store
