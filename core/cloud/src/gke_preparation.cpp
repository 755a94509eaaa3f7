#include "internal.hpp"

#include "shardwise/spec/presets.hpp"
#include "shardwise/spec/quote.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>

namespace shardwise::cloud {

namespace detail {

std::string format(const char* fmt, double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, x);
    return buf;
}

std::string upper(std::string s)
{
    for (char& c : s)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

} // namespace detail

std::string_view checkStatusId(CheckStatus s)
{
    switch (s) {
    case CheckStatus::Pass:
        return "pass";
    case CheckStatus::Warn:
        return "warn";
    case CheckStatus::Check:
        return "check";
    }
    return "check";
}

std::string dnsLabel(const std::string& text, std::size_t maxLength)
{
    std::string out;
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (std::isalnum(c))
            out += static_cast<char>(std::tolower(c));
        else if (!out.empty() && out.back() != '-')
            out += '-';
    }
    if (out.size() > maxLength)
        out.resize(maxLength);
    while (!out.empty() && out.back() == '-')
        out.pop_back();
    return out;
}

namespace {

std::string gpuIdsOnGke()
{
    std::vector<std::string> ids;
    for (const GpuSpec& g : PresetCatalog::builtin().gpus())
        if (!g.gkeAccelerator.empty())
            ids.push_back(g.id);
    std::sort(ids.begin(), ids.end());
    return joined(ids, ", ");
}

std::string countsText(const std::vector<int>& counts)
{
    std::vector<std::string> s;
    for (int c : counts)
        s.push_back(std::to_string(c));
    return joined(s, ", ");
}

} // namespace

