#pragma once
// The options that describe a plan's input (model, GPU, cluster, training), shared by every
// subcommand that plans: `plan`, `gke`. One parser so the flags mean the same everywhere.

#include "options.hpp"

#include "shardwise/calibrate/network.hpp"
#include "shardwise/estimate/estimate.hpp"
#include "shardwise/frameworks/configs.hpp"

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardwise::cli {

// Walks the options parseArgs (options.hpp) accepted, in the order given.
class ArgumentWalker {
public:
    explicit ArgumentWalker(const ParsedArgs& parsed)
        : m_parsed(parsed)
    {
    }
    bool next(); // advances to the next option; false at the end
    const std::string& flag() const { return m_current->name; }
    std::string value() const { return m_current->value; }
    void noValue() const { } // the table refuses a value for a switch

private:
    const ParsedArgs& m_parsed;
    std::size_t m_next = 0;
    const ParsedOption* m_current = nullptr;
};

int parseInt(const std::string& flag, const std::string& value, int lo, int hi);
double parseDouble(const std::string& flag, const std::string& value, double lo, double hi);

struct PlanOptions {
    std::string model;
    std::string gpu;
    int gpusPerNode = 1;
    double hostRamGiB = ClusterSpec {}.hostRamGiB; // RAM of each node: decides whether offload's host state fits
    int nodes = 1;
    std::string interconnect; // empty = from the GPU
    int seq = 2048;
    int microBatch = 1;
    std::string precision; // empty: defaultPrecision(framework)
    bool expandableSegments = false;
    bool cudaGraphs = false;
    bool checkpointing = false;
    std::string
        checkpointingPolicy; // full | selective | none; empty: --activation-checkpointing or the framework's default
    std::string framework = "native";
    std::string frameworkVersion; // empty: the framework's default release
    bool compile = false;
    double interNodeGBps = ClusterSpec {}.interNodeGBps;
    std::string interNode; // the preset --inter-node named, if any
    // A measured network --inter-node named ("a+b", nodes probe a --with b); its figure comes from
    // the store (useMeasuredNetwork) before input() may be asked.
    std::string measuredNetwork;
    std::optional<calibrate::MeasuredNetwork> measured;
    std::set<std::string> given; // the flags the user typed

    // Takes the walker's current flag if it is a plan option; false when it is not one.
    bool take(ArgumentWalker& w);
    // UsageError naming --model / --gpu when missing.
    void requireModelAndGpu() const;
    // SpecError naming the field (see flagForField). Settings read from a config (--from) fill what the
    // flags leave unsaid; a flag the user typed wins. `notes` gets one line per setting taken from the
    // framework's defaults ("precision bf16-fp32-master from DeepSpeed's defaults").
    EstimateInput input(const frameworks::ImportedSettings* imported = nullptr,
                        std::vector<std::string>* notes = nullptr) const;
    // Takes the measured network --inter-node named from the store's network probes (`db` null: no
    // store); UsageError naming it when the store holds no probe of it. Nothing to do without one.
    void useMeasuredNetwork(const store::Database* db, const std::string& dbPath);
};

// The plan options' table, shared by every subcommand that plans.
std::vector<Option> planOptionTable();
// Which flag sets which spec field, so a SpecError from validation names the flag the user typed.
const std::map<std::string, std::string>& flagForField();

} // namespace shardwise::cli
