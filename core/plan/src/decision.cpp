// The decision order (docs/formulas.md, "Decision order"). Step 1 treats as "light" the strategies that keep full
// parameters on every GPU from forward through backward (zero0, zero1, zero2, fsdp2_noreshard): they
// never re-gather parameters in backward, which is the extra traffic and latency that made full
// sharding slower in the reference benchmark. Among those the lightest (the strategy table's
// sortOrder) that fits wins, because heavier settings brought no evidence of a speed-up.
#include "internal.hpp"

#include "shardwise/plan/reference_plan.hpp"

#include <string>

namespace shardwise {

using detail::sentenceWith;
using detail::SentenceFormatter;

bool isLightStrategy(Strategy s)
{
    const StrategyTraits& t = traits(s);
    return !t.offloadsOptimizer && !t.offloadsParameters && (!t.shardsParameters || !t.reshardAfterForward);
}

const Candidate& Plan::candidate(Strategy s) const { return candidates[detail::tableIndex(s)]; }

namespace {

bool isOffload(Strategy s) { return traits(s).offloadsOptimizer || traits(s).offloadsParameters; }

const char* id(Strategy s) { return strategyId(s).data(); } // ids are literals: NUL-terminated

double gib(double bytes) { return bytes / kGiB; }

// The peak (MemoryBreakdown::peakBytes) with its two named parts, and the usable capacity it is
// compared with, with its two: every sentence about GPU memory states the same four figures.
std::string peakAgainstUsable(const Estimate& e, const char* relation, SentenceFormatter f)
{
    return sentenceWith(f, "predicted peak %.1f GiB (%.1f GiB allocated + %.1f GiB CUDA context and NCCL) %s the usable "
                           "%.1f GiB (the GPU's %.1f GiB less %.1f GiB headroom)",
                        gib(e.memory.peakBytes()), gib(e.memory.allocatedPeak()), gib(e.memory.runtimeContext), relation,
                        gib(e.usableDeviceBytes()), gib(e.deviceCapacityBytes), gib(e.headroomBytes));
}

// Why one estimate does not fit, with the numbers.
std::string whyNotFits(const Estimate& e, SentenceFormatter f)
{
    if (!e.fitsDevice)
        return sentenceWith(f, "%s does not fit: %s by %.1f GiB.", id(e.strategy),
                            peakAgainstUsable(e, "exceeds", f).c_str(), gib(e.deviceShortfallBytes()));
    return sentenceWith(f, "%s does not fit in host memory: it needs %.1f GiB per node, %.1f GiB over the %.1f GiB usable.",
                    id(e.strategy), gib(e.hostBytesPerNode), gib(e.hostShortfallBytes()), gib(e.hostCapacityBytes));
}

std::string fitsSentence(const Estimate& e, SentenceFormatter f)
{
    std::string s = sentenceWith(f, "%s fits: %s, %.1f GiB to spare; predicted %.0f tokens/s, step %.3f s, MFU %.1f %%.",
                                 id(e.strategy), peakAgainstUsable(e, "within", f).c_str(), gib(-e.deviceShortfallBytes()),
                                 e.throughput.tokensPerS, e.throughput.stepTimeS, 100.0 * e.throughput.mfu);
    if (e.hostBytesPerNode > 0)
        s += sentenceWith(f, " Host memory: %.1f GiB per node of %.1f GiB usable.", gib(e.hostBytesPerNode),
                      gib(e.hostCapacityBytes));
    return s;
}

// Strategies the framework target cannot express are left out of the reasons: they are not options.
void addMisfits(std::vector<std::string>& reasons, const Plan& p, bool (*which)(Strategy), SentenceFormatter f)
{
    for (Strategy s : detail::byLightness()) {
        const Estimate& e = p.candidate(s).estimate;
        if (which(s) && e.supported && !e.fits())
            reasons.push_back(whyNotFits(e, f));
    }
}

const char* frameworkLabel(const EstimateInput& in) { return traits(in.framework.framework).label.data(); }

// A framework target's plan says which defaults it assumed, and which strategies would fit with the
// native runner but not in the framework (its fp32 master, gradient partitions, buckets, eager
// activations and full logits).
void addFrameworkReasons(Plan& p, const EstimateInput& in, const Calibration& c, SentenceFormatter f)
{
    if (in.framework.framework == Framework::Native)
        return;
    Recommendation& r = p.recommendation;
    r.reasons.push_back(sentenceWith(
        f, "Planned for %s %s: precision %s, activation checkpointing %s%s; the figures are what the framework "
           "allocates and how fast it runs at its defaults (docs/formulas.md, \"Framework targets\").",
        frameworkLabel(in), in.framework.effectiveVersion().c_str(), precisionId(in.training.precision).data(),
        in.training.activationCheckpointing ? checkpointPolicyId(in.training.checkpointPolicy).data() : "off",
        in.framework.compiled ? ", torch.compile on each decoder layer" : ""));
    EstimateInput native = in;
    native.framework = FrameworkTarget{};
    const auto nativeEstimates = estimateMemoryAll(native, c);
    for (std::size_t i = 0; i < kStrategyCount; ++i) {
        const Estimate& e = p.candidates[i].estimate;
        const Estimate& n = nativeEstimates[i];
        if (e.supported && !e.fits() && n.fits())
            r.reasons.push_back(sentenceWith(
                f, "%s would fit with Shardwise's runner (predicted peak %.1f GiB) but not in %s at its defaults "
                   "(%.1f GiB).",
                id(e.strategy), gib(n.memory.peakBytes()), frameworkLabel(in), gib(e.memory.peakBytes())));
    }
}

bool lightPredicate(Strategy s) { return isLightStrategy(s); }
bool notOffloadPredicate(Strategy s) { return !isOffload(s); }

bool decideLightest(Plan& p, const EstimateInput& in, SentenceFormatter f)
{
    Recommendation& r = p.recommendation;
    for (Strategy s : detail::byLightness()) {
        if (!isLightStrategy(s) || !p.candidate(s).estimate.fits())
            continue;
        r.strategy = s;
        r.step = DecisionStep::LightestFits;
        r.reasons.push_back(sentenceWith(f, "Step 1 decided: %s is the lightest sharding that fits in GPU memory with "
                                     "headroom.",
                                     id(s)));
        addMisfits(r.reasons, p, lightPredicate, f);
        r.reasons.push_back(fitsSentence(p.candidate(s).estimate, f));
        detail::addFastestComparison(p, p.candidate(s).estimate, in.cluster.worldSize(), true, f);
        if (in.cluster.worldSize() == 1)
            r.reasons.push_back("With one GPU there is nothing to shard across: every strategy holds the whole state, "
                                "and sharding only adds copies.");
        return true;
    }
    return false;
}

bool decideFullShard(Plan& p, const EstimateInput& in, SentenceFormatter f)
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
        r.reasons.push_back(sentenceWith(f, "Step 2 decided: no light sharding fits, so %s, %s's full shard, is chosen.",
                                         id(only.strategy), frameworkLabel(in)));
        addMisfits(r.reasons, p, lightPredicate, f);
        r.reasons.push_back(fitsSentence(only, f));
        detail::addFastestComparison(p, only, in.cluster.worldSize(), false, f);
        return true;
    }
    const bool nvlink = in.cluster.intraNode == Interconnect::NvLink;
    const Estimate& preferred = nvlink ? fsdp : z3;
    const Estimate& other = nvlink ? z3 : fsdp;
    const Estimate& chosen = preferred.fits() ? preferred : other;
    r.strategy = chosen.strategy;
    r.reasons.push_back(sentenceWith(f, "Step 2 decided: no light sharding fits, so full sharding is chosen by the "
                                 "interconnect (%s).",
                                 interconnectId(in.cluster.intraNode).data()));
    addMisfits(r.reasons, p, lightPredicate, f);
    if (nvlink)
        r.reasons.push_back("On NVLink the FSDP2-style full shard (fsdp2_reshard) was faster than ZeRO-3 in the "
                            "reference benchmark.");
    else
        r.reasons.push_back("On PCIe the ZeRO-3 style was faster in the reference benchmark, but only with the "
                            "allocator's expandable segments; measure both full shards on this hardware.");
    if (&chosen != &preferred)
        r.reasons.push_back(sentenceWith(f, "%s, the rule's choice, does not fit (short by %.1f GiB), so %s is recommended.",
                                     id(preferred.strategy),
                                     gib(preferred.fitsDevice ? preferred.hostShortfallBytes()
                                                              : preferred.deviceShortfallBytes()),
                                     id(chosen.strategy)));
    r.reasons.push_back(fitsSentence(chosen, f));
    if (!nvlink && other.fits() && &chosen != &other)
        r.alsoMeasure.push_back(other.strategy);
    detail::addFastestComparison(p, chosen, in.cluster.worldSize(), false, f);
    if (!nvlink && chosen.strategy == Strategy::Zero3) {
        if (in.training.expandableSegments)
            r.reasons.push_back("Expandable segments are on, as the ZeRO-3 style needed on PCIe in the reference.");
        else
            r.reasons.push_back("Run it with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (--expandable-segments): "
                                "in the reference the ZeRO-3 style completed on PCIe only with it.");
    }
    if (in.cluster.nodes > 1)
        r.reasons.push_back(sentenceWith(f, "The rule reads the link inside a node; across the %d nodes the network "
                                     "(%.1f GB/s per node) bounds both full shards' collectives.",
                                     in.cluster.nodes, in.cluster.interNodeGBps));
    return true;
}

