#pragma once
// The network between nodes as a probe across them measured it (session::probeNetwork: shardwise-cli
// nodes probe A --with B, the Nodes page's Probe network): the bus bandwidth its collectives reached,
// and the nominal per-node figure (ClusterSpec::interNodeGBps) a plan takes for that network. The CLI,
// the Nodes page and the Plan page's network list all read these figures from here.

#include "shardwise/estimate/calibration.hpp"
#include "shardwise/protocol/events.hpp"
#include "shardwise/store/database.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardwise::calibrate {

struct MeasuredNetwork {
    std::string name;               // the nodes' names joined by '+', as the probes are stored
    std::vector<std::string> nodes; // the names, in rank order
    int ranks = 0;                  // ranks of the probe, over all its nodes
    double busGBps = 0;             // collectiveBusGBps of rank 0's probe
    // The nominal bandwidth per node per direction that plans as this network: the estimate takes
    // inter_node_bus_efficiency of ClusterSpec::interNodeGBps as the bus bandwidth across nodes
    // (rounded to 0.1 GB/s, the precision every face plans with).
    double interNodeGBps = 0;
    double measuredAt = 0;    // Unix seconds
    std::int64_t probeId = 0; // rank 0's stored probe; 0 before storing
};

// The nodes a network probe's name joins ("a+b" -> a, b); empty when `name` names a single node.
std::vector<std::string> networkNodes(const std::string& name);

// From one probing's events (rank 0's figures): nullopt when no collective was measured.
std::optional<MeasuredNetwork> measuredNetwork(const std::string& name, const std::vector<protocol::ProbeEvent>& events,
                                               const Calibration& calibration = {});

// The newest measurement of every network the store holds a probe of, newest first.
std::vector<MeasuredNetwork> measuredNetworks(const store::Database& db, const Calibration& calibration = {});

} // namespace shardwise::calibrate
