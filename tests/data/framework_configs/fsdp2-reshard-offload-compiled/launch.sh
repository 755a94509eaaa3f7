#!/usr/bin/env bash
# Shardwise plan: llama-3.1-8b on 4 x h100-80gb (1 node x 4), fsdp2_reshard_offload, sequence 8192, micro-batch 1 x 1 accumulation, bf16, activation checkpointing full, for PyTorch FSDP2 2.11 + torch.compile
# Written by Shardwise; launch lines for PyTorch FSDP2
# bash launch.sh [accelerate|torchrun|srun]: one way to start the 4 ranks.
set -euo pipefail
HEAD_NODE=${HEAD_NODE:-localhost}  # the first node's address
PORT=${PORT:-29500}
# accelerate: train.py is your training script. It must create accelerate.Accelerator() and pass the
# model, optimizer and data loader through accelerator.prepare(...) (or be a Hugging Face Trainer
# script); only then do accelerate.yaml's FSDP settings apply. train_fsdp2.py (the fsdp2-python
# export) creates no Accelerator: it shards with fully_shard itself, so start it with torchrun or srun.

case "${1:-accelerate}" in
accelerate)
    # accelerate launch on every node, NODE_RANK 0..0
    ACCELERATE_GRADIENT_ACCUMULATION_STEPS=1 accelerate launch --config_file accelerate.yaml --machine_rank "${NODE_RANK:-0}" --main_process_ip "$HEAD_NODE" --main_process_port "$PORT" train.py
    ;;
torchrun)
    # The same line on every node; the rendezvous assigns the ranks.
    torchrun --nnodes 1 --nproc-per-node 4 --rdzv-backend c10d --rdzv-endpoint "$HEAD_NODE:$PORT" --rdzv-id shardwise train_fsdp2.py
    ;;
srun)
    # Slurm, inside an allocation of 1 node: one task per node, each starting torchrun.
    srun --nodes 1 --ntasks-per-node 1 --gpus-per-node 4 bash -c 'torchrun --nnodes "$SLURM_NNODES" --nproc-per-node 4 --rdzv-backend c10d --rdzv-endpoint "$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1):29500" --rdzv-id "$SLURM_JOB_ID" train_fsdp2.py'
    ;;
*)
    echo "usage: $0 [accelerate|torchrun|srun]" >&2
    exit 2
    ;;
esac
