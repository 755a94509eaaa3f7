#include "checkpoint_advice.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ostream>

namespace shardwise::cli {

namespace {

std::string fmt(const char* f, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

} // namespace

std::optional<CheckpointAdvice> adviseCheckpoints(const Plan& plan, const EstimateInput& in, const CheckpointOptions& o)
{
    if (!plan.recommendation.strategy)
        return std::nullopt;
    CheckpointAdvice a;
    a.strategy = *plan.recommendation.strategy;
    a.estimate = interruption::estimateSaveCost(a.strategy, static_cast<double>(in.model.parameterCount()),
                                                in.training.precision, in.cluster, o.writeGBps);
    a.saveMeasured = o.measuredSaveS > 0;
    a.saveS = a.saveMeasured ? o.measuredSaveS : a.estimate.saveS;
    a.loadS = a.saveS;
    a.extraRestartS = o.extraRestartS;
    a.stepTimeS = plan.candidate(a.strategy).estimate.throughput.stepTimeS;
    a.recommendation = interruption::recommendCheckpointInterval(
        { o.interruptionsPerHour, a.stepTimeS, a.saveS, a.loadS + a.extraRestartS });
    return a;
}

void printCheckpointAdvice(const CheckpointAdvice& a, const CheckpointOptions& o, std::ostream& out)
{
    const auto& r = a.recommendation;
    out << "\nCheckpoint interval for " << strategyId(a.strategy) << " at " << fmt("%g", o.interruptionsPerHour)
        << (o.interruptionsPerHour == 1.0 ? " interruption" : " interruptions") << " per hour (mean "
        << fmt("%.0f", r.meanTimeBetweenInterruptionsS) << " s between them):\n";
    out << "  save cost C          " << fmt("%.1f", a.saveS) << " s ";
    if (a.saveMeasured)
        out << "(measured, --checkpoint-save-s)\n";
    else
        out << "(estimated: " << fmt("%.2f", a.estimate.bytesBusiestNode / 1e9)
            << " GB of parameters and optimizer state "
            << "written by the busiest node at " << fmt("%g", a.estimate.writeGBps) << " GB/s per node)\n";
    out << "  restart cost R       " << fmt("%.1f", a.loadS + a.extraRestartS)
        << " s (loading the checkpoint, assumed as "
        << "long as saving it, + " << fmt("%.1f", a.extraRestartS) << " s --restart-s)\n";
    out << "  step time            " << fmt("%.3f", a.stepTimeS) << " s (predicted)\n";
    out << "  Young sqrt(2CM)      " << fmt("%.0f", r.youngIntervalS) << " s\n";
    out << "  Daly (higher order)  " << fmt("%.0f", r.dalyIntervalS) << " s\n";
    out << "  checkpoint every     " << r.intervalSteps << " steps (" << fmt("%.0f", r.intervalS) << " s)\n";
    out << "  lost per interruption about " << fmt("%.0f", r.expectedRecomputeS) << " s recomputed + "
        << fmt("%.0f", a.loadS + a.extraRestartS) << " s restart = " << fmt("%.0f", r.expectedLostPerInterruptionS)
        << " s\n";
    out << "  expected overhead    " << fmt("%.1f", 100.0 * r.expectedOverheadFraction) << " % of wall time (saves "
        << fmt("%.1f", 100.0 * r.saveOverheadFraction) << " %, the rest recompute and restarts)\n";
    out << "Young (1974) T = sqrt(2 C M); Daly (2006) adds higher-order terms; see docs/interruption.md.\n";
}

nlohmann::json toJson(const CheckpointAdvice& a, const CheckpointOptions& o)
{
    const auto& r = a.recommendation;
    return { { "strategy", strategyId(a.strategy) },
             { "interruptions_per_hour", o.interruptionsPerHour },
             { "mean_time_between_interruptions_s", r.meanTimeBetweenInterruptionsS },
             { "save_s", a.saveS },
             { "save_measured", a.saveMeasured },
             { "estimated_save_s", a.estimate.saveS },
             { "bytes_busiest_node", a.estimate.bytesBusiestNode },
             { "checkpoint_write_gbps", a.estimate.writeGBps },
             { "restart_s", a.loadS + a.extraRestartS },
             { "step_time_s", a.stepTimeS },
             { "young_interval_s", r.youngIntervalS },
             { "daly_interval_s", r.dalyIntervalS },
             { "interval_steps", r.intervalSteps },
             { "interval_s", r.intervalS },
             { "expected_recompute_s", r.expectedRecomputeS },
             { "expected_lost_per_interruption_s", r.expectedLostPerInterruptionS },
             { "expected_overhead_fraction", r.expectedOverheadFraction },
             { "save_overhead_fraction", r.saveOverheadFraction } };
}

} // namespace shardwise::cli
