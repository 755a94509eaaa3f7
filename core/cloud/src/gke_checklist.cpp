// The preflight checklist (docs/cloud.md): each item says what the prepared commands
// do about it, or what the user must confirm first, with the numbers from the plan and the table.
#include "internal.hpp"

#include "shardwise/spec/message.hpp"

#include <optional>

namespace shardwise::cloud::detail {

namespace {

ChecklistItem item(std::string id, CheckStatus status, std::string title, std::string detail, std::string command = {})
{
    return { std::move(id), status, std::move(title), std::move(detail), std::move(command) };
}

// CPU offload keeps model state in host RAM. The plan weighed it against the RAM the user typed; on
// GKE the node has the RAM of the machine type the table picked, so the verdict is made again here.
std::optional<ChecklistItem> hostMemoryItem(const Resolved& r)
{
    const GkeRequest& q = *r.request;
    if (!q.verdict || q.verdict->hostGiBPerNode <= 0)
        return std::nullopt;
    const PlanVerdict& v = *q.verdict;
    const GkeMachineType& m = *r.machineType;
    const std::string strategy(strategyId(q.run.strategy));
    const std::string need = format("%.1f", v.hostGiBPerNode) + " GiB per node";
    const std::string share = format("%.0f", 100.0 * v.hostUsableFraction) + " %";
    const std::string why = "CPU offload keeps model state in host RAM; the planner counts " + share
        + " of a node's RAM usable, "
          "the rest being left to the operating system, GKE's node components and the data loader.";
    const std::optional<double> memoryGiB = m.memoryGiB();
    if (!memoryGiB) {
        const double minimumGiB = v.hostGiBPerNode / v.hostUsableFraction;
        return item(
            "host_memory", CheckStatus::Check,
            "Host RAM: " + strategy + " needs " + need + "; the GKE table does not record " + m.name + "'s memory",
            "Confirm that " + m.name + " has at least " + format("%.1f", minimumGiB) + " GiB of memory (memoryMb "
                + format("%.0f", minimumGiB * 1024.0) + ") before creating the pool. " + why,
            "gcloud compute machine-types describe " + m.name + " --zone " + r.zones.front()
                + " --format=\"value(memoryMb)\"");
    }
    const double usableGiB = *memoryGiB * v.hostUsableFraction;
    const double planUsableGiB = q.cluster.hostRamGiB * v.hostUsableFraction;
    const bool planFits = v.hostGiBPerNode <= planUsableGiB;
    const std::string vm = m.name + " has " + format("%g", *m.memoryGB) + " GB (" + format("%.1f", *memoryGiB)
        + " GiB, " + format("%.1f", usableGiB) + " GiB usable)";
    const std::string source = "On GKE a node has the RAM of its machine type, not the plan's "
        + format("%g", q.cluster.hostRamGiB) + " GiB: " + m.name + "'s memory is from the GKE table ("
        + r.catalog->sources().machineTypes + "). ";
    const int perNode = q.cluster.gpusPerNode;
    const bool alternatives = r.offer->machineTypesFor(perNode).size() > 1;
    const std::string perNodeText = std::to_string(perNode) + " GPU" + (perNode == 1 ? "" : "s") + " per node";
    const GkeMachineType& d = *r.defaultMachineType;
    if (v.hostGiBPerNode > usableGiB)
        return item(
            "host_memory", CheckStatus::Warn,
            strategy + " does not fit in host RAM: it needs " + need + ", " + vm + ", "
                + format("%.1f", v.hostGiBPerNode - usableGiB) + " GiB short"
                + (alternatives ? "; " + m.name + " is the largest machine type with " + perNodeText : std::string()),
            source + why
                + " The ranks would run out of host memory: pick a strategy that does not offload, or a GPU "
                  "count or GPU whose machine type has more memory.");
    std::string chosen;
    if (&m != &d && d.memoryGiB())
        chosen = "; chosen over " + d.name + ", the default for " + perNodeText + ", whose " + format("%g", *d.memoryGB)
            + " GB (" + format("%.1f", *d.memoryGiB() * v.hostUsableFraction)
            + " GiB usable) would have been too small";
    return item("host_memory", CheckStatus::Pass,
                strategy + " fits in host RAM: " + need + ", " + vm + chosen
                    + (planFits ? std::string()
                                : "; the VM's RAM suffices where the plan's " + format("%g", q.cluster.hostRamGiB)
                               + " GiB (" + format("%.1f", planUsableGiB) + " GiB usable) did not"),
                source + why
                    + (chosen.empty() ? std::string()
                                      : " The node pool and its zones use " + m.name
                               + ", the smallest machine type "
                                 "with "
                               + perNodeText + " whose usable RAM holds the host state."));
}

} // namespace

std::vector<ChecklistItem> checklist(const Resolved& r)
{
    const GkeRequest& q = *r.request;
    const GkeDefaults& d = r.catalog->defaults();
    const GkeSources& src = r.catalog->sources();
    const GkeAcceleratorOffer& o = *r.offer;
    const GkeMachineType& m = *r.machineType;
    const int nodes = q.cluster.nodes;
    const int perNode = q.cluster.gpusPerNode;
    const std::string gpus = std::to_string(r.totalGpus);
    std::vector<ChecklistItem> out;

    out.push_back(item("accelerator", CheckStatus::Pass,
                       q.gpu.name + " is GKE accelerator " + o.accelerator + " on machine series " + o.machineSeries
                           + ": " + m.name + " carries " + std::to_string(perNode) + " per node",
                       "GPU nodes use the accelerator-optimized machine type that carries the GPU; the series and type "
                       "come from the GKE table ("
                           + src.machineTypes + ")."));
    if (!m.note.empty())
        out.push_back(item("machine_type", CheckStatus::Warn, m.name + ": check its provisioning models",
                           m.note + " (" + src.machineTypes + ")"));

    // Autoscaling counts at its maximum: a pool allowed to grow to N nodes can ask for N x GPUs.
    out.push_back(item(
        "quota", CheckStatus::Check,
        "GPU quota " + o.quotaMetric + " in " + q.region + " and " + d.globalGpuQuotaMetric + " at least " + gpus + " ("
            + countOf(nodes, "node") + " x " + countOf(perNode, "GPU") + ", the node pool's autoscaling maximum)",
        "Quota must cover the autoscaling maximum, not the nodes running now: GKE asks for quota at least the "
        "pool's maximum nodes times the GPUs per node ("
            + src.gke
            + "). Spot nodes draw on the PREEMPTIBLE_ "
              "variant of the metric, which the command lists as well.",
        "gcloud compute regions describe " + q.region + " --flatten=quotas --filter=\"quotas.metric~" + o.quotaMetric
            + "\" --format=\"table(quotas.metric,quotas.limit,quotas.usage)\""));
    out.push_back(
        item("stock", CheckStatus::Warn,
             "Quota is not stock: " + gpus + " x " + o.accelerator
                 + " of quota does not guarantee that a zone has "
                   "them free",
             "Quota is permission to use GPUs in a region; capacity is what a zone physically has free. A zone can "
             "be out of stock for hours (a four-GPU L4 stockout took about 14 hours to resolve in the reference "
             "write-up). The pool below spans every zone that lists the machine type and scales from zero, so the "
             "autoscaler can take whichever zone has stock; a reservation is the only guarantee."));

    const bool severalZones = r.zones.size() > 1;
    out.push_back(item(
        "zones", severalZones ? CheckStatus::Pass : CheckStatus::Warn,
        std::to_string(r.zones.size()) + " zone(s) of " + q.region + " list " + m.name + ": " + joined(r.zones, ", "),
        std::string(severalZones ? "The node pool spans all of them, so a stockout in one zone leaves others to "
                                   "try. "
                                 : "Only one zone: a stockout there has no fallback in this region. ")
            + "Zones from the GKE table, transcribed " + src.transcribed + " (" + src.zones + "). " + src.caveat,
        "gcloud compute accelerator-types list --filter=\"name=" + o.accelerator + " AND zone~" + q.region
            + "-\" --format=\"value(zone)\""));
    out.push_back(item("regional_cluster", CheckStatus::Pass, "Regional cluster " + r.clusterName + " in " + q.region,
                       "A regional control plane is replicated across zones and its node pools may span zones; a zonal "
                       "cluster ties every GPU node to one zone's stock."));
    out.push_back(
        item("node_pool", CheckStatus::Pass, "One node pool for " + o.accelerator + " only: " + r.nodePoolName,
             "GPU nodes cannot be added to an existing pool: each accelerator type (and GPU count) gets its own "
             "pool, created with the accelerator, so GKE taints its nodes with "
                 + d.gpuTaintKey
                 + " and only pods "
                   "that ask for GPUs land there."));
    out.push_back(
        item("scale_from_zero", CheckStatus::Pass,
             "Pool created with 0 nodes, autoscaling on, minimum 0, maximum " + std::to_string(nodes)
                 + " in total across " + std::to_string(r.zones.size()) + " zone(s)",
             "No GPU node is billed until the Job asks for one. The maximum is a total over all zones "
             "(--total-max-nodes): a per-zone --max-nodes would let the pool grow to zones x maximum and the quota "
             "would have to cover that."));
    out.push_back(item("driver", CheckStatus::Pass,
                       "GKE installs the NVIDIA driver: gpu-driver-version=" + q.driverVersion + " on " + d.imageType,
                       "Driver installation through the node pool's --accelerator flag needs GKE "
                           + d.driverAutoInstallMinVersion + " or later (" + src.gke
                           + "); without it the pool comes up with GPUs the pods cannot use."));
    const std::string versionCommand = "gcloud container get-server-config --region " + q.region
        + " --flatten=channels --filter=\"channels.channel=" + upper(d.releaseChannel)
        + "\" --format=\"yaml(channels.channel,channels.defaultVersion)\"";
    out.push_back(item("gke_version", CheckStatus::Check,
                       o.minGkeVersion.empty()
                           ? "GKE version: at least " + d.driverAutoInstallMinVersion + " for driver installation"
                           : "GKE version: at least " + o.minGkeVersion + " for " + o.accelerator + " and "
                               + d.driverAutoInstallMinVersion + " for driver installation",
                       "The " + d.releaseChannel + " channel's default version in " + q.region
                           + " must meet both; the cluster is created on that channel. "
                           + (o.minGkeVersion.empty() ? "The table records no accelerator-specific minimum for "
                                      + o.accelerator + "; confirm it on the GKE GPU page. "
                                                      : std::string())
                           + "(" + src.gke + ")",
                       versionCommand));
    out.push_back(
        item("image", CheckStatus::Check, "The Job pulls image " + q.image,
             "Push an image with a CUDA build of shardwise-runner to a registry the cluster can pull from (Artifact "
             "Registry in the same project needs no extra credentials) and pass its name."));

    if (q.verdict) {
        const PlanVerdict& v = *q.verdict;
        const std::string peak
            = format("%.1f", v.peakGiB) + " GiB of " + format("%.1f", v.capacityGiB) + " GiB per GPU";
        out.push_back(
            item("memory", v.fitsDevice ? CheckStatus::Pass : CheckStatus::Warn,
                 std::string(strategyId(q.run.strategy)) + (v.fitsDevice ? " fits: " : " does not fit: ") + peak
                     + (v.recommended ? " (the plan's recommendation)" : ""),
                 v.fitsDevice
                     ? "Predicted by the planner for this model, sequence and micro-batch; validate before a long run."
                     : "The planner predicts an out-of-memory failure; the runner will report it as an OOM result."));
    }
    if (std::optional<ChecklistItem> host = hostMemoryItem(r))
        out.push_back(std::move(*host));
    if (q.run.training.activationCheckpointing)
        out.push_back(item("runner_support", CheckStatus::Warn, "The runner does not support activation checkpointing",
                           "shardwise-runner rejects training.activation_checkpointing; the Job runs without it."));

    if (nodes > 1) {
        std::string notes;
        for (const auto& n : o.notes)
            if (n.find("inter-node") != std::string::npos)
                notes += " " + n;
        out.push_back(item("multi_node", CheckStatus::Warn,
                           std::to_string(nodes) + " nodes: ranks on different nodes talk over the VPC network",
                           "The Job keeps all its pods in one zone (pod affinity on " + d.zoneLabel
                               + "): NCCL across zones is slower and billed as inter-zone traffic." + notes));
    }
    for (const auto& n : o.notes)
        if (n.find("inter-node") == std::string::npos)
            out.push_back(item("accelerator_note", CheckStatus::Warn, o.accelerator + ": note", n));
    out.push_back(
        item("maintenance", CheckStatus::Warn, "GPU nodes are not live-migrated",
             "Host maintenance and Spot preemption stop a GPU node and the ranks on it; plan checkpoints with "
             "`shardwise-cli plan ... --interruptions-per-hour X` before a long run."));
    return out;
}

} // namespace shardwise::cloud::detail
