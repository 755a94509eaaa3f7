// ds_config.json into a plan's settings. Keys, types and ranges: deepspeed/runtime/config.py (top
// level), deepspeed/runtime/zero/config.py and offload_config.py (zero_optimization), the configuration
// reference docs/_pages/config-json.md; "auto" is the Hugging Face integration's placeholder, which
// DeepSpeedConfigModel drops before validation (runtime/config_utils.py).
#include "common.hpp"

#include "shardwise/spec/json.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

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
                                           "elastic_checkpoint",
                                           "memory_efficient_linear",
                                           "log_trace_cache_warnings",
                                           "enable_sanity_checks",
                                           "override_module_apply",
                                           "stage3_use_all_reduce_for_fetch_params",
                                           "stage3_module_granularity_threshold" };
const std::set<std::string> kOffloadIgnored { "pin_memory",    "nvme_path",      "buffer_count",
                                              "buffer_size",   "max_in_cpu",     "fast_init",
                                              "pipeline_read", "pipeline_write", "ratio" };
const std::set<std::string> kCheckpointingKeys { "partition_activations",           "cpu_checkpointing",
                                                 "contiguous_memory_optimization",  "number_checkpoints",
                                                 "synchronize_checkpoint_boundary", "profile" };
// bf16 keys of later releases that do not change the plan (bf16_master_weights_and_grads and
// bf16_optimizer_states do: both true is pure bf16; runtime/precision_config.py).
const std::set<std::string> kBf16Ignored { "immediate_grad_update", "check_grad_overflow", "check_overflow" };
const std::set<std::string> kFp16Ignored {
    "loss_scale",     "loss_scale_window", "initial_scale_power",          "hysteresis", "consecutive_hysteresis",
    "min_loss_scale", "auto_cast",         "fp16_master_weights_and_grads"
};
const std::set<std::string> kShardwiseKeys { "plan",
                                             "model",
                                             "gpu",
                                             "world",
                                             "strategy",
                                             "framework",
                                             "precision",
                                             "seq_len",
                                             "activation_checkpointing",
                                             "note",
                                             "checkpointing_note" };

std::string join(const std::string& path, const std::string& key)
{
    return path.empty() ? key : path + "." + key;
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
        throw SpecError(key, "expected an integer, got " + v.dump());
    if (x < static_cast<double>(lo) || x > static_cast<double>(hi))
        throw SpecError(key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v.dump());
    return static_cast<std::int64_t>(x);
}

bool boolean(const json& v, const std::string& key)
{
    if (!v.is_boolean())
        throw SpecError(key, "expected true or false, got " + v.dump());
    return v.get<bool>();
}

const json& object(const json& v, const std::string& key)
{
    if (!v.is_object())
        throw SpecError(key, "expected an object, got " + v.dump());
    return v;
}

std::string string(const json& v, const std::string& key)
{
    if (!v.is_string())
        throw SpecError(key, "expected a string, got " + v.dump());
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
                    warn(s, subKey, "not a DeepSpeed offload key Shardwise knows; ignored");
            }
        } else if (name == "cpu_offload") {
            if (boolean(v, key))
                optimizerDevice = "cpu";
            warn(s, key, "deprecated in DeepSpeed (use offload_optimizer); read as offload_optimizer.device cpu");
        } else if (!kZeroIgnored.count(name)) {
            warn(s, key, "not a ZeRO key Shardwise plans with; ignored (the plan does not model it)");
        }
    }
}

} // namespace

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
        } else if (name == "bf16" || name == "bfloat16" || name == "fp16") {
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
                    warn(s, key, "not a precision key Shardwise knows; ignored");
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
                else if (sub == "activation_checkpointing") {
                    const std::string policy = string(sv, key);
                    if (policy != "off")
                        recordedPolicy = parseCheckpointPolicy(policy, key);
                } else if (!kShardwiseKeys.count(sub))
                    warn(s, key, "not a key of Shardwise's own record; ignored");
            }
        } else if (!kTopIgnored.count(name)) {
            warn(s, name, "not a DeepSpeed key Shardwise knows; ignored");
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
