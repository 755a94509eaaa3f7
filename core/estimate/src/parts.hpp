#pragma once
// The estimate's two halves, shared by estimate.cpp; not part of the public API.

#include "shardwise/estimate/estimate.hpp"

namespace shardwise::detail {

// Bytes per element of the compute copies: parameters, gradients and collectives move bf16.
inline constexpr double kBf16Bytes = 2.0;

// Bytes per parameter of the optimizer state: bf16 Adam m and v (pure bf16), or fp32 master + m + v.
inline double optimizerBytesPerParam(PrecisionPolicy p) { return p == PrecisionPolicy::PureBf16 ? 4.0 : 12.0; }

// The largest FSDP2 unit (one decoder layer, or the root: embedding + untied head + final norm).
inline double largestUnitParams(const ModelSpec& m)
{
    const auto layer = static_cast<double>(m.layerParams());
    const auto root = static_cast<double>(m.rootParams());
    return layer > root ? layer : root;
}

// Units the runner groups parameters into: one per decoder layer plus the root unit (RUNNER.md).
inline int unitCount(const ModelSpec& m) { return static_cast<int>(m.layers) + 1; }

double layerActivationBytesPerToken(const EstimateInput& in);

MemoryBreakdown memoryBreakdown(const EstimateInput& in, Strategy s, const Calibration& c);
ThroughputEstimate throughput(const EstimateInput& in, Strategy s, const Calibration& c);

} // namespace shardwise::detail
