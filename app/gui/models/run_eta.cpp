#include "models/run_eta.hpp"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace shardwise::gui {

namespace {
struct EtaText {
    Q_DECLARE_TR_FUNCTIONS(EtaText)
};
} // namespace

std::optional<double> medianOf(std::vector<double> values)
{
    if (values.empty())
        return std::nullopt;
    const std::size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
    const double upper = values[mid];
    if (values.size() % 2 == 1)
        return upper;
    const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
    return (lower + upper) / 2.0;
}

RunEstimate runningEstimate(int stepsDone, int totalSteps, std::optional<double> medianStepS)
{
    if (stepsDone < 2 || !medianStepS || *medianStepS < 0)
        return RunEstimate::estimating();
    const int left = std::max(totalSteps - stepsDone, 0);
    return RunEstimate::known(left * *medianStepS);
}

RunEstimate queuedEstimate(int totalSteps, std::optional<double> predictedStepS)
{
    if (!predictedStepS || !(*predictedStepS > 0))
        return RunEstimate::unknown();
    return RunEstimate::known(std::max(totalSteps, 0) * *predictedStepS, true);
}

RunEstimate queueEstimate(const std::vector<RunEstimate>& runs)
{
    double total = 0;
    bool estimating = false;
    bool predicted = false;
    for (const RunEstimate& r : runs) {
        if (r.kind == RunEstimate::Kind::Unknown)
            return RunEstimate::unknown();
        if (r.kind == RunEstimate::Kind::Estimating)
            estimating = true;
        total += r.seconds;
        predicted = predicted || r.predicted;
    }
    if (estimating)
        return RunEstimate::estimating();
    return RunEstimate::known(total, predicted);
}

QString formatDuration(double seconds)
{
    const auto total = static_cast<long long>(std::llround(std::max(seconds, 0.0)));
    const long long h = total / 3600;
    const long long m = (total % 3600) / 60;
    const long long s = total % 60;
    const auto two = [](long long v) { return QStringLiteral("%1").arg(v, 2, 10, QLatin1Char('0')); };
    if (h > 0)
        //: a duration: hours and minutes
        return EtaText::tr("%1 h %2 min").arg(h).arg(two(m));
    if (m > 0)
        //: a duration: minutes and seconds
        return EtaText::tr("%1 min %2 s").arg(m).arg(two(s));
    //: a duration: seconds
    return EtaText::tr("%1 s").arg(s);
}

QString estimateText(const RunEstimate& estimate)
{
    switch (estimate.kind) {
    case RunEstimate::Kind::Estimating:
        //: time left of a run with fewer than two steps done
        return EtaText::tr("estimating…");
    case RunEstimate::Kind::Unknown:
        //: time left of a run nothing predicted
        return EtaText::tr("unknown");
    case RunEstimate::Kind::Known:
        break;
    }
    return estimate.predicted ? EtaText::tr("about %1 (predicted)").arg(formatDuration(estimate.seconds))
                              : EtaText::tr("about %1").arg(formatDuration(estimate.seconds));
}

} // namespace shardwise::gui
