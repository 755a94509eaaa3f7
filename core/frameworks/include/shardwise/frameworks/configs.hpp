#pragma once
// Configs for the framework a plan targets, out of a plan and into it (docs/framework-configs.md).
//
// OUT  std::string exportConfig(ConfigKind kind, const EstimateInput& in, Strategy s, const PlanIdentity& id)
//      The text a framework reads to train strategy `s` as the plan's input `in` describes it (model,
//      cluster, micro-batch, gradient accumulation, precision, activation checkpointing, DeepSpeed's
//      knobs, torch.compile). Every export names the plan it came from (`id`): a top-level "_shardwise"
//      object in ds_config.json (DeepSpeed reads only the top-level keys it knows; its sections reject
//      unknown keys, so the record stays at the top), comments in YAML, TOML, Python and shell.
//      Throws SpecError with field "strategy" when the export's framework cannot express `s` (zero2 has
//      no FSDP2 form, fsdp2_noreshard no DeepSpeed one); the message names the framework that can.
//        ds-config     DeepSpeed ds_config.json                     zero0..zero3, zero2_offload, zero3_offload
//        accelerate    Accelerate config YAML: FSDP (fsdp_version 2) for the FSDP2 strategies,
//                      MULTI_GPU (DDP) for zero0, DEEPSPEED for zero1..zero3 and the ZeRO offloads
//        torchtitan    torchtitan job-config TOML sections          zero0 (DDP) and the FSDP2 strategies
//        fsdp2-python  a fully_shard / DDP training script sketch   zero0 and the FSDP2 strategies
//        launch        torchrun, the DeepSpeed launcher (DeepSpeed target) or accelerate launch
//                      (fsdp2 target), and srun lines for the plan's framework target
//        sbatch        a Slurm batch script for the plan: nodes, GPUs, the rendezvous, NCCL settings
//                      left to the site, and one srun line (a task per rank for the native runner,
//                      which reads Slurm's variables; a torchrun per node for the frameworks)
//
// IN   ImportedSettings importConfig(std::string_view text, std::string_view fileName = "")
//      ImportedSettings importConfigFile(const std::string& path)
//      Reads a DeepSpeed ds_config.json, an Accelerate config YAML or a torchtitan job-config TOML (told
//      apart by the file name's extension, .json, .yaml / .yml or .toml, else by the text: a JSON object
//      is a ds_config, a first line that is a [section] header is TOML, anything else is YAML; the caps of
//      import_limits.hpp apply first) into the settings a plan takes: the framework, the
//      strategy (the candidate to pick), precision, micro-batch, gradient accumulation, world size and
//      nodes where stated, activation checkpointing, torch.compile and DeepSpeed's knobs. "auto" (the
//      Hugging Face Trainer's placeholder) leaves the plan's own value and is listed in autoKeys. A key
//      it does not know is returned in `warnings`, naming the key; a value of the wrong type or out of
//      range throws SpecError whose field() is the key's path ("zero_optimization.stage",
//      "parallelism.tensor_parallel_degree"). The Accelerate and TOML exports carry a "# shardwise:"
//      comment with what their keys cannot say (micro-batch, accumulation, sequence, pure bf16), which
//      the import reads back.
//      void applyImported(const ImportedSettings&, EstimateInput&) puts the stated settings into a plan's
//      input (SpecError "train_batch_size" when the stated global batch does not divide).
//
// Round trip: importConfig(exportConfig(k, in', s, id)) states the same settings as the import that
// built in' (tests/core/test_framework_configs.cpp).

#include "shardwise/estimate/estimate.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise::frameworks {

enum class ConfigKind { DsConfig, Accelerate, Torchtitan, Fsdp2Python, Launch, Sbatch };
inline constexpr std::size_t kConfigKindCount = 6;

