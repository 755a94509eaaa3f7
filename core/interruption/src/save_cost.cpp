#include "shardwise/interruption/save_cost.hpp"

#include "shardwise/estimate/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace shardwise::interruption {

SaveCostEstimate estimateSaveCost(Strategy strategy, double parameterCount, PrecisionPolicy precision,
                                  const ClusterSpec& cluster, double writeGBps)
{
    if (!(std::isfinite(writeGBps) && writeGBps > 0))
        throw std::invalid_argument("checkpoint_write_gbps: must be > 0 GB/s");
    const protocol::StateBytes s = modelStateBytes(strategy, parameterCount, cluster.worldSize(), precision);
    const StrategyTraits& t = traits(strategy);
    // Offload may keep a host copy of the same parameter shard beside the device one (pure bf16
    // zero3_offload); the checkpoint holds one copy.
    const double params = static_cast<double>(std::max(s.deviceParams, s.hostParams));
    const double optimizer = static_cast<double>(s.deviceOptimizer + s.hostOptimizer);
    const double ranksOnNode = cluster.gpusPerNode;
    SaveCostEstimate e;
    e.bytesPerRank = params + optimizer;
    e.bytesBusiestNode = (t.shardsParameters ? ranksOnNode * params : params)
        + (t.shardsOptimizer ? ranksOnNode * optimizer : optimizer);
    e.writeGBps = writeGBps;
    e.saveS = e.bytesBusiestNode / (writeGBps * 1e9);
    return e;
}

} // namespace shardwise::interruption
