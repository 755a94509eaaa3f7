#pragma once
// What the Plan page shows of one plan: the three decision steps, the eight candidates and the run
// matrix, in display units. Filled from core/plan's result by plan_adapter.cpp so that models and
// charts do not depend on the planner's internal layout.

#include "shardwise/spec/specs.hpp"

#include <QList>
#include <QMetaType>
#include <QString>

namespace shardwise::gui {

struct MemoryPart {
    QString label;  // "parameters", "gradients", ... as the estimate names it (translated)
    double gib = 0; // per GPU
};

struct CandidateView {
    Strategy strategy = Strategy::Zero0;
    bool fits = false;
    double peakGiB = 0;          // the peak (MemoryBreakdown::peakBytes): allocated + CUDA context; what "fits" weighs
    double headroomGiB = 0;      // usable capacity (after the planner's headroom) minus peak; negative = short
    double tokensPerS = 0;       // predicted, global
    double mfu = 0;              // 0..1
    double ncclShare = 0;        // 0..1, collective kernel time over step time
    double stepTimeS = 0;        // predicted optimizer step
    double allocatedPeakGiB = 0; // comparable to a run's peak allocated memory
    double hostGiB = 0;          // host memory per node (CPU offload's state); 0 without offload
    QList<MemoryPart> memory;    // the peak's parts, stacked in this order; they sum to peakGiB
    bool recommended = false;
    QString note;              // why it was ruled out or chosen, one line
    bool supported = true;     // the plan's framework target can run it
    QString unsupportedReason; // why not, naming the framework that can
};

enum class StepVerdict { Decided, Passed, NotReached };

struct DecisionStepView {
    int number = 1; // 1..3 as in the product's decision order
    QString title;
    StepVerdict verdict = StepVerdict::NotReached;
    QString reason;
};

struct PlannedRun {
    Strategy strategy = Strategy::Zero0;
    QString why;
    RunConfig config; // as core/plan's run matrix has it: allocator setting and CUDA graphs of this strategy
};

struct PlanView {
    QString modelName;
    QString gpuName;
    QString gpuId;        // preset id ("custom" for a custom GPU)
    QString interconnect; // "nvlink" | "pcie"
    int gpus = 1;
    double capacityGiB = 0;   // the GPU's memory
    double usableGiB = 0;     // capacity minus the planner's headroom: what each peak is compared with
    double headroomGiB = 0;   // the planner's headroom
    double hostUsableGiB = 0; // the share of host RAM per node the planner takes as usable
    QList<DecisionStepView> steps;
    QList<CandidateView> candidates;
    QList<PlannedRun> runMatrix; // the recommendation first: what "Validate" measures
    bool hasRecommendation = false;
    Strategy recommendation = Strategy::Zero0;
    QString summary;
    Framework framework = Framework::Native;
    QString target;           // "DeepSpeed 0.16", "PyTorch FSDP2 2.11 with torch.compile"
    double interNodeGBps = 0; // per node per direction
    int nodes = 1;
};

} // namespace shardwise::gui

Q_DECLARE_METATYPE(shardwise::gui::PlanView)
