#include "shardwise/calibrate/observation.hpp"

#include <algorithm>
#include <cmath>

namespace shardwise::calibrate {

double relativeError(double predicted, double measured)
{
    return (predicted - measured) / measured;
}

Comparison compare(const Observation& o, const Calibration& c)
{
    const Estimate e = estimate(o.input, o.strategy, c);
    Comparison r;
    r.label = o.label;
    r.strategy = o.strategy;
    r.measuredOom = o.oom;
    r.rehearsedWorld = o.rehearsedWorld;
    const bool rehearsal = o.rehearsedWorld > 0;
    // A rehearsal's throughput is compute-only: never a measurement of the world it stands for.
    const bool measuredTokens = !rehearsal && !o.oom && o.tokensPerS && *o.tokensPerS > 0;
    r.measuredCompleted = measuredTokens || (rehearsal && !o.oom);
    r.predictedFits = e.fits();
    r.predictedTokensPerS = e.throughput.tokensPerS;
    r.predictedPeakBytes = e.memory.allocatedPeak();
    if (measuredTokens) {
        r.measuredTokensPerS = o.tokensPerS;
        r.tokensError = relativeError(r.predictedTokensPerS, *o.tokensPerS);
    }
    if (!o.oom && o.peakAllocatedBytes && *o.peakAllocatedBytes > 0) {
        r.measuredPeakBytes = o.peakAllocatedBytes;
        r.peakError = relativeError(r.predictedPeakBytes, *o.peakAllocatedBytes);
    }
    return r;
}

namespace {

ErrorSummary summarize(const std::vector<Comparison>& comparisons, std::optional<double> Comparison::*error)
{
    ErrorSummary s;
    std::vector<double> abs;
    for (const Comparison& c : comparisons) {
        if (!(c.*error))
            continue;
        const double a = std::fabs(*(c.*error));
        abs.push_back(a);
        if (a >= s.worstAbs) {
            s.worstAbs = a;
            s.worstLabel = c.label;
        }
    }
    s.count = static_cast<int>(abs.size());
    if (abs.empty())
        return s;
    std::sort(abs.begin(), abs.end());
    const std::size_t n = abs.size();
    s.medianAbs = n % 2 ? abs[n / 2] : 0.5 * (abs[n / 2 - 1] + abs[n / 2]);
    return s;
}

} // namespace

ErrorSummary summarizeTokens(const std::vector<Comparison>& comparisons)
{
    return summarize(comparisons, &Comparison::tokensError);
}

ErrorSummary summarizePeak(const std::vector<Comparison>& comparisons)
{
    return summarize(comparisons, &Comparison::peakError);
}

} // namespace shardwise::calibrate