bool decideOffload(Plan& p, int world, SentenceFormatter f)
{
    Recommendation& r = p.recommendation;
    for (Strategy s : detail::byLightness()) {
        if (!isOffload(s) || !p.candidate(s).estimate.fits())
            continue;
        r.strategy = s;
        r.step = DecisionStep::OffloadLast;
        r.reasons.push_back(sentenceWith(f, "Step 3 decided: nothing fits without CPU offload, so %s, the lightest offload "
                                     "that fits, is the last resort.",
                                     id(s)));
        addMisfits(r.reasons, p, notOffloadPredicate, f);
        const Estimate& chosen = p.candidate(s).estimate;
        r.reasons.push_back(fitsSentence(chosen, f));
        const Estimate& noOffload = p.candidate(p.candidate(Strategy::Fsdp2Reshard).estimate.supported
                                                    ? Strategy::Fsdp2Reshard
                                                    : Strategy::Zero3)
                                        .estimate;
        r.reasons.push_back(sentenceWith(f, "Against %s, offload is predicted to cut the GPU peak by %.0f %% and "
                                     "throughput by %.1fx; in the reference benchmark CPU offload cut peak memory by "
                                     "roughly 40-65 %% and throughput by roughly 3-9x.",
                                     id(noOffload.strategy),
                                     100.0 * (1.0 - chosen.memory.peakBytes() / noOffload.memory.peakBytes()),
                                     noOffload.throughput.tokensPerS / chosen.throughput.tokensPerS));
        for (Strategy o : detail::byLightness())
            if (o != s && isOffload(o) && p.candidate(o).estimate.fits())
                r.alsoMeasure.push_back(o);
        detail::addFastestComparison(p, chosen, world, false, f);
        return true;
    }
    return false;
}

