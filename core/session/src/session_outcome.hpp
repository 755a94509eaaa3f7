#pragma once
// Shared by the local and the remote session: how a run is concluded (final status, diagnosis) and
// how a remote run's result is put into the local launcher's terms so one summary serves both.

#include "run_recording.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shardwise::session::detail {

std::string firstNodeName(const SessionOptions& options);

// The local run folder's name: run-<stored id>, or a time stamp for an unrecorded run.
std::string localRunName(const std::optional<std::int64_t>& runId);
// Writes the config as config.json into `folder` (a fresh temporary folder when empty, which is then
// set); returns the file.
std::filesystem::path writeRunConfig(const RunConfig& config, std::filesystem::path& folder);

// Finishes the recording with `status` and the outcome's reason; diagnoses and stores the diagnosis
// when the run did not complete and was not cancelled.
void concludeRun(RunRecording& recording, const SessionOptions& options, const std::vector<diagnose::RankRecord>& ranks,
                 store::RunStatus status, SessionResult& result);

// The remote ranks as the local launcher reports ranks: exit code, signal number, events, log tail.
dispatch::LaunchResult asLaunchResult(const dispatch::RemoteRunResult& remote, double wallSeconds, int masterPort);

// One RankRecord per remote rank, with the log lines the follower delivered and lost ranks marked.
std::vector<diagnose::RankRecord> remoteRankRecords(const dispatch::RemoteRunResult& remote,
                                                    const std::map<int, std::vector<std::string>>& logLines,
                                                    const std::vector<std::string>& nodeNames, double lostTime);

// The signal number for a name without "SIG" ("TERM" -> 15); 0 when unknown.
int signalNumber(const std::string& name);

} // namespace shardwise::session::detail
