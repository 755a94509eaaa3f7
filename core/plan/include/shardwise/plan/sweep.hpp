#pragma once
// What-if sweeps: the planner run once per point of a grid over sequence length, micro-batch, GPUs per
// node and nodes, everything else as in one input. Each point keeps what the plan at that point says:
// the recommended strategy, whether anything fits, and the planned peak and predicted tokens/s of the
// strategy its figures are for. The figures are the plan's own (MemoryBreakdown::peakBytes(), the
// peak every face shows; ThroughputEstimate::tokensPerS), so a point equals `plan` at that input.

#include "shardwise/plan/plan.hpp"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise {

enum class SweepAxis { SeqLen, MicroBatch, GpusPerNode, Nodes };

inline constexpr std::array<SweepAxis, 4> kSweepAxes { SweepAxis::SeqLen, SweepAxis::MicroBatch, SweepAxis::GpusPerNode,
                                                       SweepAxis::Nodes };

// "seq" | "micro-batch" | "gpus-per-node" | "nodes": the names of the CLI's flags without "--".
std::string_view sweepAxisId(SweepAxis a);
std::optional<SweepAxis> sweepAxisFromId(std::string_view id);
std::string sweepAxisIdList(); // "seq, micro-batch, gpus-per-node or nodes"
// The bounds validate(EstimateInput) puts on the axis's field: seq 1..1048576, micro-batch 1..4096,
// GPUs per node 1..64, nodes 1..4096.
int sweepAxisMin(SweepAxis a);
int sweepAxisMax(SweepAxis a);
// The axis's value in an input, and the input with it set.
int sweepAxisValue(const EstimateInput& in, SweepAxis a);
void setSweepAxisValue(EstimateInput& in, SweepAxis a, int value);

struct SweepAxisValues {
    SweepAxis axis = SweepAxis::SeqLen;
    std::vector<int> values; // in the order given
};

// The most points one sweep plans (the product of its axes' value counts).
inline constexpr std::size_t kMaxSweepPoints = 4096;

// "seq=1024,2048,4096" -> {SeqLen, {1024, 2048, 4096}}. Throws SpecError("sweep", ...) naming the text
// for a missing '=' or an unknown axis (with "did you mean"), and SpecError("sweep.<axis>", ...) naming
// the value for what parseSweepValues refuses.
SweepAxisValues parseSweepAxis(std::string_view text);
// "1024,2048" -> {1024, 2048}. Throws SpecError("sweep.<axis>", ...) naming the offending value: an empty
// list or an empty value, a value that is not a whole number, zero or a negative number, a value
// outside the axis's bounds, a value given twice.
std::vector<int> parseSweepValues(SweepAxis axis, std::string_view list);

struct SweepPoint {
    int seqLen = 0;
    int microBatch = 0;
    int gpusPerNode = 0;
    int nodes = 0;
    std::optional<Strategy> recommended; // the plan's recommendation; empty when nothing fits
    // The strategy the figures below are for: the recommendation, or where nothing fits the
    // strategy the framework supports with the lowest planned peak (the one that comes closest).
    Strategy strategy = Strategy::Zero0;
    bool fits = false;     // recommended.has_value()
    double peakBytes = 0;  // strategy's MemoryBreakdown::peakBytes(), per GPU
    double tokensPerS = 0; // strategy's predicted tokens/s, all ranks together
    // Every candidate's planned peak per GPU, in the strategy table's order.
    std::array<double, kStrategyCount> candidatePeakBytes {};

    int worldSize() const { return gpusPerNode * nodes; }
    int value(SweepAxis a) const;
};

struct SweepResult {
    std::vector<SweepAxisValues> axes; // as given
    // One per combination of the axes' values, the first axis varying slowest and the last fastest;
    // an axis not swept keeps the input's value.
    std::vector<SweepPoint> points;

    // The point at one index per axis (axes' order); nullptr when an index is out of range.
    const SweepPoint* at(const std::vector<std::size_t>& index) const;
};

// Checks the axes as a whole: SpecError("sweep.<axis>", ...) for an axis given twice or without values
// (and for its values as parseSweepValues does), SpecError("sweep", ...) for more than kMaxSweepPoints
// points.
void validateSweep(const std::vector<SweepAxisValues>& axes);

// Plans every point (makePlan with `base`'s other settings). Throws SpecError for bad axes
// (validateSweep) and, naming the point, for a point the planner cannot take (e.g. NVLink between the
// GPUs of a node for a GPU without it).
SweepResult runSweep(const EstimateInput& base, const std::vector<SweepAxisValues>& axes, const Calibration& c = {});

// {"axes":[{"axis":"seq","values":[...]},...],
//  "points":[{"seq_len":N,"micro_batch":N,"gpus_per_node":N,"nodes":N,"world_size":N,
//             "recommended":ID|null,"strategy":ID,"fits":B,"peak_gib":X,"tokens_per_s":X}, ...]}
// peak_gib is peakBytes / 2^30, as in the plan's JSON.
nlohmann::json toJson(const SweepResult& sweep);
// RFC 4180 CSV (csvText of shardwise/spec/quote.hpp for the text cells) with a header row and one row per point, the
// JSON's point keys as columns; numbers in the shortest text that reads back as the same double, '.' as the decimal
// point; recommended is empty where nothing fits.
std::string toCsv(const SweepResult& sweep);

} // namespace shardwise
