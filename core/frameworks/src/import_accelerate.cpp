// Accelerate config YAML into a plan's settings. Top-level keys: ClusterConfig and BaseConfig in
// src/accelerate/commands/config/config_args.py; fsdp_config: docs/source/usage_guides/fsdp.md and
// concept_guides/fsdp1_vs_fsdp2.md; deepspeed_config: docs/source/usage_guides/deepspeed.md;
// dynamo_config: the dynamo_backend values of accelerate.utils.DynamoBackend (NO = not compiled).
#include "common.hpp"

#include "shardwise/frameworks/import_limits.hpp"
#include "shardwise/spec/json.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <filesystem>
#include <set>

namespace shardwise::frameworks::detail {

namespace {

const std::set<std::string> kTopIgnored { "compute_environment",
                                          "debug",
                                          "machine_rank",
                                          "main_process_ip",
                                          "main_process_port",
                                          "main_training_function",
                                          "rdzv_backend",
                                          "same_network",
                                          "downcast_bf16",
                                          "enable_cpu_affinity",
                                          "gpu_ids",
                                          "tpu_name",
                                          "tpu_zone",
                                          "tpu_use_cluster",
                                          "tpu_use_sudo",
                                          "command_file",
                                          "commands",
                                          "tpu_vm",
                                          "tpu_env",
                                          "ipex_config",
                                          "mpirun_config",
                                          "fp8_config",
                                          "use_cpu" };
const std::set<std::string> kFsdpIgnored { "fsdp_auto_wrap_policy",   "fsdp_transformer_layer_cls_to_wrap",
                                           "fsdp_state_dict_type",    "fsdp_cpu_ram_efficient_loading",
                                           "fsdp_sync_module_states", "fsdp_use_orig_params",
                                           "fsdp_min_num_params",     "fsdp_backward_prefetch",
                                           "fsdp_forward_prefetch" };
const std::set<std::string> kDeepSpeedIgnored { "gradient_clipping",         "zero3_init_flag",
                                                "zero3_save_16bit_model",    "deepspeed_multinode_launcher",
                                                "deepspeed_hostfile",        "deepspeed_exclusion_filter",
                                                "deepspeed_inclusion_filter" };
const std::set<std::string> kDynamoIgnored { "dynamo_mode", "dynamo_use_fullgraph", "dynamo_use_dynamic",
                                             "dynamo_use_regional_compilation" };

std::string join(const std::string& path, const std::string& key)
{
    return path + "." + clipForMessage(key);
}

std::string describe(const YAML::Node& n)
{
    if (n.IsScalar())
        return "'" + clipForMessage(n.Scalar()) + "'";
    return n.IsMap() ? "a mapping" : n.IsSequence() ? "a list" : "nothing";
}

bool isAuto(const YAML::Node& n)
{
    return n.IsScalar() && n.Scalar() == "auto";
}
// A quoted scalar ('8', "true") is a string in YAML, whatever it spells.
bool isPlain(const YAML::Node& n)
{
    return n.IsScalar() && n.Tag() != "!";
}

std::string scalar(const YAML::Node& n, const std::string& key)
{
    if (!n.IsScalar())
        throw SpecError(key, "expected a value, got " + describe(n));
    return n.Scalar();
}

bool boolean(const YAML::Node& n, const std::string& key)
{
    if (isPlain(n)) {
        const std::string& v = n.Scalar();
        if (v == "true" || v == "True" || v == "TRUE")
            return true;
        if (v == "false" || v == "False" || v == "FALSE")
            return false;
    }
    throw SpecError(key, "expected true or false, got " + describe(n));
}

int integer(const YAML::Node& n, const std::string& key, int lo, int hi)
{
    int x = 0;
    if (isPlain(n)) {
        const std::string& v = n.Scalar();
        const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
        if (!v.empty() && ec == std::errc() && ptr == v.data() + v.size()) {
            if (x < lo || x > hi)
                throw SpecError(key,
                                "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got "
                                    + clipForMessage(v));
            return x;
        }
    }
    throw SpecError(key, "expected an integer, got " + describe(n));
}

void requireMap(const YAML::Node& n, const std::string& key)
{
    if (!n.IsMap() && !n.IsNull())
        throw SpecError(key, "expected a mapping, got " + describe(n));
}

// Accelerate's FullyShardedDataParallelPlugin takes fsdp_version 1 when the config does not state it
// (FSDP_VERSION defaults to "1", src/accelerate/utils/dataclasses.py): such a file runs FSDP1.
const char* const kFsdp1Default
    = "not stated: Accelerate then runs FSDP1 (its default fsdp_version is 1), which Shardwise does not plan; "
      "add fsdp_version: 2 (or convert the file with `accelerate to-fsdp2`) to plan FSDP2";

struct Fsdp {
    std::optional<bool> reshard;
    std::optional<bool> offload;
    bool versionStated = false;
};

// A key stated twice in one mapping: yaml-cpp keeps both, Accelerate's yaml.safe_load the last, and the
// YAML specification forbids it. Refused, naming the key.
// Also refused: a key that is not a plain value (a list or mapping as a key), and aliases that expand
// the document past kMaxYamlValues values (nested anchors repeat a node exponentially often).
constexpr std::size_t kMaxYamlValues = 100'000;

void refuseDuplicateKeys(const YAML::Node& n, const std::string& path, int depth, std::size_t& values)
{
    if (depth > kMaxNestingDepth)
        throw SpecError("file", "nests deeper than " + std::to_string(kMaxNestingDepth) + " levels");
    if (++values > kMaxYamlValues)
        throw SpecError("file",
                        "holds more than " + std::to_string(kMaxYamlValues)
                            + " values once its aliases are expanded; an Accelerate config holds a few dozen");
    if (n.IsSequence()) {
        for (std::size_t i = 0; i < n.size(); ++i)
            refuseDuplicateKeys(n[i], path + "[" + std::to_string(i) + "]", depth + 1, values);
        return;
    }
    if (!n.IsMap())
        return;
    std::set<std::string> seen;
    for (const auto& kv : n) {
        if (!kv.first.IsScalar())
            throw SpecError(path.empty() ? std::string("file") : path,
                            "a key that is " + describe(kv.first) + "; an Accelerate config's keys are names");
        const std::string& name = kv.first.Scalar();
        const std::string key = path.empty() ? clipForMessage(name) : join(path, name);
        if (!seen.insert(name).second)
            throw SpecError(key, "stated twice in one mapping; YAML allows a key once");
        refuseDuplicateKeys(kv.second, key, depth + 1, values);
    }
}

// Accelerate's parallelism_config (ClusterConfig.parallelism_config, src/accelerate/commands/config/
// config_args.py; read by prepare_extend_env_parallelism_config in src/accelerate/utils/launch.py): data
// parallel replicate x shard x tensor x context (x sequence) parallel sizes. The plan is FSDP over the
// whole world, so only a shard size may differ from 1.
void readParallelism(const YAML::Node& m, ImportedSettings& s)
{
    requireMap(m, "parallelism_config");
    for (const auto& kv : m) {
        const std::string name = kv.first.as<std::string>();
        const std::string key = join("parallelism_config", name);
        const YAML::Node& v = kv.second;
        const auto size = [&] { return integer(v, key, -1, 1 << 20); };
        if (name == "parallelism_config_dp_shard_size") {
            size();
        } else if (name == "parallelism_config_dp_replicate_size" || name == "parallelism_config_tp_size"
                   || name == "parallelism_config_cp_size" || name == "parallelism_config_sp_size") {
            const int n = size();
            if (n > 1) {
                const std::string what = name == "parallelism_config_dp_replicate_size"
                    ? "replicated FSDP groups (HSDP)"
                    : name == "parallelism_config_tp_size" ? "tensor parallelism"
                    : name == "parallelism_config_cp_size" ? "context parallelism"
                                                           : "sequence parallelism";
                throw SpecError(key,
                                std::to_string(n) + ": " + what
                                    + " is not planned; Shardwise plans data-parallel sharding only (every size "
                                      "but parallelism_config_dp_shard_size must be 1)");
            }
        } else if (name.rfind("parallelism_config_cp_", 0) == 0 || name.rfind("parallelism_config_sp_", 0) == 0) {
            // the context / sequence parallel backend and its options: no effect at size 1
        } else {
            warn(s, key, "not a parallelism_config key Shardwise knows; ignored");
        }
    }
}

Fsdp readFsdp(const YAML::Node& m, ImportedSettings& s)
{
    Fsdp f;
    requireMap(m, "fsdp_config");
    for (const auto& kv : m) {
        const std::string name = kv.first.as<std::string>();
        const std::string key = join("fsdp_config", name);
        const YAML::Node& v = kv.second;
        if (name == "fsdp_version") {
            f.versionStated = true;
            if (integer(v, key, 1, 2) == 1)
                throw SpecError(key,
                                "1 (FSDP1) is not planned: Shardwise plans FSDP2; convert the file with "
                                "`accelerate to-fsdp2`");
        } else if (name == "fsdp_reshard_after_forward") {
            f.reshard = boolean(v, key);
        } else if (name == "fsdp_offload_params") {
            f.offload = boolean(v, key);
        } else if (name == "fsdp_activation_checkpointing") {
            s.activationCheckpointing = boolean(v, key);
        } else if (name == "fsdp_sharding_strategy") {
            warn(s, key, "an FSDP1 key; under fsdp_version 2 fsdp_reshard_after_forward decides");
        } else if (!kFsdpIgnored.count(name)) {
            warn(s, key, "not an FSDP key Shardwise knows; ignored");
        }
        if (name == "fsdp_auto_wrap_policy" && scalar(v, key) != "TRANSFORMER_BASED_WRAP")
            warn(s, key, "the plan shards per decoder layer (TRANSFORMER_BASED_WRAP); other wrapping is not modelled");
    }
    if (!f.versionStated)
        throw SpecError("fsdp_config.fsdp_version", kFsdp1Default);
    return f;
}

} // namespace

namespace {

// The ds_config.json an Accelerate YAML names (deepspeed_config_file): its settings fill what the YAML
// leaves unsaid, its warnings are named by the file and key. Accelerate takes the ZeRO settings from
// that file alone when it is given (docs/source/usage_guides/deepspeed.md).
void mergeDeepSpeedFile(const std::string& file, const std::string& directory, ImportedSettings& s)
{
    namespace fs = std::filesystem;
    const std::string key = "deepspeed_config.deepspeed_config_file";
    fs::path path(file);
    if (path.is_relative() && !directory.empty())
        path = fs::path(directory) / path;
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        warn(s, key,
             "'" + clipForMessage(file)
                 + "' could not be read: its ZeRO settings are not part of the plan; open it "
                   "as well");
        return;
    }
    ImportedSettings ds;
    try {
        // The same caps as the file named on the command line (size, special files, nesting).
        const std::string text = readConfigFile(path.string());
        ds = importConfig(text, path.string());
    } catch (const SpecError& e) {
        // what() is "field: message"; keep the message under the file's name.
        std::string message = e.what();
        if (message.rfind(e.field() + ": ", 0) == 0)
            message.erase(0, e.field().size() + 2);
        throw SpecError(clipForMessage(file) + ": " + e.field(), message);
    }
    if (ds.format != ConfigFormat::DsConfig)
        throw SpecError(key, "'" + clipForMessage(file) + "' is not a ds_config.json");
    s.strategy = ds.strategy;
    auto fill = [](auto& mine, const auto& theirs) {
        if (!mine)
            mine = theirs;
    };
    fill(s.precision, ds.precision);
    fill(s.microBatch, ds.microBatch);
    fill(s.gradAccumulation, ds.gradAccumulation);
    fill(s.trainBatchSize, ds.trainBatchSize);
    fill(s.seqLen, ds.seqLen);
    fill(s.activationCheckpointing, ds.activationCheckpointing);
    fill(s.checkpointPolicy, ds.checkpointPolicy);
    s.reduceBucketElements = ds.reduceBucketElements;
    s.allgatherBucketElements = ds.allgatherBucketElements;
    s.prefetchBucketElements = ds.prefetchBucketElements;
    s.persistenceThreshold = ds.persistenceThreshold;
    s.maxLiveParameters = ds.maxLiveParameters;
    s.maxReuseDistance = ds.maxReuseDistance;
    s.overlapComm = ds.overlapComm;
    for (const std::string& k : ds.autoKeys)
        s.autoKeys.push_back(file + ": " + k);
    for (const ConfigWarning& w : ds.warnings)
        warn(s, file + ": " + w.key, w.message);
}

} // namespace

