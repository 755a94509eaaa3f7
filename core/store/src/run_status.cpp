#include "shardwise/store/runs.hpp"

#include <array>
#include <utility>

namespace shardwise::store {

namespace {
constexpr std::array<std::pair<RunStatus, std::string_view>, 9> kStatusIds { {
    { RunStatus::Running, "running" },
    { RunStatus::Completed, "completed" },
    { RunStatus::Oom, "oom" },
    { RunStatus::Failed, "failed" },
    { RunStatus::Timeout, "timeout" },
    { RunStatus::Lost, "lost" },
    { RunStatus::Cancelled, "cancelled" },
    { RunStatus::Interrupted, "interrupted" },
    { RunStatus::Detached, "detached" },
} };
} // namespace

std::string_view runStatusId(RunStatus s)
{
    for (const auto& [status, id] : kStatusIds)
        if (status == s)
            return id;
    return "unknown";
}

std::optional<RunStatus> runStatusFromId(std::string_view id)
{
    for (const auto& [status, name] : kStatusIds)
        if (name == id)
            return status;
    return std::nullopt;
}

std::string runStatusIdList()
{
    std::string list;
    for (const auto& [status, id] : kStatusIds)
        list += (list.empty() ? "" : ", ") + std::string(id);
    return list;
}

bool isFinal(RunStatus s)
{
    return s != RunStatus::Running && s != RunStatus::Interrupted && s != RunStatus::Detached;
}

RunStatus statusForOutcome(std::string_view outcomeId)
{
    if (outcomeId == "ok")
        return RunStatus::Completed;
    if (outcomeId == "oom")
        return RunStatus::Oom;
    if (outcomeId == "timeout")
        return RunStatus::Timeout;
    if (outcomeId == "cancelled")
        return RunStatus::Cancelled;
    return RunStatus::Failed;
}

std::string_view runSourceId(RunSource s)
{
    return s == RunSource::Imported ? "imported" : "measured";
}

} // namespace shardwise::store
