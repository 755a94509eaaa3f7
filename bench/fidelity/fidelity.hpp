#pragma once
// bench/fidelity: the accuracy benchmark's two halves around one GPU call. `matrix` says which cells
// to measure (the planner's verdict per cell, and which predicted OOMs to run anyway as proof);
// `analyze` reads the runner's events back, fits calibration on all models but one, predicts the
// held-out one, and writes the report.

#include "shardwise/calibrate/observation.hpp"
#include "shardwise/protocol/events.hpp"
#include "shardwise/spec/presets.hpp"

#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace fidelity {

struct MatrixOptions {
    std::vector<std::string> models; // preset ids or model JSON paths
    std::vector<int> seqs;
    std::string gpu = "h200";
    // RAM of the measuring machine in GiB: whether an offload cell's page-locked host state fits is
    // part of its verdict (the planner's default node has 512).
    double hostRamGiB = shardwise::ClusterSpec {}.hostRamGiB;
    int warmup = 2;
    int steps = 4;
    int offloadWarmup = 1; // offload steps are CPU-optimizer bound and take seconds each
    int offloadSteps = 2;
    int oomProofs = 3; // predicted OOMs run anyway, the ones closest to fitting
    // Short steps get more of them: at least this many seconds of timed steps (predicted), at most
    // maxShortSteps steps and 5 warm-up. Small models at short sequences are bound by the CPU issuing
    // kernels and their 4 timed steps spread by up to 35 % (bench/results/fidelity-3ee897c.md).
    double minTimedSeconds = 1.0;
    int maxShortSteps = 20;
    // Sequences measured first (tier 1 and 2); the others follow in tier 4.
    std::vector<int> firstSeqs { 1024, 8192 };
};

struct Cell {
    std::string model; // as the runner takes it
    shardwise::Strategy strategy = shardwise::Strategy::Zero0;
    int seq = 0;
    bool predictedFits = false;
    bool predictedFitsHost = true; // false: the machine's RAM cannot hold its host state (offload)
    bool run = false;
    int warmup = 0;
    int steps = 0;
    double predictedPeakGiB = 0;
    double estimatedSeconds = 0; // start-up + steps at the predicted step time, for the time budget
    int tier = 0;                // run order: lower first, so a cut budget loses the least useful cells
};

shardwise::ModelSpec loadModel(const shardwise::PresetCatalog& catalog, const std::string& idOrPath);
std::vector<Cell> planMatrix(const shardwise::PresetCatalog& catalog, const MatrixOptions& options);
// Report formatting shared by the world-1 and the multi-GPU sections (report.cpp): a signed error as
// "+1.2 %" ("-" when absent), a number in a printf format, a prediction's comparison as JSON.
std::string formatError(const std::optional<double>& error);
std::string formatNumber(double x, const char* format);
nlohmann::json comparisonJson(const shardwise::calibrate::Comparison& c);

// Tab-separated, one cell a line in run order, with a '#' header; what bench/fidelity/run.sh reads.
void writeMatrix(std::ostream& out, const std::vector<Cell>& cells);
std::vector<Cell> readMatrix(const std::filesystem::path& file);

// The hardware probe (`shardwise-runner --probe`) run.sh takes on the batch's device before its cells:
// DIR/probe.jsonl. Rank 0's figures; the analyzer starts every fold from them (report.cpp).
struct BatchProbe {
    std::filesystem::path file;
    std::string deviceName;
    std::vector<shardwise::protocol::ProbeResult> results;
};
// DIR/probe.jsonl's rank-0 probe event; nullopt when the batch has no such file. Throws
// std::runtime_error naming the file and line when it holds a malformed event or no probe event.
std::optional<BatchProbe> readBatchProbe(const std::filesystem::path& dir);

// One call's results folder. A memory-only batch was measured with a different runner binary than
// the timed batches (one that allocates the same memory but runs at another speed): its cells count
// for peak allocated memory and the fit verdict, never for tokens/s.
struct Batch {
    std::filesystem::path dir;
    bool memoryOnly = false;
    std::string runnerCommits; // the commits device.txt names, comma-separated; empty when it names none
    std::optional<BatchProbe> probe;
    std::string runnerSha256; // "runner sha256 <hex>" of device.txt: the binary that ran; empty: not recorded
    // `--rehearsal-results`: rehearsed ranks of world N only (bench/rehearsal/run.py), memory and
    // verdicts only, predicted on ReportOptions::rehearsalGpuId.
    bool rehearsals = false;
};
// The 40-hex-digit commits that DIR/device.txt names (what bench/fidelity/run.sh and bench/gpu.sh
// record), in order of first appearance; empty when there is no device.txt.
std::string runnerCommits(const std::filesystem::path& dir);
// The SHA-256 of the runner binary that DIR/device.txt records (run.sh writes "runner sha256 <64 hex>"):
// two batches with the same digest ran the same binary, whatever their checkouts' commits say. Empty
// when device.txt has no such line.
std::string runnerSha256(const std::filesystem::path& dir);