ImportedSettings importAccelerate(std::string_view text, const std::string& directory)
{
    YAML::Node root;
    try {
        const std::vector<YAML::Node> documents = YAML::LoadAll(std::string(text));
        if (documents.size() > 1)
            throw SpecError("file",
                            "holds " + std::to_string(documents.size())
                                + " YAML documents; an Accelerate config is one (ClusterConfig.from_yaml_file "
                                  "reads one)");
        if (!documents.empty())
            root = documents.front();
    } catch (const YAML::Exception& e) {
        throw SpecError("file", "not valid YAML: " + clipForMessage(e.what(), 200));
    }
    std::size_t values = 0;
    refuseDuplicateKeys(root, "", 0, values);
    if (!root.IsMap())
        throw SpecError("file", "not an Accelerate config: expected a mapping of keys");
    ImportedSettings s;
    s.format = ConfigFormat::Accelerate;
    s.framework = Framework::Fsdp2;
    std::string type;
    Fsdp fsdp;
    bool fsdpSeen = false;
    std::string mixedPrecision; // the mixed_precision key's value, if stated
    int zeroStage = -1;
    std::string optimizerDevice = "none";
    std::string paramDevice = "none";
    std::string deepspeedFile;
    for (const auto& kv : root) {
        const std::string name = kv.first.as<std::string>();
        const YAML::Node& v = kv.second;
        if (name == "distributed_type") {
            type = scalar(v, name);
            if (type != "FSDP" && type != "DEEPSPEED" && type != "MULTI_GPU" && type != "NO")
                throw SpecError(name,
                                "'" + clipForMessage(type)
                                    + "' is not planned: Shardwise plans FSDP, DEEPSPEED, MULTI_GPU (DDP) and NO");
        } else if (name == "mixed_precision") {
            const std::string p = scalar(v, name);
            mixedPrecision = p;
            if (p == "bf16")
                s.precision = PrecisionPolicy::Bf16Fp32Master;
            else if (p == "fp16") {
                s.precision = PrecisionPolicy::Bf16Fp32Master;
                warn(s, name, "fp16 planned as bf16 with fp32 master weights (the same bytes per parameter)");
            } else if (p != "no")
                throw SpecError(name, "'" + clipForMessage(p) + "' is not planned: expected bf16, fp16 or no");
        } else if (name == "num_machines") {
            if (isAuto(v))
                s.autoKeys.push_back(name);
            else
                s.nodes = integer(v, name, 1, 4096);
        } else if (name == "num_processes") {
            if (isAuto(v))
                s.autoKeys.push_back(name);
            else if (const int n = integer(v, name, -1, 1 << 20); n > 0)
                s.worldSize = n;
            else if (n == 0)
                throw SpecError(name, "must be at least 1 (or -1: not stated), got 0");
        } else if (name == "use_cpu") {
            if (boolean(v, name))
                throw SpecError(name, "true: Shardwise plans training on GPUs");
        } else if (name == "fsdp_config") {
            fsdpSeen = true;
            fsdp = readFsdp(v, s);
        } else if (name == "deepspeed_config") {
            requireMap(v, name);
            for (const auto& dkv : v) {
                const std::string sub = dkv.first.as<std::string>();
                const std::string key = join(name, sub);
                const YAML::Node& dv = dkv.second;
                if (sub == "zero_stage")
                    zeroStage = integer(dv, key, 0, 3);
                else if (sub == "offload_optimizer_device")
                    optimizerDevice = scalar(dv, key);
                else if (sub == "offload_param_device")
                    paramDevice = scalar(dv, key);
                else if (sub == "gradient_accumulation_steps") {
                    if (isAuto(dv))
                        s.autoKeys.push_back(key);
                    else
                        s.gradAccumulation = integer(dv, key, 1, 65536);
                } else if (sub == "deepspeed_config_file")
                    deepspeedFile = scalar(dv, key);
                else if (!kDeepSpeedIgnored.count(sub))
                    warn(s, key, "not a deepspeed_config key Shardwise knows; ignored");
            }
        } else if (name == "dynamo_config") {
            requireMap(v, name);
            for (const auto& dkv : v) {
                const std::string sub = dkv.first.as<std::string>();
                const std::string key = join(name, sub);
                if (sub == "dynamo_backend")
                    s.compiled = scalar(dkv.second, key) != "NO";
                else if (!kDynamoIgnored.count(sub))
                    warn(s, key, "not a dynamo_config key Shardwise knows; ignored");
            }
        } else if (name == "parallelism_config") {
            readParallelism(v, s);
        } else if (name == "megatron_lm_config" || name == "tp_config") {
            if (v.IsMap() && v.size() > 0)
                warn(s, name, "tensor or pipeline parallelism is not planned; ignored");
        } else if (!kTopIgnored.count(name)) {
            warn(s, name, "not an Accelerate key Shardwise knows; ignored");
        }
    }
    if (type.empty())
        throw SpecError("distributed_type", "missing: Accelerate requires it (FSDP, DEEPSPEED, MULTI_GPU or NO)");
    if (type == "FSDP") {
        const bool reshard = fsdp.reshard.value_or(true);
        const bool offload = fsdp.offload.value_or(false);
        if (offload && !reshard)
            throw SpecError(
                "fsdp_config.fsdp_offload_params",
                "offload without resharding is none of the nine strategies (fsdp2_reshard_offload reshards)");
        s.strategy = offload ? Strategy::Fsdp2ReshardOffload
            : reshard        ? Strategy::Fsdp2Reshard
                             : Strategy::Fsdp2NoReshard;
        if (!fsdpSeen)
            throw SpecError("fsdp_config.fsdp_version", kFsdp1Default);
    } else if (type == "DEEPSPEED") {
        s.framework = Framework::DeepSpeed;
        if (!deepspeedFile.empty())
            mergeDeepSpeedFile(deepspeedFile, directory, s);
        else if (zeroStage < 0)
            throw SpecError("deepspeed_config.zero_stage", "missing: the ZeRO stage decides the strategy");
        else
            s.strategy
                = strategyForZero(zeroStage, optimizerDevice, paramDevice, "deepspeed_config.offload_optimizer_device",
                                  "deepspeed_config.offload_param_device", s);
    } else {
        s.strategy = Strategy::Zero0;
        if (type == "NO")
            s.worldSize = 1;
    }
    if (s.activationCheckpointing)
        s.checkpointPolicy = CheckpointPolicy::Full;
    // A Shardwise export's record: the micro-batch, accumulation, sequence, pure bf16 and selective
    // checkpointing, which no Accelerate key states.
    fillFromRecord(text, s);
    // mixed_precision 'no': Accelerate adds no mixed precision, so the model trains in the dtype it is loaded
    // in. A record's pure bf16 says that is bf16 (how Shardwise writes pure bf16 outside DeepSpeed); otherwise
    // the file does not say, and fp32 training is not planned.
    if (mixedPrecision == "no" && (type == "DEEPSPEED" || !s.precision)) {
        warn(s, "mixed_precision",
             "'no': the model trains in the dtype it is loaded in; fp32 training is not planned, the plan's "
             "precision is kept");
    } else if (type == "FSDP" && (mixedPrecision == "bf16" || mixedPrecision == "fp16")
               && s.precision == PrecisionPolicy::PureBf16) {
        // fsdp2_prepare_model (src/accelerate/utils/fsdp_utils.py lines 804-810 at main 16cb6eb) upcasts every
        // trainable parameter to fp32 unless mixed_precision is 'no'.
        warn(s, "mixed_precision",
             mixedPrecision
                 + ": Accelerate's FSDP2 upcasts the parameters to fp32 unless mixed_precision is 'no', so pure bf16 "
                   "(the record) runs with an fp32 master; planned so");
        s.precision = PrecisionPolicy::Bf16Fp32Master;
    }
    return s;
}

} // namespace shardwise::frameworks::detail
