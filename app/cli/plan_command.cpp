// shardwise-cli plan: estimate all eight strategies for one model and cluster and follow the decision
// order to a recommendation (core/plan), printed as a table or as the plan's JSON.
#include "checkpoint_advice.hpp"
#include "command.hpp"
#include "plan_options.hpp"

#include "shardwise/calibrate/from_store.hpp"
#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/location.hpp"
#include "shardwise/store/runs.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace shardwise::cli {

namespace {

constexpr const char* kUsageHead = R"(usage: shardwise-cli plan --model PRESET|PATH --gpu PRESET [options]

Estimates memory and throughput of all eight sharding strategies and recommends one by the
decision order (lightest that fits; full shard by interconnect; CPU offload last).

)";

constexpr const char* kUsageTail = R"(  --calibrated               predict with the calibration fitted to the store's probes and runs on
                             this GPU (docs/calibration.md) and say which one and how confident
  --db PATH                  the store for --calibrated and measured checkpoint costs (default:
                             $SHARDWISE_DB, else the workspace in the user's data folder)
  --format table|json        output format (default table)
  --help                     this text

Checkpoint interval against interruptions (Spot preemption, host maintenance), for the
recommended strategy (Young 1974 with Daly's 2006 correction; docs/interruption.md):
  --interruptions-per-hour X expected interruptions per hour, e.g. 0.5
  --checkpoint-save-s C      measured seconds one checkpoint save stops training (default: estimated
                             from the state bytes the busiest node writes and --checkpoint-write-gbps)
  --checkpoint-write-gbps B  storage write bandwidth per node in GB/s for that estimate (default 1.0)
  --restart-s R              seconds from an interruption to running again, on top of loading the
                             checkpoint (rescheduling, node provisioning; default 0)

Exit status: 0 planned (also when nothing fits: the plan says what would), 2 bad flag or input.
)";

struct PlanArgs {
    PlanOptions plan;
    std::string format = "table";
    bool help = false;
    // Interruption planning (core/interruption); off unless --interruptions-per-hour is given.
    double interruptionsPerHour = 0;
    double checkpointWriteGBps = interruption::kDefaultCheckpointWriteGBps;
    double checkpointSaveS = 0; // 0 = estimate it from the state bytes and the write bandwidth
    double restartS = 0;
    bool calibrated = false;
    std::string db; // empty = store::resolveDatabasePath's default
};

PlanArgs parseArgs(const std::vector<std::string>& args)
{
    PlanArgs a;
    ArgumentWalker w(args);
    bool checkpointOptionGiven = false;
    while (w.next()) {
        const std::string& flag = w.flag();
        if (a.plan.take(w))
            continue;
        if (flag == "--help" || flag == "-h") {
            a.help = true;
        } else if (flag == "--calibrated") {
            a.calibrated = true;
        } else if (flag == "--db") {
            a.db = w.value();
        } else if (flag == "--format") {
            a.format = w.value();
            if (a.format != "table" && a.format != "json")
                throw UsageError("--format: expected table or json, got '" + a.format + "'");
        } else if (flag == "--interruptions-per-hour") {
            a.interruptionsPerHour = parseDouble(flag, w.value(), 1e-6, 3600);
        } else if (flag == "--checkpoint-write-gbps") {
            a.checkpointWriteGBps = parseDouble(flag, w.value(), 1e-6, 1e6);
            checkpointOptionGiven = true;
        } else if (flag == "--checkpoint-save-s") {
            a.checkpointSaveS = parseDouble(flag, w.value(), 1e-6, 1e7);
            checkpointOptionGiven = true;
        } else if (flag == "--restart-s") {
            a.restartS = parseDouble(flag, w.value(), 0, 1e7);
            checkpointOptionGiven = true;
        } else {
            throw UsageError(flag + ": unknown option (see shardwise-cli plan --help)");
        }
    }
    if (!a.help)
        a.plan.requireModelAndGpu();
    if (checkpointOptionGiven && a.interruptionsPerHour <= 0)
        throw UsageError("--interruptions-per-hour: required by the checkpoint options (the expected interruption rate)");
    return a;
}

std::string format(const char* fmt, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, x);
    return buf;
}

std::string padRight(std::string s, std::size_t width) { return s.size() < width ? s + std::string(width - s.size(), ' ') : s + " "; }
std::string padLeft(std::string s, std::size_t width) { return s.size() < width ? std::string(width - s.size(), ' ') + s : " " + s; }

