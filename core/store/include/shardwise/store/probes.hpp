#pragma once
// Hardware probe results per node (shardwise-runner --probe), kept so the planner can calibrate
// from them: the whole probe event as the runner reported it, indexed by node and GPU.

#include "shardwise/protocol/events.hpp"
#include "shardwise/store/database.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardwise::store {

struct StoredProbe {
    std::int64_t id = 0;   // 0 until stored
    std::string node;      // the node's name in the store; empty for "where the app runs"
    std::string gpuId;     // preset id of the GPU probed, may be empty
    double measuredAt = 0; // Unix seconds; the event's time when 0
    protocol::ProbeEvent event;
};

// Returns the new id. Throws StoreError naming the field for a probe without results.
std::int64_t saveProbe(Database& db, const StoredProbe& probe);
// Every rank's probe of one probing in one transaction: all of them are stored or none is (a probe
// of some ranks only would calibrate from an incomplete picture). Returns the ids in `probes` order.
std::vector<std::int64_t> saveProbes(Database& db, const std::vector<StoredProbe>& probes);
// Newest first; only those of `node` when given.
std::vector<StoredProbe> listProbes(const Database& db, const std::optional<std::string>& node = std::nullopt);
// The newest probe of a node (or of any node with that GPU preset when `node` is empty).
std::optional<StoredProbe> latestProbe(const Database& db, const std::string& node, const std::string& gpuId = {});

} // namespace shardwise::store
