#include "export/plan_report.hpp"

#include "charts/memory_breakdown_chart.hpp"
#include "export/csv_cells.hpp"
#include "export/export_file.hpp"
#include "models/display_format.hpp"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>

namespace shardwise::gui {

namespace {

struct ReportText {
    Q_DECLARE_TR_FUNCTIONS(ReportText)
};

const QString kReasoning = QStringLiteral("reasoning.md");
const QString kChartSvg = QStringLiteral("memory.svg");
const QString kChartPng = QStringLiteral("memory.png");
const QString kCandidates = QStringLiteral("candidates.csv");

QString fromView(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QString cell(QString text)
{
    return text.replace(QLatin1Char('|'), QStringLiteral("\\|")).replace(QLatin1Char('\n'), QLatin1Char(' '));
}

QString verdictText(StepVerdict verdict)
{
    switch (verdict) {
    case StepVerdict::Decided:
        return ReportText::tr("decided");
    case StepVerdict::Passed:
        return ReportText::tr("passed");
    case StepVerdict::NotReached:
        return ReportText::tr("not reached");
    }
    return {};
}

QString setupLine(const PlanView& plan)
{
    QString line
        = ReportText::tr("%1 on %2 × %3 (%4)").arg(plan.modelName).arg(plan.gpus).arg(plan.gpuName, plan.interconnect);
    if (plan.nodes > 1)
        line += ReportText::tr(", %1 nodes").arg(plan.nodes);
    return line;
}

ExportCaption chartCaption(const PlanView& plan)
{
    return {
        ReportText::tr("Predicted peak memory per GPU: %1").arg(setupLine(plan)),
        ReportText::tr("Each bar stacks the parts of a strategy's peak; the dashed line is the usable capacity (%1 of "
                       "%2, after %3 headroom); the star marks the recommendation, the triangle the fastest strategy "
                       "that fits. Target: %4.")
            .arg(formatGiB(plan.usableGiB), formatGiB(plan.capacityGiB), formatGiB(plan.headroomGiB), plan.target)
    };
}

ExportResult writeText(const QString& path, const QString& text)
{
    const QByteArray bytes = text.toUtf8();
    if (const QString why = writeExportFile(path, bytes); !why.isEmpty())
        return { false, ReportText::tr("%1: cannot write (%2); the previous file is kept").arg(path, why) };
    return { true, {} };
}

} // namespace

QStringList planReportFiles()
{
    return { kReasoning, kChartSvg, kChartPng, kCandidates };
}

QString planReasoningMarkdown(const PlanView& plan)
{
    QString md = QStringLiteral("# %1\n\n").arg(ReportText::tr("Shardwise plan: %1").arg(setupLine(plan)));
    md += ReportText::tr("- Framework target: %1").arg(plan.target) + QLatin1Char('\n');
    md += ReportText::tr("- GPU memory %1, usable %2 after %3 headroom: what each peak is weighed against")
              .arg(formatGiB(plan.capacityGiB), formatGiB(plan.usableGiB), formatGiB(plan.headroomGiB))
        + QLatin1Char('\n');
    md += ReportText::tr("- Written %1").arg(csv::timestamp(QDateTime::currentDateTimeUtc())) + QStringLiteral("\n\n");
    md += QStringLiteral("## %1\n\n%2\n\n").arg(ReportText::tr("Recommendation"), plan.summary);
    md += QStringLiteral("## %1\n\n").arg(ReportText::tr("Decision order"));
    for (const DecisionStepView& step : plan.steps)
        md += QStringLiteral("%1. **%2** (%3): %4\n")
                  .arg(step.number)
                  .arg(step.title, verdictText(step.verdict), step.reason);
    md += QStringLiteral("\n## %1\n\n").arg(ReportText::tr("Candidates"));
    md += QStringLiteral("| %1 |\n|---|---|---|---|---|---|---|\n")
              .arg(QStringList { ReportText::tr("strategy"), ReportText::tr("fits"), ReportText::tr("peak per GPU"),
                                 ReportText::tr("headroom"), ReportText::tr("tokens/s"), ReportText::tr("step time"),
                                 ReportText::tr("note") }
                       .join(QStringLiteral(" | ")));
    for (const CandidateView& c : plan.candidates) {
        QString name = strategyLabel(c.strategy);
        if (c.recommended)
            name = QStringLiteral("**%1**").arg(name);
        const QString note = c.supported ? c.note : c.unsupportedReason;
        md += QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 | %7 |\n")
                  .arg(name, c.fits ? ReportText::tr("yes") : ReportText::tr("no"), formatGiB(c.peakGiB),
                       formatGiB(c.headroomGiB), formatTokensPerS(c.tokensPerS), formatSeconds(c.stepTimeS),
                       cell(note));
    }
    if (!plan.runMatrix.isEmpty()) {
        md += QStringLiteral("\n## %1\n\n").arg(ReportText::tr("Runs worth validating"));
        for (const PlannedRun& run : plan.runMatrix)
            md += QStringLiteral("- %1: %2\n").arg(strategyLabel(run.strategy), run.why);
    }
    md += QStringLiteral("\n## %1\n\n![%2](%3)\n\n").arg(ReportText::tr("Memory"), chartCaption(plan).title, kChartSvg);
    md += ReportText::tr("The figures as numbers: [%1](%1) (bytes, seconds, tokens per second).").arg(kCandidates)
        + QLatin1Char('\n');
    return md;
}

QString planCandidatesCsv(const PlanView& plan)
{
    constexpr double kGiBToBytes = 1024.0 * 1024.0 * 1024.0;
    QString out
        = csv::commentLines(ReportText::tr("Shardwise plan: %1").arg(setupLine(plan)),
                            ReportText::tr("Target: %1; memory per GPU; tokens/s for the whole job.").arg(plan.target));
    out += csv::row({ QStringLiteral("strategy"), QStringLiteral("recommended"), QStringLiteral("supported"),
                      QStringLiteral("fits"), QStringLiteral("peak_bytes"), QStringLiteral("usable_capacity_bytes"),
                      QStringLiteral("headroom_bytes"), QStringLiteral("allocated_peak_bytes"),
                      QStringLiteral("host_bytes_per_node"), QStringLiteral("tokens_per_second"),
                      QStringLiteral("step_seconds"), QStringLiteral("mfu"), QStringLiteral("nccl_share"),
                      QStringLiteral("note") });
    for (const CandidateView& c : plan.candidates)
        out += csv::row({ fromView(strategyId(c.strategy)), csv::boolean(c.recommended), csv::boolean(c.supported),
                          csv::boolean(c.fits), csv::bytesFromGiB(c.peakGiB), csv::bytesFromGiB(plan.usableGiB),
                          // headroom may be negative (short): whole bytes either way
                          QString::number(std::llround(c.headroomGiB * kGiBToBytes)),
                          csv::bytesFromGiB(c.allocatedPeakGiB), csv::bytesFromGiB(c.hostGiB), csv::real(c.tokensPerS),
                          csv::real(c.stepTimeS), csv::real(c.mfu), csv::real(c.ncclShare),
                          csv::text(c.supported ? c.note : c.unsupportedReason) });
    return out;
}

ExportResult writePlanReport(const PlanView& plan, const QString& directory)
{
    if (plan.candidates.isEmpty())
        return { false, ReportText::tr("Nothing to report: the plan has no candidates yet.") };
    if (!QDir().mkpath(directory))
        return { false, ReportText::tr("%1: cannot create the folder").arg(directory) };
    const QDir dir(directory);
    ExportResult r = writeText(dir.filePath(kReasoning), planReasoningMarkdown(plan));
    if (!r.ok)
        return r;
    for (const QString& chart : { kChartSvg, kChartPng }) {
        // Taller than 16:9: nine strategies' rows and a legend of the parts, the line and the marks.
        r = ChartExporter::exportChart(createMemoryBreakdownChart(plan), QSize(960, 720), dir.filePath(chart),
                                       chartCaption(plan));
        if (!r.ok)
            return r;
    }
    return writeText(dir.filePath(kCandidates), planCandidatesCsv(plan));
}

} // namespace shardwise::gui
