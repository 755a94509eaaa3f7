#include "export/run_csv.hpp"

#include "export/comparison_caption.hpp"
#include "export/csv_cells.hpp"
#include "export/export_file.hpp"
#include "export/table_exporter.hpp"
#include "models/run_backend.hpp"
#include "models/run_table_model.hpp"

#include <QCoreApplication>
#include <QFileInfo>

namespace shardwise::gui {

namespace {

struct RunCsvText {
    Q_DECLARE_TR_FUNCTIONS(RunCsvText)
};

QString outcomeId(RunOutcome outcome)
{
    switch (outcome) {
    case RunOutcome::Completed:
        return QStringLiteral("completed");
    case RunOutcome::OutOfMemory:
        return QStringLiteral("out_of_memory");
    case RunOutcome::Failed:
        return QStringLiteral("failed");
    case RunOutcome::Timeout:
        return QStringLiteral("timeout");
    case RunOutcome::Cancelled:
        return QStringLiteral("cancelled");
    case RunOutcome::Running:
        return QStringLiteral("running");
    case RunOutcome::Detached:
        return QStringLiteral("detached");
    }
    return QStringLiteral("failed");
}

QString fromView(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

std::optional<double> positive(double v)
{
    return v > 0 ? std::optional<double>(v) : std::nullopt;
}

// One prediction side's cells, in the column order of runCsvColumns().
// A rehearsal's prediction has no tokens/s cells: nothing it measures compares with world N's.
QStringList sideCells(const RunPrediction* p, const PredictionSide RunPrediction::*side, bool rehearsal)
{
    if (!p)
        return { QString(), QString(), QString(), QString(), QString() };
    const PredictionSide& s = p->*side;
    return { rehearsal ? QString() : csv::real(s.tokensPerS), rehearsal ? QString() : csv::real(s.tokensError),
             csv::bytesFromGiB(s.peakGiB), csv::real(s.peakError), csv::boolean(s.fits) };
}

} // namespace

QStringList runCsvColumns()
{
    return { QStringLiteral("run_id"),
             QStringLiteral("started_at"),
             QStringLiteral("model"),
             QStringLiteral("hardware"),
             QStringLiteral("device"),
             QStringLiteral("node"),
             QStringLiteral("strategy"),
             QStringLiteral("backend"),
             QStringLiteral("outcome"),
             QStringLiteral("precision"),
             QStringLiteral("world_size"),
             QStringLiteral("rehearsed_world"),
             QStringLiteral("micro_batch"),
             QStringLiteral("seq_len"),
             QStringLiteral("warmup_steps"),
             QStringLiteral("timed_steps"),
             QStringLiteral("tokens_per_second"),
             QStringLiteral("step_seconds"),
             QStringLiteral("peak_allocated_bytes"),
             QStringLiteral("peak_reserved_bytes"),
             QStringLiteral("gpu_memory_bytes"),
             QStringLiteral("nccl_share"),
             QStringLiteral("planned_tokens_per_second"),
             QStringLiteral("planned_peak_allocated_bytes"),
             QStringLiteral("presets_tokens_per_second"),
             QStringLiteral("presets_tokens_error"),
             QStringLiteral("presets_peak_allocated_bytes"),
             QStringLiteral("presets_peak_error"),
             QStringLiteral("presets_fits"),
             QStringLiteral("calibrated_tokens_per_second"),
             QStringLiteral("calibrated_tokens_error"),
             QStringLiteral("calibrated_peak_allocated_bytes"),
             QStringLiteral("calibrated_peak_error"),
             QStringLiteral("calibrated_fits"),
             QStringLiteral("failure") };
}

QString precisionAsRun(const RunRecord& run)
{
    if (run.onCpu)
        return RunCsvText::tr("fp32 (CPU)");
    return run.precision.isEmpty() ? RunCsvText::tr("unknown") : run.precision;
}

QString runsCsv(const QList<RunRecord>& runs, const QHash<qint64, RunPrediction>& predictions)
{
    QString out = csv::row(runCsvColumns());
    for (const RunRecord& r : runs) {
        const bool completed = r.outcome == RunOutcome::Completed;
        const bool timed = completed && !r.rehearsal(); // a rehearsal has no tokens/s, step time or NCCL share
        const bool hasMemory = completed || r.outcome == RunOutcome::OutOfMemory;
        const auto p = predictions.constFind(r.id);
        const RunPrediction* prediction = p == predictions.constEnd() ? nullptr : &*p;
        QStringList cells {
            csv::integer(r.id),
            csv::timestamp(r.started),
            csv::text(r.model),
            csv::text(r.hardware),
            r.onCpu ? QStringLiteral("cpu") : QStringLiteral("gpu"),
            csv::text(r.node),
            fromView(strategyId(r.strategy)),
            backendIdText(r.backend),
            outcomeId(r.outcome),
            csv::text(r.onCpu ? QStringLiteral("fp32") : r.precision),
            csv::integer(r.world),
            r.rehearsedWorld ? csv::integer(*r.rehearsedWorld) : QString(),
            csv::integer(r.microBatch),
            csv::integer(r.seqLen),
            csv::integer(r.warmupSteps),
            csv::integer(r.timedSteps),
            timed ? csv::real(r.tokensPerS) : QString(),
            timed ? csv::real(positive(r.medianStepS)) : QString(),
            hasMemory ? csv::bytesFromGiB(positive(r.peakAllocatedGiB)) : QString(),
            hasMemory ? csv::bytesFromGiB(positive(r.peakReservedGiB)) : QString(),
            csv::bytesFromGiB(positive(r.capacityGiB)),
            timed && !r.onCpu ? csv::real(r.ncclShare) : QString(),
            r.rehearsal() ? QString() : csv::real(r.predictedTokensPerS),
            csv::bytesFromGiB(r.predictedPeakGiB),
        };
        cells << sideCells(prediction, &RunPrediction::presets, r.rehearsal())
              << sideCells(prediction, &RunPrediction::calibrated, r.rehearsal());
        cells << csv::text(completed ? QString() : r.failure);
        out += csv::row(cells);
    }
    return out;
}

QString captionSidecarPath(const QString& csvPath)
{
    QString base = csvPath;
    if (base.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive))
        base.chop(4);
    return base + QStringLiteral(".caption.txt");
}

QString captionText(const ExportCaption& caption)
{
    QString text = caption.title + QLatin1Char('\n');
    if (!caption.description.isEmpty())
        text += QLatin1Char('\n') + caption.description + QLatin1Char('\n');
    return text;
}

QString runsMarkdown(const QList<RunRecord>& runs, const QHash<qint64, RunPrediction>& predictions,
                     const ExportCaption& caption)
{
    RunTableModel shown;
    shown.setRuns(runs);
    shown.setPredictions(predictions);
    using M = RunTableModel;
    const QList<MarkdownSection> sections {
        { RunCsvText::tr("Runs"),
          { M::IdColumn, M::StartedColumn, M::ModelColumn, M::HardwareColumn, M::NodeColumn, M::OutcomeColumn } },
        { RunCsvText::tr("Setup"),
          { M::IdColumn, M::StrategyColumn, M::BackendColumn, M::PrecisionColumn, M::WorldColumn, M::SequenceColumn,
            M::MicroBatchColumn } },
        { RunCsvText::tr("Measured"),
          { M::IdColumn, M::TokensColumn, M::PeakAllocatedColumn, M::PeakReservedColumn, M::NcclColumn,
            M::PredictedTokensColumn } },
        { RunCsvText::tr("Predicted throughput"),
          { M::IdColumn, M::PresetsTokensColumn, M::PresetsTokensErrorColumn, M::CalibratedTokensColumn,
            M::CalibratedTokensErrorColumn } },
        { RunCsvText::tr("Predicted memory"),
          { M::IdColumn, M::PresetsPeakColumn, M::PresetsPeakErrorColumn, M::CalibratedPeakColumn,
            M::CalibratedPeakErrorColumn, M::PresetsVerdictColumn, M::CalibratedVerdictColumn } },
    };
    return TableExporter::toMarkdown(shown, sections, caption);
}

ExportResult exportRunTable(const QList<RunRecord>& runs, const PredictionSet& predictions, const QString& filePath)
{
    const ExportCaption caption = comparisonCaptionWithCalibration(runs, predictions);
    const QString suffix = QFileInfo(filePath).suffix().toLower();
    if (suffix == QLatin1String("md")) {
        if (const QString why = writeExportFile(filePath, runsMarkdown(runs, predictions.runs, caption).toUtf8());
            !why.isEmpty())
            return { false, RunCsvText::tr("%1: cannot write (%2); the previous file is kept").arg(filePath, why) };
        return { true, {} };
    }
    if (suffix != QLatin1String("csv")) {
        const RunTableModel none;
        return TableExporter::exportModel(none, filePath, caption); // names the formats it knows
    }
    const QByteArray bytes = runsCsv(runs, predictions.runs).toUtf8();
    if (const QString why = writeExportFile(filePath, bytes); !why.isEmpty())
        return { false, RunCsvText::tr("%1: cannot write (%2); the previous file is kept").arg(filePath, why) };
    // The caption beside a file, never beside a device, a FIFO or standard output.
    const QFileInfo written(filePath);
    if (!written.isFile())
        return { true, {} };
    const QString sidecar = captionSidecarPath(filePath);
    if (const QString why = writeExportFile(sidecar, captionText(caption).toUtf8()); !why.isEmpty())
        return { false, RunCsvText::tr("%1: cannot write the caption (%2); the table was written").arg(sidecar, why) };
    return { true, {} };
}

} // namespace shardwise::gui
