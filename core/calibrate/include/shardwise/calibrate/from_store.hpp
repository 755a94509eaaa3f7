#pragma once
// Calibration from what the run store holds: the newest hardware probe of a node (the coefficients it
// measured stay as measured), then the residuals of the finished runs on the same GPU type (each
// strategy's runs inform the coefficients of its schedule). Every prediction made with it can say where its calibration
// came from and how far to trust it.

#include "shardwise/calibrate/fit.hpp"
#include "shardwise/spec/message.hpp"
#include "shardwise/store/database.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardwise::calibrate {

struct StoredRunObservation {
    std::int64_t runId = 0;
    Observation observation;
    // Measured or imported by the user; false for the example runs the app ships and published
    // results (published::isReadOnlyRun), which calibrationFromStore does not fit to.
    bool ownRun = true;
};

// Completed runs (tokens/s and peak) and runs that ran out of memory on `gpu` (the store's GPU
// filter: preset id, or part of the device name), with their stored configuration; runs without a
// configuration (imported tables) are left out. A rehearsal of one rank of world N is observed as that
// rank at world N with its memory only (Observation::rehearsedWorld): fitCalibration fits the memory
// coefficients to it and no throughput coefficient.
std::vector<StoredRunObservation> observationsFromStore(const store::Database& db, const GpuSpec& gpu);

struct StoredCalibration {
    Calibration calibration;
    std::string source;    // "presets" | "probe of node N" | "12 runs" | "probe of node N + 12 runs"
    Message sourceMessage; // the same as a message (calibrate.source_*); source is its English
    std::optional<std::int64_t> probeId;
    int runs = 0; // runs the fit used (completed, with tokens/s)
    std::vector<std::string> fitted;
    ErrorSummary tokens; // residuals over those runs after the fit
    ErrorSummary peak;
    double confidence = 0; // 0..1, see calibrate::confidence
    std::string confidenceLabel;
};

// `node`: whose probe to start from ("" = the newest probe of any node with this GPU preset).
StoredCalibration calibrationFromStore(const store::Database& db, const GpuSpec& gpu, Interconnect link,
                                       const std::string& node = {});

} // namespace shardwise::calibrate
