// shardwise-cli plan: estimate all nine strategies for one model and cluster and follow the decision
// order to a recommendation (core/plan), printed as a table or as the plan's JSON.
#include "checkpoint_advice.hpp"
#include "command.hpp"
#include "plan_options.hpp"
#include "plan_store.hpp"
#include "plan_sweep.hpp"
#include "plan_table.hpp"
#include "shardwise/spec/file_output.hpp"

#include "shardwise/calibrate/from_store.hpp"
#include "shardwise/frameworks/configs.hpp"
#include "shardwise/frameworks/network.hpp"
#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/message.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/location.hpp"
#include "shardwise/store/runs.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace shardwise::cli {

namespace {

CommandSpec planSpec()
{
    CommandSpec spec { "plan",
                       "estimate every sharding strategy for a model and cluster and recommend one",
                       "--model PRESET|PATH --gpu PRESET [options]",
                       "Estimates memory and throughput of all nine sharding strategies and recommends one by the "
                       "decision order (lightest that fits; full shard by interconnect; CPU offload last).",
                       {},
                       false,
                       planOptionTable(),
                       "Exit status: 0 planned (also when nothing fits: the plan says what would), 2 bad flag or input "
                       "(a bad value in --from's file names its key)." };
    const std::string out = "Output:";
    const std::string configs = "Configs for the framework you train with (docs/framework-configs.md):";
    const std::string interruptions = "Checkpoint interval against interruptions (Spot preemption, host maintenance), "
                                      "for the recommended strategy (Young 1974 with Daly's 2006 correction; "
                                      "docs/interruption.md):";
    const auto add = [&](Option o, const std::string& section) {
        o.section = section;
        spec.options.push_back(std::move(o));
    };
    add({ "--calibrated", "",
          "predict with the calibration fitted to the store's probes and runs on this GPU (docs/calibration.md) and "
          "say which one and how confident" },
        out);
    add({ "--db",
          "PATH",
          "the store for --calibrated and measured checkpoint costs (default: $SHARDWISE_DB, else the workspace in "
          "the user's data folder)",
          {},
          Complete::File },
        out);
    add({ "--format", "F", "table or json (default table); csv for a --sweep", { "table", "json", "csv" } }, out);
    add({ "--export", "KIND",
          "write ds-config (DeepSpeed ds_config.json), accelerate (Accelerate YAML), torchtitan (job-config TOML), "
          "fsdp2-python (a fully_shard script), launch (torchrun / deepspeed / accelerate launch and srun lines) or "
          "sbatch (a Slurm batch script) for the recommended strategy, instead of the plan" },
        configs);
    add({ "--strategy", "ID", "export this candidate instead of the recommendation", {}, Complete::Strategy }, configs);
    add({ "--output",
          "FILE",
          "write the export to FILE and print the plan as usual (with --sweep: write the sweep to FILE)",
          {},
          Complete::File },
        configs);
    add({ "--from",
          "FILE",
          "read a DeepSpeed ds_config.json, an Accelerate config YAML or a torchtitan job-config TOML (by the "
          "extension .json, .yaml / .yml, .toml) into the plan's settings (framework, strategy, precision, "
          "micro-batch, accumulation, sequence, world, checkpointing, knobs); flags you type win; unknown keys are "
          "warned about; a regular file of at most 1 MiB, nested at most 32 levels",
          {},
          Complete::File },
        configs);
    add({ "--interruptions-per-hour", "X", "expected interruptions per hour, e.g. 0.5" }, interruptions);
    add({ "--checkpoint-save-s", "C",
          "measured seconds one checkpoint save stops training (default: estimated from the state bytes the busiest "
          "node writes and --checkpoint-write-gbps)" },
        interruptions);
    add({ "--checkpoint-write-gbps", "B", "storage write bandwidth per node in GB/s for that estimate (default 1.0)" },
        interruptions);
    add({ "--restart-s", "R",
          "seconds from an interruption to running again, on top of loading the checkpoint (rescheduling, node "
          "provisioning; default 0)" },
        interruptions);
    add({ "--sweep",
          "AXIS=V1,V2,...",
          "plan every combination of the values instead of one plan: AXIS is seq, micro-batch, gpus-per-node or "
          "nodes (each at most once, and not also given as its own flag); every other setting as above. Each point "
          "gives the recommendation, whether it fits, its planned peak per GPU (the plan's peak_gib) and predicted "
          "tokens/s; where nothing fits, the figures of the strategy with the lowest peak. Written as a table, json "
          "or csv (--format), to --output if given; at most 4096 points",
          {},
          Complete::Nothing,
          true },
        "What-if sweep (docs/user-guide.md, \"What if\"):");
    return spec;
}

std::vector<CommandSpec> planSpecs()
{
    return { planSpec() };
}

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
    std::optional<frameworks::ConfigKind> exportKind;
    std::string strategy;               // --strategy: the candidate to export
    std::string output;                 // --output: where the export goes (default stdout)
    std::string from;                   // --from: a ds_config.json, Accelerate YAML or torchtitan TOML
    std::vector<SweepAxisValues> sweep; // --sweep: plan a grid instead of one input
};