GkePreparation prepareGke(const GkeRequest& request, const GkeCatalog& catalog)
{
    const GpuSpec& gpu = request.gpu;
    if (gpu.gkeAccelerator.empty())
        throw CloudError("gpu",
                         gpu.name + " (" + gpu.id
                             + ") has no GKE offering: Google Cloud attaches no such GPU "
                               "to GKE nodes. GPUs offered on GKE: "
                             + gpuIdsOnGke());
    const GkeAcceleratorOffer* offer = catalog.find(gpu.gkeAccelerator);
    if (!offer)
        throw CloudError("gpu",
                         "the GKE table has no entry for accelerator '" + gpu.gkeAccelerator + "' of " + gpu.name);
    if (!gpu.gkeMachineSeries.empty() && gpu.gkeMachineSeries != offer->machineSeries)
        throw CloudError("gpu",
                         gpu.id + " names machine series " + gpu.gkeMachineSeries + " but the GKE table lists "
                             + offer->accelerator + " on " + offer->machineSeries);

    const std::vector<std::string> knownRegions = catalog.regions();
    if (std::find(knownRegions.begin(), knownRegions.end(), request.region) == knownRegions.end())
        throw CloudError("region",
                         "'" + request.region
                             + "' is not a region of the GKE table; regions with GPUs: " + joined(knownRegions, ", "));
    const std::vector<std::string> offerRegions = offer->regions();
    if (std::find(offerRegions.begin(), offerRegions.end(), request.region) == offerRegions.end())
        throw CloudError("region",
                         "no zone of " + request.region + " offers " + offer->accelerator + " (" + gpu.name
                             + "); regions that do: " + joined(offerRegions, ", "));

    const int perNode = request.cluster.gpusPerNode;
    const GkeMachineType* defaultMachineType = offer->machineTypeFor(perNode);
    if (!defaultMachineType)
        throw CloudError("gpus_per_node",
                         std::to_string(perNode) + " GPUs per node: no " + offer->machineSeries
                             + " machine type carries that many " + offer->accelerator
                             + "; allowed: " + countsText(offer->gpuCounts()));
    if (request.cluster.nodes < 1)
        throw CloudError("nodes", "must be at least 1, got " + std::to_string(request.cluster.nodes));
    const auto& drivers = catalog.defaults().driverVersions;
    if (std::find(drivers.begin(), drivers.end(), request.driverVersion) == drivers.end())
        throw CloudError(
            "driver", "'" + request.driverVersion + "' is not a GKE driver version; allowed: " + joined(drivers, ", "));
    if (request.image.empty())
        throw CloudError("image", "the container image must not be empty");
    // The id goes into the Job's shell script and the Job's name: one character set, no line breaks.
    if (const std::string why = modelIdProblem(request.run.model.id); !why.empty())
        throw CloudError("model", why);
    if (request.verdict && request.verdict->hostGiBPerNode > 0
        && !(request.verdict->hostUsableFraction > 0 && request.verdict->hostUsableFraction <= 1))
        throw CloudError("verdict",
                         "host_usable_fraction must be in (0, 1] when the strategy keeps state in host RAM, got "
                             + detail::format("%g", request.verdict->hostUsableFraction));

    // The smallest machine type for the GPU count, unless the strategy keeps state in host RAM that its usable
    // RAM cannot hold: then the smallest with that GPU count that holds it, or, when none does, the largest
    // (the host_memory item warns). A default without a recorded memory stays: the checklist asks to confirm it.
    const GkeMachineType* machineType = defaultMachineType;
    if (request.verdict && request.verdict->hostGiBPerNode > 0) {
        const PlanVerdict& v = *request.verdict;
        const std::optional<double> defaultGiB = defaultMachineType->memoryGiB();
        if (defaultGiB && v.hostGiBPerNode > *defaultGiB * v.hostUsableFraction) {
            machineType = offer->machineTypeHolding(perNode, v.hostGiBPerNode, v.hostUsableFraction);
            if (!machineType) { // the table lists a count's types smallest memory first: take the last known
                machineType = defaultMachineType;
                for (const GkeMachineType* m : offer->machineTypesFor(perNode))
                    if (m->memoryGB)
                        machineType = m;
            }
        }
    }

    detail::Resolved r;
    r.request = &request;
    r.catalog = &catalog;
    r.offer = offer;
    r.machineType = machineType;
    r.defaultMachineType = defaultMachineType;
    r.zones = offer->zonesIn(request.region, *machineType);
    if (r.zones.empty())
        throw CloudError("region",
                         "no zone of " + request.region + " lists " + machineType->name + " (" + std::to_string(perNode)
                             + " x " + offer->accelerator + "); regions that do: " + joined(offer->regions(), ", "));
    r.clusterName = dnsLabel(request.clusterName.empty() ? "shardwise-" + gpu.id : request.clusterName, 40);
    if (r.clusterName.empty())
        throw CloudError("cluster_name", "'" + request.clusterName + "' has no letters or digits");
    r.nodePoolName = dnsLabel(machineType->name, 40);
    // Indexed Job pods are named <job>-<index>; the pod name must stay a 63-character DNS label.
    r.jobName = dnsLabel("shardwise-" + request.run.model.id + "-" + std::string(strategyId(request.run.strategy)), 52);
    r.manifestFile = r.jobName + ".yaml";
    r.totalGpus = perNode * request.cluster.nodes;

    GkePreparation p;
    p.region = request.region;
    p.accelerator = offer->accelerator;
    p.machineSeries = offer->machineSeries;
    p.machineType = machineType->name;
    p.quotaMetric = offer->quotaMetric;
    p.zones = r.zones;
    p.gpusPerNode = perNode;
    p.nodes = request.cluster.nodes;
    p.totalGpus = r.totalGpus;
    p.clusterName = r.clusterName;
    p.nodePoolName = r.nodePoolName;
    p.jobName = r.jobName;
    p.manifestFile = r.manifestFile;
    p.tableTranscribed = catalog.sources().transcribed;
    p.checklist = detail::checklist(r);
    p.gcloud = detail::gcloudCommands(r);
    p.kubectl = detail::kubectlCommands(r);
    p.manifest = detail::jobManifest(r);
    return p;
}

} // namespace shardwise::cloud
