// Turning records (log lines, protocol events, launcher metadata) into one list of failures, one per
// rank and kind, with every time moved onto the reference clock.
#include "diagnosis_internal.hpp"

#include "shardwise/diagnose/log_classifier.hpp"
#include "utf8_text.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <tuple>
#include <variant>

namespace shardwise::diagnose::detail {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxEvidenceText = 600;
constexpr std::size_t kMaxEvidencePerFailure = 8;
constexpr std::size_t kLastLinesOfLostRank = 6;

int runYear(const std::vector<RankRecord>& records)
{
    for (const auto& r : records)
        for (const auto& line : r.logLines)
            if (auto y = yearInLine(line))
                return *y;
    for (const auto& r : records)
        for (const auto& e : r.events) {
            const double t = std::visit([](const auto& x) { return x.time; }, e);
            if (t > 0) {
                const auto whole = static_cast<std::time_t>(t);
                std::tm tm {};
                gmtime_r(&whole, &tm);
                return tm.tm_year + 1900;
            }
        }
    return 1970;
}

EvidenceLine evidence(const std::string& source, std::size_t line, const std::string& text)
{
    return { source, line, text.size() > kMaxEvidenceText ? utf8Prefix(text, kMaxEvidenceText) + "..." : text };
}

std::string sourceName(const RankRecord& r)
{
    if (!r.logName.empty())
        return r.logName;
    return r.rank == kNoRank ? std::string("log") : "rank" + std::to_string(r.rank) + ".log";
}

std::optional<double> offsetOf(const std::string& node, const RunFacts& run)
{
    if (auto it = run.nodeOffsets.find(node); it != run.nodeOffsets.end())
        return it->second;
    return std::nullopt;
}

// `writer` is the node whose clock wrote the time: the rank's node for its own log and events, the
// launcher's node for a launcher log, even when that log speaks about a rank elsewhere.
void placeOnReferenceClock(Failure& f, double loggedSeconds, const std::string& loggedText, TimeSource source,
                           const std::string& writer, const RunFacts& run)
{
    f.loggedTime = loggedText;
    f.timeSource = source;
    // The dispatcher's clock is the reference; everything a node wrote carries that node's offset.
    const double offset = source == TimeSource::Meta ? 0.0 : offsetOf(writer, run).value_or(0.0);
    f.clockNode = source == TimeSource::Meta ? std::string() : writer;
    f.time = loggedSeconds - offset;
}

// Per line: its own timestamp, else the nearest earlier one, else the nearest later one.
struct LineTimes {
    std::vector<std::optional<LoggedTime>> own;
    std::vector<std::optional<std::size_t>> inheritedFrom;
};

LineTimes lineTimes(const std::vector<std::string>& lines, int year)
{
    LineTimes t;
    t.own.reserve(lines.size());
    for (const auto& l : lines)
        t.own.push_back(parseLogTime(l, year));
    t.inheritedFrom.assign(lines.size(), std::nullopt);
    std::optional<std::size_t> last;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (t.own[i])
            last = i;
        t.inheritedFrom[i] = last;
    }
    std::optional<std::size_t> next;
    for (std::size_t i = lines.size(); i-- > 0;) {
        if (t.own[i])
            next = i;
        if (!t.inheritedFrom[i])
            t.inheritedFrom[i] = next;
    }
    return t;
}

std::vector<EvidenceLine> lastLines(const RankRecord& r)
{
    std::vector<EvidenceLine> out;
    for (std::size_t i = r.logLines.size(); i-- > 0 && out.size() < kLastLinesOfLostRank;)
        if (!r.logLines[i].empty())
            out.push_back(evidence(sourceName(r), i + 1, r.logLines[i]));
    std::reverse(out.begin(), out.end());
    return out;
}

