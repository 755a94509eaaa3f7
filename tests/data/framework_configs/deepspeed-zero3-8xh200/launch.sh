#!/usr/bin/env bash
# Shardwise plan: qwen2.5-7b on 8 x h200 (1 node x 8), zero3, sequence 4096, micro-batch 2 x 4 accumulation, bf16-fp32-master, activation checkpointing full, for DeepSpeed 0.16
# Written by Shardwise; launch lines for DeepSpeed
# bash launch.sh [deepspeed|torchrun|srun]: one way to start the 8 ranks.
set -euo pipefail
HEAD_NODE=${HEAD_NODE:-localhost}  # the first node's address
PORT=${PORT:-29500}
# train.py is your training script (Shardwise writes none for DeepSpeed). It takes DeepSpeed's own
# arguments, deepspeed.add_config_arguments(parser): --deepspeed (a flag) and --deepspeed_config FILE,
# and calls deepspeed.initialize(args=args, model=..., model_parameters=...). The deepspeed launcher
# also passes --local_rank=N. A Hugging Face Trainer script takes --deepspeed ds_config.json instead
# (an option with a value): write that in each case below for one.

case "${1:-deepspeed}" in
deepspeed)
    # The DeepSpeed launcher, once on the first node; it reaches every host of the hostfile over SSH.
    printf '%s\n' 'node1 slots=8' > hostfile
    deepspeed --hostfile hostfile --num_nodes 1 --num_gpus 8 --master_addr "$HEAD_NODE" --master_port "$PORT" train.py --deepspeed --deepspeed_config ds_config.json
    ;;
torchrun)
    # The same line on every node; the rendezvous assigns the ranks.
    torchrun --nnodes 1 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint "$HEAD_NODE:$PORT" --rdzv-id shardwise train.py --deepspeed --deepspeed_config ds_config.json
    ;;
srun)
    # Slurm, inside an allocation of 1 node: one task per node, each starting torchrun.
    srun --nodes 1 --ntasks-per-node 1 --gpus-per-node 8 bash -c 'torchrun --nnodes "$SLURM_NNODES" --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint "$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1):29500" --rdzv-id "$SLURM_JOB_ID" train.py --deepspeed --deepspeed_config ds_config.json'
    ;;
*)
    echo "usage: $0 [deepspeed|torchrun|srun]" >&2
    exit 2
    ;;
esac
