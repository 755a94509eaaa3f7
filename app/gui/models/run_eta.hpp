#pragma once
// How long runs still take, from what is known of them: a running run from its own step times (the
// median step so far times the steps it has left, warm-up and timed), a run not started yet from the
// step time its plan predicted, and the queue as the sum of its runs' estimates. The median, not the
// mean, so one slow first step (allocator growth, first touch) does not stretch the estimate.

#include <QString>

#include <optional>
#include <vector>

namespace shardwise::gui {

struct RunEstimate {
    enum class Kind {
        Estimating, // running, fewer than two steps timed so far
        Known,
        Unknown // not started and nothing predicted its step time
    };
    Kind kind = Kind::Unknown;
    double seconds = 0;     // the time left; meaningful when Known
    bool predicted = false; // from the plan's prediction rather than measured steps

    static RunEstimate estimating() { return { Kind::Estimating, 0, false }; }
    static RunEstimate known(double s, bool fromPrediction = false) { return { Kind::Known, s, fromPrediction }; }
    static RunEstimate unknown() { return { Kind::Unknown, 0, false }; }
};

// The median of `values` (the mean of the middle two for an even count); none for an empty list.
std::optional<double> medianOf(std::vector<double> values);

// A running run that has done `stepsDone` of `totalSteps` steps, whose steps so far took
// `medianStepS` each (median): estimating before two steps are done.
RunEstimate runningEstimate(int stepsDone, int totalSteps, std::optional<double> medianStepS);
// A run not started yet: all its steps at the predicted step time, unknown without one.
RunEstimate queuedEstimate(int totalSteps, std::optional<double> predictedStepS);
// The queue: the sum of its runs' estimates; unknown when any run's is unknown, estimating when
// none is unknown and one is still estimating.
RunEstimate queueEstimate(const std::vector<RunEstimate>& runs);

// "45 s", "3 min 05 s", "2 h 07 min" (whole seconds, rounded).
QString formatDuration(double seconds);
// "about 3 min 05 s", "estimating…", "unknown" (predicted estimates say so).
QString estimateText(const RunEstimate& estimate);

} // namespace shardwise::gui
