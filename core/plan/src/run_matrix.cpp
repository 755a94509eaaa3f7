// Decision step 4 (docs/formulas.md, "Decision order"): validate on the user's workload before a long run. Every run
// keeps the planned model, precision, micro-batch, sequence length and GPU count; only the strategy (and, for ZeRO-3 on
// PCIe, the allocator setting the reference needed; CUDA graphs only where the strategy's step can be captured)
// changes.
#include "internal.hpp"

#include <algorithm>

namespace shardwise {

void requestCudaGraphs(RunConfig& rc, bool wanted)
{
    rc.training.cudaGraphs = wanted && canCaptureCudaGraphs(rc.strategy, rc.training.precision, rc.device);
    if (rc.training.cudaGraphs)
        rc.warmupSteps = std::max(rc.warmupSteps, kCudaGraphWarmupSteps);
}

RunConfig plannedRun(const EstimateInput& in, Strategy s, DeviceKind device)
{
    RunConfig rc;
    rc.model = in.model;
    rc.strategy = s;
    rc.training = in.training;
    rc.knobs = in.knobs;
    rc.device = device;
    rc.worldSize = in.cluster.worldSize();
    if (s == Strategy::Zero3 && in.cluster.intraNode == Interconnect::Pcie)
        rc.training.expandableSegments = true;
    requestCudaGraphs(rc, in.training.cudaGraphs);
    return rc;
}

std::vector<RunConfig> runMatrix(const Plan& plan, const EstimateInput& in, DeviceKind device)
{
    std::vector<RunConfig> runs;
    const Recommendation& r = plan.recommendation;
    if (!r.strategy)
        return runs;
    std::vector<Strategy> strategies { *r.strategy };
    strategies.insert(strategies.end(), r.alsoMeasure.begin(), r.alsoMeasure.end());
    if (r.step == DecisionStep::LightestFits) {
        // The check that heavier sharding brings no speed-up here: the full shard the interconnect
        // rule would pick, if it fits.
        const bool nvlink = in.cluster.intraNode == Interconnect::NvLink;
        for (Strategy f :
             { nvlink ? Strategy::Fsdp2Reshard : Strategy::Zero3, nvlink ? Strategy::Zero3 : Strategy::Fsdp2Reshard }) {
            if (plan.candidate(f).estimate.fits()) {
                strategies.push_back(f);
                break;
            }
        }
    }
    for (Strategy s : strategies) {
        if (std::any_of(runs.begin(), runs.end(), [s](const RunConfig& rc) { return rc.strategy == s; }))
            continue;
        runs.push_back(plannedRun(in, s, device));
    }
    return runs;
}

} // namespace shardwise
