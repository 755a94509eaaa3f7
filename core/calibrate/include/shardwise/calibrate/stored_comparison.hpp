#pragma once
// Predicted against measured for the finished runs of the store, per GPU preset: for every completed
// or out-of-memory run with a stored configuration, the presets' prediction, the prediction with the
// calibration the store supports for that GPU (calibrationFromStore) and the prediction stored when
// the run was planned. `shardwise-cli compare` prints it; the desktop app's Compare page shows it.

#include "shardwise/calibrate/from_store.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardwise::calibrate {

struct StoredRunComparison {
    std::int64_t runId = 0;
    Observation observation;
    Comparison presets;    // uncalibrated coefficients
    Comparison calibrated; // the section's calibration
    std::optional<double> plannedTokensPerS;
    std::optional<double> plannedPeakBytes;
};

struct GpuComparison {
    std::string gpu; // preset id
    StoredCalibration calibration;
    std::vector<StoredRunComparison> rows;
};

struct ComparisonFilter {
    std::string gpu;   // preset id; "" = every preset the stored runs name
    std::string model; // model id; "" = any
    std::optional<Strategy> strategy;
    std::string node; // whose probe to calibrate from; "" = the newest of any node with the GPU
};

// One section per GPU preset with at least one matching run, in preset-id order. The calibration is
// fitted over every stored run of the GPU, not only the filtered ones, so narrowing the view never
// changes the coefficients. A GPU id the catalog does not know yields no section.
std::vector<GpuComparison> compareStoredRuns(const store::Database& db, const ComparisonFilter& filter = {});

} // namespace shardwise::calibrate
