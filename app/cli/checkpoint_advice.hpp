#pragma once
// `shardwise-cli plan --interruptions-per-hour X`: the checkpoint interval for the recommended
// strategy (core/interruption), with the save cost measured (--checkpoint-save-s) or estimated.

#include "shardwise/interruption/checkpoint_interval.hpp"
#include "shardwise/interruption/save_cost.hpp"
#include "shardwise/plan/plan.hpp"

#include <nlohmann/json_fwd.hpp>

#include <iosfwd>
#include <optional>

namespace shardwise::cli {

struct CheckpointOptions {
    double interruptionsPerHour = 0;
    double writeGBps = interruption::kDefaultCheckpointWriteGBps;
    double measuredSaveS = 0; // 0 = estimate
    double extraRestartS = 0;
};

struct CheckpointAdvice {
    Strategy strategy = Strategy::Zero0;
    interruption::SaveCostEstimate estimate; // always computed, shown when the save was not measured
    bool saveMeasured = false;
    double saveS = 0;
    double loadS = 0; // reading the checkpoint back, assumed as long as writing it
    double extraRestartS = 0;
    double stepTimeS = 0; // the planner's predicted step time
    interruption::CheckpointRecommendation recommendation;
};

// Empty when no strategy fits (there is nothing to checkpoint).
std::optional<CheckpointAdvice> adviseCheckpoints(const Plan& plan, const EstimateInput& in,
                                                  const CheckpointOptions& o);
void printCheckpointAdvice(const CheckpointAdvice& a, const CheckpointOptions& o, std::ostream& out);
nlohmann::json toJson(const CheckpointAdvice& a, const CheckpointOptions& o);

} // namespace shardwise::cli
