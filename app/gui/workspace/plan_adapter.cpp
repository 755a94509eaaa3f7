#include "workspace/plan_adapter.hpp"

#include "models/display_format.hpp"
#include "shell/core_messages.hpp"

#include "shardwise/frameworks/configs.hpp"

#include <QCoreApplication>
#include <QStringList>

namespace shardwise::gui {

namespace {

struct PlanText {
    Q_DECLARE_TR_FUNCTIONS(PlanText)
};

QString fromStd(const std::string& s)
{
    return QString::fromStdString(s);
}

const char* partLabel(std::string_view id)
{
    const struct {
        std::string_view id;
        const char* label;
    } labels[] = {
        { "device_params", QT_TRANSLATE_NOOP("PlanText", "parameters") },
        { "device_grads", QT_TRANSLATE_NOOP("PlanText", "gradients") },
        { "device_optimizer", QT_TRANSLATE_NOOP("PlanText", "optimizer state") },
        { "gathered_params", QT_TRANSLATE_NOOP("PlanText", "gathered parameters") },
        { "activations", QT_TRANSLATE_NOOP("PlanText", "activations") },
        { "logits_and_loss", QT_TRANSLATE_NOOP("PlanText", "logits and loss") },
        { "comm_buffers", QT_TRANSLATE_NOOP("PlanText", "communication buffers") },
        { "workspace", QT_TRANSLATE_NOOP("PlanText", "kernel workspaces") },
        { "allocator_cache", QT_TRANSLATE_NOOP("PlanText", "allocator cache") },
        { "runtime_context", QT_TRANSLATE_NOOP("PlanText", "CUDA context and NCCL") },
    };
    for (const auto& l : labels)
        if (l.id == id)
            return l.label;
    return nullptr;
}

// The peak's parts as core/estimate sums them (peakParts), so the stacked bar is the peak.
QList<MemoryPart> memoryParts(const MemoryBreakdown& m)
{
    QList<MemoryPart> out;
    for (const PeakPart& p : peakParts(m)) {
        const char* label = partLabel(p.id);
        out.append({ label ? PlanText::tr(label) : QString::fromUtf8(p.id.data(), static_cast<qsizetype>(p.id.size())),
                     p.bytes / kGiB });
    }
    return out;
}

QString lightShortfalls(const Plan& plan)
{
    QStringList parts;
    for (const Candidate& c : plan.candidates)
        if (isLightStrategy(c.strategy) && !c.estimate.fits())
            parts << PlanText::tr("%1 short by %2")
                         .arg(strategyLabel(c.strategy), formatGiB(c.estimate.deviceShortfallBytes() / kGiB));
    return parts.join(QStringLiteral(", "));
}

QString fullShardShortfalls(const Plan& plan)
{
    QStringList parts;
    for (const Candidate& c : plan.candidates) {
        const StrategyTraits& t = traits(c.strategy);
        if (!isLightStrategy(c.strategy) && !t.offloadsOptimizer && !c.estimate.fits())
            parts << PlanText::tr("%1 short by %2")
                         .arg(strategyLabel(c.strategy), formatGiB(c.estimate.deviceShortfallBytes() / kGiB));
    }
    return parts.join(QStringLiteral(", "));
}

} // namespace

PlanView toPlanView(const Plan& plan, const EstimateInput& input, const std::vector<RunConfig>& runMatrix)
{
    PlanView view;
    view.modelName = fromStd(input.model.name.empty() ? input.model.id : input.model.name);
    view.gpuName = fromStd(input.gpu.name.empty() ? input.gpu.id : input.gpu.name);
    view.gpus = input.cluster.worldSize();
    view.gpuId = fromStd(input.gpu.id);
    view.interconnect = fromStd(std::string(interconnectId(input.cluster.intraNode)));
    const Estimate& first = plan.candidates.front().estimate;
    view.capacityGiB = first.deviceCapacityBytes / kGiB;
    view.usableGiB = first.usableDeviceBytes() / kGiB;
    view.headroomGiB = first.headroomBytes / kGiB;
    view.hostUsableGiB = first.hostCapacityBytes / kGiB;
    view.framework = input.framework.framework;
    view.target = QString::fromUtf8(traits(input.framework.framework).label.data(),
                                    static_cast<qsizetype>(traits(input.framework.framework).label.size()));
    if (!input.framework.effectiveVersion().empty())
        view.target += QLatin1Char(' ') + fromStd(input.framework.effectiveVersion());
    if (input.framework.compiled)
        view.target = PlanText::tr("%1 with torch.compile").arg(view.target);
    view.interNodeGBps = input.cluster.interNodeGBps;
    view.nodes = input.cluster.nodes;

    const Recommendation& rec = plan.recommendation;
    view.hasRecommendation = rec.strategy.has_value();
    if (rec.strategy)
        view.recommendation = *rec.strategy;

    for (const Candidate& c : plan.candidates) {
        CandidateView cv;
        cv.strategy = c.strategy;
        cv.fits = c.estimate.fits();
        cv.peakGiB = c.estimate.memory.peakBytes() / kGiB;
        cv.headroomGiB = -c.estimate.deviceShortfallBytes() / kGiB;
        cv.tokensPerS = c.estimate.throughput.tokensPerS;
        cv.mfu = c.estimate.throughput.mfu;
        cv.ncclShare = c.estimate.throughput.ncclShare;
        cv.stepTimeS = c.estimate.throughput.stepTimeS;
        cv.allocatedPeakGiB = c.estimate.memory.allocatedPeak() / kGiB;
        cv.hostGiB = c.estimate.hostBytesPerNode / kGiB;
        cv.memory = memoryParts(c.estimate.memory);
        cv.recommended = rec.strategy && *rec.strategy == c.strategy;
        cv.supported = frameworkSupports(input.framework.framework, c.strategy);
        if (!cv.supported)
            cv.unsupportedReason
                = PlanText::tr("%1 cannot run %2: %3")
                      .arg(view.target, strategyLabel(c.strategy),
                           traits(c.strategy).family == StrategyFamily::Fsdp2
                               ? PlanText::tr("it is an FSDP2 setup; plan for PyTorch FSDP2 or torchtitan.")
                               : PlanText::tr("it is a DeepSpeed ZeRO stage; plan for DeepSpeed."));
        if (!c.estimate.fitsDevice)
            cv.note = PlanText::tr("Does not fit the GPU: short by %1.")
                          .arg(formatGiB(c.estimate.deviceShortfallBytes() / kGiB));
        else if (!c.estimate.fitsHost)
            cv.note = PlanText::tr("Does not fit host memory: short by %1 per node.")
                          .arg(formatGiB(c.estimate.hostShortfallBytes() / kGiB));
        view.candidates.append(cv);
    }

    // The reasons in the user's language; a plan read back from JSON has only the English.
    QStringList coreReasons;
    for (const Message& m : rec.reasonMessages)
        coreReasons << coreMessageText(m);
    if (rec.reasonMessages.empty())
        for (const std::string& r : rec.reasons)
            coreReasons << fromStd(r);
    const QString decidedReason = coreReasons.join(QLatin1Char(' '));
    const int decided = static_cast<int>(rec.step); // 0 = nothing fits

    const char* titles[] = { QT_TRANSLATE_NOOP("PlanText", "Lightest sharding that fits"),
                             QT_TRANSLATE_NOOP("PlanText", "Full sharding, chosen by interconnect"),
                             QT_TRANSLATE_NOOP("PlanText", "CPU offload last") };
    for (int n = 1; n <= 3; ++n) {
        DecisionStepView step;
        step.number = n;
        step.title = PlanText::tr(titles[n - 1]);
        if (decided == n) {
            step.verdict = StepVerdict::Decided;
            step.reason = decidedReason;
        } else if (decided == 0 || n < decided) {
            step.verdict = StepVerdict::Passed;
            if (n == 1)
                step.reason = PlanText::tr("No light strategy fits the usable %1 per GPU: %2.")
                                  .arg(formatGiB(view.usableGiB), lightShortfalls(plan));
            else if (n == 2)
                step.reason = PlanText::tr("No full-sharding strategy without offload fits: %1.")
                                  .arg(fullShardShortfalls(plan));
            else
                step.reason = PlanText::tr("Even with CPU offload nothing fits.") + QLatin1Char(' ') + decidedReason;
        } else {
            step.verdict = StepVerdict::NotReached;
            step.reason = PlanText::tr("Not needed: step %1 decided.").arg(decided);
        }
        view.steps.append(step);
    }

    for (const RunConfig& run : runMatrix) {
        PlannedRun planned;
        planned.strategy = run.strategy;
        planned.config = run;
        if (rec.strategy && run.strategy == *rec.strategy)
            planned.why = PlanText::tr("the recommendation");
        else if (std::find(rec.alsoMeasure.begin(), rec.alsoMeasure.end(), run.strategy) != rec.alsoMeasure.end())
            planned.why = rec.strategy
                    && predictedFasterBeyondError(plan.candidate(run.strategy).estimate,
                                                  plan.candidate(*rec.strategy).estimate)
                ? PlanText::tr("predicted faster than the recommendation beyond the prediction's error")
                : PlanText::tr("the decision order says to measure it as well");
        else
            planned.why = PlanText::tr("checks that heavier sharding brings no speed-up");
        view.runMatrix.append(planned);
    }

    if (rec.strategy)
        view.summary
            = PlanText::tr("Recommended: %1 (decided by step %2).").arg(strategyLabel(*rec.strategy)).arg(decided);
    else
        view.summary = PlanText::tr("Nothing fits. %1").arg(decidedReason);
    view.summary += QLatin1Char(' ') + PlanText::tr("Planned for %1.").arg(view.target);
    return view;
}

} // namespace shardwise::gui
