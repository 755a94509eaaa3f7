// Finding the first failure across ranks and nodes. Times come from different clocks, so "first" is
// decided with the clock uncertainty in mind and with causal knowledge: a watchdog timeout or a
// vanished peer is what a failure elsewhere looks like from the outside, so it never wins over a
// primary failure that could have happened before it.
#include "diagnosis_internal.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace shardwise::diagnose::detail {

namespace {

bool clockKnown(const Failure& f, const RunFacts& run)
{
    return f.timeSource == TimeSource::Meta || run.nodeOffsets.contains(f.clockNode);
}

// A time read from the failure's own line, event or launcher record; an inherited one is only the
// nearest logged line (for a dead process, a lower bound of when it died).
bool exactTime(const Failure& f)
{
    return f.time && f.timeSource != TimeSource::Inherited;
}

// When times cannot settle the order, a failure that needs no other failure to happen (OOM, a
// killed process, a rejected argument) is the better first-cause candidate than a communication
// error, which a dying peer often provokes.
int independence(FailureKind k)
{
    switch (k) {
    case FailureKind::LostRank: return 0;
    case FailureKind::OutOfMemory: return 0;
    case FailureKind::LauncherArguments: return 0;
    case FailureKind::Config: return 0;
    case FailureKind::Internal: return 1;
    case FailureKind::Communication: return 2;
    case FailureKind::WatchdogTimeout: return 3;
    }
    return 3;
}

std::string seconds(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f s", s);
    return buf;
}

} // namespace

double clockUncertainty(const Failure& a, const Failure& b, const RunFacts& run, const DiagnoseOptions& options)
{
    const bool sameClock = (a.timeSource != TimeSource::Meta && b.timeSource != TimeSource::Meta && !a.clockNode.empty()
                            && a.clockNode == b.clockNode)
        || (a.timeSource == TimeSource::Meta && b.timeSource == TimeSource::Meta);
    if (sameClock || (clockKnown(a, run) && clockKnown(b, run)))
        return options.knownSkewToleranceS;
    return options.unknownSkewS;
}

void orderAndChooseRootCause(Diagnosis& d, const RunFacts& run, const DiagnoseOptions& options)
{
    auto& fs = d.failures;
    std::stable_sort(fs.begin(), fs.end(), [](const Failure& a, const Failure& b) {
        if (a.time.has_value() != b.time.has_value())
            return a.time.has_value();
        if (a.time && *a.time != *b.time)
            return *a.time < *b.time;
        if (a.isSymptom != b.isSymptom)
            return !a.isSymptom;
        return a.rank < b.rank;
    });
    if (fs.empty()) {
        d.verdict = Verdict::Clean;
        return;
    }
    std::vector<std::size_t> primaries;
    for (std::size_t i = 0; i < fs.size(); ++i)
        if (!fs[i].isSymptom)
            primaries.push_back(i);
    if (primaries.empty()) {
        d.verdict = Verdict::SymptomsOnly;
        return;
    }

    // The earliest primary on the reference clock, then every primary that may, within the clock
    // uncertainty, have happened before it; among those the most independent kind wins.
    const std::size_t earliest = primaries.front();
    std::size_t chosen = earliest;
    std::vector<std::size_t> contenders;
    if (fs[earliest].time) {
        for (std::size_t i : primaries) {
            if (!fs[i].time || i == earliest)
                continue;
            if (*fs[i].time - *fs[earliest].time <= clockUncertainty(fs[i], fs[earliest], run, options)
                && fs[i].rank != fs[earliest].rank)
                contenders.push_back(i);
        }
        for (std::size_t i : contenders)
            if (independence(fs[i].kind) < independence(fs[chosen].kind))
                chosen = i;
    } else {
        // No primary has a time: order by independence, then by rank.
        for (std::size_t i : primaries)
            if (independence(fs[i].kind) < independence(fs[chosen].kind))
                chosen = i;
        d.notes.push_back("No failure carries a time; the root cause is chosen by kind (a failure that needs no "
                          "other failure to happen comes first), not by order.");
    }

    // A symptom that precedes the chosen primary by more than the clock uncertainty cannot have been
    // caused by it: the hang started first, and its cause left no trace in these records.
    for (const auto& s : fs) {
        if (!s.isSymptom || !exactTime(s) || !fs[chosen].time)
            continue;
        const double lead = *fs[chosen].time - *s.time;
        if (lead > clockUncertainty(s, fs[chosen], run, options)) {
            d.verdict = Verdict::SymptomsOnly;
            d.notes.push_back("The " + std::string(failureKindId(s.kind)) + " on " + rankLabel(s) + " happened "
                              + seconds(lead) + " before the first primary failure (" + rankLabel(fs[chosen])
                              + "), more than the clock uncertainty of "
                              + seconds(clockUncertainty(s, fs[chosen], run, options))
                              + ", so that failure cannot have caused it.");
            return;
        }
    }

    const auto untimed = std::count_if(primaries.begin(), primaries.end(), [&](std::size_t i) { return !fs[i].time; });
    if (untimed > 0 && fs[chosen].time)
        d.notes.push_back(std::to_string(untimed) + " primary failure(s) carry no time and could not be ordered "
                          "against the root cause.");
    d.verdict = Verdict::RootCause;
    d.rootCause = chosen;
    fs[chosen].isRootCause = true;
    const bool uncertain = std::any_of(contenders.begin(), contenders.end(), [&](std::size_t i) {
        return i != chosen && fs[i].node != fs[chosen].node;
    }) || (chosen != earliest && fs[earliest].node != fs[chosen].node);
    if (uncertain) {
        d.orderingCertain = false;
        d.notes.push_back("Other primary failures lie within the clock uncertainty of the root cause; give the "
                          "nodes' clock offsets (meta.json \"nodes\": {\"<node>\": {\"clock_offset_s\": ...}}) to "
                          "order them for certain.");
    }
    if (chosen != earliest)
        d.notes.push_back("The earliest-looking primary failure (" + rankLabel(fs[earliest]) + ", "
                          + std::string(failureKindId(fs[earliest].kind))
                          + ") is of a kind that a failure elsewhere often provokes, and another primary failure lies "
                            "within the clock uncertainty; the failure that needs no other failure to happen was "
                            "preferred.");
}

} // namespace shardwise::diagnose::detail
