#pragma once
// A Calibration from one node's hardware probe (shardwise-runner --probe): measured copy and
// collective bandwidths, CPU AdamW rate, matmul rate and the host's per-layer kernel issue time
// replace the presets' guesses where a probe measures the same quantity. docs/calibration.md lists
// the mapping.

#include "shardwise/estimate/calibration.hpp"
#include "shardwise/protocol/events.hpp"
#include "shardwise/spec/specs.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shardwise::calibrate {

struct ProbeCalibration {
    Calibration calibration;
    std::vector<std::string> applied; // JSON names of the coefficients a probe result set
    // The subset of `applied` that a residual fit keeps as the probe set it (FitOptions::fixed):
    // the per-layer issue time alone. The runs cannot tell it apart from the per-layer kernel time
    // (both are a constant per layer, and only the longer of the two shows in a step), so a fit
    // left free trades one for the other on whatever its runs leave unexplained. Every other figure
    // only starts the fit: the probe measures a copy, an AdamW or a collective alone on a quiet
    // node, while the estimate's coefficient is the rate a step gets beside its other work, which
    // the runs measure (on the H200, a probe's CPU AdamW rate of 3.5e9 parameters/s against 7.2e9
    // fitted to the offload runs of the same binary: bench/results/fidelity-cbe1bee.md).
    // matmul_efficiency is the preset rescaled by the probe's large-GEMM rate, which a model's
    // smaller GEMMs need not reach.
    std::vector<std::string> heldFixed;
};

// The matmul efficiency default was fitted on an H200 whose bf16 8192^3 matmul reached 797 of its
// 989 TFLOP/s through LibTorch C++: a probe's matmul rate scales it by the ratio of the two
// fractions of the data-sheet peak.
inline constexpr double kReferenceMatmulFraction = 797.0 / 989.0;

// The bus bandwidth (GB/s, nccl-tests convention) a probe's collectives reached: the slowest of
// all_gather, reduce_scatter and all_reduce, each at the largest size measured; nullopt without any.
// calibrationFromProbe sets the link's bus efficiency from it; a probe across nodes
// (session::probeNetwork) measures the network's with it.
std::optional<double> collectiveBusGBps(const std::vector<protocol::ProbeResult>& results);

ProbeCalibration calibrationFromProbe(const std::vector<protocol::ProbeResult>& results, const GpuSpec& gpu,
                                      Interconnect link, const Calibration& base = {});

} // namespace shardwise::calibrate
