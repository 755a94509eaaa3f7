#pragma once
// What "never half recorded" means, checked through the store's own queries: a run is either still
// 'running' (or shown as interrupted) with no end time, or it carries a final status with an end
// time and the records that status implies.

#include "shardwise/store/runs.hpp"

#include <string>
#include <vector>

namespace shardwise::store::fixtures {

inline std::vector<std::string> halfRecordedProblems(const Database& db, const RunSummary& run)
{
    std::vector<std::string> problems;
    const std::string who = "run " + std::to_string(run.id) + " (" + std::string(runStatusId(run.status)) + "): ";
    const auto detail = runDetail(db, run.id);
    if (!detail) {
        problems.push_back(who + "listed but has no details");
        return problems;
    }
    if (detail->config.is_null())
        problems.push_back(who + "has no configuration");
    if (run.nodes.empty())
        problems.push_back(who + "has no node");
    if (!isFinal(run.status)) {
        if (run.finishedAt)
            problems.push_back(who + "is not finished but has an end time");
        return problems;
    }
    if (!run.finishedAt)
        problems.push_back(who + "is final without an end time");
    const int world = run.worldSize;
    const int steps = run.warmupSteps.value_or(0) + run.timedSteps.value_or(0);
    switch (run.status) {
    case RunStatus::Completed:
        if (static_cast<int>(detail->rankSummaries.size()) != world)
            problems.push_back(who + std::to_string(detail->rankSummaries.size()) + " summaries for "
                               + std::to_string(world) + " ranks");
        if (static_cast<int>(stepSeries(db, run.id).size()) != world * steps)
            problems.push_back(who + "step count differs from ranks x steps");
        // A rehearsal's steps held no communication: its memory is the headline, never a throughput.
        if (run.rehearsal() && (run.tokensPerS || run.medianStepS || run.ncclShare))
            problems.push_back(who + "a rehearsal shows a throughput, step time or NCCL share");
        if ((!run.rehearsal() && (!run.tokensPerS || !run.medianStepS)) || !run.peakAllocated)
            problems.push_back(who + "headline numbers missing");
        if (!detail->errors.empty())
            problems.push_back(who + "completed with errors recorded");
        break;
    case RunStatus::Oom:
    case RunStatus::Failed:
        if (detail->errors.empty())
            problems.push_back(who + "no error recorded");
        else if (run.note.empty())
            problems.push_back(who + "no note naming the first error");
        if (run.status == RunStatus::Oom && detail->errors.front().kind != protocol::ErrorKind::Oom)
            problems.push_back(who + "first error is not the OOM");
        if (run.tokensPerS)
            problems.push_back(who + "failed run shows a throughput");
        if (!run.peakAllocated)
            problems.push_back(who + "failed run lost its memory peak");
        break;
    default:
        break;
    }
    return problems;
}

} // namespace shardwise::store::fixtures
