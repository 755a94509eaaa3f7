// What DeepSpeed allocates for a requested precision (shardwise/estimate/deepspeed_precision.hpp has
// the sources).
#include "shardwise/estimate/deepspeed_precision.hpp"

#include <array>
#include <optional>

namespace shardwise {

namespace {

// MAJOR.MINOR[.PATCH] with an optional local or pre-release suffix; nothing when it does not read so.
std::optional<std::array<int, 3>> release(const std::string& v)
{
    std::array<int, 3> parts { 0, 0, 0 };
    std::size_t i = 0;
    for (std::size_t part = 0; part < parts.size(); ++part) {
        const std::size_t begin = i;
        while (i < v.size() && v[i] >= '0' && v[i] <= '9' && i - begin < 6)
            parts[part] = parts[part] * 10 + (v[i++] - '0');
        if (i == begin)
            return part >= 2 ? std::optional(parts) : std::nullopt;
        if (i >= v.size() || v[i] != '.')
            return part >= 1 ? std::optional(parts) : std::nullopt;
        ++i;
    }
    return parts;
}

bool zeroStage(Strategy s)
{
    return traits(s).family == StrategyFamily::DeepSpeedZero;
}

} // namespace

bool deepSpeedHasBf16Master(const std::string& v)
{
    const auto r = release(v);
    const auto first = release(kDeepSpeedBf16MasterRelease);
    return r && first && *r >= *first;
}

std::string deepSpeedRelease(const FrameworkTarget& target)
{
    if (target.framework == Framework::DeepSpeed)
        return target.effectiveVersion();
    return std::string(traits(Framework::DeepSpeed).defaultVersion);
}

DeepSpeedMaster deepSpeedMaster(const std::string& v, Strategy s, PrecisionPolicy asked)
{
    if (asked == PrecisionPolicy::Bf16Fp32Master)
        return DeepSpeedMaster::Fp32;
    if (s == Strategy::Zero0)
        return DeepSpeedMaster::ModelDtype;
    if (deepSpeedHasBf16Master(v) && !traits(s).offloadsOptimizer)
        return DeepSpeedMaster::Bf16;
    return DeepSpeedMaster::Fp32;
}

PrecisionPolicy deepSpeedAllocatedPrecision(const std::string& v, Strategy s, PrecisionPolicy asked)
{
    if (!zeroStage(s))
        return asked;
    return deepSpeedMaster(v, s, asked) == DeepSpeedMaster::Fp32 ? PrecisionPolicy::Bf16Fp32Master : asked;
}

std::vector<Strategy> deepSpeedFp32MasterStages(const std::string& v)
{
    std::vector<Strategy> out;
    for (const auto& t : allStrategies())
        if (zeroStage(t.strategy) && t.strategy != Strategy::Zero0
            && deepSpeedMaster(v, t.strategy, PrecisionPolicy::PureBf16) == DeepSpeedMaster::Fp32)
            out.push_back(t.strategy);
    return out;
}

} // namespace shardwise
