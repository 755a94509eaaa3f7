#pragma once
// The diagnosis of a measured run that did not complete: what each rank left behind (its stderr log
// file, its protocol events, how it exited) goes to core/diagnose, which finds the first failure
// across the ranks; the result is stored beside the run so the history shows it later.

#include "shardwise/diagnose/diagnosis.hpp"
#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/store/database.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace shardwise::gui {

// One RankRecord per launched rank, its log read back from the rank's log file.
std::vector<diagnose::RankRecord> rankRecordsOf(const dispatch::LaunchResult& launch, const std::string& node);

// Stores `diagnosis` for the run (replacing an earlier one) and returns the stored id.
std::int64_t storeRunDiagnosis(store::Database& db, std::int64_t runId, const diagnose::Diagnosis& diagnosis);

} // namespace shardwise::gui
