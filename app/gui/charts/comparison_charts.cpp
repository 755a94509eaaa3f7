#include "charts/comparison_charts.hpp"

#include "charts/chart_style.hpp"
#include "export/run_csv.hpp"
#include "models/display_format.hpp"
#include "models/run_backend.hpp"

#include <QCoreApplication>
#include <QRegularExpression>

#include <algorithm>

namespace shardwise::gui {

namespace {

struct ChartText {
    Q_DECLARE_TR_FUNCTIONS(ChartText)
};

bool measured(const RunRecord& r)
{
    return r.outcome == RunOutcome::Completed;
}

// The runs a chart of the step's time (tokens/s, communication share) shows: a rehearsal's steps
// hold no communication, so it has no such figure of the world it stands for and no row there.
QList<RunRecord> timedRuns(const QList<RunRecord>& runs)
{
    QList<RunRecord> out;
    for (const RunRecord& r : runs)
        if (!r.rehearsal())
            out.append(r);
    return out;
}

std::optional<double> when(bool present, double value)
{
    return present ? std::optional<double>(value) : std::nullopt;
}

// One facet per hardware in the order the runs first name it; each run's row through `makeRow`.
template <typename MakeRow> QList<BarFacet> facetsOf(const QList<RunRecord>& runs, MakeRow makeRow)
{
    QList<BarFacet> facets;
    QStringList names;
    for (const RunRecord& r : runs) {
        const QString name = runHardwareFacet(r);
        qsizetype i = names.indexOf(name);
        if (i < 0) {
            names << name;
            facets.append(BarFacet {});
            facets.last().title = name;
            i = names.size() - 1;
        }
        BarRow row;
        row.label = runChartLabel(r);
        row.color = strategyColor(r.strategy);
        row.colorName = strategyLabel(r.strategy);
        if (!measured(r))
            row.note = outcomeText(r.outcome);
        makeRow(r, row, facets[i]);
        facets[i].rows << row;
    }
    return facets;
}

QString emptyText(const QList<RunRecord>& all)
{
    return all.isEmpty() ? ChartText::tr("Check runs in the table to compare them.")
                         : ChartText::tr("The checked runs are rehearsals: memory results only.");
}

QString formatShare(double percent)
{
    return formatPercent(percent / 100.0);
}

} // namespace

QString runHardwareFacet(const RunRecord& run)
{
    if (run.onCpu)
        return ChartText::tr("CPU");
    // "8 × NVIDIA H200 (NVLink), 2 nodes" -> "NVIDIA H200": the GPU model, without count and links.
    static const QRegularExpression count(QStringLiteral("^\\s*\\d+\\s*[×x]\\s*"));
    QString gpu = run.hardware;
    gpu.remove(count);
    const qsizetype cut = gpu.indexOf(QRegularExpression(QStringLiteral("\\s*[(,]")));
    if (cut > 0)
        gpu.truncate(cut);
    return gpu.isEmpty() ? run.hardware : gpu;
}

QString runChartLabel(const RunRecord& run)
{
    QStringList parts { QStringLiteral("#%1 %2").arg(run.id).arg(strategyLabel(run.strategy)) };
    parts << precisionAsRun(run); // as the table says it: a CPU run computes in fp32
    if (run.seqLen > 0)
        parts << ChartText::tr("seq %1").arg(run.seqLen);
    parts << (run.onCpu ? ChartText::tr("%1 × CPU").arg(run.world) : run.hardware);
    parts << backendIdText(run.backend);
    QString label = parts.join(QStringLiteral(" · "));
    if (!measured(run))
        label = ChartText::tr("%1 — %2").arg(label, outcomeText(run.outcome));
    else if (run.rehearsal())
        label = ChartText::tr("%1 — %2").arg(label, rehearsalWorldText(*run.rehearsedWorld));
    return label;
}

BarChartSpec comparisonChart(ComparisonMetric metric, const QList<RunRecord>& allRuns)
{
    // Rehearsals are memory results: the peak-memory chart only.
    const QList<RunRecord> runs = metric == ComparisonMetric::PeakMemory ? allRuns : timedRuns(allRuns);
    BarChartSpec spec;
    spec.emptyText = emptyText(allRuns);
    switch (metric) {
    case ComparisonMetric::Throughput:
        spec.title = ChartText::tr("Throughput (tokens/s, higher is better)");
        spec.measures = { { ChartText::tr("measured tokens/s"), BarFill::Solid } };
        spec.format = formatTokensPerS;
        spec.facets = facetsOf(runs, [](const RunRecord& r, BarRow& row, BarFacet& facet) {
            facet.axisTitle = ChartText::tr("tokens/s");
            row.values = { when(measured(r), r.tokensPerS) };
        });
        break;
    case ComparisonMetric::PeakMemory: {
        spec.title = ChartText::tr("Peak memory per GPU (allocated vs reserved)");
        spec.measures = { { ChartText::tr("peak allocated"), BarFill::Solid },
                          { ChartText::tr("peak reserved"), BarFill::Hatched } };
        // The plan's peak allocated beside the measured one where a run has a prediction (for a
        // rehearsal of world N: rank 0's at world N).
        const bool anyPredicted = std::any_of(allRuns.begin(), allRuns.end(),
                                              [](const RunRecord& r) { return r.predictedPeakGiB.has_value(); });
        if (anyPredicted)
            spec.measures << BarMeasure { ChartText::tr("predicted peak allocated"), BarFill::Outline };
        spec.capacityName = ChartText::tr("the GPU's memory");
        spec.format = formatGiB;
        spec.facets = facetsOf(runs, [anyPredicted](const RunRecord& r, BarRow& row, BarFacet& facet) {
            // An OOM run still reports what the allocator held when it failed; a CPU run has no GPU memory
            // to report.
            const bool gpuMemory = !r.onCpu || r.peakAllocatedGiB > 0 || r.peakReservedGiB > 0;
            row.values = { when(gpuMemory && (r.peakAllocatedGiB > 0 || measured(r)), r.peakAllocatedGiB),
                           when(gpuMemory && (r.peakReservedGiB > 0 || measured(r)), r.peakReservedGiB) };
            if (!gpuMemory && measured(r))
                row.note = ChartText::tr("no GPU memory: measured on the CPU");
            if (anyPredicted)
                row.values << r.predictedPeakGiB;
            facet.axisTitle = ChartText::tr("GiB per GPU");
            facet.capacity = std::max(facet.capacity, r.capacityGiB);
        });
        for (BarFacet& facet : spec.facets)
            if (facet.capacity > 0)
                facet.title = ChartText::tr("%1 — GPU memory %2").arg(facet.title, formatGiB(facet.capacity));
        break;
    }
    case ComparisonMetric::NcclShare:
        spec.title = ChartText::tr("Communication share of step time: NCCL on GPUs, Gloo on CPUs (overlaps "
                                   "compute; not waiting time)");
        spec.measures = { { ChartText::tr("communication share"), BarFill::Solid } };
        spec.format = formatShare;
        spec.facets = facetsOf(runs, [](const RunRecord& r, BarRow& row, BarFacet& facet) {
            facet.axisTitle = r.onCpu ? ChartText::tr("Gloo share, % of step time")
                                      : ChartText::tr("NCCL kernel share, % of step time");
            row.values = { when(measured(r), r.ncclShare * 100.0) };
        });
        for (BarFacet& facet : spec.facets)
            if (facet.title == ChartText::tr("CPU"))
                facet.title = ChartText::tr("CPU (Gloo)");
            else
                facet.title = ChartText::tr("%1 (NCCL)").arg(facet.title);
        break;
    case ComparisonMetric::PredictedVsMeasured:
        spec.title = ChartText::tr("Predicted vs measured throughput");
        spec.measures = { { ChartText::tr("measured tokens/s"), BarFill::Solid },
                          { ChartText::tr("predicted tokens/s"), BarFill::Outline } };
        spec.format = formatTokensPerS;
        spec.facets = facetsOf(runs, [](const RunRecord& r, BarRow& row, BarFacet& facet) {
            facet.axisTitle = ChartText::tr("tokens/s");
            row.values = { when(measured(r), r.tokensPerS), r.predictedTokensPerS };
        });
        break;
    }
    return spec;
}

BarChartSpec calibrationChart(const QList<RunRecord>& allRuns, const QHash<qint64, RunPrediction>& predictions)
{
    const QList<RunRecord> runs = timedRuns(allRuns); // tokens/s: no rehearsal
    BarChartSpec spec;
    spec.emptyText = emptyText(allRuns);
    spec.title = ChartText::tr("Tokens/s: measured vs predicted");
    spec.measures = { { ChartText::tr("measured"), BarFill::Solid },
                      { ChartText::tr("presets"), BarFill::Hatched },
                      { ChartText::tr("calibrated"), BarFill::Outline } };
    spec.format = formatTokensPerS;
    spec.facets = facetsOf(runs, [&predictions](const RunRecord& r, BarRow& row, BarFacet& facet) {
        facet.axisTitle = ChartText::tr("tokens/s");
        const auto it = predictions.constFind(r.id);
        const bool predicted = it != predictions.constEnd();
        row.values = { when(measured(r), r.tokensPerS), when(predicted, predicted ? it->presets.tokensPerS : 0.0),
                       when(predicted, predicted ? it->calibrated.tokensPerS : 0.0) };
    });
    return spec;
}

} // namespace shardwise::gui