void fromLog(const RankRecord& r, int year, const RunFacts& run, std::vector<Failure>& out)
{
    const auto findings = classifyLog(r.logLines, year);
    if (findings.empty())
        return;
    const LineTimes times = lineTimes(r.logLines, year);
    for (const auto& fd : findings) {
        Failure f;
        f.kind = fd.kind;
        f.isSymptom = fd.isSymptom;
        f.message = fd.message;
        f.facts = fd.facts;
        // In a rank's own log the record knows the rank; "[Rank N]" in a watchdog line is the rank within
        // its process group, which differs from the global rank in sub-groups. Only torchrun's summary
        // (written by the launcher) speaks about other ranks.
        const bool speaksForOthers = fd.facts.contains("torchrun_summary");
        f.rank = (r.rank == kNoRank || speaksForOthers) && fd.rank != kNoRank ? fd.rank : r.rank;
        if (!fd.node.empty())
            f.node = fd.node;
        else if (auto it = run.rankNodes.find(f.rank); it != run.rankNodes.end())
            f.node = it->second;
        else
            f.node = r.node;
        if (fd.time) {
            placeOnReferenceClock(f, fd.time->seconds, fd.time->text, TimeSource::Logged, r.node, run);
        } else if (fd.line >= 1 && fd.line <= times.inheritedFrom.size() && times.inheritedFrom[fd.line - 1]) {
            const auto& t = *times.own[*times.inheritedFrom[fd.line - 1]];
            placeOnReferenceClock(f, t.seconds, t.text, TimeSource::Inherited, r.node, run);
        }
        const std::string source = sourceName(r);
        f.evidence.push_back(evidence(source, fd.line, r.logLines[fd.line - 1]));
        for (std::size_t more : fd.moreLines)
            if (more >= 1 && more <= r.logLines.size() && more != fd.line)
                f.evidence.push_back(evidence(source, more, r.logLines[more - 1]));
        out.push_back(std::move(f));
    }
}

FailureKind kindOf(protocol::ErrorKind k)
{
    switch (k) {
    case protocol::ErrorKind::Oom:
        return FailureKind::OutOfMemory;
    case protocol::ErrorKind::Comm:
        return FailureKind::Communication;
    case protocol::ErrorKind::Config:
        return FailureKind::Config;
    case protocol::ErrorKind::Internal:
        return FailureKind::Internal;
    }
    return FailureKind::Internal;
}

void fromEvents(const RankRecord& r, int year, const RunFacts& run, std::vector<Failure>& out)
{
    for (std::size_t i = 0; i < r.events.size(); ++i) {
        const auto* e = std::get_if<protocol::ErrorEvent>(&r.events[i]);
        if (!e)
            continue;
        Failure f;
        f.kind = kindOf(e->kind);
        f.rank = e->rank;
        f.node = run.rankNodes.contains(e->rank) ? run.rankNodes.at(e->rank) : r.node;
        f.message = e->message.empty() ? std::string(protocol::errorKindId(e->kind)) + " error reported by the runner"
                                       : e->message;
        // The runner forwards the library's own text; its wording says whether a peer vanished and
        // carries the allocator numbers when the event has none.
        if (auto line = classifyLine(e->message, year)) {
            if (line->kind == f.kind) {
                f.isSymptom = line->isSymptom;
                f.facts = line->facts;
            }
        }
        f.facts["runner_event"] = true;
        if (e->step)
            f.facts["step"] = *e->step;
        if (e->kind == protocol::ErrorKind::Oom) {
            if (e->reservedUnallocated > 0 || !f.facts.contains("reserved_unallocated_bytes"))
                f.facts["reserved_unallocated_bytes"] = e->reservedUnallocated;
            if (e->memory) {
                f.facts["allocated_by_pytorch_bytes"] = e->memory->allocated;
                f.facts["reserved_by_pytorch_bytes"] = e->memory->reserved;
                if (e->memory->deviceTotal >= 0)
                    f.facts["total_capacity_bytes"] = e->memory->deviceTotal;
                if (e->memory->deviceFree >= 0)
                    f.facts["free_bytes"] = e->memory->deviceFree;
            }
        }
        if (e->time > 0)
            placeOnReferenceClock(f, e->time, formatUtc(e->time), TimeSource::Event, f.node, run);
        const std::size_t line = i < r.eventLineNumbers.size() ? r.eventLineNumbers[i] : 0;
        f.evidence.push_back(
            evidence(r.eventsName.empty() ? sourceName(r) : r.eventsName, line, protocol::serialize(r.events[i])));
        out.push_back(std::move(f));
    }
}

// The runner's documented exit codes (docs/protocol.md): 0 ok, 1 internal, 2 config, 3 oom, 4 comm.
std::optional<std::pair<FailureKind, std::string>> runnerExit(int code)
{
    switch (code) {
    case 1:
        return std::pair { FailureKind::Internal, std::string("the runner exited with code 1 (internal error)") };
    case 2:
        return std::pair { FailureKind::Config, std::string("the runner exited with code 2 (configuration rejected)") };
    case 3:
        return std::pair { FailureKind::OutOfMemory, std::string("the runner exited with code 3 (out of memory)") };
    case 4:
        return std::pair { FailureKind::Communication,
                           std::string("the runner exited with code 4 (communication error)") };
    default:
        return std::nullopt;
    }
}

