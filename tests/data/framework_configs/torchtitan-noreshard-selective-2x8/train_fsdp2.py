#!/usr/bin/env python3
# Shardwise plan: llama-3.1-8b on 16 x h200 (2 nodes x 8), fsdp2_noreshard, sequence 8192, micro-batch 2 x 2 accumulation, bf16-fp32-master, activation checkpointing selective, for torchtitan 0.2 + torch.compile
# Written by Shardwise; FSDP2 (torch.distributed.fsdp.fully_shard), PyTorch 2.11; start it with torchrun (the launch export)
import os

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import CPUOffloadPolicy, MixedPrecisionPolicy, fully_shard
from transformers import AutoModelForCausalLM

MODEL_PATH = os.environ.get("MODEL_PATH", "llama-3.1-8b")  # a Hugging Face checkpoint
MICRO_BATCH, SEQ_LEN, ACCUMULATION = 2, 8192, 2

dist.init_process_group("nccl")
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
model = AutoModelForCausalLM.from_pretrained(MODEL_PATH, torch_dtype=torch.float32)
VOCAB = model.config.vocab_size
model.gradient_checkpointing_enable()  # selective in the plan: Transformers recomputes whole layers; torchtitan has the op policy
for layer in model.model.layers:
    layer.compile()  # torch.compile each decoder layer
mesh = init_device_mesh("cuda", (dist.get_world_size(),))
mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
for layer in model.model.layers:
    fully_shard(layer, mesh=mesh, reshard_after_forward=False, mp_policy=mp)
fully_shard(model, mesh=mesh, reshard_after_forward=False, mp_policy=mp)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)


def batches():
    while True:  # replace with your data loader
        yield torch.randint(0, VOCAB, (MICRO_BATCH, SEQ_LEN), device="cuda")


data = batches()
for step in range(100):
    for micro in range(ACCUMULATION):
        model.set_requires_gradient_sync(micro == ACCUMULATION - 1)
        tokens = next(data)
        loss = model(input_ids=tokens, labels=tokens).loss / ACCUMULATION
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad()
dist.destroy_process_group()