void printTable(const Plan& plan, const EstimateInput& in, std::ostream& out)
{
    const ClusterSpec& c = in.cluster;
    out << "Plan: " << in.model.name << " (" << format("%.2f", static_cast<double>(in.model.parameterCount()) / 1e9)
        << " B parameters) on " << c.worldSize() << " x " << in.gpu.name << " (" << c.nodes << " node(s) x "
        << c.gpusPerNode << " GPU(s), " << interconnectId(c.intraNode) << "), micro-batch " << in.training.microBatch
        << ", sequence " << in.training.seqLen << " tokens, " << precisionId(in.training.precision)
        << (in.training.expandableSegments ? ", expandable segments" : "")
        << (in.training.cudaGraphs ? ", CUDA graphs" : "")
        << (in.training.activationCheckpointing ? ", activation checkpointing" : "") << "\n";
    const double hostUsable = plan.candidates.empty() ? 0.0 : plan.candidates.front().estimate.hostCapacityBytes;
    out << "GPU memory " << format("%.1f", in.gpu.memoryGiB()) << " GiB per GPU; host RAM "
        << format("%.0f", c.hostRamGiB) << " GiB per node, " << format("%.1f", hostUsable / kGiB) << " GiB usable\n\n";
    // host GiB: what the node's CPU memory holds for the offload strategies (every rank of the node).
    out << padRight("strategy", 23) << padRight("fits", 9) << padLeft("peak GiB", 10) << padLeft("host GiB", 10)
        << padLeft("tokens/s", 12) << padLeft("step s", 9) << padLeft("MFU %", 8) << padLeft("NCCL %", 8) << "\n";
    for (const Candidate& cand : plan.candidates) {
        const Estimate& e = cand.estimate;
        const bool offload = traits(cand.strategy).offloadsOptimizer;
        out << padRight(std::string(strategyId(cand.strategy)), 23)
            << padRight(e.fits() ? "yes" : (e.fitsDevice ? "no: host" : "no"), 9)
            << padLeft(format("%.1f", e.memory.devicePeak() / kGiB), 10)
            << padLeft(offload ? format("%.1f", e.hostBytesPerNode / kGiB) : std::string("-"), 10)
            << padLeft(format("%.0f", e.throughput.tokensPerS), 12) << padLeft(format("%.3f", e.throughput.stepTimeS), 9)
            << padLeft(format("%.1f", 100.0 * e.throughput.mfu), 8)
            << padLeft(format("%.1f", 100.0 * e.throughput.ncclShare), 8) << "\n";
    }
    const Recommendation& r = plan.recommendation;
    out << "\nRecommendation: " << (r.strategy ? std::string(strategyId(*r.strategy)) : std::string("none fits"))
        << " (step " << static_cast<int>(r.step) << ": " << decisionStepId(r.step) << ")\n";
    for (const std::string& reason : r.reasons)
        out << "  - " << reason << "\n";
    const std::vector<RunConfig> runs = runMatrix(plan, in);
    if (!runs.empty()) {
        out << "\nRuns worth validating (" << c.worldSize() << " GPU(s), micro-batch " << in.training.microBatch
            << ", sequence " << in.training.seqLen << " tokens):";
        for (const RunConfig& rc : runs) {
            std::vector<std::string> settings;
            if (rc.training.expandableSegments)
                settings.push_back("expandable segments");
            if (rc.training.cudaGraphs)
                settings.push_back("CUDA graphs");
            out << " " << strategyId(rc.strategy);
            for (std::size_t i = 0; i < settings.size(); ++i)
                out << (i == 0 ? " (" : ", ") << settings[i] << (i + 1 == settings.size() ? ")" : "");
        }
        out << "\n";
    }
    if (in.training.cudaGraphs)
        out << "\nCUDA graphs apply to the GPU-resident strategies; the offload strategies run their optimizer on "
               "the host and stay eager.\n";
    out << "\nNCCL % counts communication kernels that overlap compute; it is not time spent waiting.\n";
    if (std::any_of(plan.candidates.begin(), plan.candidates.end(),
                    [](const Candidate& cand) { return cand.estimate.fitsDevice && !cand.estimate.fitsHost; }))
        out << "no: host = fits on the GPU, but its host state exceeds the node's usable RAM (--host-ram-gib).\n";
}

