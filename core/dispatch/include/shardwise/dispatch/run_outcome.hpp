#pragma once
// What one measured run came to, built from a LaunchResult: the status a table shows (ok / oom /
// comm / config / failed / timeout / cancelled), the reason, the headline figures and each rank's
// summary and errors. This is the boundary the CLI prints and the run store records.

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/spec/specs.hpp"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise::dispatch {

enum class RunStatus { Ok, Oom, Comm, Config, Failed, Timeout, Cancelled };

std::string_view runStatusId(RunStatus s); // "ok" | "oom" | "comm" | "config" | "failed" | "timeout" | "cancelled"

struct RankReport {
    int rank = 0;
    int exitCode = -1;
    int signal = 0;
    bool killedByLauncher = false;
    bool timedOut = false;
    std::optional<protocol::SummaryEvent> summary;
    std::vector<std::string> protocolErrors;
    std::filesystem::path logFile;
    std::string logTail;
    bool succeeded = false;
};

struct RunOutcome {
    RunConfig config; // as rank 0 reported it in its start event, else as requested
    bool configFromRunner = false;
    std::optional<protocol::StartEvent> start; // rank 0's: versions, allocator, device name
    RunStatus status = RunStatus::Failed;
    std::string reason; // why the run is not ok, one line; empty when ok
    std::vector<RankReport> ranks;
    std::vector<protocol::ErrorEvent> errors;       // every rank's, in arrival order
    std::optional<protocol::ErrorEvent> firstError; // earliest by time stamp: the root-cause candidate

    // Headline figures. Times, throughput and NCCL share are rank 0's (the ranks step in lock-step and
    // tokens/s is already global); peak memory is the largest over ranks, because the fullest rank
    // decides whether a configuration fits.
    // A rehearsal of one rank of world N (config.rehearseWorld, or a summary's rehearsed_world) has
    // none of the first three: its steps ran without communication. Its memory peaks are that rank's
    // at world N, and computeOnlyStepS is its median step without any communication.
    std::optional<double> medianStepS;
    std::optional<double> tokensPerS;
    std::optional<double> ncclShare;
    std::optional<std::int64_t> peakAllocatedBytes;
    std::optional<std::int64_t> peakReservedBytes;
    int rehearsedWorld = 0; // N for a rehearsal, 0 for a real run
    std::optional<double> computeOnlyStepS;

    std::filesystem::path logDir;
    int masterPort = 0;
    double wallSeconds = 0;

    bool ok() const { return status == RunStatus::Ok; }
    bool rehearsal() const { return rehearsedWorld > 0; }
};

RunOutcome summarizeRun(const RunConfig& requested, const LaunchResult& launch);

nlohmann::json toJson(const RunOutcome& outcome);

} // namespace shardwise::dispatch
