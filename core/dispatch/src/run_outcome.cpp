#include "shardwise/dispatch/run_outcome.hpp"

#include "shardwise/spec/json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

namespace shardwise::dispatch {

using nlohmann::json;

std::string_view runStatusId(RunStatus s)
{
    switch (s) {
    case RunStatus::Ok:
        return "ok";
    case RunStatus::Oom:
        return "oom";
    case RunStatus::Comm:
        return "comm";
    case RunStatus::Config:
        return "config";
    case RunStatus::Failed:
        return "failed";
    case RunStatus::Timeout:
        return "timeout";
    case RunStatus::Cancelled:
        return "cancelled";
    }
    return "failed";
}

namespace {

RunStatus statusForErrorKind(protocol::ErrorKind kind)
{
    switch (kind) {
    case protocol::ErrorKind::Oom:
        return RunStatus::Oom;
    case protocol::ErrorKind::Comm:
        return RunStatus::Comm;
    case protocol::ErrorKind::Config:
        return RunStatus::Config;
    case protocol::ErrorKind::Internal:
        return RunStatus::Failed;
    }
    return RunStatus::Failed;
}

std::string describeExit(const RankReport& r)
{
    std::string text = "rank " + std::to_string(r.rank);
    if (r.signal != 0)
        text += " was killed by signal " + std::to_string(r.signal) + " (" + ::strsignal(r.signal) + ")";
    else if (r.exitCode < 0)
        text += " ended with an unknown status";
    else
        text += " exited with code " + std::to_string(r.exitCode);
    if (r.killedByLauncher)
        text += r.timedOut ? " after the launcher stopped it at the timeout" : " after the launcher stopped it";
    return text;
}

std::string describeError(const protocol::ErrorEvent& e)
{
    std::string text = "rank " + std::to_string(e.rank) + " reported " + std::string(protocol::errorKindId(e.kind));
    if (e.step)
        text += " at step " + std::to_string(*e.step);
    // The reason is one line for a table; the full message (often with a backtrace) stays in errors.
    const std::string firstLine = e.message.substr(0, e.message.find('\n'));
    if (!firstLine.empty())
        text += ": " + firstLine.substr(0, 300);
    return text;
}

const RankReport* headlineRank(const std::vector<RankReport>& ranks)
{
    for (const auto& r : ranks)
        if (r.summary)
            return &r;
    return nullptr;
}

} // namespace

RunOutcome summarizeRun(const RunConfig& requested, const LaunchResult& launch)
{
    RunOutcome out;
    out.config = requested;
    out.logDir = launch.logDir;
    out.masterPort = launch.masterPort;
    out.wallSeconds = launch.wallSeconds;

    for (const auto& e : launch.merged) {
        if (const auto* err = std::get_if<protocol::ErrorEvent>(&e))
            out.errors.push_back(*err);
        else if (const auto* s = std::get_if<protocol::StartEvent>(&e); s && s->rank == 0 && !out.start)
            out.start = *s;
    }
    if (out.start) {
        out.config = out.start->config;
        out.configFromRunner = true;
    }
    if (!out.errors.empty()) {
        // stable_sort keeps arrival order among equal (e.g. missing) time stamps.
        std::vector<protocol::ErrorEvent> byTime = out.errors;
        std::stable_sort(byTime.begin(), byTime.end(),
                         [](const protocol::ErrorEvent& a, const protocol::ErrorEvent& b) { return a.time < b.time; });
        out.firstError = byTime.front();
    }

    for (const auto& r : launch.ranks) {
        RankReport rep;
        rep.rank = r.rank;
        rep.exitCode = r.exitCode;
        rep.signal = r.signal;
        rep.killedByLauncher = r.killedByLauncher;
        rep.timedOut = r.timedOut;
        rep.protocolErrors = r.protocolErrors;
        rep.logFile = r.logFile;
        rep.logTail = r.logTail;
        rep.succeeded = r.succeeded();
        for (const auto& e : r.events)
            if (const auto* s = std::get_if<protocol::SummaryEvent>(&e))
                rep.summary = *s;
        out.ranks.push_back(std::move(rep));
    }

    // Asked for, or said by the runner: either way no throughput of the rehearsed world is shown.
    out.rehearsedWorld = out.config.rehearsal() ? out.config.rehearseWorld : requested.rehearseWorld;
    for (const auto& r : out.ranks)
        if (r.summary && r.summary->rehearsedWorld > 0)
            out.rehearsedWorld = r.summary->rehearsedWorld;
    if (const RankReport* head = headlineRank(out.ranks)) {
        if (out.rehearsal()) {
            out.computeOnlyStepS = head->summary->medianStepS;
        } else {
            out.medianStepS = head->summary->medianStepS;
            out.tokensPerS = head->summary->tokensPerS;
            out.ncclShare = head->summary->ncclShare;
        }
        for (const auto& r : out.ranks) {
            if (!r.summary)
                continue;
            out.peakAllocatedBytes = std::max(out.peakAllocatedBytes.value_or(0), r.summary->memory.peakAllocated);
            out.peakReservedBytes = std::max(out.peakReservedBytes.value_or(0), r.summary->memory.peakReserved);
        }
    }

    // The first error on any rank is the root cause; the comm errors of its peers are symptoms.
    const auto failedRank
        = std::find_if(out.ranks.begin(), out.ranks.end(), [](const RankReport& r) { return !r.succeeded; });
    if (launch.cancelled) {
        out.status = RunStatus::Cancelled;
        out.reason = "cancelled by the user";
    } else if (out.firstError) {
        out.status = statusForErrorKind(out.firstError->kind);
        out.reason = describeError(*out.firstError);
    } else if (launch.timedOut) {
        out.status = RunStatus::Timeout;
        out.reason = "the run did not finish within its time limit";
    } else if (failedRank != out.ranks.end()) {
        out.status = RunStatus::Failed;
        out.reason = describeExit(*failedRank);
    } else if (const auto missing
               = std::find_if(out.ranks.begin(), out.ranks.end(), [](const RankReport& r) { return !r.summary; });
               missing != out.ranks.end()) {
        out.status = RunStatus::Failed;
        out.reason = "rank " + std::to_string(missing->rank) + " exited 0 without a summary event";
    } else {
        out.status = RunStatus::Ok;
    }
    return out;
}

namespace {

template <typename T> json optionalJson(const std::optional<T>& v)
{
    return v ? json(*v) : json(nullptr);
}

} // namespace

json toJson(const RunOutcome& o)
{
    json ranks = json::array();
    for (const auto& r : o.ranks) {
        json rank { { "rank", r.rank },
                    { "succeeded", r.succeeded },
                    { "exit_code", r.exitCode },
                    { "signal", r.signal },
                    { "killed_by_launcher", r.killedByLauncher },
                    { "timed_out", r.timedOut },
                    { "log_file", r.logFile.string() },
                    { "summary", r.summary ? protocol::toJson(*r.summary) : json(nullptr) },
                    { "protocol_errors", r.protocolErrors } };
        if (!r.succeeded)
            rank["log_tail"] = r.logTail;
        ranks.push_back(std::move(rank));
    }
    json errors = json::array();
    for (const auto& e : o.errors)
        errors.push_back(protocol::toJson(e));

    json out { { "strategy", strategyId(o.config.strategy) },
               { "backend", backendId(o.config.backend) },
               { "outcome", runStatusId(o.status) },
               { "reason", o.reason },
               { "config", shardwise::toJson(o.config) },
               { "config_source", o.configFromRunner ? "runner" : "requested" },
               { "median_step_s", optionalJson(o.medianStepS) },
               { "tokens_per_s", optionalJson(o.tokensPerS) },
               { "nccl_share", optionalJson(o.ncclShare) },
               { "peak_allocated_bytes", optionalJson(o.peakAllocatedBytes) },
               { "peak_reserved_bytes", optionalJson(o.peakReservedBytes) },
               { "rehearsed_world", o.rehearsal() ? json(o.rehearsedWorld) : json(nullptr) },
               { "compute_only_step_s", optionalJson(o.computeOnlyStepS) },
               { "ranks", std::move(ranks) },
               { "errors", std::move(errors) },
               { "first_error", o.firstError ? protocol::toJson(*o.firstError) : json(nullptr) },
               { "log_dir", o.logDir.string() },
               { "master_port", o.masterPort },
               { "wall_s", o.wallSeconds } };
    if (o.start) {
        const json start = protocol::toJson(*o.start);
        out["versions"] = start.at("versions");
        out["allocator"] = start.at("allocator");
        out["device_name"] = o.start->deviceName;
        out["launcher"] = o.start->launcher;
    }
    return out;
}

} // namespace shardwise::dispatch
