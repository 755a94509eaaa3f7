#pragma once
// Helpers the exports and imports share (private to core/frameworks).

#include "shardwise/estimate/deepspeed_precision.hpp"
#include "shardwise/frameworks/configs.hpp"

#include <string>
#include <string_view>

namespace shardwise::frameworks::detail {

// The comment line an Accelerate YAML or torchtitan TOML export carries with what the format's keys
// cannot say ("# shardwise: micro_batch=2 grad_accumulation=4 seq_len=4096 precision=bf16 ..."); the
// imports read it back to fill what the keys leave unsaid.
inline constexpr std::string_view kRecordPrefix = "# shardwise:";
// Global batch in sequences: micro-batch x accumulation x world.
std::int64_t globalBatch(const EstimateInput& in);
// "true" / "false".
inline const char* boolText(bool b)
{
    return b ? "true" : "false";
}
// Every line of `text` prefixed with `prefix` ("# "), for the comment headers.
std::string commentLines(std::string_view prefix, const std::string& text);
// The header every text export starts with: the plan's description, the framework and version, and
// where the keys are documented.
std::string header(std::string_view prefix, const PlanIdentity& id, std::string_view kindLine);
// Throws SpecError("strategy", unsupportedReason(...)) when `kind` cannot express `s`.
void requireSupported(ConfigKind kind, const EstimateInput& in, Strategy s);
// The activation checkpointing the input asks for: "off" | "full" | "selective".
std::string_view checkpointingId(const TrainingSpec& t);
// The ZeRO stage a DeepSpeed strategy is (zero2_offload: 2, zero3_offload: 3).
int zeroStage(Strategy s);
// How DeepSpeed holds the master, gradient partition and moments of ZeRO strategy `s` for the plan's
// precision, in the DeepSpeed release the export describes: the plan's own when it targets DeepSpeed,
// DeepSpeed's default otherwise (shardwise/estimate/deepspeed_precision.hpp).
DeepSpeedMaster exportedDeepSpeedMaster(const EstimateInput& in, Strategy s);
// Whether the plan asks for pure bf16 where DeepSpeed keeps an fp32 master for `s`: such an export
// enables DeepSpeed's bf16 (the same bytes), records bf16-fp32-master and says why
// (deepSpeedFp32MasterNote).
bool pureBf16WrittenAsFp32Master(const EstimateInput& in, Strategy s);
std::string deepSpeedFp32MasterNote(const EstimateInput& in, Strategy s);
// The precision an export records for `s`: bf16-fp32-master where pureBf16WrittenAsFp32Master.
PrecisionPolicy exportedPrecision(const EstimateInput& in, Strategy s);

// Whether torchtitan release `release` ("0.2", "0.1.0") has [training] dtype (from 0.2.0).
bool torchtitanHasTrainingDtype(const std::string& release);

std::string exportDsConfig(const EstimateInput& in, Strategy s, const PlanIdentity& id);
std::string exportAccelerate(const EstimateInput& in, Strategy s, const PlanIdentity& id);
std::string exportTorchtitan(const EstimateInput& in, Strategy s, const PlanIdentity& id);
std::string exportFsdp2Python(const EstimateInput& in, Strategy s, const PlanIdentity& id);
std::string exportLaunch(const EstimateInput& in, Strategy s, const PlanIdentity& id);
std::string exportSbatch(const EstimateInput& in, Strategy s, const PlanIdentity& id);

} // namespace shardwise::frameworks::detail

#include <nlohmann/json_fwd.hpp>

namespace shardwise::frameworks::detail {

// A ds_config.json's text as DeepSpeed loads it (comments allowed); SpecError naming the key for a
// duplicate key or a number out of range, "file" for text that is not JSON (`name` names the file).
nlohmann::json parseDsConfigText(std::string_view text, const std::string& name);
ImportedSettings importDsConfig(const nlohmann::json& j);
// `directory`: where the YAML lives, so a deepspeed_config_file it names is read from beside it
// (empty: the current directory).
ImportedSettings importAccelerate(std::string_view text, const std::string& directory);
void warn(ImportedSettings& s, std::string key, std::string message);
// The settings of a "# shardwise:" record line in `text`, if there is one (fields: micro_batch,
// grad_accumulation, seq_len, precision, activation_checkpointing); a bad field is a SpecError naming
// "shardwise.<field>". Only fills what `s` does not state yet.
void fillFromRecord(std::string_view text, ImportedSettings& s);
// ImportedSettings for a torchtitan job-config TOML.
ImportedSettings importTorchtitan(std::string_view text);
// The strategy of the ZeRO stage and offload devices DeepSpeed states; SpecError naming `offloadKey`
// for a combination that is none of the nine.
Strategy strategyForZero(int stage, const std::string& optimizerDevice, const std::string& paramDevice,
                         const std::string& optimizerKey, const std::string& paramKey, ImportedSettings& s);

} // namespace shardwise::frameworks::detail