void fromLauncher(const RankRecord& r, int year, const RunFacts& run, std::vector<Failure>& out,
                  std::vector<Failure>& onlyIfNothingElse)
{
    if (r.rank == kNoRank)
        return;
    Failure base;
    base.rank = r.rank;
    base.node = r.node;
    base.evidence.push_back({ "meta.json", 0, "" });
    const LineTimes times = lineTimes(r.logLines, year);
    const auto lastLogged = [&]() -> std::optional<LoggedTime> {
        for (std::size_t i = times.own.size(); i-- > 0;)
            if (times.own[i])
                return times.own[i];
        return std::nullopt;
    }();
    const auto atLastLogLine = [&](Failure& f) {
        // Dead processes write no timestamp: the last line it logged bounds the death from below.
        if (lastLogged)
            placeOnReferenceClock(f, lastLogged->seconds, lastLogged->text, TimeSource::Inherited, r.node, run);
    };
    if (r.lost) {
        Failure f = base;
        f.kind = FailureKind::LostRank;
        f.message = r.lostReason.empty() ? std::string("lost by the dispatcher") : "lost: " + r.lostReason;
        f.facts["dispatcher_lost"] = true;
        if (!r.lostReason.empty())
            f.facts["lost_reason"] = r.lostReason;
        f.evidence.front().text = "lost: true" + (r.lostReason.empty() ? std::string() : " (" + r.lostReason + ")");
        if (r.lostTime)
            placeOnReferenceClock(f, *r.lostTime, formatUtc(*r.lostTime), TimeSource::Meta, std::string(), run);
        else
            atLastLogLine(f);
        out.push_back(std::move(f));
    }
    const int sig = r.signal.value_or(r.exitCode && *r.exitCode > 128 && *r.exitCode < 160 ? *r.exitCode - 128 : 0);
    if (sig != 0) {
        Failure f = base;
        f.facts["signal"] = sig;
        if (r.exitCode)
            f.facts["exit_code"] = *r.exitCode;
        f.evidence.front().text
            = "signal " + std::to_string(sig) + (r.exitCode ? ", exit code " + std::to_string(*r.exitCode) : "");
        atLastLogLine(f);
        if (r.endedByLauncher && (sig == 9 || sig == 15 || sig == 2 || sig == 1)) {
            // The launcher's clean-up after a peer failed: what this rank did before it is what counts.
            f.kind = FailureKind::LostRank;
            f.isSymptom = true;
            f.facts["ended_by_launcher"] = true;
            f.message
                = "ended by the launcher (signal " + std::to_string(sig) + ") after the run had failed or was stopped";
            out.push_back(std::move(f));
        } else if (sig == 9) {
            f.kind = FailureKind::LostRank;
            f.message = "killed by SIGKILL" + std::string(r.exitCode == 137 ? " (exit code 137 = 128 + 9)" : "");
            out.push_back(std::move(f));
        } else if (sig == 15 || sig == 2 || sig == 1) {
            f.kind = FailureKind::LostRank;
            f.isSymptom = true;
            f.message = "terminated by signal " + std::to_string(sig);
            out.push_back(std::move(f));
        } else {
            f.kind = FailureKind::Internal;
            f.message = "died of signal " + std::to_string(sig);
            out.push_back(std::move(f));
        }
        return;
    }
    if (r.exitCode && *r.exitCode != 0) {
        Failure f = base;
        f.facts["exit_code"] = *r.exitCode;
        f.evidence.front().text = "exit code " + std::to_string(*r.exitCode);
        const auto runner = r.events.empty() ? std::nullopt : runnerExit(*r.exitCode);
        f.kind = runner ? runner->first : FailureKind::Internal;
        f.message = runner ? runner->second
                           : "exited with code " + std::to_string(*r.exitCode) + " and no recognised error in its log";
        atLastLogLine(f);
        f.lastLines = lastLines(r);
        onlyIfNothingElse.push_back(std::move(f));
    }
}

void mergeInto(Failure& lead, Failure&& other)
{
    const bool otherEarlier = other.time && (!lead.time || *other.time < *lead.time);
    if (otherEarlier) {
        std::swap(lead.time, other.time);
        std::swap(lead.loggedTime, other.loggedTime);
        std::swap(lead.timeSource, other.timeSource);
        std::swap(lead.clockNode, other.clockNode);
    }
    if (lead.node.empty())
        lead.node = other.node;
    // The richer message (the library's own words) beats a restatement from an exit code.
    if (lead.evidence.empty()
        || (lead.evidence.front().source == "meta.json" && !other.evidence.empty()
            && other.evidence.front().source != "meta.json"))
        lead.message = other.message;
    for (auto& [key, value] : other.facts.items())
        if (!lead.facts.contains(key))
            lead.facts[key] = value;
    for (auto& ev : other.evidence)
        if (lead.evidence.size() < kMaxEvidencePerFailure
            && std::none_of(lead.evidence.begin(), lead.evidence.end(), [&](const EvidenceLine& x) {
                   return x.source == ev.source && x.line == ev.line && x.text == ev.text;
               }))
            lead.evidence.push_back(std::move(ev));
    if (lead.lastLines.empty())
        lead.lastLines = std::move(other.lastLines);
}

