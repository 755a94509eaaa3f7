#pragma once
// One stored run as the Compare page shows it: identity, outcome and the numbers that get charted.
// Filled from core/store's records by the workspace; failed runs keep their row with the reason.

#include "shardwise/spec/framework.hpp"
#include "shardwise/spec/strategy.hpp"

#include <QDateTime>
#include <QString>

#include <optional>

namespace shardwise::gui {

// Detached: a run on SSH nodes whose ranks go on running there while nothing follows it (the Runs page
// re-attaches or abandons it); not measured yet, and not running under this app's eyes either.
enum class RunOutcome { Completed, OutOfMemory, Failed, Timeout, Cancelled, Running, Detached };

struct RunRecord {
    qint64 id = 0;
    QString model;    // model name
    QString hardware; // e.g. "4 x NVIDIA L4 24GB (PCIe)" or "1 x cpu"
    QString node;     // node name, "local" for this machine
    Strategy strategy = Strategy::Zero0;
    RunBackend backend = RunBackend::Native; // what ran it: the native runner or the PyTorch harness
    QString backendDetail; // torch runs: "PyTorch 2.5.1, Transformers 4.46.3 (model: transformers), Python 3.11.2"
    QDateTime started;
    RunOutcome outcome = RunOutcome::Completed;
    QString failure; // first error's message when not completed
    // An example run shipped with Shardwise or a published one: not the user's own, so read-only
    // (it cannot be removed). `origin` says which: "example", "published" or empty.
    bool readOnly = false;
    QString origin;

    double tokensPerS = 0;
    double medianStepS = 0;
    double peakAllocatedGiB = 0;
    double peakReservedGiB = 0;
    double capacityGiB = 0; // device memory per GPU; 0 for CPU runs
    double ncclShare = 0;   // 0..1
    std::optional<double> predictedTokensPerS;
    std::optional<double> predictedPeakGiB;

    int world = 1; // ranks that ran
    // A rehearsal of one rank of world N (store::RunSummary::rehearsedWorld): world is 1, its memory
    // figures are rank 0's at world N and predictedPeakGiB is world N's per rank; it measures no
    // tokens/s, step time or NCCL share (stored as none, shown as none).
    std::optional<int> rehearsedWorld;
    bool rehearsal() const { return rehearsedWorld.has_value(); }
    int warmupSteps = 0;
    int timedSteps = 0;
    int microBatch = 1;
    int seqLen = 0;
    QString precision;  // as requested; a CPU run computes in fp32 whatever this says
    bool onCpu = false; // measured on CPU (the runner's device name "cpu")
    QString versions;   // "LibTorch 1.13.1, CUDA 12.4, NCCL 2.21, driver 550.54"
    QString allocator;  // allocator configuration string
};

QString outcomeText(RunOutcome outcome);

} // namespace shardwise::gui