PlanArgs parsePlanArgs(const std::vector<std::string>& args)
{
    PlanArgs a;
    const ParsedArgs parsed = parseArgs(planSpec(), args);
    a.help = parsed.help;
    ArgumentWalker w(parsed);
    bool checkpointOptionGiven = false;
    while (w.next()) {
        const std::string& flag = w.flag();
        if (a.plan.take(w))
            continue;
        if (flag == "--calibrated") {
            a.calibrated = true;
        } else if (flag == "--db") {
            a.db = w.value();
        } else if (flag == "--format") {
            a.format = w.value();
            if (a.format != "table" && a.format != "json" && a.format != "csv")
                throw UsageError("--format: expected table, json or csv, got '" + a.format + "'");
        } else if (flag == "--export") {
            const std::string kind = w.value();
            a.exportKind = frameworks::configKindFromId(kind);
            if (!a.exportKind)
                throw UsageError("--export: expected one of " + frameworks::configKindIdList() + ", got '" + kind
                                 + "'");
        } else if (flag == "--strategy") {
            a.strategy = w.value();
            if (!strategyFromId(a.strategy))
                throw UsageError("--strategy: expected one of " + strategyIdList() + ", got '" + a.strategy + "'"
                                 + strategyDidYouMean(a.strategy));
        } else if (flag == "--output") {
            a.output = w.value();
        } else if (flag == "--from") {
            a.from = w.value();
        } else if (flag == "--sweep") {
            a.sweep.push_back(parseSweepOption(w.value()));
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
            throw UsageError(unknownOptionMessage("plan", flag));
        }
    }
    if (!a.help)
        a.plan.requireModelAndGpu();
    if (!a.sweep.empty()) {
        checkSweepOptions(a.sweep, a.plan.given);
        if (a.exportKind)
            throw UsageError("--export: writes one strategy's config, not a sweep; leave out --sweep");
        if (a.interruptionsPerHour > 0)
            throw UsageError(
                "--interruptions-per-hour: advises one plan's checkpoints, not a sweep; leave out --sweep");
    } else if (a.format == "csv") {
        throw UsageError("--format csv: writes a --sweep; a plan is written as table or json");
    }
    if (!a.output.empty() && !a.exportKind && a.sweep.empty())
        throw UsageError("--output: needs --export KIND or --sweep (what to write)");
    if (!a.strategy.empty() && !a.exportKind)
        throw UsageError("--strategy: picks the candidate --export writes; give --export KIND");
    if (checkpointOptionGiven && a.interruptionsPerHour <= 0)
        throw UsageError(
            "--interruptions-per-hour: required by the checkpoint options (the expected interruption rate)");
    return a;
}

