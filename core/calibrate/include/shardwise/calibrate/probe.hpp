#pragma once
// A Calibration from one node's hardware probe (shardwise-runner --probe): measured copy and
// collective bandwidths, CPU AdamW rate, matmul rate and the host's per-layer kernel issue time
// replace the presets' guesses where a probe measures the same quantity. docs/calibration.md lists
// the mapping.

#include "shardwise/estimate/calibration.hpp"
#include "shardwise/protocol/events.hpp"
#include "shardwise/spec/specs.hpp"

#include <string>
#include <vector>

namespace shardwise::calibrate {

struct ProbeCalibration {
    Calibration calibration;
    std::vector<std::string> applied; // JSON names of the coefficients a probe result set
    // The subset of `applied` that is a measured figure itself, which a residual fit keeps
    // (FitOptions::fixed). matmul_efficiency is not in it: it is the preset rescaled by the probe's
    // large-GEMM rate, an estimate of what a model's smaller GEMMs reach that its runs measure better.
    std::vector<std::string> measured;
};

// The matmul efficiency default was fitted on an H200 whose bf16 8192^3 matmul reached 797 of its
// 989 TFLOP/s through LibTorch C++: a probe's matmul rate scales it by the ratio of the two
// fractions of the data-sheet peak.
inline constexpr double kReferenceMatmulFraction = 797.0 / 989.0;

ProbeCalibration calibrationFromProbe(const std::vector<protocol::ProbeResult>& results, const GpuSpec& gpu,
                                      Interconnect link, const Calibration& base = {});

} // namespace shardwise::calibrate
