// ds_config.json into a plan's settings. Keys, types and ranges: deepspeed/runtime/config.py (top
// level), deepspeed/runtime/zero/config.py and offload_config.py (zero_optimization), the configuration
// reference docs/_pages/config-json.md; "auto" is the Hugging Face integration's placeholder, which
// DeepSpeedConfigModel drops before validation (runtime/config_utils.py).
#include "common.hpp"

#include "shardwise/frameworks/import_limits.hpp"
#include "shardwise/spec/json.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <vector>

namespace shardwise::frameworks::detail {

namespace {

using nlohmann::json;

// Keys DeepSpeed documents that do not change what the plan predicts: read, not warned about.
const std::set<std::string> kTopIgnored { "optimizer",
                                          "scheduler",
                                          "gradient_clipping",
                                          "steps_per_print",
                                          "wall_clock_breakdown",
                                          "memory_breakdown",
                                          "prescale_gradients",
                                          "gradient_predivide_factor",
                                          "zero_allow_untested_optimizer",
                                          "zero_force_ds_cpu_optimizer",
                                          "flops_profiler",
                                          "tensorboard",
                                          "wandb",
                                          "csv_monitor",
                                          "comet",
                                          "comms_logger",
                                          "checkpoint",
                                          "dump_state",
                                          "dataloader_drop_last",
                                          "sparse_gradients",
                                          "communication_data_type",
                                          "seq_parallel_communication_data_type",
                                          "disable_allgather",
                                          "logging",
                                          "timers",
                                          "data_types",
                                          "aio",
                                          "compile" };
// The fields of DeepSpeedZeroConfig (deepspeed/runtime/zero/config.py) and their stage3_ aliases
// (populate_by_name: both spellings are accepted) that do not change what the plan predicts.
const std::set<std::string> kZeroIgnored { "contiguous_gradients",
                                           "reduce_scatter",
                                           "allgather_partitions",
                                           "load_from_fp32_weights",
                                           "round_robin_gradients",
                                           "stage3_gather_16bit_weights_on_model_save",
                                           "gather_16bit_weights_on_model_save",
                                           "stage3_gather_fp16_weights_on_model_save",
                                           "ignore_unused_parameters",
                                           "sub_group_size",
                                           "use_multi_rank_bucket_allreduce",
                                           "stage3_model_persistence_threshold",
                                           "model_persistence_threshold",
                                           "elastic_checkpoint",
                                           "memory_efficient_linear",
                                           "log_trace_cache_warnings",
                                           "enable_sanity_checks",
                                           "override_module_apply",
                                           "stage3_use_all_reduce_for_fetch_params",
                                           "use_all_reduce_for_fetch_params",
                                           "stage3_module_granularity_threshold",
                                           "module_granularity_threshold",
                                           "stage3_allgather_sequential",
                                           "allgather_sequential",
                                           "pipeline_loading_checkpoint",
                                           "save_muon_momentum_buffer_in_memory",
                                           "leaf_module",
                                           "cpu_offload_use_pin_memory" };
// DeepSpeedZeroConfig fields that change the memory or the traffic in ways the plan does not model.
const std::set<std::string> kZeroNotModelled { "zero_hpz_partition_size",
                                               "zero_quantized_weights",
                                               "zero_quantized_nontrainable_weights",
                                               "zero_quantized_gradients",
                                               "zeropp_loco_param",
                                               "mics_shard_size",
                                               "mics_hierarchical_params_gather",
                                               "zenflow",
                                               "legacy_stage1",
                                               "cpu_offload_param" };
// DeepSpeedZeroOffloadParamConfig and DeepSpeedZeroOffloadOptimizerConfig (runtime/zero/offload_config.py).
const std::set<std::string> kOffloadIgnored { "pin_memory", "nvme_path",     "buffer_count",      "buffer_size",
                                              "max_in_cpu", "fast_init",     "pipeline_read",     "pipeline_write",
                                              "ratio",      "super_offload", "cpuadam_cores_perc" };
const std::set<std::string> kCheckpointingKeys { "partition_activations",           "cpu_checkpointing",
                                                 "contiguous_memory_optimization",  "number_checkpoints",
                                                 "synchronize_checkpoint_boundary", "profile" };
// bf16 keys that do not change the plan (bf16_master_weights_and_grads and bf16_optimizer_states do:
// both true is pure bf16). DeepSpeedBF16Config and DeepSpeedFP16Config (runtime/precision_config.py,
// DeepSpeed 0.17.1 and later) refuse any other key; check_overflow is 0.16's (runtime/constants.py).
const std::set<std::string> kBf16Ignored { "immediate_grad_update", "check_grad_overflow", "check_overflow" };
const std::set<std::string> kFp16Ignored {
    "loss_scale",     "loss_scale_window", "initial_scale_power",          "hysteresis", "consecutive_hysteresis",
    "min_loss_scale", "auto_cast",         "fp16_master_weights_and_grads"
};
const std::set<std::string> kShardwiseKeys { "plan",          "model",
                                             "gpu",           "world",
                                             "strategy",      "framework",
                                             "precision",     "seq_len",
                                             "nodes",         "activation_checkpointing",
                                             "note",          "checkpointing_note",
                                             "optimizer_note" };

// A key's path as messages name it (a key is quoted at most kMaxEchoChars long).
std::string join(const std::string& path, const std::string& key)
{
    return path.empty() ? clipForMessage(key) : path + "." + clipForMessage(key);
}

// A value as messages quote it.
std::string shown(const json& v)
{
    return clipForMessage(v.dump());
}

// DeepSpeed's config sections are pydantic models that forbid unknown keys (DeepSpeedConfigModel:
// extra="forbid", deepspeed/runtime/config_utils.py): deepspeed.initialize stops on such a file.
[[noreturn]] void refused(const std::string& key, const std::string& model)
{
    throw SpecError(key,
                    "DeepSpeed refuses this file: not a field of " + model
                        + ", which forbids unknown keys (extra=\"forbid\" in DeepSpeedConfigModel, "
                          "deepspeed/runtime/config_utils.py)");
}

bool isAuto(const json& v)
{
    return v.is_string() && v.get<std::string>() == "auto";
}

// An integer in [lo, hi]; DeepSpeed's pp_int fields accept integral floats such as 5e8.
std::int64_t integer(const json& v, const std::string& key, std::int64_t lo, std::int64_t hi)
{
    double x = 0;
    if (v.is_number_integer())
        x = static_cast<double>(v.get<std::int64_t>());
    else if (v.is_number_unsigned())
        x = static_cast<double>(v.get<std::uint64_t>());
    else if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>())
        x = v.get<double>();
    else
        throw SpecError(key, "expected an integer, got " + shown(v));
    if (x < static_cast<double>(lo) || x > static_cast<double>(hi))
        throw SpecError(key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + shown(v));
    return static_cast<std::int64_t>(x);
}

bool boolean(const json& v, const std::string& key)
{
    if (!v.is_boolean())
        throw SpecError(key, "expected true or false, got " + shown(v));
    return v.get<bool>();
}

const json& object(const json& v, const std::string& key)
{
    if (!v.is_object())
        throw SpecError(key, "expected an object, got " + shown(v));
    return v;
}

std::string string(const json& v, const std::string& key)
{
    if (!v.is_string())
        throw SpecError(key, "expected a string, got " + shown(v));
    return v.get<std::string>();
}

// Reads an optional integer knob, "auto" listed.
template <typename T>
void knob(const json& z, const std::string& name, const std::string& key, std::int64_t lo, std::int64_t hi,
          std::optional<T>& out, ImportedSettings& s)
{
    if (!z.contains(name))
        return;
    if (isAuto(z.at(name))) {
        s.autoKeys.push_back(key);
        return;
    }
    out = static_cast<T>(integer(z.at(name), key, lo, hi));
}

constexpr std::int64_t kMaxElements = 1'000'000'000'000'000LL;

void readZero(const json& z, ImportedSettings& s, int& stage, std::string& optimizerDevice, std::string& paramDevice)
{
    object(z, "zero_optimization");
    for (const auto& [name, v] : z.items()) {
        const std::string key = join("zero_optimization", name);
        if (name == "stage") {
            if (isAuto(v))
                s.autoKeys.push_back(key);
            else
                stage = static_cast<int>(integer(v, key, 0, 3));
        } else if (name == "overlap_comm") {
            if (isAuto(v))
                s.autoKeys.push_back(key);
            else
                s.overlapComm = boolean(v, key);
        } else if (name == "reduce_bucket_size") {
            knob(z, name, key, 1, kMaxElements, s.reduceBucketElements, s);
        } else if (name == "allgather_bucket_size") {
            knob(z, name, key, 1, kMaxElements, s.allgatherBucketElements, s);
        } else if (name == "stage3_prefetch_bucket_size" || name == "prefetch_bucket_size") {
            knob(z, name, key, 0, kMaxElements, s.prefetchBucketElements, s);
        } else if (name == "stage3_param_persistence_threshold" || name == "param_persistence_threshold") {
            knob(z, name, key, 0, kMaxElements, s.persistenceThreshold, s);
        } else if (name == "stage3_max_live_parameters" || name == "max_live_parameters") {
            knob(z, name, key, 0, kMaxElements, s.maxLiveParameters, s);
        } else if (name == "stage3_max_reuse_distance" || name == "max_reuse_distance") {
            knob(z, name, key, 0, kMaxElements, s.maxReuseDistance, s);
        } else if (name == "offload_optimizer" || name == "offload_param") {
            if (v.is_null())
                continue;
            object(v, key);
            std::string& device = name == "offload_optimizer" ? optimizerDevice : paramDevice;
            for (const auto& [sub, sv] : v.items()) {
                const std::string subKey = join(key, sub);
                if (sub == "device")
                    device = string(sv, subKey);
                else if (!kOffloadIgnored.count(sub))
                    refused(subKey,
                            name == "offload_optimizer"
                                ? "DeepSpeedZeroOffloadOptimizerConfig (runtime/zero/offload_config.py)"
                                : "DeepSpeedZeroOffloadParamConfig (runtime/zero/offload_config.py)");
            }
        } else if (name == "cpu_offload") {
            if (boolean(v, key))
                optimizerDevice = "cpu";
            warn(s, key, "deprecated in DeepSpeed (use offload_optimizer); read as offload_optimizer.device cpu");
        } else if (kZeroNotModelled.count(name)) {
            warn(s, key, "read by DeepSpeed, not modelled by the plan; the plan's figures leave it out");
        } else if (!kZeroIgnored.count(name)) {
            refused(key, "DeepSpeedZeroConfig (runtime/zero/config.py)");
        }
    }
}

// Builds the document as nlohmann's own DOM parser does, and refuses what DeepSpeed or the plan cannot
// take, naming the key: a duplicate key (DeepSpeed loads ds_config files with
// object_pairs_hook=dict_raise_error_on_duplicate_keys, runtime/config.py), a number out of double's
// range, nesting deeper than kMaxNestingDepth.
class DsConfigReader : public nlohmann::json_sax<json> {
public:
    DsConfigReader(json& root, std::string name)
        : m_root(root)
        , m_name(std::move(name))
    {
    }

