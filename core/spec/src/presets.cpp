#include "shardwise/spec/presets.hpp"

#include "shardwise/spec/suggest.hpp"

#include "shardwise/spec/json.hpp"
#include "shardwise/spec/json_document.hpp"
#include "shardwise/spec/quote.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <system_error>

namespace shardwise {

namespace fs = std::filesystem;

namespace {

bool equalsIgnoreCase(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// The file's JSON, and the first key it gives twice in one object (json_document.hpp).
JsonDocument readJsonFile(const fs::path& file, const std::string& field)
{
    std::ifstream in(file);
    if (!in)
        throw SpecError(field, "cannot open " + file.string());
    try {
        return parseJsonDocument(in);
    } catch (const nlohmann::json::parse_error& e) {
        throw SpecError(field, file.string() + " is not valid JSON: " + e.what());
    }
}

// A file whose every key must be unique; a duplicate is named under `field`.
nlohmann::json readStrictJsonFile(const fs::path& file, const std::string& field)
{
    JsonDocument doc = readJsonFile(file, field);
    if (!doc.duplicateKey.empty())
        throwDuplicateKey(field, doc.duplicateKey, file.string());
    return std::move(doc.value);
}

std::vector<fs::path> jsonFilesIn(const fs::path& dir)
{
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.is_regular_file() && entry.path().extension() == ".json")
            files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

bool hasPresets(const fs::path& dir)
{
    std::error_code ec;
    return fs::is_directory(dir / "models", ec) && fs::is_directory(dir / "gpus", ec);
}

} // namespace

fs::path presetDirectory()
{
    if (const char* env = std::getenv("SHARDWISE_PRESETS"); env && *env)
        return fs::path(env);
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed = exe.parent_path().parent_path() / "share" / "shardwise" / "presets";
        if (hasPresets(installed))
            return installed;
    }
#ifdef SHARDWISE_SOURCE_PRESET_DIR
    return fs::path(SHARDWISE_SOURCE_PRESET_DIR);
#else
    return fs::path("resources/presets");
#endif
}

PresetCatalog PresetCatalog::load(const fs::path& dir)
{
    if (!hasPresets(dir))
        throw SpecError("presets",
                        "no preset directory at " + dir.string()
                            + " (expected models/ and gpus/; set SHARDWISE_PRESETS)");
    PresetCatalog c;
    for (const auto& f : jsonFilesIn(dir / "models")) {
        ModelSpec m = modelFromJson(readStrictJsonFile(f, f.filename().string()), f.filename().string());
        if (m.id.empty()) {
            m.id = f.stem().string();
            checkModelId(m.id, f.filename().string() + " (the file name as model id)");
        }
        c.m_models.push_back(std::move(m));
    }
    for (const auto& f : jsonFilesIn(dir / "gpus")) {
        GpuSpec g = gpuFromJson(readStrictJsonFile(f, f.filename().string()), f.filename().string());
        c.m_gpus.push_back(std::move(g));
    }
    // Sort models by size so lists read small to large.
    std::stable_sort(c.m_models.begin(), c.m_models.end(),
                     [](const ModelSpec& a, const ModelSpec& b) { return a.parameterCount() < b.parameterCount(); });
    return c;
}

const PresetCatalog& PresetCatalog::builtin()
{
    static const PresetCatalog catalog = load(presetDirectory());
    return catalog;
}

const ModelSpec* PresetCatalog::findModel(std::string_view id) const
{
    for (const auto& m : m_models)
        if (equalsIgnoreCase(m.id, id) || equalsIgnoreCase(m.name, id))
            return &m;
    return nullptr;
}

const GpuSpec* PresetCatalog::findGpu(std::string_view id) const
{
    for (const auto& g : m_gpus)
        if (equalsIgnoreCase(g.id, id))
            return &g;
    return nullptr;
}

ModelSpec resolveModel(const std::string& presetOrPath, const std::string& field)
{
    const auto& catalog = PresetCatalog::builtin();
    if (const ModelSpec* m = catalog.findModel(presetOrPath))
        return *m;
    std::error_code ec;
    const fs::path p(presetOrPath);
    if (fs::is_regular_file(p, ec)) {
        const JsonDocument doc = readJsonFile(p, field);
        const nlohmann::json& j = doc.value;
        // A Hugging Face config carries hidden_size; a Shardwise model file carries hidden.
        const bool huggingFace = j.is_object() && j.contains("hidden_size");
        if (!doc.duplicateKey.empty())
            throwDuplicateKey(huggingFace ? "config.json" : field, doc.duplicateKey, p.string());
        if (huggingFace)
            return modelFromHuggingFaceConfig(
                j, p.parent_path().filename().empty() ? p.stem().string() : p.parent_path().filename().string());
        ModelSpec m = modelFromJson(j, field);
        if (m.id.empty()) {
            m.id = p.stem().string();
            checkModelId(m.id, field + " (the file name as model id)");
        }
        return m;
    }
    std::string known;
    std::vector<std::string> ids;
    for (const auto& m : catalog.models()) {
        known += (known.empty() ? "" : ", ") + m.id;
        ids.push_back(m.id);
    }
    throw SpecError(field,
                    "'" + presetOrPath + "' is neither a model preset nor a readable file"
                        + didYouMean(presetOrPath, ids) + "; presets: " + known);
}

GpuSpec resolveGpu(const std::string& preset, const std::string& field)
{
    const auto& catalog = PresetCatalog::builtin();
    if (const GpuSpec* g = catalog.findGpu(preset))
        return *g;
    std::error_code ec;
    if (fs::is_regular_file(fs::path(preset), ec))
        return gpuFromJson(readStrictJsonFile(preset, field), field);
    std::string known;
    std::vector<std::string> ids;
    for (const auto& g : catalog.gpus()) {
        known += (known.empty() ? "" : ", ") + g.id;
        ids.push_back(g.id);
    }
    throw SpecError(field,
                    "unknown GPU '" + preset + "'" + didYouMean(preset, ids) + "; presets: " + known
                        + " (or a path to a GPU JSON file)");
}

} // namespace shardwise
