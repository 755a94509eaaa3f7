#!/usr/bin/env bash
# Shardwise plan: tiny on 2 x l4 (1 node x 2), zero0, sequence 256, micro-batch 4 x 1 accumulation, bf16, activation checkpointing off, for Shardwise runner
# Written by Shardwise; launch lines for Shardwise runner
# bash launch.sh [torchrun|srun]: one way to start the 2 ranks.
set -euo pipefail
HEAD_NODE=${HEAD_NODE:-localhost}  # the first node's address
PORT=${PORT:-29500}

case "${1:-torchrun}" in
torchrun)
    # The same line on every node; the rendezvous assigns the ranks.
    torchrun --no-python --nnodes 1 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint "$HEAD_NODE:$PORT" --rdzv-id shardwise shardwise-runner --model tiny --strategy zero0 --device cuda --precision bf16 --seq 256 --micro-batch 4
    ;;
srun)
    # Slurm, inside an allocation of 1 node: one task per node, each starting torchrun.
    srun --nodes 1 --ntasks-per-node 1 --gpus-per-node 2 bash -c 'torchrun --no-python --nnodes "$SLURM_NNODES" --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint "$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1):29500" --rdzv-id "$SLURM_JOB_ID" shardwise-runner --model tiny --strategy zero0 --device cuda --precision bf16 --seq 256 --micro-batch 4'
    ;;
*)
    echo "usage: $0 [torchrun|srun]" >&2
    exit 2
    ;;
esac