std::vector<Failure> merged(std::vector<Failure> all)
{
    std::vector<Failure> out;
    for (auto& f : all) {
        auto same = std::find_if(out.begin(), out.end(), [&](const Failure& g) {
            return g.kind == f.kind && g.isSymptom == f.isSymptom && g.rank == f.rank
                && (f.rank != kNoRank || g.node == f.node);
        });
        if (same == out.end())
            out.push_back(std::move(f));
        else
            mergeInto(*same, std::move(f));
    }
    for (auto& f : out)
        std::stable_sort(f.evidence.begin(), f.evidence.end(), [](const EvidenceLine& a, const EvidenceLine& b) {
            return std::tie(a.source, a.line) < std::tie(b.source, b.line);
        });
    return out;
}

bool rankHas(const std::vector<Failure>& fs, int rank, auto predicate)
{
    return std::any_of(fs.begin(), fs.end(), [&](const Failure& f) { return f.rank == rank && predicate(f); });
}

std::string utcText(double t)
{
    return formatUtc(t);
}

// A rank that stopped emitting events while its peers waited for it in a collective (SIGSTOP, a
// debugger, a frozen node, a livelock) leaves no error of its own: its peers' timeouts are all the
// records show, and the launcher ends it afterwards. Such a rank - no summary, no error event, no
// primary failure, its last event before a peer's timed communication failure - is the first failure;
// the peers' timeouts after its last event become symptoms of it.
void addStoppedRanks(const std::vector<RankRecord>& records, const RunFacts& run, std::vector<Failure>& out)
{
    std::optional<double> firstTimeout;
    for (const auto& f : out)
        if ((f.kind == FailureKind::Communication || f.kind == FailureKind::WatchdogTimeout) && f.rank != kNoRank
            && f.time && (!firstTimeout || *f.time < *firstTimeout))
            firstTimeout = f.time;
    if (!firstTimeout)
        return;
    std::vector<Failure> stopped;
    for (const auto& r : records) {
        if (r.rank == kNoRank || r.events.empty() || run.completedRanks.contains(r.rank))
            continue;
        const bool reported = std::any_of(r.events.begin(), r.events.end(), [](const protocol::Event& e) {
            return std::holds_alternative<protocol::ErrorEvent>(e);
        });
        if (reported || rankHas(out, r.rank, [](const Failure& g) { return !g.isSymptom; })
            || std::any_of(stopped.begin(), stopped.end(), [&](const Failure& g) { return g.rank == r.rank; }))
            continue;
        double lastTime = 0;
        std::size_t lastIndex = 0;
        std::optional<std::int64_t> lastStep;
        for (std::size_t i = 0; i < r.events.size(); ++i) {
            const double t = std::visit([](const auto& x) { return x.time; }, r.events[i]);
            if (t >= lastTime) {
                lastTime = t;
                lastIndex = i;
            }
            if (const auto* s = std::get_if<protocol::StepEvent>(&r.events[i]))
                lastStep = s->step;
        }
        if (lastTime <= 0)
            continue;
        Failure f;
        f.kind = FailureKind::LostRank;
        f.rank = r.rank;
        f.node = run.rankNodes.contains(r.rank) ? run.rankNodes.at(r.rank) : r.node;
        placeOnReferenceClock(f, lastTime, utcText(lastTime), TimeSource::Event, f.node, run);
        if (!f.time || *f.time >= *firstTimeout)
            continue;
        f.facts["stopped_responding"] = true;
        if (lastStep)
            f.facts["last_step"] = *lastStep;
        f.message = "stopped responding ("
            + (lastStep ? "no step event since step " + std::to_string(*lastStep) : std::string("no step event at all"))
            + ", last event at " + utcText(lastTime) + "); its peers timed out waiting for it";
        const std::size_t line = lastIndex < r.eventLineNumbers.size() ? r.eventLineNumbers[lastIndex] : 0;
        f.evidence.push_back(evidence(r.eventsName.empty() ? sourceName(r) : r.eventsName, line,
                                      protocol::serialize(r.events[lastIndex])));
        f.lastLines = lastLines(r);
        stopped.push_back(std::move(f));
    }
    if (stopped.empty())
        return;
    const double silentSince = std::min_element(stopped.begin(), stopped.end(), [](const Failure& a, const Failure& b) {
                                   return *a.time < *b.time;
                               })->time.value();
    for (auto& f : out)
        if ((f.kind == FailureKind::Communication || f.kind == FailureKind::WatchdogTimeout) && f.time
            && *f.time > silentSince) {
            f.isSymptom = true;
            f.facts["waited_for_silent_rank"] = true;
        }
    for (auto& f : stopped) {
        // The launcher's clean-up of the stopped rank says the same thing again.
        std::erase_if(out, [&](const Failure& g) { return g.rank == f.rank && g.kind == FailureKind::LostRank; });
        out.push_back(std::move(f));
    }
}

} // namespace

