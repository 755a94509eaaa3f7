#pragma once
// Model and GPU presets, kept as data files in resources/presets/{models,gpus}/*.json.

#include "shardwise/spec/specs.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace shardwise {

// Where presets are read from, first match wins: $SHARDWISE_PRESETS; <exe>/../share/shardwise/presets
// (installed layout); the source tree's resources/presets (build tree).
std::filesystem::path presetDirectory();

class PresetCatalog {
public:
    // Loads every preset below `dir`; a malformed file throws SpecError naming the file and field.
    static PresetCatalog load(const std::filesystem::path& dir);
    static const PresetCatalog& builtin(); // load(presetDirectory()), once

    const std::vector<ModelSpec>& models() const { return m_models; }
    const std::vector<GpuSpec>& gpus() const { return m_gpus; }
    const ModelSpec* findModel(std::string_view id) const; // case-insensitive id match
    const GpuSpec* findGpu(std::string_view id) const;

private:
    std::vector<ModelSpec> m_models;
    std::vector<GpuSpec> m_gpus;
};

// A preset id, or a path to either a Shardwise model JSON or a Hugging Face config.json.
// Throws SpecError(field) with the list of known presets when nothing matches.
ModelSpec resolveModel(const std::string& presetOrPath, const std::string& field = "model");
GpuSpec resolveGpu(const std::string& preset, const std::string& field = "gpu");

} // namespace shardwise
