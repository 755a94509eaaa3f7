#pragma once
// Named inter-node networks, so a plan can say "ib-8x400" instead of a bandwidth figure. Figures are
// per node per direction in GB/s, ClusterSpec::interNodeGBps's unit: a node with eight 400 Gb/s
// InfiniBand NICs (one per GPU, as on DGX H100/H200) moves 8 x 400 / 8 = 400 GB/s each way.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise::frameworks {

struct InterNodePreset {
    std::string_view id;    // "ib-8x400"
    std::string_view label; // "8 x 400 Gb/s InfiniBand"
    double gbps = 0;        // GB/s per node per direction
};

const std::vector<InterNodePreset>& interNodePresets();
std::optional<InterNodePreset> interNodePreset(std::string_view id);
std::string interNodePresetIdList(); // "ib-8x400, ib-8x200, ..."
// The preset whose figure is `gbps` (within 1e-9), if any: how a stored figure is shown by name.
std::optional<InterNodePreset> interNodePresetFor(double gbps);

} // namespace shardwise::frameworks