// One runner output file (JSON Lines) per world-1 cell; a run of W > 1 ranks writes one file per
// rank, named alike but for the rank number at the end of the name (bench/gpu.sh scale:
// runner_<model>_<strategy>_<precision>_w<W>_r<R>.jsonl), and those files make one cell. Files
// without a start event (probes) are skipped with a warning on stderr.
struct MeasuredCell {
    std::filesystem::path file; // world > 1: rank 0's file
    shardwise::calibrate::Observation observation;
    std::string modelId;
    int seq = 0;
    bool completed = false;         // a summary event arrived
    std::string error;              // the first error event's kind and message, if any
    std::size_t batch = 0;          // index into ReportOptions::batches
    std::vector<double> timedStepS; // the timed steps' times, in order: how much the cell itself varies
    int world = 1;                  // ranks the run had (the start event's world size)
    // The world whose rank 0 it rehearsed on one GPU (--rehearse-world, bench/rehearsal/run.py), else
    // 0: a memory result only, predicted as one rank of that world (observation.rehearsedWorld).
    int rehearsedWorld = 0;
    int ranksRead = 1; // rank files found for it; fewer than world: the run is incomplete
    // Tokens/s of every measurement of this cell when timed batches measured it more than once
    // (mergeRepeats); the cell then carries their median. Empty: measured once.
    std::vector<double> repeatTokensPerS;
};
std::vector<MeasuredCell> readResults(const std::filesystem::path& dir, const shardwise::GpuSpec& gpu);
// A cell (model, strategy, sequence, world) that several timed batches completed counts once: its
// tokens/s is the median of theirs (a CPU-bound cell varies from one run to the next far more than a
// prediction can follow), its peaks the median of theirs, its timed steps all of theirs, in order.
// `timed[b]` says whether batch b is timed; memory-only and incomplete cells are left as they are.
std::vector<MeasuredCell> mergeRepeats(std::vector<MeasuredCell> cells, const std::vector<bool>& timed);

struct ReportOptions {
    std::filesystem::path markdown;
    std::filesystem::path json;
    std::string command; // how the measurements were taken, quoted in the report
    // Where the presets' coefficients were fitted, when not on these runs (their figures are then out of
    // sample); empty: fitted on these runs.
    std::string presetsFittedOn;
    std::string gpuId;
    shardwise::GpuSpec gpu; // the preset gpuId names: probe figures are read against its data sheet
    // The preset the rehearsed cells (`--rehearsal-results`) are predicted on when they were measured on
    // another card than the world-1 batches; empty: gpuId.
    std::string rehearsalGpuId;
    double hostRamGiB = shardwise::ClusterSpec {}.hostRamGiB; // the measuring machine's, in every cell's input
    std::vector<Batch> batches;                               // MeasuredCell::batch indexes these
    // `analyze --probe DIR`: a call of its own that only probed the device (DIR/probe.jsonl and
    // DIR/device.txt). Its probe, not the first timed batch's, starts every fold.
    std::optional<Batch> probeCall;
};
// Returns the process exit code: 0 when every held-out cell could be predicted.
// Cells of W > 1 ranks (multi-GPU, one node) stay out of leave-one-model-out and every fit: they are
// compared with the presets and with `worldOneFit` (the calibration fitted on all world-1 cells).
int writeReport(const std::vector<MeasuredCell>& cells, const std::vector<Cell>& matrix, const ReportOptions& options);

// The report's section and JSON key (`multi_gpu_cells`) for the cells of W > 1 ranks.
void writeMultiGpuSection(std::ostream& markdown, nlohmann::json& report, const std::vector<const MeasuredCell*>& cells,
                          const shardwise::Calibration& worldOneFit, const ReportOptions& options);

// The report's section and JSON key (`rehearsed_cells`) for rehearsed ranks of world N: each cell's
// peak predicted with the presets and with the fold that left its model out, against the measured
// allocated and reserved peaks. The goal: the plan's peak less the CUDA context within -5 % .. +7 % of
// the reserved bytes.
struct RehearsalPrediction {
    const MeasuredCell* cell;
    shardwise::Calibration heldOutFit; // fitted without the cell's model
};
void writeRehearsalSection(std::ostream& markdown, nlohmann::json& report,
                           const std::vector<RehearsalPrediction>& cells, const ReportOptions& options);

} // namespace fidelity
