#pragma once
// The options that describe a plan's input (model, GPU, cluster, training), shared by every
// subcommand that plans: `plan`, `gke`. One parser so the flags mean the same everywhere.

#include "options.hpp"

#include "shardwise/estimate/estimate.hpp"
#include "shardwise/frameworks/configs.hpp"

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardwise::cli {

// Walks "--flag value" and "--flag=value" arguments.
class ArgumentWalker {
public:
    explicit ArgumentWalker(const std::vector<std::string>& args)
        : m_args(args)
    {
    }
    bool next();                     // advances to the next flag; false at the end
    const std::string& flag() const { return m_flag; }
    std::string value();             // the flag's value; UsageError when missing
    void noValue() const;            // UsageError when the flag was given "=value"

private:
    const std::vector<std::string>& m_args;
    std::size_t m_next = 0;
    std::string m_flag;
    std::string m_inline;
    bool m_hasInline = false;
};

int parseInt(const std::string& flag, const std::string& value, int lo, int hi);
double parseDouble(const std::string& flag, const std::string& value, double lo, double hi);

struct PlanOptions {
    std::string model;
    std::string gpu;
    int gpusPerNode = 1;
    double hostRamGiB = ClusterSpec{}.hostRamGiB; // RAM of each node: decides whether offload's host state fits
    int nodes = 1;
    std::string interconnect; // empty = from the GPU
    int seq = 2048;
    int microBatch = 1;
    std::string precision; // empty: defaultPrecision(framework)
    bool expandableSegments = false;
    bool cudaGraphs = false;
    bool checkpointing = false;
    std::string checkpointingPolicy; // full | selective | none; empty: --activation-checkpointing or the framework's default
    std::string framework = "native";
    std::string frameworkVersion; // empty: the framework's default release
    bool compile = false;
    double interNodeGBps = ClusterSpec{}.interNodeGBps;
    std::string interNode; // the preset --inter-node named, if any
    std::set<std::string> given; // the flags the user typed

    // Takes the walker's current flag if it is a plan option; false when it is not one.
    bool take(ArgumentWalker& w);
    // UsageError naming --model / --gpu when missing.
    void requireModelAndGpu() const;
    // SpecError naming the field (see flagForField). Settings read from a config (--from) fill what the
    // flags leave unsaid; a flag the user typed wins. `notes` gets one line per setting taken from the
    // framework's defaults ("precision bf16-fp32-master from DeepSpeed's defaults").
    EstimateInput input(const frameworks::ImportedSettings* imported = nullptr, std::vector<std::string>* notes = nullptr) const;
};

// The plan options' usage lines, for each subcommand's --help.
const char* planOptionsUsage();
// Which flag sets which spec field, so a SpecError from validation names the flag the user typed.
const std::map<std::string, std::string>& flagForField();

} // namespace shardwise::cli
