#pragma once
// What Google Cloud offers per GPU on GKE, kept as data in resources/gke/accelerators.json: the
// accelerator type names, the machine series and machine types that carry them, the zones that list
// them, the quota metric and the GKE version constraints, each with its source and the date the
// table was transcribed. Everything the GKE preparation prints comes from this table or the plan.

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardwise::cloud {

// Bad input to the cloud helper; field() names what the user typed ("gpu", "region", "gpus_per_node").
class CloudError : public std::runtime_error {
public:
    CloudError(std::string field, const std::string& message);
    const std::string& field() const { return m_field; }

private:
    std::string m_field;
};

// Google lists machine memory in GB that are binary: the Compute Engine API reports memoryMb in MiB and
// its machine-type descriptions print memoryMb / 1024 as GB (n1-highcpu-16: memoryMb 14746, "14.4 GB RAM").
inline constexpr double kBytesPerGoogleMemoryGB = 1024.0 * 1024.0 * 1024.0;

struct GkeMachineType {
    std::string name;               // a2-highgpu-4g, g2-standard-48, a3-ultragpu-8g, ...
    int gpus = 0;                   // GPUs attached to one VM of this type
    std::vector<std::string> zones; // empty = the accelerator's zones
    std::string note;               // a provisioning restriction worth a warning, or empty
    std::optional<double> memoryGB; // the VM's memory as Google lists it (table: memory_gb); empty = unknown

    // The VM's memory in GiB (what the planner's host figures use); empty when the table has none.
    std::optional<double> memoryGiB() const;
};

struct GkeAcceleratorOffer {
    std::string accelerator;   // GKE accelerator type (the --accelerator type= value)
    std::string machineSeries; // A2, G2, A3
    std::string quotaMetric;   // Compute Engine regional quota metric
    std::string minGkeVersion; // empty when the table records no minimum
    std::vector<GkeMachineType>
        machineTypes; // ascending GPU count; within a count, the table's order (smallest memory first)
    std::vector<std::string> zones;
    std::vector<std::string> notes;

    // The default machine type for `gpusPerNode` GPUs: the first (smallest) the table lists with that count.
    const GkeMachineType* machineTypeFor(int gpusPerNode) const;
    // Every machine type carrying `gpusPerNode` GPUs, smallest memory first (G2 offers five with one L4).
    std::vector<const GkeMachineType*> machineTypesFor(int gpusPerNode) const;
    // The smallest machine type with `gpusPerNode` GPUs whose memory x usableFraction holds hostGiB (GiB);
    // nullptr when none of those with a known memory does.
    const GkeMachineType* machineTypeHolding(int gpusPerNode, double hostGiB, double usableFraction) const;
    std::vector<int> gpuCounts() const; // ascending, each count once
    // Zones of `region` that list `machineType` (the machine type's own list, else the accelerator's).
    std::vector<std::string> zonesIn(const std::string& region, const GkeMachineType& machineType) const;
    std::vector<std::string> regions() const; // sorted, unique
};

struct GkeSystemPool {
    std::string machineType;
    int nodesPerZone = 1;
    std::string why;
};

struct GkeDefaults {
    std::string imageType;                   // node image with GKE-managed driver installation
    std::string driverAutoInstallMinVersion; // GKE version from which gpu-driver-version= works
    std::vector<std::string> driverVersions; // values gpu-driver-version= accepts for installation
    std::string releaseChannel;
    std::string globalGpuQuotaMetric; // the project-wide GPU quota every region draws from
    std::string gpuTaintKey;
    std::string gpuResource;
    std::string acceleratorNodeLabel;
    std::string zoneLabel;
    GkeSystemPool systemPool;
    int rendezvousPort = 0;
    std::string rendezvousPortWhy;
};

struct GkeSources {
    std::string zones;
    std::string machineTypes;
    std::string gke;
    std::string transcribed; // ISO date
    std::string caveat;
};

class GkeCatalog {
public:
    // Throws CloudError("gke_table", ...) naming the file and the field when the table is malformed.
    static GkeCatalog load(const std::filesystem::path& file);
    // Where the table is read from, first match wins: $SHARDWISE_GKE_TABLE;
    // <exe>/../share/shardwise/gke/accelerators.json (installed); the source tree's resources/gke.
    static std::filesystem::path defaultPath();
    static const GkeCatalog& builtin(); // load(defaultPath()), once

    const GkeAcceleratorOffer* find(const std::string& accelerator) const;
    const std::vector<GkeAcceleratorOffer>& offers() const { return m_offers; }
    std::vector<std::string> regions() const; // every region any accelerator is listed in, sorted
    const GkeDefaults& defaults() const { return m_defaults; }
    const GkeSources& sources() const { return m_sources; }

private:
    std::vector<GkeAcceleratorOffer> m_offers;
    GkeDefaults m_defaults;
    GkeSources m_sources;
};

// "us-central1-a" -> "us-central1".
std::string regionOfZone(const std::string& zone);
std::string joined(const std::vector<std::string>& items, const std::string& separator);

} // namespace shardwise::cloud
