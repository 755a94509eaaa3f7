#include "shardwise/calibrate/stored_comparison.hpp"

#include "shardwise/spec/presets.hpp"
#include "shardwise/store/runs.hpp"

#include <set>

namespace shardwise::calibrate {

std::vector<GpuComparison> compareStoredRuns(const store::Database& db, const ComparisonFilter& filter)
{
    const PresetCatalog& catalog = PresetCatalog::builtin();
    std::set<std::string> gpus;
    if (!filter.gpu.empty())
        gpus.insert(filter.gpu);
    else
        for (const store::RunSummary& r : store::listRuns(db))
            if (!r.gpuId.empty())
                gpus.insert(r.gpuId);

    std::vector<GpuComparison> sections;
    for (const std::string& id : gpus) {
        const GpuSpec* gpu = catalog.findGpu(id);
        if (!gpu)
            continue;
        // Interconnect of the probe mapping only; each observation keeps its run's own link.
        GpuComparison section { id, calibrationFromStore(db, *gpu, Interconnect::NvLink, filter.node), {} };
        for (const StoredRunObservation& stored : observationsFromStore(db, *gpu)) {
            const Observation& o = stored.observation;
            if (!filter.model.empty() && o.input.model.id != filter.model)
                continue;
            if (filter.strategy && o.strategy != *filter.strategy)
                continue;
            StoredRunComparison row {
                stored.runId, o, compare(o, Calibration {}), compare(o, section.calibration.calibration), {}, {}
            };
            if (const auto run = store::findRun(db, stored.runId)) {
                row.plannedTokensPerS = run->predicted.tokensPerS;
                if (run->predicted.peakBytes)
                    row.plannedPeakBytes = static_cast<double>(*run->predicted.peakBytes);
            }
            section.rows.push_back(std::move(row));
        }
        if (!section.rows.empty())
            sections.push_back(std::move(section));
    }
    return sections;
}

} // namespace shardwise::calibrate
