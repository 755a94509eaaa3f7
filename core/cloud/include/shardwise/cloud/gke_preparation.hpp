#pragma once
// From a plan (GPU type, GPUs per node, nodes, model, strategy, training) and a region: the GKE
// preflight checklist, the gcloud and kubectl commands and the Job manifest that runs
// shardwise-runner on the planned nodes. Every value printed is taken from the request or from the
// GKE table (gke_catalog.hpp); nothing is invented on the way.

#include "shardwise/cloud/gke_catalog.hpp"
#include "shardwise/spec/specs.hpp"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace shardwise::cloud {

// What the planner said about the strategy being deployed, when a plan was made. Host RAM is judged
// here again: the plan weighed it against the RAM the user typed (ClusterSpec::hostRamGiB), but on
// GKE a node has the RAM of the machine type the table picks for the GPU count.
struct PlanVerdict {
    bool fitsDevice = false; // the step fits the GPU's memory (Estimate::fitsDevice)
    double peakGiB
        = 0; // predicted memory the step needs per GPU (allocated peak + CUDA context): what the verdict weighs
    double capacityGiB = 0; // the GPU's memory
    bool recommended = false;
    double hostGiBPerNode
        = 0; // host RAM the strategy keeps per node (CPU offload; Estimate::hostBytesPerNode), 0 = none
    double hostUsableFraction = 0; // share of a node's RAM the planner counts usable (Calibration::hostUsableFraction)
};

struct GkeRequest {
    RunConfig run;       // model, strategy, training, warm-up and timed steps the runner measures
    GpuSpec gpu;         // carries the GKE accelerator name of its preset
    ClusterSpec cluster; // GPUs per node and nodes
    std::string region;
    std::string driverVersion = "default";  // gpu-driver-version= value; one of the table's driver_versions
    std::string image = "shardwise-runner"; // container image holding a CUDA build of shardwise-runner
    std::string clusterName;                // empty: "shardwise-" + the GPU preset id
    std::optional<PlanVerdict> verdict;
};

enum class CheckStatus {
    Pass,  // the prepared commands satisfy it
    Warn,  // a risk the commands cannot remove
    Check, // the user must confirm it in their project before creating anything
};

struct ChecklistItem {
    std::string id; // stable: "quota", "zones", "driver", ...
    CheckStatus status = CheckStatus::Pass;
    std::string title;   // one line with the numbers
    std::string detail;  // why, with the source of the fact
    std::string command; // a command that confirms it, or empty
};

struct GkeCommand {
    std::string purpose;
    std::string command;
};

struct GkePreparation {
    std::string region;
    std::string accelerator;
    std::string machineSeries;
    std::string machineType;
    std::string quotaMetric;
    std::vector<std::string> zones;
    int gpusPerNode = 0;
    int nodes = 0;
    int totalGpus = 0;
    std::string clusterName;
    std::string nodePoolName;
    std::string jobName;
    std::string manifestFile; // jobName + ".yaml"
    std::vector<ChecklistItem> checklist;
    std::vector<GkeCommand> gcloud;  // preflight checks, then cluster and node pool creation
    std::vector<GkeCommand> kubectl; // credentials, apply, watch, logs, clean up
    std::string manifest;            // YAML: a headless Service and an Indexed Job
    std::string tableTranscribed;    // the GKE table's date
};

// The machine type is the table's smallest for the GPU count, unless the verdict's host state per node
// exceeds its RAM x hostUsableFraction: then the smallest with that GPU count that holds it, or the largest
// when none does (the host_memory checklist item says which, and why).
// Throws CloudError naming the field: a GPU without a GKE offering ("gpu"), a region not in the table
// or without the accelerator ("region"), a GPUs-per-node count no machine type carries
// ("gpus_per_node"), an unknown driver version ("driver"), a verdict with host state but no usable
// fraction ("verdict").
GkePreparation prepareGke(const GkeRequest& request, const GkeCatalog& catalog = GkeCatalog::builtin());

std::string_view checkStatusId(CheckStatus s); // "pass" | "warn" | "check"

// The checklist, commands and manifest as a terminal shows them.
std::string renderText(const GkePreparation& p);
nlohmann::json toJson(const GkePreparation& p);

// A Kubernetes object name from free text: lower case, [a-z0-9-], no leading/trailing '-', at most
// maxLength characters.
std::string dnsLabel(const std::string& text, std::size_t maxLength = 63);

} // namespace shardwise::cloud
