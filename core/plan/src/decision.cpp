// The decision order (docs/formulas.md, "Decision order"). Step 1 treats as "light" the strategies that keep full
// parameters on every GPU from forward through backward (zero0, zero1, zero2, fsdp2_noreshard): they
// never re-gather parameters in backward, which is the extra traffic and latency that made full
// sharding slower in the reference benchmark. Among those the lightest (the strategy table's
// sortOrder) that fits wins, because heavier settings brought no evidence of a speed-up.
#include "internal.hpp"

#include "shardwise/plan/reference_plan.hpp"

#include <string>

namespace shardwise {

using A = MessageArg;

bool isLightStrategy(Strategy s)
{
    const StrategyTraits& t = traits(s);
    return !t.offloadsOptimizer && !t.offloadsParameters && (!t.shardsParameters || !t.reshardAfterForward);
}

const Candidate& Plan::candidate(Strategy s) const
{
    return candidates[detail::tableIndex(s)];
}

namespace {

bool isOffload(Strategy s)
{
    return traits(s).offloadsOptimizer || traits(s).offloadsParameters;
}

A id(Strategy s)
{
    return A::name(std::string(strategyId(s)));
}

A gib(double bytes)
{
    return A::gib(bytes / kGiB, 1);
}

Message msg(std::string key, std::vector<A> args = {})
{
    return Message { std::move(key), std::move(args) };
}

// The peak (MemoryBreakdown::peakBytes) with its two named parts, and the usable capacity it is
// compared with, with its two: every sentence about GPU memory states the same figures.
Message peakAgainstUsable(const Estimate& e, bool exceeds)
{
    return msg(exceeds ? "plan.peak_exceeds_usable" : "plan.peak_within_usable",
               { gib(e.memory.peakBytes()), gib(e.memory.allocatedPeak()), gib(e.memory.runtimeContext),
                 gib(e.usableDeviceBytes()), gib(e.deviceCapacityBytes), gib(e.headroomBytes) });
}

// Why one estimate does not fit, with the numbers.
Message whyNotFits(const Estimate& e)
{
    if (!e.fitsDevice)
        return msg("plan.does_not_fit_device",
                   { id(e.strategy), A::message(peakAgainstUsable(e, true)), gib(e.deviceShortfallBytes()) });
    return msg("plan.does_not_fit_host",
               { id(e.strategy), gib(e.hostBytesPerNode), gib(e.hostShortfallBytes()), gib(e.hostCapacityBytes) });
}

Message fitsSentence(const Estimate& e)
{
    std::vector<A> args { id(e.strategy),
                          A::message(peakAgainstUsable(e, false)),
                          gib(-e.deviceShortfallBytes()),
                          A::tokensPerS(e.throughput.tokensPerS, 0),
                          A::seconds(e.throughput.stepTimeS, 3),
                          A::percent(100.0 * e.throughput.mfu, 1) };
    if (e.hostBytesPerNode <= 0)
        return msg("plan.fits", std::move(args));
    args.push_back(gib(e.hostBytesPerNode));
    args.push_back(gib(e.hostCapacityBytes));
    return msg("plan.fits_with_host", std::move(args));
}

// Strategies the framework target cannot express are left out of the reasons: they are not options.
void addMisfits(std::vector<Message>& reasons, const Plan& p, bool (*which)(Strategy))
{
    for (Strategy s : detail::byLightness()) {
        const Estimate& e = p.candidate(s).estimate;
        if (which(s) && e.supported && !e.fits())
            reasons.push_back(whyNotFits(e));
    }
}

A frameworkLabel(const EstimateInput& in)
{
    return A::name(std::string(traits(in.framework.framework).label));
}

// A framework target's plan says which defaults it assumed, and which strategies would fit with the
// native runner but not in the framework (its fp32 master, gradient partitions, buckets, eager
// activations and full logits).
void addFrameworkReasons(Plan& p, const EstimateInput& in, const Calibration& c)
{
    if (in.framework.framework == Framework::Native)
        return;
    Recommendation& r = p.recommendation;
    r.reasonMessages.push_back(msg("plan.framework_assumed",
                                   { frameworkLabel(in), A::name(in.framework.effectiveVersion()),
                                     A::name(std::string(precisionId(in.training.precision))),
                                     in.training.activationCheckpointing
                                         ? A::name(std::string(checkpointPolicyId(in.training.checkpointPolicy)))
                                         : A::message(msg("plan.checkpointing_off")),
                                     in.framework.compiled ? A::message(msg("plan.compiled_layers")) : A::name({}) }));
    EstimateInput native = in;
    native.framework = FrameworkTarget {};
    const auto nativeEstimates = estimateMemoryAll(native, c);
    for (std::size_t i = 0; i < kStrategyCount; ++i) {
        const Estimate& e = p.candidates[i].estimate;
        const Estimate& n = nativeEstimates[i];
        if (e.supported && !e.fits() && n.fits())
            r.reasonMessages.push_back(
                msg("plan.fits_natively_not_in_framework",
                    { id(e.strategy), gib(n.memory.peakBytes()), frameworkLabel(in), gib(e.memory.peakBytes()) }));
    }
    detail::addDeepSpeedReasons(p, in, c);
}

bool lightPredicate(Strategy s)
{
    return isLightStrategy(s);
}
bool notOffloadPredicate(Strategy s)
{
    return !isOffload(s);
}

bool decideLightest(Plan& p, const EstimateInput& in)
{
    Recommendation& r = p.recommendation;
    for (Strategy s : detail::byLightness()) {
        if (!isLightStrategy(s) || !p.candidate(s).estimate.fits())
            continue;
        r.strategy = s;
        r.step = DecisionStep::LightestFits;
        r.reasonMessages.push_back(msg("plan.step1_decided", { id(s) }));
        addMisfits(r.reasonMessages, p, lightPredicate);
        r.reasonMessages.push_back(fitsSentence(p.candidate(s).estimate));
        detail::addFastestComparison(p, p.candidate(s).estimate, in.cluster.worldSize(), true);
        if (in.cluster.worldSize() == 1)
            r.reasonMessages.push_back(msg("plan.one_gpu"));
        return true;
    }
    return false;
}

bool decideFullShard(Plan& p, const EstimateInput& in)
{
    const Estimate& z3 = p.candidate(Strategy::Zero3).estimate;
    const Estimate& fsdp = p.candidate(Strategy::Fsdp2Reshard).estimate;
    if (!z3.fits() && !fsdp.fits())
        return false;
    Recommendation& r = p.recommendation;
    r.step = DecisionStep::FullShardByInterconnect;
    if (!z3.supported || !fsdp.supported) {
        // A framework target offers one full shard: the interconnect rule has nothing to choose.
        const Estimate& only = z3.supported ? z3 : fsdp;
        r.strategy = only.strategy;
        r.reasonMessages.push_back(msg("plan.step2_decided_framework", { id(only.strategy), frameworkLabel(in) }));
        addMisfits(r.reasonMessages, p, lightPredicate);
        r.reasonMessages.push_back(fitsSentence(only));
        detail::addFastestComparison(p, only, in.cluster.worldSize(), false);
        return true;
    }
    const bool nvlink = in.cluster.intraNode == Interconnect::NvLink;
    const Estimate& preferred = nvlink ? fsdp : z3;
    const Estimate& other = nvlink ? z3 : fsdp;
    const Estimate& chosen = preferred.fits() ? preferred : other;
    r.strategy = chosen.strategy;
    r.reasonMessages.push_back(
        msg("plan.step2_decided", { A::name(std::string(interconnectId(in.cluster.intraNode))) }));
    addMisfits(r.reasonMessages, p, lightPredicate);
    r.reasonMessages.push_back(msg(nvlink ? "plan.nvlink_fsdp2_faster" : "plan.pcie_zero3_faster"));
    if (&chosen != &preferred)
        r.reasonMessages.push_back(
            msg("plan.rule_choice_does_not_fit",
                { id(preferred.strategy),
                  gib(preferred.fitsDevice ? preferred.hostShortfallBytes() : preferred.deviceShortfallBytes()),
                  id(chosen.strategy) }));
    r.reasonMessages.push_back(fitsSentence(chosen));
    if (!nvlink && other.fits() && &chosen != &other)
        r.alsoMeasure.push_back(other.strategy);
    detail::addFastestComparison(p, chosen, in.cluster.worldSize(), false);
    if (!nvlink && chosen.strategy == Strategy::Zero3)
        r.reasonMessages.push_back(
            msg(in.training.expandableSegments ? "plan.expandable_segments_on" : "plan.expandable_segments_needed"));
    if (in.cluster.nodes > 1)
        r.reasonMessages.push_back(msg("plan.network_bounds_full_shards",
                                       { A::integer(in.cluster.nodes), A::gbps(in.cluster.interNodeGBps, 1) }));
    return true;
}

bool decideOffload(Plan& p, int world)
{
    Recommendation& r = p.recommendation;
    for (Strategy s : detail::byLightness()) {
        if (!isOffload(s) || !p.candidate(s).estimate.fits())
            continue;
        r.strategy = s;
        r.step = DecisionStep::OffloadLast;
        r.reasonMessages.push_back(msg("plan.step3_decided", { id(s) }));
        addMisfits(r.reasonMessages, p, notOffloadPredicate);
        const Estimate& chosen = p.candidate(s).estimate;
        r.reasonMessages.push_back(fitsSentence(chosen));
        const Estimate& noOffload
            = p.candidate(p.candidate(Strategy::Fsdp2Reshard).estimate.supported ? Strategy::Fsdp2Reshard
                                                                                 : Strategy::Zero3)
                  .estimate;
        r.reasonMessages.push_back(
            msg("plan.offload_against",
                { id(noOffload.strategy),
                  A::percent(100.0 * (1.0 - chosen.memory.peakBytes() / noOffload.memory.peakBytes()), 0),
                  A::ratio(noOffload.throughput.tokensPerS / chosen.throughput.tokensPerS, 1) }));
        for (Strategy o : detail::byLightness())
            if (o != s && isOffload(o) && p.candidate(o).estimate.fits())
                r.alsoMeasure.push_back(o);
        detail::addFastestComparison(p, chosen, world, false);
        return true;
    }
    return false;
}

void decideNothingFits(Plan& p, const EstimateInput& in, const Calibration& c, const detail::PlanPaths& paths)
{
    Recommendation& r = p.recommendation;
    r.step = DecisionStep::NothingFits;
    const Estimate* closest = nullptr;
    for (const Candidate& cand : p.candidates)
        if (cand.estimate.supported
            && (!closest || cand.estimate.deviceShortfallBytes() < closest->deviceShortfallBytes()))
            closest = &cand.estimate;
    r.reasonMessages.push_back(msg("plan.nothing_fits",
                                   { A::integer(in.cluster.worldSize()), A::name(in.gpu.name),
                                     A::integer(in.training.microBatch), A::integer(in.training.seqLen) }));
    if (closest)
        r.reasonMessages.push_back(msg("plan.closest", { A::message(whyNotFits(*closest)) }));
    r.remedies = paths.remedies(in, c);
    if (r.remedies.empty())
        r.reasonMessages.push_back(msg("plan.no_remedy"));
    for (const Remedy& m : r.remedies)
        r.reasonMessages.push_back(detail::describe(m, in));
}

} // namespace

Plan detail::makePlanWith(const EstimateInput& in, const Calibration& c, const PlanPaths& paths)
{
    validate(in);
    Plan p;
    p.recommendation.reasonMessages.reserve(8); // the longest decision gives about eight sentences
    const auto estimates = estimateAll(in, c);
    for (std::size_t i = 0; i < kStrategyCount; ++i)
        p.candidates[i] = Candidate { estimates[i].strategy, estimates[i] };
    p.framework = in.framework;
    p.interNodeGBps = in.cluster.nodes > 1 ? in.cluster.interNodeGBps : 0.0;
    if (!decideLightest(p, in) && !decideFullShard(p, in) && !decideOffload(p, in.cluster.worldSize()))
        decideNothingFits(p, in, c, paths);
    addFrameworkReasons(p, in, c);
    Recommendation& r = p.recommendation;
    if (r.strategy)
        r.reasonMessages.push_back(msg("plan.validate"));
    r.reasons.reserve(r.reasonMessages.size());
    for (const Message& m : r.reasonMessages)
        r.reasons.push_back(paths.numbers ? renderEnglishWith(m, paths.numbers) : renderEnglish(m));
    return p;
}

Plan makePlan(const EstimateInput& in, const Calibration& c)
{
    return detail::makePlanWith(in, c, {});
}

Plan reference::makePlan(const EstimateInput& in, const Calibration& c)
{
    return detail::makePlanWith(in, c, { detail::fixedWithLibc, detail::findRemediesStraightforward });
}

std::string_view decisionStepId(DecisionStep s)
{
    switch (s) {
    case DecisionStep::NothingFits:
        return "nothing_fits";
    case DecisionStep::LightestFits:
        return "lightest_fits";
    case DecisionStep::FullShardByInterconnect:
        return "full_shard_by_interconnect";
    case DecisionStep::OffloadLast:
        return "offload_last";
    }
    return "nothing_fits";
}

} // namespace shardwise
