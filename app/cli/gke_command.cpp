// shardwise-cli gke: from a plan's GPU, GPU count and nodes and a region, the GKE preflight
// checklist, the gcloud and kubectl commands and the Job manifest that runs shardwise-runner
// (core/cloud). The strategy defaults to the plan's recommendation.
#include "command.hpp"
#include "plan_options.hpp"

#include "shardwise/cloud/gke_preparation.hpp"
#include "shardwise/plan/plan.hpp"
#include "shardwise/spec/json.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

namespace shardwise::cli {

namespace {

CommandSpec gkeSpec()
{
    CommandSpec spec { "gke",
                       "prepare a GKE run of a plan: checklist, gcloud/kubectl commands, Job manifest",
                       "--model PRESET|PATH --gpu PRESET --gpus-per-node N --nodes M --region R [options]",
                       "Prepares a GKE run of the plan: the preflight checklist (quota counting the autoscaling "
                       "maximum, quota is not stock, zones offering the accelerator, machine series, regional cluster, "
                       "one node pool per accelerator scaled from zero, driver and GKE version, the machine type's RAM "
                       "against a CPU-offload strategy's host state), the gcloud and kubectl commands and the Job "
                       "manifest that runs shardwise-runner on every planned GPU.",
                       {},
                       false,
                       planOptionTable(),
                       "The zone table (resources/gke/accelerators.json) is dated; `gcloud compute accelerator-types "
                       "list` is the live answer. Exit status: 0 prepared, 2 bad flag, GPU without a GKE offering or "
                       "bad region." };
    const std::string gke = "GKE:";
    spec.options.insert(
        spec.options.end(),
        { { "--region", "R", "Google Cloud region, e.g. us-central1 (required)", {}, Complete::Nothing, false, gke },
          { "--strategy",
            "S",
            "strategy the Job runs (default: the plan's recommendation)",
            {},
            Complete::Strategy,
            false,
            gke },
          { "--driver",
            "default|latest",
            "GKE-installed NVIDIA driver (gpu-driver-version=, default: default)",
            {},
            Complete::Nothing,
            false,
            gke },
          { "--image",
            "IMAGE",
            "container image with a CUDA build of shardwise-runner (default: shardwise-runner)",
            {},
            Complete::Nothing,
            false,
            gke },
          { "--cluster-name",
            "NAME",
            "GKE cluster name (default: shardwise-<gpu>)",
            {},
            Complete::Nothing,
            false,
            gke },
          { "--format",
            "F",
            "text, json or yaml: checklist, commands and manifest as text or JSON; yaml prints only "
            "the manifest, for `| kubectl apply -f -` (default text)",
            { "text", "json", "yaml" },
            Complete::Nothing,
            false,
            gke } });
    return spec;
}

std::vector<CommandSpec> gkeSpecs()
{
    return { gkeSpec() };
}

struct GkeArgs {
    PlanOptions plan;
    std::string region;
    std::string strategy;
    std::string driver = "default";
    std::string image = "shardwise-runner";
    std::string clusterName;
    std::string format = "text";
    bool help = false;
};

GkeArgs parseGkeArgs(const std::vector<std::string>& args)
{
    GkeArgs a;
    const ParsedArgs parsed = parseArgs(gkeSpec(), args);
    a.help = parsed.help;
    ArgumentWalker w(parsed);
    while (w.next()) {
        const std::string& flag = w.flag();
        if (a.plan.take(w))
            continue;
        if (flag == "--region")
            a.region = w.value();
        else if (flag == "--strategy")
            a.strategy = w.value();
        else if (flag == "--driver")
            a.driver = w.value();
        else if (flag == "--image")
            a.image = w.value();
        else if (flag == "--cluster-name")
            a.clusterName = w.value();
        else if (flag == "--format") {
            a.format = w.value();
            if (a.format != "text" && a.format != "json" && a.format != "yaml")
                throw UsageError("--format: expected text, json or yaml, got '" + a.format + "'");
        } else
            throw UsageError(unknownOptionMessage("gke", flag));
    }
    if (a.help)
        return a;
    a.plan.requireModelAndGpu();
    if (a.region.empty())
        throw UsageError("--region: required (a Google Cloud region such as us-central1)");
    return a;
}

const std::map<std::string, std::string>& flagForCloudField()
{
    static const std::map<std::string, std::string> m { { "gpu", "--gpu" },
                                                        { "region", "--region" },
                                                        { "gpus_per_node", "--gpus-per-node" },
                                                        { "nodes", "--nodes" },
                                                        { "driver", "--driver" },
                                                        { "image", "--image" },
                                                        { "cluster_name", "--cluster-name" } };
    return m;
}

int runGke(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    GkeArgs a;
    try {
        a = parseGkeArgs(args);
    } catch (const UsageError& e) {
        err << "shardwise-cli gke: " << e.what() << "\n";
        return kExitUsage;
    }
    if (a.help) {
        out << usageText(gkeSpec());
        return kExitOk;
    }
    try {
        const EstimateInput in = a.plan.input();
        const Plan plan = makePlan(in);
        Strategy strategy = Strategy::Zero0;
        if (!a.strategy.empty())
            strategy = parseStrategy(a.strategy, "--strategy");
        else if (plan.recommendation.strategy)
            strategy = *plan.recommendation.strategy;
        else
            throw cloud::CloudError("strategy",
                                    "no strategy fits this plan, so there is no recommendation to deploy; "
                                    "pass --strategy to prepare one anyway (it is predicted to run out of memory)");

        cloud::GkeRequest request;
        request.run.model = in.model;
        request.run.strategy = strategy;
        request.run.training = in.training;
        request.run.device = DeviceKind::Cuda;
        request.run.worldSize = in.cluster.worldSize();
        // --cuda-graphs reaches the Job only where the runner can capture the chosen strategy's step.
        requestCudaGraphs(request.run, in.training.cudaGraphs);
        request.gpu = in.gpu;
        request.cluster = in.cluster;
        request.region = a.region;
        request.driverVersion = a.driver;
        request.image = a.image;
        request.clusterName = a.clusterName;
        const Estimate& e = plan.candidate(strategy).estimate;
        // makePlan above ran with the default calibration: its usable share of host RAM is the one to apply
        // to the VM's RAM.
        request.verdict = cloud::PlanVerdict { e.fitsDevice,
                                               e.memory.peakBytes() / kGiB,
                                               in.gpu.memoryGiB(),
                                               plan.recommendation.strategy == strategy,
                                               e.hostBytesPerNode / kGiB,
                                               Calibration {}.hostUsableFraction };
        const cloud::GkePreparation p = cloud::prepareGke(request);
        if (a.format == "json")
            out << cloud::toJson(p).dump(2) << "\n";
        else if (a.format == "yaml")
            out << p.manifest;
        else
            out << cloud::renderText(p);
        return kExitOk;
    } catch (const SpecError& e) {
        const auto it = flagForField().find(e.field());
        err << "shardwise-cli gke: " << (it != flagForField().end() ? it->second + ": " : std::string()) << e.what()
            << "\n";
        return kExitUsage;
    } catch (const cloud::CloudError& e) {
        const auto it = flagForCloudField().find(e.field());
        err << "shardwise-cli gke: " << (it != flagForCloudField().end() ? it->second + ": " : std::string())
            << e.what() << "\n";
        return kExitUsage;
    }
}

const CommandRegistration kRegistration {
    "gke", "prepare a GKE run of a plan: checklist, gcloud/kubectl commands, Job manifest", runGke, gkeSpecs
};

} // namespace

} // namespace shardwise::cli