// The newest stored measurement of a checkpoint save for this plan, if the store exists and has one.
// Planning never creates a store or fails because of one.
// The store, opened read-only, when it exists; planning never creates one.
std::optional<store::Database> existingStore(const std::string& explicitPath)
{
    const auto path = store::resolveDatabasePath(explicitPath);
    if (!std::filesystem::exists(path))
        return std::nullopt;
    store::OpenOptions options;
    options.readOnly = true;
    return store::Database::open(path, options);
}

std::optional<store::MeasuredCheckpointSave> measuredSaveFromStore(const EstimateInput& in, Strategy strategy,
                                                                   const std::string& dbPath)
{
    try {
        const auto db = existingStore(dbPath);
        if (!db)
            return std::nullopt;
        return store::newestCheckpointSave(*db, in.model.id, in.gpu.id, strategy,
                                           in.cluster.gpusPerNode * in.cluster.nodes);
    } catch (const std::exception&) {
        return std::nullopt; // an older or unreadable store: keep the estimate
    }
}

int runPlan(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    PlanArgs a;
    try {
        a = parseArgs(args);
    } catch (const UsageError& e) {
        err << "shardwise-cli plan: " << e.what() << "\n";
        return kExitUsage;
    }
    if (a.help) {
        out << kUsageHead << planOptionsUsage() << kUsageTail;
        return kExitOk;
    }
    try {
        const EstimateInput in = a.plan.input();
        calibrate::StoredCalibration calibration; // presets unless --calibrated finds better
        calibration.source = "presets";
        if (a.calibrated) {
            try {
                if (const auto db = existingStore(a.db))
                    calibration = calibrate::calibrationFromStore(*db, in.gpu, in.cluster.intraNode);
            } catch (const std::exception& e) {
                err << "shardwise-cli plan: --calibrated: " << e.what() << "; planning with the presets\n";
            }
        }
        const Plan plan = makePlan(in, calibration.calibration);
        const CheckpointOptions checkpoints{a.interruptionsPerHour, a.checkpointWriteGBps, a.checkpointSaveS, a.restartS};
        CheckpointOptions checkpointsUsed = checkpoints;
        std::optional<CheckpointAdvice> advice;
        std::optional<store::MeasuredCheckpointSave> storedSave;
        if (a.interruptionsPerHour > 0)
            advice = adviseCheckpoints(plan, in, checkpoints);
        if (advice && !advice->saveMeasured) {
            // A save measured by an earlier run of this model, strategy and size beats the estimate.
            storedSave = measuredSaveFromStore(in, advice->strategy, a.db);
            if (storedSave) {
                checkpointsUsed.measuredSaveS = storedSave->saveS;
                advice = adviseCheckpoints(plan, in, checkpointsUsed);
            }
        }
        if (a.format == "json") {
            nlohmann::json j = toJson(plan);
            if (a.calibrated)
                j["calibration"] = {{"source", calibration.source},
                                    {"confidence", calibration.confidence},
                                    {"confidence_label", calibration.confidenceLabel},
                                    {"runs", calibration.runs},
                                    {"fitted", calibration.fitted}};
            if (a.interruptionsPerHour > 0)
            {
                j["checkpoint"] = advice ? toJson(*advice, checkpointsUsed) : nlohmann::json();
                if (storedSave)
                    j["checkpoint"]["save_from_run"] = storedSave->runId;
            }
            out << j.dump(2) << "\n";
        } else {
            if (a.calibrated)
                out << "Calibration: " << calibration.source << " (confidence "
                    << (calibration.confidenceLabel.empty() ? std::string("none") : calibration.confidenceLabel) << ", "
                    << calibration.runs << " runs fitted)\n\n";
            printTable(plan, in, out);
            if (advice)
                printCheckpointAdvice(*advice, checkpointsUsed, out);
            if (storedSave)
                out << "Save cost as measured by stored run #" << storedSave->runId << ".\n";
            else if (a.interruptionsPerHour > 0)
                out << "\nNo checkpoint interval: no strategy fits, so there is no run to checkpoint.\n";
        }
        return kExitOk;
    } catch (const SpecError& e) {
        const auto it = flagForField().find(e.field());
        err << "shardwise-cli plan: ";
        if (it != flagForField().end())
            err << it->second << ": ";
        err << e.what() << "\n";
        return kExitUsage;
    }
}

const CommandRegistration kRegistration{"plan", "estimate all eight strategies and recommend one", runPlan};

} // namespace

} // namespace shardwise::cli
