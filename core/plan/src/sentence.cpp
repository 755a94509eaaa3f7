#include "internal.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace shardwise::detail {

std::string sentence(const char* format, ...)
{
    char buffer[512];
    va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    if (n < 0)
        return {};
    if (static_cast<std::size_t>(n) < sizeof buffer)
        return std::string(buffer, static_cast<std::size_t>(n));
    std::string long_(static_cast<std::size_t>(n) + 1, '\0');
    va_start(args, format);
    std::vsnprintf(long_.data(), long_.size(), format, args);
    va_end(args);
    long_.resize(static_cast<std::size_t>(n));
    return long_;
}

const std::array<Strategy, kStrategyCount>& byLightness()
{
    static const std::array<Strategy, kStrategyCount> order = [] {
        std::array<StrategyTraits, kStrategyCount> t = allStrategies();
        std::sort(t.begin(), t.end(), [](const StrategyTraits& a, const StrategyTraits& b) {
            return a.sortOrder < b.sortOrder;
        });
        std::array<Strategy, kStrategyCount> out{};
        for (std::size_t i = 0; i < kStrategyCount; ++i)
            out[i] = t[i].strategy;
        return out;
    }();
    return order;
}

std::size_t tableIndex(Strategy s)
{
    const auto& t = allStrategies();
    for (std::size_t i = 0; i < kStrategyCount; ++i)
        if (t[i].strategy == s)
            return i;
    return 0;
}

std::optional<Strategy> lightestFitting(const std::array<Estimate, kStrategyCount>& estimates)
{
    for (Strategy s : byLightness())
        if (estimates[tableIndex(s)].fits())
            return s;
    return std::nullopt;
}

} // namespace shardwise::detail
