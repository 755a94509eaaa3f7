#pragma once
// JSON round trip for every spec type. Reading validates: a bad value throws SpecError naming the
// field (as a JSON path such as "training.seq_len") and the allowed range.

#include "shardwise/spec/specs.hpp"

#include <nlohmann/json_fwd.hpp>

#include <stdexcept>
#include <string>

namespace shardwise {

class SpecError : public std::runtime_error {
public:
    SpecError(std::string field, const std::string& message);
    const std::string& field() const { return m_field; }

private:
    std::string m_field;
};

nlohmann::json toJson(const ModelSpec& m);
nlohmann::json toJson(const GpuSpec& g);
nlohmann::json toJson(const ClusterSpec& c);
nlohmann::json toJson(const TrainingSpec& t);
nlohmann::json toJson(const TuningKnobs& k);
nlohmann::json toJson(const RunConfig& r);

// `path` prefixes field names in error messages ("" for a top-level document).
ModelSpec modelFromJson(const nlohmann::json& j, const std::string& path = "");
GpuSpec gpuFromJson(const nlohmann::json& j, const std::string& path = "");
ClusterSpec clusterFromJson(const nlohmann::json& j, const std::string& path = "");
TrainingSpec trainingFromJson(const nlohmann::json& j, const std::string& path = "");
TuningKnobs knobsFromJson(const nlohmann::json& j, const std::string& path = "");
RunConfig runConfigFromJson(const nlohmann::json& j, const std::string& path = "");

// A Hugging Face transformers config.json of a family the runner builds: model_type qwen2, llama or
// mistral. A mixture-of-experts or other family, a field that changes the decoder's maths and is not
// carried into the ModelSpec (sliding window shorter than the context, Llama's attention/mlp bias,
// yarn rope scaling, ...), a dimension outside its plausible range or more than kMaxModelParameters
// is SpecError("config.json.<key>"). docs/user-guide.md, "Model configs", lists every rule.
ModelSpec modelFromHuggingFaceConfig(const nlohmann::json& j, const std::string& id);

// Parsing of the small enums, with SpecError naming `field` and the allowed values.
Strategy parseStrategy(const std::string& value, const std::string& field);
PrecisionPolicy parsePrecision(const std::string& value, const std::string& field);
Interconnect parseInterconnect(const std::string& value, const std::string& field);
DeviceKind parseDevice(const std::string& value, const std::string& field);
CheckpointPolicy parseCheckpointPolicy(const std::string& value, const std::string& field);
RunBackend parseBackend(const std::string& value, const std::string& field);
Framework parseFramework(const std::string& value, const std::string& field);

// Checks ranges and cross-field constraints; throws SpecError.
void validate(const ModelSpec& m, const std::string& path = "model");
void validate(const GpuSpec& g, const std::string& path = "gpu");
void validate(const ClusterSpec& c, const std::string& path = "cluster");
void validate(const TrainingSpec& t, const std::string& path = "training");
void validate(const RunConfig& r, const std::string& path = "");

} // namespace shardwise
