#include "models/display_format.hpp"

#include <QCoreApplication>
#include <QLocale>

namespace shardwise::gui {

namespace {
struct DisplayFormat {
    Q_DECLARE_TR_FUNCTIONS(DisplayFormat)
};
} // namespace

QString formatGiB(double gib)
{
    return DisplayFormat::tr("%1 GiB").arg(QLocale().toString(gib, 'f', gib < 10 ? 2 : 1));
}

QString formatTokensPerS(double tokensPerS)
{
    const int decimals = tokensPerS < 100 ? 1 : 0;
    return DisplayFormat::tr("%1 tokens/s").arg(QLocale().toString(tokensPerS, 'f', decimals));
}

QString formatPercent(double fraction)
{
    return DisplayFormat::tr("%1 %").arg(QLocale().toString(fraction * 100.0, 'f', 1));
}

QString formatSeconds(double seconds)
{
    if (seconds < 1.0)
        return DisplayFormat::tr("%1 ms").arg(QLocale().toString(seconds * 1000.0, 'f', 1));
    return DisplayFormat::tr("%1 s").arg(QLocale().toString(seconds, 'f', 2));
}

QString strategyLabel(Strategy s)
{
    return QString::fromUtf8(traits(s).label.data(), static_cast<qsizetype>(traits(s).label.size()));
}

QString strategyIdText(Strategy s)
{
    return QString::fromUtf8(traits(s).id.data(), static_cast<qsizetype>(traits(s).id.size()));
}

QString strategySummary(Strategy s)
{
    switch (s) {
    case Strategy::Zero0:
        return DisplayFormat::tr(
            "No sharding: every rank holds full parameters, gradients and optimizer state; gradients are all-reduced.");
    case Strategy::Zero1:
        return DisplayFormat::tr("Optimizer state sharded across ranks.");
    case Strategy::Zero2:
        return DisplayFormat::tr("Optimizer state and gradients sharded; gradients are reduce-scattered.");
    case Strategy::Zero3:
        return DisplayFormat::tr("Optimizer state, gradients and parameters sharded; parameters are all-gathered per "
                                 "layer for forward and again for backward.");
    case Strategy::Zero2Offload:
        return DisplayFormat::tr(
            "ZeRO-2 with optimizer state and the optimizer step on the CPU; full parameters stay on every GPU.");
    case Strategy::Zero3Offload:
        return DisplayFormat::tr("ZeRO-3 with optimizer state and the optimizer step on the CPU.");
    case Strategy::Fsdp2NoReshard:
        return DisplayFormat::tr(
            "FSDP2 with reshard_after_forward=False: parameters gathered in forward stay gathered through backward.");
    case Strategy::Fsdp2Reshard:
        return DisplayFormat::tr("FSDP2 with reshard_after_forward=True: parameters are freed after each layer's "
                                 "forward and gathered again for its backward.");
    case Strategy::Fsdp2ReshardOffload:
        return DisplayFormat::tr("FSDP2 reshard with parameters, gradients and optimizer state in CPU memory and the "
                                 "optimizer step on the CPU.");
    }
    return {};
}

QString peakMemoryExplanation()
{
    return DisplayFormat::tr(
        "Peak memory per GPU: the most the caching allocator holds for tensors at any moment of a step "
        "(parameters, gradients, optimizer state, activations and communication buffers).");
}

QString tokensPerSExplanation()
{
    return DisplayFormat::tr(
        "Tokens per second over all GPUs, from the median step time of the timed steps after warm-up.");
}

QString mfuExplanation()
{
    return DisplayFormat::tr(
        "Model FLOPs utilisation: the training FLOPs the model needs per second at this throughput, "
        "divided by the GPUs' dense bf16 peak. 6 x parameters x tokens for forward and backward.");
}

QString ncclShareExplanation()
{
    return DisplayFormat::tr(
        "NCCL share: time the collective kernels run, divided by the step time. Communication kernels "
        "overlap compute, so this is not the time spent waiting; a high share can still cost nothing "
        "when it is hidden behind computation.");
}

QString reservedExplanation()
{
    return DisplayFormat::tr(
        "Reserved: memory the caching allocator holds from the driver, allocated or not. Reserved far "
        "above allocated means fragmentation; expandable_segments:True can reduce it.");
}

QString rehearsalWorldText(int rehearsedWorld)
{
    //: the world of a run that ran one rank alone as rank 0 of a world of N ranks
    return DisplayFormat::tr("rehearsal of %1").arg(rehearsedWorld);
}

QString rehearsalMemoryOnlyExplanation(int rehearsedWorld)
{
    return DisplayFormat::tr(
               "A rehearsal measures memory only: one rank ran alone as rank 0 of world %1 through a "
               "communicator that moves no data, so its peaks are one rank's at world %1, and its steps hold "
               "no communication: it has no tokens/s, step time or NCCL share of world %1.")
        .arg(rehearsedWorld);
}

QString notMeasuredText()
{
    //: in place of a figure a run did not measure
    return DisplayFormat::tr("—");
}

} // namespace shardwise::gui
