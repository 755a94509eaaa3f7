#include "shardwise/protocol/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace shardwise::stats {

double percentile(std::span<const double> values, double p)
{
    if (values.empty())
        throw std::invalid_argument("percentile of an empty sample");
    if (!(p >= 0.0 && p <= 100.0))
        throw std::invalid_argument("percentile must be in [0, 100]");
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(rank));
    const auto hi = std::min(lo + 1, sorted.size() - 1);
    const double frac = rank - static_cast<double>(lo);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double median(std::span<const double> values)
{
    return percentile(values, 50.0);
}

double mean(std::span<const double> values)
{
    if (values.empty())
        throw std::invalid_argument("mean of an empty sample");
    return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

} // namespace shardwise::stats
