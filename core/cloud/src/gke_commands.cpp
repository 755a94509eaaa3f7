// gcloud and kubectl commands in the order they are run. Flags follow the gcloud reference for
// `container clusters create` and `container node-pools create`.
#include "internal.hpp"

#include "shardwise/spec/quote.hpp"

namespace shardwise::cloud::detail {

std::vector<GkeCommand> gcloudCommands(const Resolved& r)
{
    const GkeRequest& q = *r.request;
    const GkeDefaults& d = r.catalog->defaults();
    const GkeAcceleratorOffer& o = *r.offer;
    const std::string zones = joined(r.zones, ",");
    std::vector<GkeCommand> out;
    out.push_back({ "regional GPU quota (must be at least " + std::to_string(r.totalGpus) + ")",
                    "gcloud compute regions describe " + shellQuote(q.region)
                        + " --flatten=quotas --filter=\"quotas.metric~" + o.quotaMetric
                        + "\" --format=\"table(quotas.metric,quotas.limit,quotas.usage)\"" });
    out.push_back({ "project-wide GPU quota (must be at least " + std::to_string(r.totalGpus) + ")",
                    "gcloud compute project-info describe --flatten=quotas --filter=\"quotas.metric="
                        + d.globalGpuQuotaMetric + "\" --format=\"table(quotas.metric,quotas.limit,quotas.usage)\"" });
    out.push_back({ "zones of " + q.region + " that list " + o.accelerator + " today",
                    "gcloud compute accelerator-types list --filter=\"name=" + o.accelerator + " AND zone~" + q.region
                        + "-\" --format=\"value(zone)\"" });
    out.push_back({ "GKE version of the " + d.releaseChannel + " channel",
                    "gcloud container get-server-config --region " + shellQuote(q.region)
                        + " --flatten=channels --filter=\"channels.channel=" + upper(d.releaseChannel)
                        + "\" --format=\"yaml(channels.channel,channels.defaultVersion)\"" });
    // The default pool holds the system pods so that the GPU pool can sit at zero nodes.
    out.push_back({ "regional cluster with a small system pool",
                    "gcloud container clusters create " + shellQuote(r.clusterName) + " --region "
                        + shellQuote(q.region) + " --release-channel " + d.releaseChannel + " --node-locations " + zones
                        + " --num-nodes " + std::to_string(d.systemPool.nodesPerZone) + " --machine-type "
                        + d.systemPool.machineType });
    // --location-policy ANY lets the autoscaler take any listed zone that has capacity instead of
    // balancing across zones, which is what a stockout calls for.
    out.push_back({ "GPU node pool for " + o.accelerator + ": zero nodes, autoscaling 0.."
                        + std::to_string(q.cluster.nodes) + " in total",
                    "gcloud container node-pools create " + shellQuote(r.nodePoolName) + " --cluster "
                        + shellQuote(r.clusterName) + " --region " + shellQuote(q.region) + " --machine-type "
                        + r.machineType->name + " --accelerator type=" + o.accelerator + ",count="
                        + std::to_string(q.cluster.gpusPerNode) + ",gpu-driver-version=" + shellQuote(q.driverVersion)
                        + " --image-type " + d.imageType + " --node-locations " + zones
                        + " --num-nodes 0 --enable-autoscaling --total-min-nodes 0 --total-max-nodes "
                        + std::to_string(q.cluster.nodes) + " --location-policy ANY" });
    return out;
}

std::vector<GkeCommand> kubectlCommands(const Resolved& r)
{
    const GkeRequest& q = *r.request;
    const GkeDefaults& d = r.catalog->defaults();
    std::vector<GkeCommand> out;
    out.push_back({ "credentials for kubectl",
                    "gcloud container clusters get-credentials " + shellQuote(r.clusterName) + " --region "
                        + shellQuote(q.region) });
    out.push_back({ "start the run (the pool scales up from zero)", "kubectl apply -f " + shellQuote(r.manifestFile) });
    out.push_back({ "watch GPU nodes arrive and in which zone",
                    "kubectl get nodes -l " + d.acceleratorNodeLabel + "=" + r.offer->accelerator + " -L " + d.zoneLabel
                        + " --watch" });
    out.push_back({ "the Job's pods, one per node", "kubectl get pods -l job-name=" + r.jobName + " -o wide" });
    out.push_back({ "every rank's JSON Lines events",
                    "kubectl logs -l job-name=" + r.jobName
                        + " --prefix --tail=-1 --max-log-requests=" + std::to_string(q.cluster.nodes) });
    out.push_back({ "clean up (the pool scales back to zero)", "kubectl delete -f " + shellQuote(r.manifestFile) });
    return out;
}

} // namespace shardwise::cloud::detail