// The grid of --sweep in --format, on stdout or to --output. SpecError for a point the planner refuses.
int writeSweep(const PlanArgs& a, const EstimateInput& in, const calibrate::StoredCalibration& calibration,
               std::ostream& out, std::ostream& err)
{
    const SweepResult sweep = runSweep(in, a.sweep, calibration.calibration);
    std::ostringstream text;
    if (a.format == "json")
        text << sweepJson(sweep, in).dump(2) << "\n";
    else if (a.format == "csv")
        text << toCsv(sweep);
    else
        printSweepTable(sweep, in, text);
    if (a.output.empty()) {
        out << text.str();
        return kExitOk;
    }
    if (const std::string why = writeFileSafely(a.output, text.str()).error; !why.empty()) {
        err << "shardwise-cli plan: --output: " << why << "\n";
        return kExitUsage;
    }
    err << "shardwise-cli plan: wrote the sweep's " << countOf(sweep.points.size(), "point") << " to " << a.output
        << "\n";
    return kExitOk;
}

int runPlan(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    PlanArgs a;
    try {
        a = parsePlanArgs(args);
    } catch (const UsageError& e) {
        err << "shardwise-cli plan: " << e.what() << "\n";
        return kExitUsage;
    }
    if (a.help) {
        out << usageText(planSpec());
        return kExitOk;
    }
    if (!a.plan.measuredNetwork.empty()) {
        try {
            const auto db = existingStore(a.db);
            a.plan.useMeasuredNetwork(db ? &*db : nullptr, store::resolveDatabasePath(a.db).string());
        } catch (const UsageError& e) {
            err << "shardwise-cli plan: " << e.what() << "\n";
            return kExitUsage;
        } catch (const std::exception& e) {
            err << "shardwise-cli plan: --inter-node " << a.plan.measuredNetwork
                << ": cannot read the store: " << e.what() << "\n";
            return kExitFailed;
        }
    }
    std::optional<frameworks::ImportedSettings> imported;
    if (!a.from.empty()) {
        try {
            imported = frameworks::importConfigFile(a.from);
        } catch (const SpecError& e) {
            err << "shardwise-cli plan: --from " << a.from << ": " << e.what() << "\n";
            return kExitUsage;
        }
        for (const frameworks::ConfigWarning& w : imported->warnings)
            err << "shardwise-cli plan: --from " << a.from << ": warning: " << w.key << ": " << w.message << "\n";
    }
    try {
        std::vector<std::string> notes;
        EstimateInput in;
        try {
            in = a.plan.input(imported ? &*imported : nullptr, &notes);
        } catch (const SpecError& e) {
            // A setting the file stated that the plan cannot take (a global batch that does not divide).
            if (imported && (e.field() == "train_batch_size" || e.field() == "num_processes")) {
                err << "shardwise-cli plan: --from " << a.from << ": " << e.what() << "\n";
                return kExitUsage;
            }
            throw;
        }
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
        if (!a.sweep.empty())
            return writeSweep(a, in, calibration, out, err);
        const Plan plan = makePlan(in, calibration.calibration);
        const CheckpointOptions checkpoints { a.interruptionsPerHour, a.checkpointWriteGBps, a.checkpointSaveS,
                                              a.restartS };
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
        if (a.exportKind) {
            std::optional<Strategy> chosen = plan.recommendation.strategy;
            if (imported && imported->strategy)
                chosen = imported->strategy;
            if (!a.strategy.empty())
                chosen = strategyFromId(a.strategy);
            if (!chosen) {
                err << "shardwise-cli plan: --export: no strategy fits this plan; pick a candidate with --strategy "
                       "ID\n";
                return kExitUsage;
            }
            if (!frameworks::exportSupports(*a.exportKind, in, *chosen)) {
                err << "shardwise-cli plan: --export: " << frameworks::unsupportedReason(*a.exportKind, in, *chosen)
                    << "\n";
                return kExitUsage;
            }
            if (const Framework reader = frameworks::configFramework(*a.exportKind, in, *chosen);
                reader != in.framework.framework)
                err << "shardwise-cli plan: --export: note: " << frameworks::configKindId(*a.exportKind)
                    << " is read by " << traits(reader).label << ", while this plan's figures are for "
                    << traits(in.framework.framework).label << " (plan with --framework " << frameworkId(reader)
                    << " for its defaults and figures)\n";
            if (!plan.candidate(*chosen).estimate.fits())
                err << "shardwise-cli plan: --export: warning: " << strategyId(*chosen)
                    << " is predicted not to fit this plan's GPUs or host memory\n";
            const std::string text
                = frameworks::exportConfig(*a.exportKind, in, *chosen, frameworks::planIdentity(in, *chosen));
            if (a.output.empty()) {
                out << text;
                return kExitOk;
            }
            if (const std::string why = writeFileSafely(a.output, text).error; !why.empty()) {
                err << "shardwise-cli plan: --output: " << why << "\n";
                return kExitUsage;
            }
            err << "shardwise-cli plan: wrote " << frameworks::configKindId(*a.exportKind) << " of "
                << strategyId(*chosen) << " to " << a.output << "\n";
        }
        if (a.format == "json") {
            nlohmann::json j = toJson(plan);
            // The framework target and network the figures are for: core/plan's JSON does not carry them.
            j["target"] = { { "framework", frameworkId(in.framework.framework) },
                            { "label", traits(in.framework.framework).label },
                            { "version", in.framework.effectiveVersion() },
                            { "compiled", in.framework.compiled },
                            { "precision", precisionId(in.training.precision) },
                            { "activation_checkpointing",
                              in.training.activationCheckpointing
                                  ? std::string(checkpointPolicyId(in.training.checkpointPolicy))
                                  : std::string("off") },
                            { "from_defaults", notes } };
            nlohmann::json unsupported = nlohmann::json::array();
            for (const Candidate& cand : plan.candidates)
                if (!frameworkSupports(in.framework.framework, cand.strategy))
                    unsupported.push_back(strategyId(cand.strategy));
            j["target"]["unsupported"] = unsupported;
            const auto preset = frameworks::interNodePresetFor(in.cluster.interNodeGBps);
            j["inter_node"] = { { "gbps", in.cluster.interNodeGBps },
                                { "preset", preset ? nlohmann::json(std::string(preset->id)) : nlohmann::json() } };
            if (const auto& m = a.plan.measured)
                j["inter_node"]["measured"]
                    = { { "network", m->name }, { "bus_gbps", m->busGBps }, { "probe_id", m->probeId } };
            if (imported) {
                nlohmann::json warnings = nlohmann::json::array();
                for (const frameworks::ConfigWarning& w : imported->warnings)
                    warnings.push_back({ { "key", w.key }, { "message", w.message } });
                j["imported"] = { { "file", a.from },
                                  { "format", frameworks::configFormatId(imported->format) },
                                  { "strategy",
                                    imported->strategy ? nlohmann::json(std::string(strategyId(*imported->strategy)))
                                                       : nlohmann::json() },
                                  { "auto", imported->autoKeys },
                                  { "warnings", warnings } };
            }
            if (a.calibrated)
                j["calibration"] = { { "source", calibration.source },
                                     { "confidence", calibration.confidence },
                                     { "confidence_label", calibration.confidenceLabel },
                                     { "runs", calibration.runs },
                                     { "fitted", calibration.fitted } };
            if (a.interruptionsPerHour > 0) {
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
            if (imported)
                out << "Settings from " << a.from << " (" << frameworks::configFormatId(imported->format) << ")"
                    << (imported->strategy ? ", strategy " + std::string(strategyId(*imported->strategy))
                                           : std::string())
                    << (imported->warnings.empty()
                            ? std::string()
                            : ", " + countOf(imported->warnings.size(), "warning") + " on stderr")
                    << "\n";
            printPlanTable(plan, in, notes, out, a.plan.measured ? &*a.plan.measured : nullptr);
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
        else if (e.field().rfind("config.json", 0) == 0 || e.field().rfind("model.", 0) == 0)
            err << "--model: "; // a field of the model file --model named
        err << e.what() << "\n";
        return kExitUsage;
    }
}

const CommandRegistration kRegistration { "plan", "estimate all nine strategies and recommend one", runPlan,
                                          planSpecs };

} // namespace

} // namespace shardwise::cli
