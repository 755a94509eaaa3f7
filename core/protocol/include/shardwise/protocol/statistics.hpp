#pragma once
// Order statistics used for step times: median and linear-interpolated percentiles.

#include <span>
#include <vector>

namespace shardwise::stats {

// Percentile p in [0, 100] with linear interpolation between closest ranks (the "type 7" estimator
// of Hyndman & Fan, numpy's default). Throws std::invalid_argument on empty input or p out of range.
double percentile(std::span<const double> values, double p);
double median(std::span<const double> values);
double mean(std::span<const double> values);

} // namespace shardwise::stats
