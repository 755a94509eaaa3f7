#!/usr/bin/env bash
# Shardwise plan: llama-3.1-8b on 16 x h200 (2 nodes x 8), fsdp2_noreshard, sequence 8192, micro-batch 2 x 2 accumulation, bf16-fp32-master, activation checkpointing selective, for torchtitan 0.2 + torch.compile
# Written by Shardwise; launch lines for torchtitan
# bash launch.sh [torchrun|srun]: one way to start the 16 ranks.
set -euo pipefail
HEAD_NODE=${HEAD_NODE:-node1}  # the first node's address
PORT=${PORT:-29500}

case "${1:-torchrun}" in
torchrun)
    # The same line on every node; the rendezvous assigns the ranks.
    torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint "$HEAD_NODE:$PORT" --rdzv-id shardwise -m torchtitan.train --job.config_file shardwise.toml
    ;;
srun)
    # Slurm, inside an allocation of 2 nodes: one task per node, each starting torchrun.
    srun --nodes 2 --ntasks-per-node 1 --gpus-per-node 8 bash -c 'torchrun --nnodes "$SLURM_NNODES" --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint "$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1):29500" --rdzv-id "$SLURM_JOB_ID" -m torchtitan.train --job.config_file shardwise.toml'
    ;;
*)
    echo "usage: $0 [torchrun|srun]" >&2
    exit 2
    ;;
esac
