#include "export/comparison_caption.hpp"

#include "export/run_csv.hpp"
#include "models/display_format.hpp"
#include "models/run_backend.hpp"

#include <QCoreApplication>
#include <QStringList>

namespace shardwise::gui {

namespace {

struct CaptionText {
    Q_DECLARE_TR_FUNCTIONS(CaptionText)
};

// Distinct values in first-seen order; "unknown" stands in for empty ones so a gap is visible.
template <typename Get> QString distinct(const QList<RunRecord>& runs, Get get)
{
    QStringList values;
    for (const RunRecord& r : runs) {
        QString v = get(r);
        if (v.isEmpty())
            v = CaptionText::tr("unknown");
        if (!values.contains(v))
            values << v;
    }
    return values.join(QStringLiteral("; "));
}

} // namespace

ExportCaption comparisonCaption(const QList<RunRecord>& runs)
{
    ExportCaption caption;
    if (runs.isEmpty()) {
        caption.title = CaptionText::tr("Shardwise comparison (no runs selected)");
        return caption;
    }
    const QString models = distinct(runs, [](const RunRecord& r) { return r.model; });
    const QString hardware = distinct(runs, [](const RunRecord& r) { return r.hardware; });
    caption.title
        = CaptionText::tr("%1 on %2: %n run(s)", nullptr, static_cast<int>(runs.size())).arg(models, hardware);
    QStringList lines;
    lines << CaptionText::tr("Model: %1").arg(models);
    lines << CaptionText::tr("Hardware: %1").arg(hardware);
    lines << CaptionText::tr("Backend: %1 (native = Shardwise's runner, torch = PyTorch DDP / FSDP2)")
                 .arg(distinct(runs, [](const RunRecord& r) { return backendIdText(r.backend); }));
    lines << CaptionText::tr("Software: %1").arg(distinct(runs, [](const RunRecord& r) { return r.versions; }));
    // Each run's own configuration, as it ran: runs side by side may differ in any of these.
    for (const RunRecord& r : runs)
        lines << CaptionText::tr(
                     "#%1 %2, %3: precision %4, micro-batch %5, sequence %6 tokens, %7 warm-up + %8 timed steps")
                     .arg(r.id)
                     .arg(strategyLabel(r.strategy), backendIdText(r.backend), precisionAsRun(r))
                     .arg(r.microBatch)
                     .arg(r.seqLen)
                     .arg(r.warmupSteps)
                     .arg(r.timedSteps);
    lines << CaptionText::tr("Step time: the median of the timed steps.");
    lines << CaptionText::tr("Allocator: %1").arg(distinct(runs, [](const RunRecord& r) {
        return r.allocator.isEmpty() ? CaptionText::tr("default") : r.allocator;
    }));
    QStringList outcomes;
    for (const RunRecord& r : runs)
        if (r.outcome != RunOutcome::Completed)
            outcomes << CaptionText::tr("#%1 %2").arg(r.id).arg(outcomeText(r.outcome));
    if (!outcomes.isEmpty())
        lines << CaptionText::tr("Not completed (no measured throughput): %1").arg(outcomes.join(QStringLiteral(", ")));
    QStringList rehearsals;
    for (const RunRecord& r : runs)
        if (r.rehearsal())
            rehearsals << CaptionText::tr("#%1 %2").arg(r.id).arg(rehearsalWorldText(*r.rehearsedWorld));
    if (!rehearsals.isEmpty())
        lines << CaptionText::tr("Memory results only (rehearsals: one rank alone as rank 0 of world N, its peaks "
                                 "against the prediction for world N per rank; no throughput): %1")
                     .arg(rehearsals.join(QStringLiteral(", ")));
    lines << CaptionText::tr("NCCL share counts collective kernel time that overlaps compute; it is not waiting time.");
    caption.description = lines.join(QLatin1Char('\n'));
    return caption;
}

ExportCaption comparisonCaptionWithCalibration(const QList<RunRecord>& runs, const PredictionSet& predictions)
{
    ExportCaption caption = comparisonCaption(runs);
    QStringList gpus;
    for (const RunRecord& r : runs) {
        const auto p = predictions.runs.constFind(r.id);
        if (p != predictions.runs.constEnd() && !gpus.contains(p->gpu))
            gpus << p->gpu;
    }
    QStringList lines;
    if (gpus.isEmpty()) {
        lines << CaptionText::tr(
            "Predictions: none of these runs has one (only completed or out-of-memory runs on a known "
            "GPU preset, with their configuration stored, are predicted).");
    } else {
        lines << CaptionText::tr(
            "Predictions: presets = the planner's built-in coefficients; calibrated = fitted to the "
            "stored runs (in-sample); error = (predicted - measured) / measured.");
        for (const QString& gpu : gpus)
            if (const CalibrationSummary* c = predictions.calibrationFor(gpu))
                lines << describeCalibration(*c);
    }
    caption.description
        += (caption.description.isEmpty() ? QString() : QStringLiteral("\n")) + lines.join(QLatin1Char('\n'));
    return caption;
}

ExportCaption predictionChartCaption(const QList<RunRecord>& runs, const PredictionSet& predictions)
{
    ExportCaption caption = comparisonCaptionWithCalibration(runs, predictions);
    if (!runs.isEmpty())
        caption.title = CaptionText::tr("Measured vs predicted throughput — %1").arg(caption.title);
    return caption;
}

} // namespace shardwise::gui