    bool null() override { return add(nullptr); }
    bool boolean(bool v) override { return add(v); }
    bool number_integer(number_integer_t v) override { return add(v); }
    bool number_unsigned(number_unsigned_t v) override { return add(v); }
    bool number_float(number_float_t v, const string_t&) override { return add(v); }
    bool string(string_t& v) override { return add(std::move(v)); }
    bool binary(binary_t&) override { return add(nullptr); }
    bool start_object(std::size_t) override { return open(json::object()); }
    bool start_array(std::size_t) override { return open(json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t& k) override
    {
        json& object = *m_open.back();
        m_names.back() = k;
        if (object.contains(k))
            throw SpecError(path(),
                            "duplicate key: DeepSpeed refuses a ds_config that states a key twice "
                            "(dict_raise_error_on_duplicate_keys, deepspeed/runtime/config_utils.py)");
        return true;
    }
    bool parse_error(std::size_t, const std::string& token, const nlohmann::detail::exception& e) override
    {
        if (e.id == 406) // out_of_range: the number does not fit a double
            throw SpecError(path(), "number out of range: " + clipForMessage(token));
        // nlohmann's message ends with the last token read ("last read: '...'"), which may be long.
        throw SpecError("file", m_name + " is not valid JSON: " + clipForMessage(e.what(), 200));
    }

private:
    // The key (or [index]) being filled, as "zero_optimization.offload_optimizer.device".
    std::string path() const
    {
        std::string p;
        for (std::size_t i = 0; i < m_open.size(); ++i) {
            if (m_open[i]->is_array())
                p += "[" + std::to_string(m_open[i]->size()) + "]";
            else
                p += (p.empty() ? "" : ".") + clipForMessage(m_names[i]);
        }
        return p.empty() ? std::string("file") : p;
    }
    json* place(json&& v)
    {
        if (m_open.empty()) {
            m_root = std::move(v);
            return &m_root;
        }
        json& parent = *m_open.back();
        if (parent.is_array()) {
            parent.push_back(std::move(v));
            return &parent.back();
        }
        json& slot = parent[m_names.back()];
        slot = std::move(v);
        return &slot;
    }
    bool add(json&& v)
    {
        place(std::move(v));
        return true;
    }
    bool open(json&& v)
    {
        if (m_open.size() >= static_cast<std::size_t>(kMaxNestingDepth))
            throw SpecError("file",
                            m_name + " nests deeper than " + std::to_string(kMaxNestingDepth)
                                + " levels; Shardwise reads configs nested at most that deep");
        m_open.push_back(place(std::move(v)));
        m_names.emplace_back();
        return true;
    }
    bool close()
    {
        m_open.pop_back();
        m_names.pop_back();
        return true;
    }

    json& m_root;
    std::string m_name;
    std::vector<json*> m_open;        // the objects and arrays being filled, outermost first
    std::vector<std::string> m_names; // per open object: the key being filled
};

} // namespace

json parseDsConfigText(std::string_view text, const std::string& name)
{
    json root;
    DsConfigReader reader(root, name);
    // DeepSpeed reads ds_config files with hjson, which allows comments; so does this.
    json::sax_parse(text.begin(), text.end(), &reader, nlohmann::json::input_format_t::json, true, true);
    return root;
}

ImportedSettings importDsConfig(const json& j)
{
    if (!j.is_object())
        throw SpecError("file", "a ds_config must be a JSON object");
    ImportedSettings s;
    s.format = ConfigFormat::DsConfig;
    s.framework = Framework::DeepSpeed;
    int stage = 0;
    std::string optimizerDevice = "none";
    std::string paramDevice = "none";
    std::optional<bool> bf16;
    std::optional<bool> fp16;
    bool bf16Master = false;                 // bf16.bf16_master_weights_and_grads
    bool bf16States = false;                 // bf16.bf16_optimizer_states
    std::optional<PrecisionPolicy> recorded; // the "_shardwise" record's precision
    std::optional<CheckpointPolicy> recordedPolicy;
    for (const auto& [name, v] : j.items()) {
        if (name == "train_batch_size") {
            if (isAuto(v))
                s.autoKeys.push_back(name);
            else
                s.trainBatchSize = integer(v, name, 1, 1LL << 40);
        } else if (name == "train_micro_batch_size_per_gpu") {
            if (isAuto(v))
                s.autoKeys.push_back(name);
            else
                s.microBatch = static_cast<int>(integer(v, name, 1, 4096));
        } else if (name == "gradient_accumulation_steps") {
            if (isAuto(v))
                s.autoKeys.push_back(name);
            else
                s.gradAccumulation = static_cast<int>(integer(v, name, 1, 65536));
        } else if (name == "bfloat16" && j.contains("bf16")) {
            // get_bfloat16_config (runtime/precision_config.py) reads "bfloat16" only without "bf16".
            warn(s, name, "DeepSpeed reads bf16 and ignores its older spelling bfloat16 beside it; so does the plan");
        } else if (name == "bf16" || name == "bfloat16" || name == "fp16") {
            // "bfloat16" is bf16's older spelling, which DeepSpeed still reads (BFLOAT16_OLD).
            object(v, name);
            for (const auto& [sub, sv] : v.items()) {
                const std::string key = join(name, sub);
                if (sub == "enabled") {
                    if (isAuto(sv))
                        s.autoKeys.push_back(key);
                    else
                        (name == "fp16" ? fp16 : bf16) = boolean(sv, key);
                } else if (name != "fp16" && sub == "bf16_master_weights_and_grads") {
                    bf16Master = boolean(sv, key);
                } else if (name != "fp16" && sub == "bf16_optimizer_states") {
                    bf16States = boolean(sv, key);
                } else if (name == "fp16" ? !kFp16Ignored.count(sub) : !kBf16Ignored.count(sub)) {
                    refused(key,
                            name == "fp16" ? "DeepSpeedFP16Config (runtime/precision_config.py, 0.17.1 and later)"
                                           : "DeepSpeedBF16Config (runtime/precision_config.py, 0.17.1 and later)");
                }
            }
        } else if (name == "zero_optimization") {
            readZero(v, s, stage, optimizerDevice, paramDevice);
        } else if (name == "activation_checkpointing") {
            object(v, name);
            s.activationCheckpointing = true;
            for (const auto& [sub, sv] : v.items()) {
                const std::string key = join(name, sub);
                if (!kCheckpointingKeys.count(sub))
                    // DeepSpeedActivationCheckpointingConfig is no pydantic model: DeepSpeed ignores it too.
                    warn(s, key, "not an activation_checkpointing key DeepSpeed documents; ignored");
                else if (sub == "cpu_checkpointing" && sv.is_boolean() && sv.get<bool>())
                    warn(s, key, "checkpoints kept in CPU memory: the plan counts them on the GPU");
                else if (sub == "partition_activations" && sv.is_boolean() && sv.get<bool>())
                    warn(s, key, "partitioned activations apply to model parallelism; the plan has none");
            }
        } else if (name == "_shardwise") {
            object(v, name);
            for (const auto& [sub, sv] : v.items()) {
                const std::string key = join(name, sub);
                if (sub == "precision")
                    recorded = parsePrecision(string(sv, key), key);
                else if (sub == "seq_len")
                    s.seqLen = static_cast<int>(integer(sv, key, 1, 1 << 20));
                else if (sub == "nodes")
                    s.nodes = static_cast<int>(integer(sv, key, 1, 4096));
                else if (sub == "activation_checkpointing") {
                    const std::string policy = string(sv, key);
                    if (policy != "off")
                        recordedPolicy = parseCheckpointPolicy(policy, key);
                } else if (!kShardwiseKeys.count(sub))
                    warn(s, key, "not a key of Shardwise's own record; ignored");
            }
        } else if (!kTopIgnored.count(name)) {
            // DeepSpeedConfig reads the top-level keys it knows (get_scalar_param) and ignores the rest.
            warn(s, clipForMessage(name), "not a DeepSpeed key Shardwise knows; ignored");
        }
    }
    if (bf16.value_or(false) && fp16.value_or(false))
        throw SpecError("bf16.enabled", "bf16 and fp16 cannot both be enabled");
    if (bf16.value_or(false))
        // bf16 master weights and optimizer states in bf16 keep no fp32 copy: pure bf16.
        s.precision = bf16Master && bf16States ? PrecisionPolicy::PureBf16 : PrecisionPolicy::Bf16Fp32Master;
    else if (fp16.value_or(false)) {
        s.precision = PrecisionPolicy::Bf16Fp32Master;
        warn(s, "fp16.enabled", "fp16 planned as bf16 with fp32 master weights (the same bytes per parameter)");
    } else if (recorded)
        s.precision = recorded;
    else if (!bf16 && !fp16)
        warn(s, "bf16",
             "neither bf16 nor fp16 stated: DeepSpeed trains in the model's dtype; the plan's precision is kept");
    if (s.activationCheckpointing)
        s.checkpointPolicy = recordedPolicy.value_or(CheckpointPolicy::Full);
    s.strategy = strategyForZero(stage, optimizerDevice, paramDevice, "zero_optimization.offload_optimizer.device",
                                 "zero_optimization.offload_param.device", s);
    if (s.trainBatchSize && s.microBatch && s.gradAccumulation) {
        const std::int64_t per = static_cast<std::int64_t>(*s.microBatch) * *s.gradAccumulation;
        if (*s.trainBatchSize % per != 0)
            throw SpecError("train_batch_size",
                            std::to_string(*s.trainBatchSize)
                                + " is not micro-batch x accumulation x world (micro-batch x accumulation = "
                                + std::to_string(per) + ")");
        s.worldSize = static_cast<int>(*s.trainBatchSize / per);
    }
    return s;
}

} // namespace shardwise::frameworks::detail
