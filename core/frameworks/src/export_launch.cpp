// Launch lines for the plan's framework target: torchrun (torch.distributed.run: --nnodes,
// --nproc-per-node, --rdzv-backend c10d, --rdzv-endpoint, --rdzv-id), the DeepSpeed launcher
// (deepspeed --hostfile, --num_nodes, --num_gpus, --master_port; hostfile lines "host slots=N"),
// accelerate launch (--config_file, --machine_rank) and Slurm's srun, one task per node; and a Slurm
// batch script (sbatch: #SBATCH --nodes, --ntasks-per-node, --gpus-per-node; srun inherits them).
#include "common.hpp"

#include "shardwise/spec/message.hpp"
#include "shardwise/spec/quote.hpp"

namespace shardwise::frameworks::detail {

namespace {

// The user's DeepSpeed script with DeepSpeed's own argument convention: deepspeed.add_config_arguments
// (deepspeed/__init__.py lines 248-253 at v0.16.0) adds --deepspeed as a flag and --deepspeed_config FILE.
// The Hugging Face Trainer's `--deepspeed ds_config.json` is a different convention, which that parser refuses.
constexpr const char* kDeepSpeedProgram = "train.py --deepspeed --deepspeed_config ds_config.json";
// What accelerate launch runs: the user's script, which must create an Accelerator for the YAML to apply.
constexpr const char* kAccelerateProgram = "train.py";

// What each rank runs after the launcher's own flags.
std::string program(const EstimateInput& in, Strategy s)
{
    switch (in.framework.framework) {
    case Framework::DeepSpeed:
        return kDeepSpeedProgram;
    case Framework::Fsdp2:
        return "train_fsdp2.py";
    case Framework::Torchtitan:
        return "-m torchtitan.train --job.config_file shardwise.toml";
    case Framework::Native:
        break;
    }
    const TrainingSpec& t = in.training;
    return "shardwise-runner --model " + shellQuote(in.model.id) + " --strategy " + std::string(strategyId(s))
        + " --device cuda" + " --precision " + std::string(precisionId(t.precision)) + " --seq "
        + std::to_string(t.seqLen) + " --micro-batch " + std::to_string(t.microBatch)
        + (t.gradAccumulation > 1 ? " --grad-accumulation " + std::to_string(t.gradAccumulation) : std::string())
        + (t.activationCheckpointing ? " --activation-checkpointing " + std::string(checkpointingId(t)) : std::string())
        + (t.cudaGraphs ? " --cuda-graphs" : "");
}

// sbatch reads #SBATCH lines itself (no shell): the job name keeps letters, digits and . _ / + - (a
// model id's characters) and nothing that could end the line or add an option.
std::string jobName(const std::string& modelId, Strategy s)
{
    std::string name = "shardwise-" + modelId + "-" + std::string(strategyId(s));
    for (char& c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
              || c == '/' || c == '+' || c == '-'))
            c = '-';
    return name;
}

std::string torchrun(const EstimateInput& in, Strategy s, const std::string& nnodes, const std::string& endpoint,
                     const std::string& rdzvId)
{
    const bool native = in.framework.framework == Framework::Native;
    return std::string("torchrun") + (native ? " --no-python" : "") + " --nnodes " + nnodes + " --nproc-per-node "
        + std::to_string(in.cluster.gpusPerNode) + " --rdzv-backend c10d --rdzv-endpoint " + endpoint + " --rdzv-id "
        + rdzvId + " " + program(in, s);
}

} // namespace