const std::array<ConfigKind, kConfigKindCount>& allConfigKinds();
std::string_view configKindId(ConfigKind k); // "ds-config" | "accelerate" | "torchtitan" | ...
std::optional<ConfigKind> configKindFromId(std::string_view id);
std::string configKindIdList();                    // "ds-config, accelerate, torchtitan, fsdp2-python, launch, sbatch"
std::string_view configKindFileName(ConfigKind k); // "ds_config.json", "accelerate.yaml", "shardwise.toml", ...

// Which plan an export came from.
struct PlanIdentity {
    std::string modelId;
    std::string gpuId;
    int world = 1;
    std::string description; // one line: "Shardwise plan: qwen2.5-3b on 8 x h200 (1 node x 8), zero3, ..."
};
PlanIdentity planIdentity(const EstimateInput& in, Strategy s);

// Whether `kind` can express `s` (for launch: whether the input's framework can). When not, the
// reason names the framework to use ("zero2 is a DeepSpeed ZeRO stage: export ds-config, or plan
// with --framework deepspeed").
bool exportSupports(ConfigKind kind, const EstimateInput& in, Strategy s);
std::string unsupportedReason(ConfigKind kind, const EstimateInput& in, Strategy s);
// Why a framework target cannot run a strategy, or empty when it can (frameworkSupports).
std::string frameworkUnsupportedReason(Framework f, Strategy s);

std::string exportConfig(ConfigKind kind, const EstimateInput& in, Strategy s, const PlanIdentity& id);

// The framework an export is read by: ds-config DeepSpeed, torchtitan torchtitan, fsdp2-python FSDP2,
// accelerate DeepSpeed for the ZeRO stages 1-3 and FSDP2 otherwise, launch the plan's target. When it
// is not the plan's target, the plan's figures (and its framework defaults) describe another framework.
Framework configFramework(ConfigKind kind, const EstimateInput& in, Strategy s);

// Hugging Face transformers' decoder layer class of a model family (qwen2 -> Qwen2DecoderLayer).
std::string decoderLayerClass(const ModelSpec& m);

enum class ConfigFormat { DsConfig, Accelerate, Torchtitan };

struct ConfigWarning {
    std::string key; // the key's path in the file, e.g. "zero_optimization.sub_group_size"
    std::string message;
    bool operator==(const ConfigWarning&) const = default;
};

// The settings a config states; nullopt where it states nothing (or "auto").
struct ImportedSettings {
    ConfigFormat format = ConfigFormat::DsConfig;
    Framework framework = Framework::DeepSpeed;
    std::optional<Strategy> strategy;
    std::optional<PrecisionPolicy> precision;
    std::optional<int> microBatch;
    std::optional<int> gradAccumulation;
    std::optional<std::int64_t> trainBatchSize; // DeepSpeed's train_batch_size (micro x accumulation x world)
    std::optional<int> worldSize;
    std::optional<int> nodes;
    std::optional<int> seqLen; // from the "_shardwise" record only
    std::optional<bool> activationCheckpointing;
    std::optional<CheckpointPolicy> checkpointPolicy;
    std::optional<bool> compiled;
    std::optional<std::int64_t> reduceBucketElements;
    std::optional<std::int64_t> allgatherBucketElements;
    std::optional<std::int64_t> prefetchBucketElements;
    std::optional<std::int64_t> persistenceThreshold;
    std::optional<std::int64_t> maxLiveParameters;
    std::optional<std::int64_t> maxReuseDistance;
    std::optional<bool> overlapComm;
    std::vector<std::string> autoKeys;   // keys given as "auto"
    std::vector<ConfigWarning> warnings; // keys not understood, values read with a caveat

    // The settings alone (not the warnings or the "auto" list): what a round trip keeps.
    bool sameSettings(const ImportedSettings& o) const;
};

ImportedSettings importConfig(std::string_view text, std::string_view fileName = "");
ImportedSettings importConfigFile(const std::string& path); // SpecError field "file" when unreadable
void applyImported(const ImportedSettings& s, EstimateInput& in);
std::string_view configFormatId(ConfigFormat f); // "ds-config" | "accelerate" | "torchtitan"

} // namespace shardwise::frameworks
