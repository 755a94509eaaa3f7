#include "shardwise/frameworks/network.hpp"

#include <cmath>

namespace shardwise::frameworks {

const std::vector<InterNodePreset>& interNodePresets()
{
    // Gb/s per NIC x NICs / 8 bits = GB/s per node per direction.
    static const std::vector<InterNodePreset> presets {
        { "ib-8x400", "8 x 400 Gb/s InfiniBand (NDR)", 400.0 },
        { "ib-8x200", "8 x 200 Gb/s InfiniBand (HDR)", 200.0 },
        { "ib-4x200", "4 x 200 Gb/s InfiniBand (HDR)", 100.0 },
        { "400gbe", "400 Gb/s Ethernet", 50.0 },
        { "100gbe", "100 Gb/s Ethernet", 12.5 },
    };
    return presets;
}

std::optional<InterNodePreset> interNodePreset(std::string_view id)
{
    for (const auto& p : interNodePresets())
        if (p.id == id)
            return p;
    return std::nullopt;
}

std::string interNodePresetIdList()
{
    std::string out;
    for (const auto& p : interNodePresets())
        out += (out.empty() ? "" : ", ") + std::string(p.id);
    return out;
}

std::optional<InterNodePreset> interNodePresetFor(double gbps)
{
    for (const auto& p : interNodePresets())
        if (std::abs(p.gbps - gbps) < 1e-9)
            return p;
    return std::nullopt;
}

} // namespace shardwise::frameworks
