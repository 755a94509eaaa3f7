#pragma once
// The options that describe a plan's input (model, GPU, cluster, training), shared by every
// subcommand that plans: `plan`, `gke`. One parser so the flags mean the same everywhere.

#include "shardwise/estimate/estimate.hpp"

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardwise::cli {

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

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
    std::string precision = "bf16";
    bool expandableSegments = false;
    bool cudaGraphs = false;
    bool checkpointing = false;

    // Takes the walker's current flag if it is a plan option; false when it is not one.
    bool take(ArgumentWalker& w);
    // UsageError naming --model / --gpu when missing.
    void requireModelAndGpu() const;
    EstimateInput input() const; // SpecError naming the field (see flagForField)
};

// The plan options' usage lines, for each subcommand's --help.
const char* planOptionsUsage();
// Which flag sets which spec field, so a SpecError from validation names the flag the user typed.
const std::map<std::string, std::string>& flagForField();

} // namespace shardwise::cli
