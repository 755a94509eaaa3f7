// torchtitan job-config TOML into a plan's settings. Sections and keys: the dataclasses of
// torchtitan/config/job_config.py (release 0.2: Job, Profiling, Metrics, Model, Optimizer, LRScheduler,
// Training, Parallelism, Checkpoint, ActivationCheckpoint, Float8, MX, Comm, MemoryEstimation,
// FaultTolerance, Experimental, Validation; later releases add [compile] and [training] dtype, earlier
// ones had [training] batch_size and compile). Parsed with toml++ (TOML 1.0).
#include "common.hpp"

#include "shardwise/frameworks/import_limits.hpp"
#include "shardwise/spec/json.hpp"

#include <toml++/toml.h>

#include <set>
#include <sstream>

namespace shardwise::frameworks::detail {

namespace {

// Sections whose keys do not change what the plan predicts: read without a warning.
const std::set<std::string> kQuietSections { "job",          "profiling",  "metrics",    "optimizer",
                                             "lr_scheduler", "checkpoint", "comm",       "memory_estimation",
                                             "experimental", "validation", "dataloader", "debug" };
const std::set<std::string> kModelKeys { "name", "flavor", "tokenizer_path", "hf_assets_path",
                                         "print_after_conversion" };
const std::set<std::string> kTrainingQuiet { "dataset",       "dataset_path",
                                             "max_norm",      "gc_freq",
                                             "gc_debug",      "seed",
                                             "deterministic", "enable_cpu_offload_pin_memory",
                                             "dataloader" };
const std::set<std::string> kParallelismQuiet { "enable_compiled_autograd",
                                                "disable_loss_parallel",
                                                "enable_async_tensor_parallel",
                                                "pipeline_parallel_split_points",
                                                "pipeline_parallel_layers_per_stage",
                                                "pipeline_parallel_schedule",
                                                "pipeline_parallel_schedule_csv",
                                                "pipeline_parallel_microbatch_size",
                                                "context_parallel_rotate_method",
                                                "module_fqns_per_model_part",
                                                "pipeline_parallel_first_stage_less_layers",
                                                "pipeline_parallel_last_stage_less_layers",
                                                "pipeline_parallel_expert_parallel_overlap",
                                                "context_parallel_load_balancer",
                                                "expert_parallel_comm_backend" };
// [activation_checkpoint] keys of 0.2.2 that do not change what the plan predicts.
const std::set<std::string> kCheckpointQuiet { "selective_ac_option",
                                               "per_op_sac_force_recompute_mm_shapes_by_fqns",
                                               "early_stop",
                                               "memory_budget",
                                               "visualize_memory_budget_pareto",
                                               "preserve_rng_state",
                                               "determinism_check",
                                               "debug" };
const std::set<std::string> kCompileQuiet { "components", "backend" };

std::string describe(const toml::node& n)
{
    std::ostringstream s;
    if (n.is_string())
        s << '"' << clipForMessage(n.as_string()->get()) << '"';
    else if (n.is_table())
        s << "a table";
    else if (n.is_array())
        s << "an array";
    else
        n.visit([&s](auto&& v) { s << v; });
    return s.str();
}

std::int64_t integer(const toml::node& n, const std::string& key, std::int64_t lo, std::int64_t hi)
{
    const auto v = n.value_exact<std::int64_t>();
    if (!v)
        throw SpecError(key, "expected an integer, got " + describe(n));
    if (*v < lo || *v > hi)
        throw SpecError(
            key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + std::to_string(*v));
    return *v;
}

bool boolean(const toml::node& n, const std::string& key)
{
    const auto v = n.value_exact<bool>();
    if (!v)
        throw SpecError(key, "expected true or false, got " + describe(n));
    return *v;
}

std::string string(const toml::node& n, const std::string& key, std::initializer_list<const char*> allowed)
{
    const auto v = n.value_exact<std::string>();
    std::string list;
    for (const char* a : allowed)
        list += (list.empty() ? "" : ", ") + std::string("\"") + a + "\"";
    if (!v)
        throw SpecError(key, "expected a string (" + list + "), got " + describe(n));
    for (const char* a : allowed)
        if (*v == a)
            return *v;
    throw SpecError(key, "expected one of " + list + ", got \"" + clipForMessage(*v) + "\"");
}

const toml::table& table(const toml::node& n, const std::string& key)
{
    if (!n.is_table())
        throw SpecError(key, "expected a table ([" + key + "]), got " + describe(n));
    return *n.as_table();
}

// The key a TOML line states ("training.seq_len" for "seq_len = 1e400" under [training]), so an error
// toml++ reports by line (a number out of range, a key stated twice) names it; empty when the line
// states none.
std::string keyOnLine(std::string_view text, std::size_t lineNumber)
{
    std::string table;
    std::size_t at = 0;
    for (std::size_t n = 1; at <= text.size(); ++n) {
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(at, end - at);
        at = end + 1;
        const std::size_t c = line.find_first_not_of(" \t");
        if (c == std::string_view::npos) {
            if (n == lineNumber)
                return {};
            continue;
        }
        line.remove_prefix(c);
        const auto trim = [](std::string_view v) {
            while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r'))
                v.remove_suffix(1);
            std::string out;
            for (char ch : v)
                if (ch != ' ' && ch != '\t' && ch != '"' && ch != '\'')
                    out += ch;
            return out;
        };
        if (line.front() == '[') {
            const std::size_t close = line.find(']');
            table = trim(line.substr(line.find_first_not_of('['),
                                     close == std::string_view::npos ? std::string_view::npos
                                                                     : close - line.find_first_not_of('[')));
            if (n == lineNumber)
                return clipForMessage(table);
        } else if (n == lineNumber) {
            const std::size_t eq = line.find('=');
            if (eq == std::string_view::npos || line.front() == '#')
                return {};
            const std::string key = trim(line.substr(0, eq));
            return clipForMessage(table.empty() ? key : table + "." + key);
        }
        if (end == text.size())
            break;
    }
    return {};
}

struct Parallel {
    std::int64_t replicate = 1;
    std::int64_t shard = -1; // -1: the ranks left over
    std::string reshard = "default";
};

// [quantize] (torchtitan/config/job_config.py, 0.2: Quantize -> linear / grouped_mm -> float8 / mx): how
// Float8 and MX training is set up. It applies only to the converters [model] converters names, which
// is where the plan warns; the section itself is read without a warning.
void readQuantize(const toml::node& v, const std::string& key, ImportedSettings& s)
{
    const std::string part = key.substr(key.find('.') + 1);
    if (part != "linear" && part != "grouped_mm") {
        warn(s, key, "not a [quantize] table Shardwise knows (linear, grouped_mm); ignored");
        return;
    }
    for (const auto& [k, recipe] : table(v, key)) {
        const std::string name(k.str());
        const std::string recipeKey = key + "." + clipForMessage(name);
        if (name != "float8" && name != "mx")
            warn(s, recipeKey, "not a [" + key + "] table Shardwise knows (float8, mx); ignored");
        else
            table(recipe, recipeKey);
    }
}

} // namespace

ImportedSettings importTorchtitan(std::string_view text)
{
    toml::table root;
    try {
        root = toml::parse(text);
    } catch (const toml::parse_error& e) {
        const std::size_t line = e.source().begin.line;
        const std::string key = keyOnLine(text, line);
        throw SpecError(key.empty() ? std::string("file") : key,
                        "not valid TOML: " + clipForMessage(std::string(e.description()), 200) + " (line "
                            + std::to_string(line) + ")");
    }
    ImportedSettings s;
    s.format = ConfigFormat::Torchtitan;
    s.framework = Framework::Torchtitan;
    Parallel p;
    bool offload = false;
    std::optional<std::int64_t> globalBatch;
    std::optional<std::string> mixedParam;
    std::optional<std::string> paramDtype;
    for (const auto& [sectionKey, sectionNode] : root) {
        const std::string section = clipForMessage(sectionKey.str());
        if (kQuietSections.count(section)) {
            table(sectionNode, section);
            continue;
        }
        if (section != "model" && section != "training" && section != "parallelism"
            && section != "activation_checkpoint" && section != "compile" && section != "float8" && section != "mx"
            && section != "fault_tolerance" && section != "quantize") {
            warn(s, section, "not a torchtitan job-config section Shardwise knows; ignored");
            continue;
        }
        const toml::table& t = table(sectionNode, section);
        for (const auto& [k, v] : t) {
            const std::string name = clipForMessage(k.str());
            const std::string key = section + "." + name;
            if (section == "model") {
                if (name == "converters") {
                    if (!v.is_array())
                        throw SpecError(key, "expected an array of converter names, got " + describe(v));
                    if (!v.as_array()->empty())
                        warn(s, key,
                             "model converters (Float8, MX) are not modelled: the plan assumes bf16 linear layers");
                } else if (!kModelKeys.count(name)) {
                    warn(s, key, "not a [model] key Shardwise knows; ignored (the plan's model is --model)");
                }
            } else if (section == "training") {
                if (name == "local_batch_size" || name == "batch_size")
                    s.microBatch = static_cast<int>(integer(v, key, 1, 65536));
                else if (name == "global_batch_size") {
                    const std::int64_t g = integer(v, key, -1, std::int64_t(1) << 40);
                    if (g == 0)
                        throw SpecError(key, "must be -1 (local batch x data-parallel degree) or at least 1, got 0");
                    if (g > 0)
                        globalBatch = g;
                } else if (name == "seq_len")
                    s.seqLen = static_cast<int>(integer(v, key, 1, 1 << 24));
                else if (name == "steps")
                    integer(v, key, 1, std::int64_t(1) << 40); // how long it runs, not what a step costs
                else if (name == "enable_cpu_offload")
                    offload = boolean(v, key);
                else if (name == "mixed_precision_param")
                    mixedParam = string(v, key, { "bfloat16", "float32" });
                else if (name == "mixed_precision_reduce") {
                    if (string(v, key, { "float32", "bfloat16" }) == "bfloat16")
                        warn(s, key, "bf16 gradient reduction is not modelled: the plan reduces in fp32");
                } else if (name == "dtype")
                    paramDtype = string(v, key, { "float32", "bfloat16" });
                else if (name == "compile")
                    s.compiled = boolean(v, key);
                else if (!kTrainingQuiet.count(name))
                    warn(s, key, "not a [training] key Shardwise knows; ignored");
            } else if (section == "parallelism") {
                if (name == "data_parallel_replicate_degree")
                    p.replicate = integer(v, key, 1, 1 << 20);
                else if (name == "data_parallel_shard_degree") {
                    p.shard = integer(v, key, -1, 1 << 20);
                    if (p.shard == 0)
                        throw SpecError(key, "must be -1 (the ranks left over) or at least 1, got 0");
                } else if (name == "fsdp_reshard_after_forward")
                    p.reshard = string(v, key, { "default", "always", "never" });
                else if (name == "tensor_parallel_degree" || name == "pipeline_parallel_degree"
                         || name == "context_parallel_degree" || name == "expert_parallel_degree"
                         || name == "expert_tensor_parallel_degree") {
                    if (integer(v, key, 1, 1 << 20) != 1)
                        throw SpecError(key,
                                        "must be 1: Shardwise plans data-parallel sharding only (no tensor, "
                                        "pipeline, context or expert parallelism), got "
                                            + describe(v));
                } else if (!kParallelismQuiet.count(name))
                    warn(s, key, "not a [parallelism] key Shardwise knows; ignored");
            } else if (section == "activation_checkpoint") {
                if (name == "mode") {
                    const std::string mode = string(v, key, { "none", "full", "selective", "memory_budget" });
                    s.activationCheckpointing = mode != "none";
                    s.checkpointPolicy = mode == "selective" ? CheckpointPolicy::Selective : CheckpointPolicy::Full;
                    if (mode == "memory_budget")
                        warn(s, key,
                             "\"memory_budget\" (torch.compile's activation memory budget, 0.2.2) is not modelled: "
                             "planned as full checkpointing, which keeps fewer activations (the plan's memory is a "
                             "lower bound)");
                } else if (!kCheckpointQuiet.count(name))
                    warn(s, key, "not an [activation_checkpoint] key Shardwise knows; ignored");
            } else if (section == "compile") {
                if (name == "enable")
                    s.compiled = boolean(v, key);
                else if (!kCompileQuiet.count(name))
                    warn(s, key, "not a [compile] key Shardwise knows; ignored");
            } else if (section == "quantize") {
                readQuantize(v, key, s);
            } else if (section == "fault_tolerance") {
                if (name == "enable" && boolean(v, key))
                    warn(s, key, "TorchFT fault tolerance (HSDP across replica groups) is not modelled");
            } else { // float8, mx
                if (name == "recipe_name" || name == "enable_fsdp_float8_all_gather")
                    warn(s, key, "Float8 / MX training is not modelled: the plan assumes bf16 linear layers");
            }
        }
    }
    // Selective checkpointing: "op" is the per-op policy Shardwise plans; an integer checkpoints every
    // Nth layer whole (torchtitan's default "2").
    if (const auto* ac = root["activation_checkpoint"].as_table();
        ac && s.checkpointPolicy == CheckpointPolicy::Selective) {
        const toml::node* option = ac->get("selective_ac_option");
        const std::string value = option ? option->value_or(std::string()) : std::string("2");
        if (option && !option->is_string())
            throw SpecError("activation_checkpoint.selective_ac_option",
                            "expected \"op\" or a layer interval such as \"2\", got " + describe(*option));
        if (value != "op") {
            warn(s, "activation_checkpoint.selective_ac_option",
                 "'" + value
                     + "' (every Nth layer checkpointed whole) is not modelled: planned as full checkpointing, "
                       "which keeps fewer activations (the plan's memory is a lower bound)");
            s.checkpointPolicy = CheckpointPolicy::Full;
        }
    }
    // Precision: torchtitan keeps fp32 sharded parameters under bf16 compute (mixed_precision_param)
    // unless the parameters themselves are bf16 ([training] dtype in later releases).
    if (paramDtype)
        s.precision = *paramDtype == "bfloat16" ? PrecisionPolicy::PureBf16 : PrecisionPolicy::Bf16Fp32Master;
    else if (mixedParam && *mixedParam == "float32")
        warn(s, "training.mixed_precision_param", "float32 compute is not planned; the plan's precision is kept");
    else if (mixedParam)
        s.precision = PrecisionPolicy::Bf16Fp32Master;

    // Strategy and world: DDP (replicate only), FSDP (shard), HSDP (both) is not one of the nine.
    if (p.replicate > 1 && p.shard != 1)
        throw SpecError("parallelism.data_parallel_replicate_degree",
                        std::to_string(p.replicate) + " with data_parallel_shard_degree " + std::to_string(p.shard)
                            + " is HSDP, which is not planned: use replicate 1 (FSDP) or shard 1 (DDP)");
    const bool ddp = p.shard == 1;
    if (ddp) {
        if (offload)
            throw SpecError("training.enable_cpu_offload",
                            "CPU offload needs FSDP (data_parallel_shard_degree other than 1)");
        s.strategy = Strategy::Zero0;
        s.worldSize = static_cast<int>(p.replicate);
    } else {
        if (offload && p.reshard == "never")
            throw SpecError(
                "training.enable_cpu_offload",
                "offload without resharding is none of the nine strategies (fsdp2_reshard_offload reshards)");
        s.strategy = offload       ? Strategy::Fsdp2ReshardOffload
            : p.reshard == "never" ? Strategy::Fsdp2NoReshard
                                   : Strategy::Fsdp2Reshard;
        if (p.shard > 0)
            s.worldSize = static_cast<int>(p.shard);
    }
    // Accumulation: torchtitan derives it as global / (local x data-parallel degree).
    if (globalBatch && !s.microBatch)
        s.microBatch = 8; // torchtitan's default local_batch_size, which the global batch divides by
    const int local = s.microBatch.value_or(8);
    if (!globalBatch)
        s.gradAccumulation = 1;
    else if (s.worldSize) {
        const std::int64_t per = static_cast<std::int64_t>(local) * *s.worldSize;
        if (*globalBatch % per != 0)
            throw SpecError("training.global_batch_size",
                            std::to_string(*globalBatch)
                                + " is not a multiple of local_batch_size x data-parallel degree ("
                                + std::to_string(per) + ")");
        s.gradAccumulation = static_cast<int>(*globalBatch / per);
    } else {
        s.trainBatchSize = *globalBatch; // the world comes from the plan
    }
    fillFromRecord(text, s);
    return s;
}

} // namespace shardwise::frameworks::detail
