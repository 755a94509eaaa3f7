#include "shardwise/interruption/checkpoint_interval.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace shardwise::interruption {

namespace {

void require(bool ok, const std::string& field, const std::string& why)
{
    if (!ok)
        throw std::invalid_argument(field + ": " + why);
}

} // namespace

double youngInterval(double saveS, double mtbfS)
{
    return std::sqrt(2.0 * saveS * mtbfS);
}

double dalyInterval(double saveS, double mtbfS)
{
    if (saveS >= 2.0 * mtbfS)
        return mtbfS;
    const double x = saveS / (2.0 * mtbfS);
    return std::sqrt(2.0 * saveS * mtbfS) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - saveS;
}

double expectedOverheadFraction(double tauS, double saveS, double restartS, double mtbfS)
{
    // T_w / T_s = (M / tau) e^{R/M} (e^{(tau + C)/M} - 1); expm1 keeps precision when tau + C << M.
    return mtbfS / tauS * std::exp(restartS / mtbfS) * std::expm1((tauS + saveS) / mtbfS) - 1.0;
}

double expectedRecompute(double tauS, double saveS, double mtbfS)
{
    const double segment = tauS + saveS;
    return mtbfS - segment / std::expm1(segment / mtbfS);
}

CheckpointRecommendation recommendCheckpointInterval(const InterruptionInput& in)
{
    require(std::isfinite(in.interruptionsPerHour) && in.interruptionsPerHour > 0, "interruptions_per_hour",
            "must be > 0 (interruptions expected per hour)");
    require(std::isfinite(in.stepTimeS) && in.stepTimeS > 0, "step_time_s", "must be > 0 s");
    require(std::isfinite(in.checkpointSaveS) && in.checkpointSaveS > 0, "checkpoint_save_s", "must be > 0 s");
    require(std::isfinite(in.restartS) && in.restartS >= 0, "restart_s", "must be >= 0 s");

    CheckpointRecommendation r;
    const double m = 3600.0 / in.interruptionsPerHour;
    r.meanTimeBetweenInterruptionsS = m;
    r.youngIntervalS = youngInterval(in.checkpointSaveS, m);
    r.dalyIntervalS = dalyInterval(in.checkpointSaveS, m);

    // The optimum lies between two whole step counts; take the one with the lower expected overhead.
    const double steps = r.dalyIntervalS / in.stepTimeS;
    const int below = std::max(1, static_cast<int>(std::floor(steps)));
    const int above = std::max(1, static_cast<int>(std::ceil(steps)));
    const auto overheadAt
        = [&](int n) { return expectedOverheadFraction(n * in.stepTimeS, in.checkpointSaveS, in.restartS, m); };
    r.intervalSteps = overheadAt(above) < overheadAt(below) ? above : below;
    r.intervalS = r.intervalSteps * in.stepTimeS;
    r.expectedRecomputeS = expectedRecompute(r.intervalS, in.checkpointSaveS, m);
    r.expectedLostPerInterruptionS = r.expectedRecomputeS + in.restartS;
    r.expectedOverheadFraction = overheadAt(r.intervalSteps);
    r.saveOverheadFraction = in.checkpointSaveS / r.intervalS;
    return r;
}

} // namespace shardwise::interruption