void decideNothingFits(Plan& p, const EstimateInput& in, const Calibration& c, const detail::PlanPaths& paths)
{
    const SentenceFormatter f = paths.format;
    Recommendation& r = p.recommendation;
    r.step = DecisionStep::NothingFits;
    const Estimate* closest = nullptr;
    for (const Candidate& cand : p.candidates)
        if (cand.estimate.supported && (!closest || cand.estimate.deviceShortfallBytes() < closest->deviceShortfallBytes()))
            closest = &cand.estimate;
    r.reasons.push_back(sentenceWith(f, "No strategy fits on %d x %s with micro-batch %d and sequence %d.",
                                 in.cluster.worldSize(), in.gpu.name.c_str(), in.training.microBatch,
                                 in.training.seqLen));
    if (closest)
        r.reasons.push_back(sentenceWith(f, "Closest: %s", whyNotFits(*closest, f).c_str()));
    r.remedies = paths.remedies(in, c);
    if (r.remedies.empty())
        r.reasons.push_back("Neither more GPUs, shorter sequences, a smaller micro-batch nor activation checkpointing "
                            "makes any strategy fit within the searched ranges; a GPU with more memory is needed.");
    for (const Remedy& m : r.remedies)
        r.reasons.push_back(detail::describe(m, in, f));
}

} // namespace

Plan detail::makePlanWith(const EstimateInput& in, const Calibration& c, const PlanPaths& paths)
{
    validate(in);
    Plan p;
    p.recommendation.reasons.reserve(8); // the longest decision gives about eight sentences
    const auto estimates = estimateAll(in, c);
    for (std::size_t i = 0; i < kStrategyCount; ++i)
        p.candidates[i] = Candidate{estimates[i].strategy, estimates[i]};
    const SentenceFormatter f = paths.format;
    p.framework = in.framework;
    p.interNodeGBps = in.cluster.nodes > 1 ? in.cluster.interNodeGBps : 0.0;
    if (!decideLightest(p, in, f) && !decideFullShard(p, in, f) && !decideOffload(p, in.cluster.worldSize(), f))
        decideNothingFits(p, in, c, paths);
    addFrameworkReasons(p, in, c, f);
    if (p.recommendation.strategy)
        p.recommendation.reasons.push_back("Validate with a short run of the same model, precision, micro-batch, "
                                           "sequence length and GPU count before a long run.");
    return p;
}

Plan makePlan(const EstimateInput& in, const Calibration& c) { return detail::makePlanWith(in, c, {}); }

Plan reference::makePlan(const EstimateInput& in, const Calibration& c)
{
    return detail::makePlanWith(in, c, {detail::formatSentenceWithLibc, detail::findRemediesStraightforward});
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
