#pragma once
// What one checkpoint save costs when it has not been measured yet: the bytes the busiest node must
// write divided by the storage write bandwidth a node gets. A measured save time (the runner's
// checkpoint events, once they exist) replaces this estimate.

#include "shardwise/spec/specs.hpp"

namespace shardwise::interruption {

// A conservative figure for one node writing to network storage (one persistent disk or a
// Cloud Storage FUSE mount); measure yours and pass it.
inline constexpr double kDefaultCheckpointWriteGBps = 1.0;

struct SaveCostEstimate {
    double bytesPerRank = 0;     // parameters + optimizer state one rank holds (device and host)
    double bytesBusiestNode = 0; // what the node holding rank 0 writes
    double writeGBps = 0;        // per node, decimal GB/s
    double saveS = 0;            // bytesBusiestNode / write bandwidth
};

// The checkpoint holds parameters and optimizer state, not gradients (they are rebuilt by the next
// step). A state part sharded across ranks is written by every rank, each its shard; a part every
// rank holds in full (zero0's everything, zero1/zero2's parameters) is written once, by rank 0, so
// the node of rank 0 is always the busiest. Throws std::invalid_argument for a bandwidth <= 0.
SaveCostEstimate estimateSaveCost(Strategy strategy, double parameterCount, PrecisionPolicy precision,
                                  const ClusterSpec& cluster, double writeGBps = kDefaultCheckpointWriteGBps);

} // namespace shardwise::interruption