std::string exportLaunch(const EstimateInput& in, Strategy s, const PlanIdentity& id)
{
    const ClusterSpec& c = in.cluster;
    const std::string nodes = std::to_string(c.nodes);
    const Framework f = in.framework.framework;
    const std::string first = f == Framework::DeepSpeed ? "deepspeed"
        : f == Framework::Fsdp2                         ? "accelerate"
                                                        : "torchrun";
    std::string out = "#!/usr/bin/env bash\n";
    out += header("# ", id, std::string("launch lines for ") + std::string(traits(f).label));
    out += "# bash launch.sh ["
        + std::string(f == Framework::DeepSpeed   ? "deepspeed|"
                          : f == Framework::Fsdp2 ? "accelerate|"
                                                  : "")
        + "torchrun|srun]: one way to start the " + countOf(c.worldSize(), "rank") + ".\n";
    out += "set -euo pipefail\n";
    out += "HEAD_NODE=${HEAD_NODE:-" + std::string(c.nodes > 1 ? "node1" : "localhost")
        + "}  # the first node's address\n";
    out += "PORT=${PORT:-29500}\n";
    if (f == Framework::DeepSpeed)
        out += "# train.py is your training script (Shardwise writes none for DeepSpeed). It takes DeepSpeed's own\n"
               "# arguments, deepspeed.add_config_arguments(parser): --deepspeed (a flag) and --deepspeed_config "
               "FILE,\n"
               "# and calls deepspeed.initialize(args=args, model=..., model_parameters=...). The deepspeed launcher\n"
               "# also passes --local_rank=N. A Hugging Face Trainer script takes --deepspeed ds_config.json instead\n"
               "# (an option with a value): write that in each case below for one.\n";
    else if (f == Framework::Fsdp2)
        out += "# accelerate: train.py is your training script. It must create accelerate.Accelerator() and pass the\n"
               "# model, optimizer and data loader through accelerator.prepare(...) (or be a Hugging Face Trainer\n"
               "# script); only then do accelerate.yaml's FSDP settings apply. train_fsdp2.py (the fsdp2-python\n"
               "# export) creates no Accelerator: it shards with fully_shard itself, so start it with torchrun or "
               "srun.\n";
    out += "\n";
    out += "case \"${1:-" + first + "}\" in\n";
    if (f == Framework::DeepSpeed) {
        out += "deepspeed)\n";
        out += "    # The DeepSpeed launcher, once on the first node; it reaches every host of the hostfile over "
               "SSH.\n";
        out += "    printf '%s\\n'";
        for (int n = 1; n <= c.nodes; ++n)
            out += " 'node" + std::to_string(n) + " slots=" + std::to_string(c.gpusPerNode) + "'";
        out += " > hostfile\n";
        out += "    deepspeed --hostfile hostfile --num_nodes " + nodes + " --num_gpus " + std::to_string(c.gpusPerNode)
            + " --master_addr \"$HEAD_NODE\" --master_port \"$PORT\" " + program(in, s) + "\n";
        out += "    ;;\n";
    } else if (f == Framework::Fsdp2) {
        out += "accelerate)\n";
        out += "    # accelerate launch on every node, NODE_RANK 0.." + std::to_string(c.nodes - 1) + "\n";
        // Accelerator(gradient_accumulation_steps=...) defaults to this variable; the YAML has no key for it.
        out += "    ACCELERATE_GRADIENT_ACCUMULATION_STEPS=" + std::to_string(in.training.gradAccumulation)
            + " accelerate launch --config_file accelerate.yaml --machine_rank \"${NODE_RANK:-0}\" --main_process_ip "
              "\"$HEAD_NODE\" --main_process_port \"$PORT\" "
            + std::string(kAccelerateProgram) + "\n";
        out += "    ;;\n";
    }
    out += "torchrun)\n";
    out += "    # The same line on every node; the rendezvous assigns the ranks.\n";
    out += "    " + torchrun(in, s, nodes, "\"$HEAD_NODE:$PORT\"", "shardwise") + "\n";
    out += "    ;;\n";
    out += "srun)\n";
    out += "    # Slurm, inside an allocation of " + countOf(c.nodes, "node")
        + ": one task per node, each starting torchrun.\n";
    // The torchrun line is one word for bash -c, quoted as a whole: its own quoted words (a model id)
    // survive both rounds of parsing.
    out += "    srun --nodes " + nodes + " --ntasks-per-node 1 --gpus-per-node " + std::to_string(c.gpusPerNode)
        + " bash -c "
        + shellQuote(torchrun(in, s, "\"$SLURM_NNODES\"",
                              "\"$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1):29500\"",
                              "\"$SLURM_JOB_ID\""))
        + "\n";
    out += "    ;;\n";
    out += "*)\n    echo \"usage: $0 ["
        + std::string(f == Framework::DeepSpeed   ? "deepspeed|"
                          : f == Framework::Fsdp2 ? "accelerate|"
                                                  : "")
        + "torchrun|srun]\" >&2\n    exit 2\n    ;;\nesac\n";
    return out;
}

std::string exportSbatch(const EstimateInput& in, Strategy s, const PlanIdentity& id)
{
    const ClusterSpec& c = in.cluster;
    const bool native = in.framework.framework == Framework::Native;
    // The native runner is one task per rank and reads Slurm's own variables; the frameworks' programs
    // expect torchrun's, so a torchrun per node starts their ranks.
    const int tasksPerNode = native ? c.gpusPerNode : 1;
    const std::string gpus = std::to_string(c.gpusPerNode);
    std::string out = "#!/bin/bash\n";
    out += "#SBATCH --job-name=" + jobName(in.model.id, s) + "\n";
    out += "#SBATCH --nodes=" + std::to_string(c.nodes) + "\n";
    out += "#SBATCH --ntasks-per-node=" + std::to_string(tasksPerNode) + "\n";
    out += "#SBATCH --gpus-per-node=" + gpus + "\n";
    out += "#SBATCH --exclusive\n";
    out += "#SBATCH --output=shardwise-%j.out\n";
    out += header("# ", id, std::string("Slurm batch script for ") + std::string(traits(in.framework.framework).label));
    out += "# sbatch shardwise.sbatch   (add --time, --partition and --account as your site requires)\n";
    out += "set -euo pipefail\n\n";
    out += "# The rendezvous: the allocation's first node, and a port from the job id (the rule Shardwise's\n";
    out += "# runners apply themselves under srun when MASTER_PORT is unset).\n";
    out += "export MASTER_ADDR=\"$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\"\n";
    out += "export MASTER_PORT=\"${MASTER_PORT:-$((15000 + SLURM_JOB_ID % 20000))}\"\n\n";
    out += "# NCCL settings are your cluster's: set what your site documents, for example\n";
    out += "# export NCCL_SOCKET_IFNAME=ib0\n# export NCCL_IB_HCA=mlx5\n# export NCCL_DEBUG=WARN\n\n";
    if (native) {
        out += "# One task per GPU, each one rank (RANK, WORLD_SIZE and LOCAL_RANK from SLURM_PROCID, SLURM_NTASKS "
               "and\n";
        out += "# SLURM_LOCALID).\n";
        out += "srun --ntasks-per-node=" + gpus + " --gpus-per-node=" + gpus + " " + program(in, s) + "\n";
    } else {
        out += "# One task per node, each a torchrun starting that node's " + countOf(c.gpusPerNode, "rank") + ".\n";
        out += "srun --ntasks-per-node=1 --gpus-per-node=" + gpus + " "
            + torchrun(in, s, "\"$SLURM_NNODES\"", "\"$MASTER_ADDR:$MASTER_PORT\"", "\"$SLURM_JOB_ID\"") + "\n";
    }
    return out;
}

} // namespace shardwise::frameworks::detail
