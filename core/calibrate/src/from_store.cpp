#include "shardwise/calibrate/from_store.hpp"

#include "shardwise/calibrate/probe.hpp"
#include "shardwise/published/examples.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/store/probes.hpp"
#include "shardwise/store/runs.hpp"

#include <algorithm>

namespace shardwise::calibrate {

std::vector<StoredRunObservation> observationsFromStore(const store::Database& db, const GpuSpec& gpu)
{
    store::RunFilter filter;
    filter.gpu = gpu.id;
    std::vector<StoredRunObservation> out;
    for (const store::RunSummary& run : store::listRuns(db, filter)) {
        if (run.status != store::RunStatus::Completed && run.status != store::RunStatus::Oom)
            continue;
        const auto detail = store::runDetail(db, run.id);
        if (!detail || !detail->config.is_object())
            continue;
        RunConfig rc;
        try {
            rc = runConfigFromJson(detail->config, "config");
        } catch (const SpecError&) {
            continue; // a configuration this version cannot read says nothing it can use
        }
        if (rc.device != DeviceKind::Cuda)
            continue; // CPU runs measure the CPU, not the GPU the estimate models
        Observation o;
        o.input.model = rc.model;
        o.input.gpu = gpu;
        o.input.cluster.nodes = std::max(run.nodeCount, 1);
        o.input.cluster.gpusPerNode = std::max(run.worldSize / o.input.cluster.nodes, 1);
        o.input.cluster.intraNode = run.interconnect == "pcie" ? Interconnect::Pcie : Interconnect::NvLink;
        o.input.training = rc.training;
        o.input.training.expandableSegments = detail->allocator.expandableSegments || rc.training.expandableSegments;
        o.input.knobs = rc.knobs;
        applyRunnerBehaviour(o.input, detail->versions);
        applyRunBackend(o.input, rc);
        // A rehearsal of one rank of world N is that rank at world N; the stored row says so even
        // where the configuration it kept does not (a runner that reported the rehearsal itself).
        if (run.rehearsedWorld)
            rc.rehearseWorld = *run.rehearsedWorld;
        if (!applyRehearsal(o.input, rc))
            continue; // a world no cluster spec can hold: nothing to predict it with
        o.rehearsedWorld = rc.rehearseWorld;
        o.strategy = rc.strategy;
        o.oom = run.status == store::RunStatus::Oom;
        if (!o.oom) {
            // Memory only for a rehearsal: its steps held no communication, so its throughput is not
            // world N's (the store keeps none; an observation never carries one).
            if (!o.rehearsal())
                o.tokensPerS = run.tokensPerS;
            if (run.peakAllocated)
                o.peakAllocatedBytes = static_cast<double>(*run.peakAllocated);
            if (run.peakReserved)
                o.peakReservedBytes = static_cast<double>(*run.peakReserved);
        }
        o.label = "run " + std::to_string(run.id);
        // The example runs the app ships and published results measured other machines and builds
        // (published ones other frameworks too): they are predicted, but not fitted to.
        out.push_back({ run.id, std::move(o), !published::isReadOnlyRun(run) });
    }
    return out;
}

StoredCalibration calibrationFromStore(const store::Database& db, const GpuSpec& gpu, Interconnect link,
                                       const std::string& node)
{
    StoredCalibration out;
    out.sourceMessage = Message { "calibrate.source_presets", {} };
    Calibration start;
    // The probe starts the fit; its per-layer issue time stays as measured (ProbeCalibration::heldFixed).
    FitOptions options;
    if (const auto probe = store::latestProbe(db, node, gpu.id)) {
        // A probe that ran on the CPU (a node without a GPU, or `--device cpu`) measured the host: its
        // matmul and copy rates say nothing about the GPU being planned for, its host AdamW rate does.
        auto results = probe->event.results;
        if (probe->event.deviceName == "cpu")
            std::erase_if(results, [](const protocol::ProbeResult& r) { return r.kind != "cpu_adamw"; });
        const ProbeCalibration p = calibrationFromProbe(results, gpu, link);
        if (!p.applied.empty()) {
            start = p.calibration;
            out.probeId = probe->id;
            out.fitted = p.applied;
            options.fixed = p.heldFixed;
            out.sourceMessage = Message { "calibrate.source_probe",
                                          { MessageArg::name(probe->node.empty() ? probe->event.host : probe->node) } };
        }
    }
    std::vector<Observation> observations;
    for (const StoredRunObservation& r : observationsFromStore(db, gpu))
        if (r.ownRun) // a calibration is fitted to the workspace's own runs only
            observations.push_back(r.observation);
    const CalibrationFit fit = fitCalibration(observations, start, options);
    out.calibration = fit.calibration;
    out.runs = fit.throughputSamples;
    out.tokens = fit.tokens;
    out.peak = fit.peak;
    for (const std::string& f : fit.fitted)
        if (std::find(out.fitted.begin(), out.fitted.end(), f) == out.fitted.end())
            out.fitted.push_back(f);
    if (out.runs > 0) {
        Message runs { "calibrate.source_runs", { MessageArg::integer(out.runs) } };
        out.sourceMessage = out.probeId
            ? Message { "calibrate.source_probe_and_runs",
                        { MessageArg::message(std::move(out.sourceMessage)), MessageArg::message(std::move(runs)) } }
            : std::move(runs);
    }
    out.source = renderEnglish(out.sourceMessage);
    out.confidence = confidence(out.runs, std::max(out.tokens.worstAbs, out.peak.worstAbs));
    out.confidenceLabel = confidenceLabel(out.confidence);
    return out;
}

} // namespace shardwise::calibrate
