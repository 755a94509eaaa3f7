#pragma once
// Published results as data: bench/published/*.json, one file per source (a paper, a documentation
// page, an issue thread), each cell a published setup with its figures as published and the citation
// they come from (bench/published/README.md has the schema). This library reads the files, builds the
// planner's input for each cell that Shardwise can express, and predicts it; published_import.hpp
// stores the cells as runs. Qt-free; no SQL here.

#include "shardwise/estimate/estimate.hpp"
#include "shardwise/spec/presets.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardwise::published {

// A file that does not follow the schema. what() starts with the file and the JSON path:
// "torchtitan.json: cells[3].published.memory.unit: expected GiB or GB, got 'MB'".
class PublishedError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The marker a setup field carries when the source does not give it.
inline constexpr const char* kNotStated = "not stated";

enum class CellKind {
    Training,    // a training run: throughput and/or memory per GPU, or an OOM / fit statement
    ModelStates, // analytical model-state memory per device (ZeRO paper, DeepSpeed's estimator)
    Statement,   // a finding without figures
};
std::string_view cellKindId(CellKind k); // "training" | "model_states" | "statement"

struct Citation {
    std::string title;
    std::string authors;
    std::string url;
    std::string date;     // or "not stated ..."
    std::string version;  // commit, release, arXiv version
    std::string location; // the table / section / comment
};

// A memory figure as published. `unit` is what the bytes are counted in (GiB = 2^30, GB = 10^9);
// `kind` what was measured: "reserved", "allocated", "active", "nvidia-smi", "model states" or
// "not stated".
struct MemoryFigure {
    double value = 0;
    std::string unit;
    std::string printedUnit; // what the source printed, when it differs from the unit counted in
    std::string kind;
    bool kindStated = true; // false: the kind is inferred (kindNote says from what)
    std::string kindNote;
    double bytes() const;
};

struct PublishedFigures {
    std::optional<double> tokensPerSPerGpu;
    std::optional<double> stepTimeS;
    std::optional<double> mfu;                     // 0..1
    std::optional<double> hfu;                     // 0..1, hardware FLOPs (recomputation counted), where published
    std::optional<MemoryFigure> memory;            // training: per GPU
    std::optional<MemoryFigure> deviceMemory;      // model states per device
    std::optional<MemoryFigure> hostMemoryPerNode; // model states per node (host RAM)
    std::string outcome;                           // "completed" | "oom" | "" (statements)
    std::string statement;
};

struct Cell {
    std::string id;
    std::string location;
    CellKind kind = CellKind::Training;
    nlohmann::json setup = nlohmann::json::object();       // the source's defaults, overridden by the cell
    nlohmann::json assumptions = nlohmann::json::object(); // field -> {"value", "reason"}: fills "not stated"
    PublishedFigures published;
    bool predictable = true;
    std::string notPredictableReason;
    std::string predictionNote;
    // Figures of a cell the source does not let anyone predict: "throughput", "memory" or "verdict" ->
    // why (e.g. the setup behind them is in an attachment nobody can read, and the thread's own
    // figures contradict the assumptions). The cell is still predicted and listed; those errors are
    // not computed, and neither counted nor fitted on.
    std::map<std::string, std::string> unknowable;
};

struct Source {
    std::filesystem::path file;
    std::string id;
    Citation citation;
    std::string summary;
    std::vector<std::string> notes;
    std::vector<Cell> cells;
};

// Where the shipped sources lie: <prefix>/share/shardwise/published for an installed program (beside
// its bin/), else bench/published of the source tree this library was built from.
std::filesystem::path defaultDirectory();
// Throws PublishedError naming the file and field.
Source loadSource(const std::filesystem::path& file);
// Every *.json directly under `dir`, by file name. Throws PublishedError (also for duplicate ids).
std::vector<Source> loadDirectory(const std::filesystem::path& dir);

// A setup field as the prediction uses it: the setup's value unless it is absent or "not stated",
// else the assumption's value. `assumed` says which.
struct ResolvedField {
    nlohmann::json value; // null: neither the source nor an assumption gives it
    bool assumed = false;
};
ResolvedField resolve(const Cell& cell, const std::string& field);

// What a predictable cell becomes in the planner's terms.
struct CellInput {
    bool ok = false;
    std::string reason;  // why not, when !ok
    EstimateInput input; // training cells
    Strategy strategy = Strategy::Zero0;
    double params = 0; // model-state cells: parameter count
    int world = 1;
    double largestLayerParams = 0;    // model-state cells: DeepSpeed ZeRO-3's largest layer (0: not stated)
    std::vector<std::string> assumed; // fields filled from assumptions, in the order the builder read them
};
// Training: model and GPU preset, cluster (GPUs per node, nodes, intra-node link, inter-node GB/s per
// node per direction), training (precision, micro-batch, sequence, checkpointing, accumulation) and the
// framework target (id, version, torch.compile). Model states: parameter count, world, strategy,
// precision and framework target (largest_layer_params too for DeepSpeed's stage 3, whose estimator
// counts 4 bytes per parameter of the largest layer); predicted with frameworkModelStateBytes, the
// figure of the cell's own target. Never throws for a cell the schema admits: a cell it cannot build says why.
CellInput buildInput(const Cell& cell, const PresetCatalog& catalog);

// A prediction beside the published figures.
struct CellPrediction {
    bool ok = false;
    std::string reason;
    Estimate estimate;                    // training cells
    double predictedTokensPerSPerGpu = 0; // after the speed factor
    double predictedStepS = 0;
    double predictedMemoryBytes = 0; // comparable to the published memory's kind
    std::string predictedMemoryKind; // "allocated", "reserved", "device total", "model states"
    bool predictedFits = true;
    // The published throughput per GPU, or the one a published step time implies with the cell's
    // micro-batch, sequence and accumulation (throughputDerived).
    std::optional<double> publishedTokensPerSPerGpu;
    bool throughputDerived = false;
    std::optional<double> tokensError; // predicted / published - 1
    std::optional<double> memoryError;
    std::optional<bool> verdictWrong; // published completed/oom against the predicted fit
};
// `speedFactor` multiplies the predicted throughput (a per-framework correction fitted elsewhere).
CellPrediction predict(const Cell& cell, const CellInput& input, const Calibration& calibration = {},
                       double speedFactor = 1.0);

} // namespace shardwise::published
