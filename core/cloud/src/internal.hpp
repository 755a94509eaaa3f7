#pragma once
// Shared between the parts of the GKE preparation; not part of the library's interface.

#include "shardwise/cloud/gke_preparation.hpp"

#include <string>
#include <vector>

namespace shardwise::cloud::detail {

// Everything resolved from the request and the table before any text is written.
struct Resolved {
    const GkeRequest* request = nullptr;
    const GkeCatalog* catalog = nullptr;
    const GkeAcceleratorOffer* offer = nullptr;
    const GkeMachineType* machineType = nullptr;        // the one every command, the manifest and the checklist use
    const GkeMachineType* defaultMachineType = nullptr; // the table's first for the GPU count; differs from machineType
                                                        // when the strategy's host state needs a larger one
    std::vector<std::string> zones;
    std::string clusterName;
    std::string nodePoolName;
    std::string jobName;
    std::string manifestFile;
    int totalGpus = 0;
};

std::vector<ChecklistItem> checklist(const Resolved& r);
std::vector<GkeCommand> gcloudCommands(const Resolved& r);
std::vector<GkeCommand> kubectlCommands(const Resolved& r);
std::string jobManifest(const Resolved& r);
// The shardwise-runner command line each rank runs (without the launch environment).
std::string runnerCommand(const RunConfig& run);

std::string format(const char* fmt, double x);
std::string upper(std::string s);

} // namespace shardwise::cloud::detail
