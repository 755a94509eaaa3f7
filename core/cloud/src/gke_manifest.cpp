// The Job manifest: a headless Service for the rendezvous and an Indexed Job with one pod per node.
// Pattern from the Kubernetes documentation ("Job with Pod-to-Pod Communication"): an Indexed Job's
// pod <job>-<index> resolves as <job>-<index>.<subdomain> when a headless Service of that name
// selects the Job's pods, so pod 0 is the rendezvous (MASTER_ADDR) and the completion index
// (JOB_COMPLETION_INDEX, set by Kubernetes) is the node rank. Each pod starts one runner process per
// GPU with the torchrun-style environment the runner reads (RANK, LOCAL_RANK, WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT).
#include "internal.hpp"

#include "shardwise/spec/quote.hpp"

#include <sstream>

namespace shardwise::cloud::detail {

namespace {

std::string quoted(const std::string& s)
{
    return yamlQuote(s);
}

} // namespace

std::string runnerCommand(const RunConfig& run)
{
    // One shell word each: the line runs in the Job's /bin/sh -c script.
    return "shardwise-runner --model " + shellQuote(run.model.id) + " --strategy "
        + std::string(strategyId(run.strategy)) + " --device cuda --precision "
        + std::string(precisionId(run.training.precision)) + " --seq " + std::to_string(run.training.seqLen)
        + " --micro-batch " + std::to_string(run.training.microBatch) + " --warmup " + std::to_string(run.warmupSteps)
        + " --steps " + std::to_string(run.timedSteps) + (run.training.cudaGraphs ? " --cuda-graphs" : "");
}

std::string jobManifest(const Resolved& r)
{
    const GkeRequest& q = *r.request;
    const GkeDefaults& d = r.catalog->defaults();
    const int nodes = q.cluster.nodes;
    const int perNode = q.cluster.gpusPerNode;
    const std::string job = r.jobName;
    std::ostringstream y;
    y << "apiVersion: v1\n"
         "kind: Service\n"
         "metadata:\n"
         "  name: "
      << job
      << "\n"
         "spec:\n"
         "  clusterIP: None\n"
         "  publishNotReadyAddresses: true\n"
         "  selector:\n"
         "    job-name: "
      << job
      << "\n"
         "  ports:\n"
         "    - name: rendezvous\n"
         "      port: "
      << d.rendezvousPort
      << "\n"
         "---\n"
         "apiVersion: batch/v1\n"
         "kind: Job\n"
         "metadata:\n"
         "  name: "
      << job
      << "\n"
         "  labels:\n"
         "    app.kubernetes.io/name: shardwise-runner\n"
         "spec:\n"
         "  completionMode: Indexed\n"
         "  completions: "
      << nodes
      << "\n"
         "  parallelism: "
      << nodes
      << "\n"
         // One lost rank fails the measurement; a rerun is the user's decision, not the Job's.
         "  backoffLimit: 0\n"
         "  template:\n"
         "    metadata:\n"
         "      labels:\n"
         "        app.kubernetes.io/name: shardwise-runner\n"
         "    spec:\n"
         "      subdomain: "
      << job
      << "\n"
         "      restartPolicy: Never\n"
         "      nodeSelector:\n"
         "        "
      << d.acceleratorNodeLabel << ": " << r.offer->accelerator
      << "\n"
         "      tolerations:\n"
         "        - key: "
      << d.gpuTaintKey
      << "\n"
         "          operator: Exists\n"
         "          effect: NoSchedule\n";
    if (nodes > 1) {
        // All nodes of one run in one zone: NCCL across zones is slower and billed per byte.
        y << "      affinity:\n"
             "        podAffinity:\n"
             "          requiredDuringSchedulingIgnoredDuringExecution:\n"
             "            - labelSelector:\n"
             "                matchLabels:\n"
             "                  job-name: "
          << job
          << "\n"
             "              topologyKey: "
          << d.zoneLabel << "\n";
    }
    y << "      containers:\n"
         "        - name: runner\n"
         "          image: "
      << quoted(q.image)
      << "\n"
         "          command: [\"/bin/sh\", \"-c\"]\n"
         "          args:\n"
         "            - |\n"
         "              set -eu\n"
         "              pids=\"\"\n"
         "              local_rank=0\n"
         "              while [ \"$local_rank\" -lt \"$GPUS_PER_NODE\" ]; do\n"
         "                RANK=$((JOB_COMPLETION_INDEX * GPUS_PER_NODE + local_rank)) LOCAL_RANK=$local_rank \\\n"
         "                  "
      << runnerCommand(q.run)
      << " &\n"
         "                pids=\"$pids $!\"\n"
         "                local_rank=$((local_rank + 1))\n"
         "              done\n"
         "              status=0\n"
         "              for pid in $pids; do wait \"$pid\" || status=$?; done\n"
         "              exit \"$status\"\n"
         "          env:\n"
         "            - name: WORLD_SIZE\n"
         "              value: "
      << quoted(std::to_string(r.totalGpus))
      << "\n"
         "            - name: GPUS_PER_NODE\n"
         "              value: "
      << quoted(std::to_string(perNode))
      << "\n"
         "            - name: MASTER_ADDR\n"
         "              value: "
      << quoted(job + "-0." + job)
      << "\n"
         "            - name: MASTER_PORT\n"
         "              value: "
      << quoted(std::to_string(d.rendezvousPort)) << "\n";
    if (q.run.training.expandableSegments)
        y << "            - name: PYTORCH_CUDA_ALLOC_CONF\n"
             "              value: \"expandable_segments:True\"\n";
    // A container's /dev/shm is 64 MiB by default; NCCL's intra-node transport and its proxy buffers
    // live there, and running out fails the communicator's init or a collective ("unhandled system
    // error"). A memory-backed emptyDir lifts the cap to the node's memory.
    y << "          resources:\n"
         "            limits:\n"
         "              "
      << d.gpuResource << ": " << perNode
      << "\n"
         "          volumeMounts:\n"
         "            - name: dshm\n"
         "              mountPath: /dev/shm\n"
         "      volumes:\n"
         "        - name: dshm\n"
         "          emptyDir:\n"
         "            medium: Memory\n";
    return y.str();
}

} // namespace shardwise::cloud::detail
