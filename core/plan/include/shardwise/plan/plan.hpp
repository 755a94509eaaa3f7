#pragma once
// The decision order (docs/formulas.md, "Decision order") as code: estimate all nine strategies, then
//   step 1: the lightest strategy that keeps full parameters through backward and fits;
//   step 2: else full sharding chosen by the intra-node interconnect;
//   step 3: else CPU offload;
//   step 0: nothing fits: say what would (more GPUs, shorter sequences, smaller micro-batches,
//           activation checkpointing).
// Every recommendation carries its reasons as messages (an id with its numbers, which each face words
// in its language) and as the same sentences in English.

#include "shardwise/estimate/estimate.hpp"
#include "shardwise/spec/message.hpp"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace shardwise {

enum class DecisionStep : int {
    NothingFits = 0,
    LightestFits = 1,
    FullShardByInterconnect = 2,
    OffloadLast = 3,
};

// "Light" = no parameter re-gather in backward: every GPU holds the full parameters from forward
// through backward (zero0, zero1, zero2, fsdp2_noreshard). See docs/formulas.md, "Decision order".
bool isLightStrategy(Strategy s);

enum class RemedyKind { ActivationCheckpointing, MoreGpus, ShorterSequence, SmallerMicroBatch };

// One change of the input that would make at least one strategy fit. The GPU, sequence and
// micro-batch searches also run with activation checkpointing turned on when it is off and does not
// suffice alone; such a remedy needs both changes.
struct Remedy {
    RemedyKind kind = RemedyKind::MoreGpus;
    Strategy strategy = Strategy::Zero0; // the lightest strategy that fits after the change
    int value = 0;                       // GPUs in total, sequence length, micro-batch; 1 for checkpointing
    bool withActivationCheckpointing = false;
};

struct Candidate {
    Strategy strategy = Strategy::Zero0;
    Estimate estimate;
};

struct Recommendation {
    std::optional<Strategy> strategy; // empty when nothing fits
    DecisionStep step = DecisionStep::NothingFits;
    std::vector<Strategy> alsoMeasure; // alternatives the decision order says to measure as well
    std::vector<Remedy> remedies;      // only when nothing fits
    // The reasons as message ids with their arguments (shardwise/spec/message.hpp), and the same in
    // English (renderEnglish of each), which the CLI and the exports print. A plan read back from
    // JSON (planFromJson) has the English sentences only.
    std::vector<Message> reasonMessages;
    std::vector<std::string> reasons;
};

struct Plan {
    std::array<Candidate, kStrategyCount> candidates; // the strategy table's order
    Recommendation recommendation;
    FrameworkTarget framework; // what the figures describe (the input's target)
    double interNodeGBps = 0;  // the network between nodes the plan assumed (per node per direction); 0: one node

    const Candidate& candidate(Strategy s) const;
};

// How far apart two predicted tokens/s must be before the plan calls one strategy faster: the
// uncalibrated predictions of the 108 H200 runs of bench/results/fidelity-3ee897c were within 10 %
// of the measured tokens/s for 99 of them (docs/formulas.md, "Decision order").
inline constexpr double kThroughputPredictionError = 0.10;

// Whether `other` is predicted faster than `chosen` by more than kThroughputPredictionError of
// chosen's tokens/s. A recommendation names such a fitting strategy in its reasons, with the figure
// and the part of the step that makes the difference, and measures it as well (alsoMeasure).
bool predictedFasterBeyondError(const Estimate& other, const Estimate& chosen);

// Validates the input (SpecError names the field), then plans.
Plan makePlan(const EstimateInput& in, const Calibration& c = {});

// The runs worth measuring before a long run (decision step 4: same model, precision, micro-batch,
// sequence and GPU count): the recommendation, the alternatives to measure, and for step 1 the
// lightest fitting full shard as the check that heavier sharding brings no speed-up. Empty when
// nothing fits.
std::vector<RunConfig> runMatrix(const Plan& plan, const EstimateInput& in, DeviceKind device = DeviceKind::Cuda);

// The run of one strategy that a plan's input describes (what runMatrix returns for each of its
// strategies): the input's model, training and knobs on the whole cluster; ZeRO-3 on PCIe with
// expandable segments, as the reference needed; CUDA graphs as requestCudaGraphs leaves them.
RunConfig plannedRun(const EstimateInput& in, Strategy s, DeviceKind device = DeviceKind::Cuda);

// Turns rc's CUDA graphs on when `wanted` and the runner can capture its step, off otherwise (offload
// strategies, bf16-fp32-master and CPU runs run eager); where on, warm-up is raised to
// kCudaGraphWarmupSteps. Whatever rc's strategy, the result passes validate(RunConfig)'s graph checks.
void requestCudaGraphs(RunConfig& rc, bool wanted);

// {"recommendation":{"strategy":ID|null,"step":N,"also_measure":[ID...],"remedies":[{"kind":K,"strategy":ID,
//   "value":N,"with_activation_checkpointing":B}...],"reasons":[...]},
//  "candidates":[{"strategy":ID,"fits":B,"peak_gib":X,"capacity_gib":X,"headroom_gib":X,"breakdown_gib":{...},
//  "tokens_per_s":X,"step_time_s":X,"mfu":X,"nccl_share":X}, ...]}
// peak_gib is MemoryBreakdown::peakBytes(), the figure fits_device compares with capacity_gib less
// headroom_gib.
nlohmann::json toJson(const Plan& plan);
// Reads toJson's shape back (the store keeps plans as JSON). Fields the JSON does not carry (bytes
// below GiB precision, the throughput's parts) are reconstructed only as far as the JSON allows;
// toJson(planFromJson(j)) == j. Throws SpecError naming the field.
Plan planFromJson(const nlohmann::json& j, const std::string& path = "plan");

std::string_view decisionStepId(DecisionStep s); // "nothing_fits" | "lightest_fits" | ...
std::string_view remedyId(RemedyKind k);         // "activation_checkpointing" | "more_gpus" | ...

} // namespace shardwise
