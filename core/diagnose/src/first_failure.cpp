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
    case FailureKind::LostRank:
        return 0;
    case FailureKind::OutOfMemory:
        return 0;
    case FailureKind::LauncherArguments:
        return 0;
    case FailureKind::Config:
        return 0;
    case FailureKind::Internal:
        return 1;
    case FailureKind::Communication:
        return 2;
    case FailureKind::WatchdogTimeout:
        return 3;
    }
    return 3;
}

MessageArg seconds(double s)
{
    return MessageArg::seconds(s, 0);
}

// A note as a message and in English.
void note(Diagnosis& d, std::string id, std::vector<MessageArg> args = {})
{
    d.noteMessages.push_back(Message { std::move(id), std::move(args) });
    d.notes.push_back(renderEnglish(d.noteMessages.back()));
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
        note(d, "diagnose.note_no_times");
    }

    // A symptom that precedes the chosen primary by more than the clock uncertainty cannot have been
    // caused by it: the hang started first, and its cause left no trace in these records.
    for (const auto& s : fs) {
        if (!s.isSymptom || !exactTime(s) || !fs[chosen].time)
            continue;
        const double lead = *fs[chosen].time - *s.time;
        if (lead > clockUncertainty(s, fs[chosen], run, options)) {
            d.verdict = Verdict::SymptomsOnly;
            note(d, "diagnose.note_symptom_came_first",
                 { MessageArg::name(std::string(failureKindId(s.kind))), MessageArg::message(rankLabelMessage(s)),
                   seconds(lead), MessageArg::message(rankLabelMessage(fs[chosen])),
                   seconds(clockUncertainty(s, fs[chosen], run, options)) });
            return;
        }
    }

    const auto untimed = std::count_if(primaries.begin(), primaries.end(), [&](std::size_t i) { return !fs[i].time; });
    if (untimed > 0 && fs[chosen].time)
        note(d, "diagnose.note_untimed_primaries", { MessageArg::integer(untimed) });
    d.verdict = Verdict::RootCause;
    d.rootCause = chosen;
    fs[chosen].isRootCause = true;
    const bool uncertain = std::any_of(contenders.begin(), contenders.end(),
                                       [&](std::size_t i) { return i != chosen && fs[i].node != fs[chosen].node; })
        || (chosen != earliest && fs[earliest].node != fs[chosen].node);
    if (uncertain) {
        d.orderingCertain = false;
        note(d, "diagnose.note_give_clock_offsets");
    }
    if (chosen != earliest)
        note(d, "diagnose.note_independent_preferred",
             { MessageArg::message(rankLabelMessage(fs[earliest])),
               MessageArg::name(std::string(failureKindId(fs[earliest].kind))) });
}

} // namespace shardwise::diagnose::detail
