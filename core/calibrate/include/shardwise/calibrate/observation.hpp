#pragma once
// A measured run reduced to what calibration compares with a prediction, and the comparison itself:
// predicted against measured tokens/s and peak allocated bytes, and the fit verdict against whether
// the run ran out of memory.

#include "shardwise/estimate/estimate.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shardwise::calibrate {

struct Observation {
    EstimateInput input; // the run's model, GPU, cluster and training setup
    Strategy strategy = Strategy::Zero0;
    bool oom = false;                         // the run ran out of device memory
    std::optional<double> tokensPerS;         // measured, all ranks
    std::optional<double> peakAllocatedBytes; // measured, per rank (the largest)
    std::optional<double> peakReservedBytes;
    // Device memory used outside the caching allocator (CUDA context, NCCL): total - free - reserved
    // as the runner sampled it, when it did.
    std::optional<double> runtimeContextBytes;
    std::string label; // how reports name it, e.g. "run 12" or "qwen2.5-3b zero3 seq 2048"
    // A rehearsal of one rank of world N (RunConfig::rehearseWorld): N, else 0. `input` is then world
    // N's (applyRehearsal). Its memory is that rank's and informs the memory coefficients; its steps ran
    // without communication, so it never has tokensPerS and never informs a throughput coefficient.
    int rehearsedWorld = 0;

    bool rehearsal() const { return rehearsedWorld > 0; }
};

// Relative error of a prediction: (predicted - measured) / measured.
double relativeError(double predicted, double measured);

struct Comparison {
    std::string label;
    Strategy strategy = Strategy::Zero0;
    bool measuredOom = false;
    // It reported tokens/s, or it is a rehearsal that did not run out of memory (a run that failed
    // otherwise is neither).
    bool measuredCompleted = false;
    int rehearsedWorld = 0; // the observation's: predictedTokensPerS is then world N's, and nothing measured
                            // compares with it (measuredTokensPerS and tokensError stay empty)
    bool predictedFits = false;
    double predictedTokensPerS = 0;
    double predictedPeakBytes = 0; // allocated, comparable with the runner's peak_allocated
    std::optional<double> measuredTokensPerS;
    std::optional<double> measuredPeakBytes;
    std::optional<double> tokensError; // relative; only when measured
    std::optional<double> peakError;

    // The predicted tokens/s a face shows beside the measurement: none for a rehearsal, whose world-N
    // throughput has no measurement to stand beside (and rests on a topology the rehearsal lacks).
    std::optional<double> comparableTokensPerS() const
    {
        return rehearsedWorld > 0 ? std::nullopt : std::optional<double>(predictedTokensPerS);
    }

    // An OOM predicted as "fits", or a completed run predicted as "does not fit".
    bool verdictWrong() const { return (measuredOom && predictedFits) || (measuredCompleted && !predictedFits); }
};

Comparison compare(const Observation& o, const Calibration& c);

// Median and worst absolute relative error of a set of comparisons.
struct ErrorSummary {
    int count = 0;
    double medianAbs = 0;
    double worstAbs = 0;
    std::string worstLabel;
};
ErrorSummary summarizeTokens(const std::vector<Comparison>& comparisons);
ErrorSummary summarizePeak(const std::vector<Comparison>& comparisons);

} // namespace shardwise::calibrate