RunFacts gatherRunFacts(const std::vector<RankRecord>& records)
{
    RunFacts run;
    run.recordCount = records.size();
    for (const auto& r : records) {
        if (r.rank != kNoRank) {
            run.ranks.insert(r.rank);
            if (!r.node.empty())
                run.rankNodes[r.rank] = r.node;
            if (r.exitCode)
                run.exitCodes[r.rank] = *r.exitCode;
        }
        if (!r.node.empty() && r.clockOffsetS)
            run.nodeOffsets[r.node] = *r.clockOffsetS;
        for (const auto& e : r.events) {
            run.ranks.insert(protocol::eventRank(e));
            if (const auto* s = std::get_if<protocol::StartEvent>(&e)) {
                // A start event without "config" leaves the default RunConfig, whose strategy means nothing.
                if (!s->config.model.id.empty())
                    run.strategy = s->config.strategy;
                run.expandableSegments = run.expandableSegments || s->allocator.expandableSegments;
                run.launcher = s->launcher;
                run.world = std::max(run.world, s->world);
                if (!s->host.empty() && !run.rankNodes.contains(s->rank))
                    run.rankNodes[s->rank] = s->host;
            } else if (std::holds_alternative<protocol::SummaryEvent>(e)) {
                run.completedRanks.insert(protocol::eventRank(e));
            }
        }
    }
    return run;
}

std::vector<Failure> collectFailures(const std::vector<RankRecord>& records, const RunFacts& run)
{
    const int year = runYear(records);
    std::vector<Failure> all;
    std::vector<Failure> onlyIfNothingElse;
    for (const auto& r : records) {
        fromLog(r, year, run, all);
        fromEvents(r, year, run, all);
        fromLauncher(r, year, run, all, onlyIfNothingElse);
    }
    std::vector<Failure> out = merged(std::move(all));
    // A launcher or dispatcher log that lost a node speaks for the ranks on that node.
    std::vector<bool> mergedAway(out.size(), false);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const Failure& f = out[i];
        if (f.rank != kNoRank || f.kind != FailureKind::LostRank || f.node.empty())
            continue;
        for (std::size_t j = 0; j < out.size(); ++j) {
            const Failure& g = out[j];
            if (g.rank != kNoRank && g.kind == FailureKind::LostRank && !g.isSymptom && g.node == f.node) {
                mergeInto(out[j], Failure(f));
                mergedAway[i] = true;
                break;
            }
        }
    }
    for (std::size_t i = out.size(); i-- > 0;)
        if (mergedAway[i])
            out.erase(out.begin() + static_cast<std::ptrdiff_t>(i));
    for (auto& f : onlyIfNothingElse)
        if (!rankHas(out, f.rank, [](const Failure&) { return true; }))
            out.push_back(std::move(f));

    // A generic traceback or exit code restates the specific failure the same rank already reported.
    std::erase_if(out, [&](const Failure& f) {
        return f.kind == FailureKind::Internal && !f.isSymptom && f.rank != kNoRank
            && rankHas(out, f.rank, [](const Failure& g) { return g.kind != FailureKind::Internal; });
    });
    addStoppedRanks(records, run, out);
    for (auto& f : out) {
        // ProcessGroupNCCL aborts the process (SIGABRT) after its watchdog fires.
        if (f.kind == FailureKind::Internal && f.facts.value("signal", 0) == 6
            && rankHas(out, f.rank, [](const Failure& g) { return g.kind == FailureKind::WatchdogTimeout; }))
            f.isSymptom = true;
        if (f.kind == FailureKind::LostRank && f.lastLines.empty())
            for (const auto& r : records)
                if (r.rank == f.rank && r.rank != kNoRank)
                    f.lastLines = lastLines(r);
    }
    return out;
}

} // namespace shardwise::diagnose::detail
