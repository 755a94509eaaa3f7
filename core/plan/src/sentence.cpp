#include "internal.hpp"

#include <algorithm>
#include <cstdio>

namespace shardwise::detail {

std::string fixedWithLibc(double value, int decimals)
{
    char buffer[512];
    const int n = std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    if (n < 0)
        return {};
    if (static_cast<std::size_t>(n) < sizeof buffer)
        return std::string(buffer, static_cast<std::size_t>(n));
    std::string long_(static_cast<std::size_t>(n) + 1, '\0');
    std::snprintf(long_.data(), long_.size(), "%.*f", decimals, value);
    long_.resize(static_cast<std::size_t>(n));
    return long_;
}

const std::array<Strategy, kStrategyCount>& byLightness()
{
    static const std::array<Strategy, kStrategyCount> order = [] {
        std::array<StrategyTraits, kStrategyCount> t = allStrategies();
        std::sort(t.begin(), t.end(),
                  [](const StrategyTraits& a, const StrategyTraits& b) { return a.sortOrder < b.sortOrder; });
        std::array<Strategy, kStrategyCount> out {};
        for (std::size_t i = 0; i < kStrategyCount; ++i)
            out[i] = t[i].strategy;
        return out;
    }();
    return order;
}

std::size_t tableIndex(Strategy s)
{
    // The enum's values are not the table's positions by contract, so the table is inverted once.
    static const std::array<std::size_t, kStrategyCount> index = [] {
        std::array<std::size_t, kStrategyCount> out {};
        const auto& t = allStrategies();
        for (std::size_t i = 0; i < kStrategyCount; ++i)
            out[static_cast<std::size_t>(t[i].strategy)] = i;
        return out;
    }();
    return index[static_cast<std::size_t>(s)];
}

std::optional<Strategy> lightestFitting(const std::array<Estimate, kStrategyCount>& estimates)
{
    for (Strategy s : byLightness())
        if (estimates[tableIndex(s)].fits())
            return s;
    return std::nullopt;
}

} // namespace shardwise::detail
