// shardwise-cli presets: the model and GPU presets the other commands accept by id.
#include "command.hpp"
#include "options.hpp"
#include "text_columns.hpp"

#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <ostream>

namespace shardwise::cli {

namespace {

std::string cell(const char* fmt, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, x);
    return buf;
}

std::string parameters(std::int64_t n)
{
    const double x = static_cast<double>(n);
    return x >= 1e9 ? cell("%.2f B", x / 1e9) : x >= 1e6 ? cell("%.1f M", x / 1e6) : cell("%.0f", x);
}

CommandSpec presetsSpec()
{
    return { "presets",
             "list the model and GPU presets",
             "[--format table|json]",
             "Lists the model and GPU presets that --model and --gpu accept.",
             {},
             false,
             { { "--format", "F", "table or json (default table)", { "table", "json" } } } };
}

std::vector<CommandSpec> presetsSpecs()
{
    return { presetsSpec() };
}

int runPresets(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string format = "table";
    try {
        const ParsedArgs parsed = parseArgs(presetsSpec(), args);
        if (parsed.help) {
            out << usageText(presetsSpec());
            return kExitOk;
        }
        format = parsed.value("--format").value_or("table");
    } catch (const UsageError& e) {
        err << "shardwise-cli presets: " << e.what() << "\n";
        return kExitUsage;
    }
    const PresetCatalog& catalog = PresetCatalog::builtin();
    if (format == "json") {
        nlohmann::json j { { "models", nlohmann::json::array() }, { "gpus", nlohmann::json::array() } };
        for (const ModelSpec& m : catalog.models()) {
            nlohmann::json mj = toJson(m);
            mj["parameters"] = m.parameterCount();
            j["models"].push_back(std::move(mj));
        }
        for (const GpuSpec& g : catalog.gpus())
            j["gpus"].push_back(toJson(g));
        out << j.dump(2) << "\n";
        return kExitOk;
    }
    out << "Models\n"
        << pad("id", 16) << pad("name", 18) << pad("parameters", 14, true) << pad("layers", 8, true)
        << pad("hidden", 8, true) << pad("vocab", 9, true) << "\n";
    for (const ModelSpec& m : catalog.models())
        out << pad(m.id, 16) << pad(m.name, 18) << pad(parameters(m.parameterCount()), 14, true)
            << pad(std::to_string(m.layers), 8, true) << pad(std::to_string(m.hidden), 8, true)
            << pad(std::to_string(m.vocab), 9, true) << "\n";
    out << "\nGPUs\n"
        << pad("id", 12) << pad("name", 30) << pad("memory", 11, true) << pad("bf16 peak", 15, true)
        << pad("HBM", 11, true) << pad("NVLink", 11, true) << pad("PCIe", 10, true) << "\n";
    for (const GpuSpec& g : catalog.gpus())
        out << pad(g.id, 12) << pad(g.name, 30) << pad(cell("%.1f GiB", g.memoryGiB()), 11, true)
            << pad(cell("%.0f TFLOP/s", g.bf16Tflops), 15, true) << pad(cell("%.0f GB/s", g.hbmGBps), 11, true)
            << pad(g.nvlinkGBps > 0 ? cell("%.0f GB/s", g.nvlinkGBps) : std::string("none"), 11, true)
            << pad(cell("%.0f GB/s", g.pcieGBps), 10, true) << "\n";
    return kExitOk;
}

const CommandRegistration kRegistration { "presets", "list the model and GPU presets", runPresets, presetsSpecs };

} // namespace

} // namespace shardwise::cli
