#pragma once
// The estimate tests' input: a preset model on a preset GPU, one node.
#include "shardwise/estimate/estimate.hpp"
#include "shardwise/spec/presets.hpp"

inline shardwise::EstimateInput input(const char* model, const char* gpu, int gpusPerNode = 1,
                                      shardwise::Interconnect link = shardwise::Interconnect::NvLink)
{
    shardwise::EstimateInput in;
    in.model = *shardwise::PresetCatalog::builtin().findModel(model);
    in.gpu = *shardwise::PresetCatalog::builtin().findGpu(gpu);
    in.cluster.gpusPerNode = gpusPerNode;
    in.cluster.intraNode = link;
    return in;
}
