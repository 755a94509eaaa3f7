#!/usr/bin/env python3
# Shardwise plan: tiny on 2 x l4 (1 node x 2), zero0, sequence 256, micro-batch 4 x 1 accumulation, bf16, activation checkpointing off, for Shardwise runner
# Written by Shardwise; DDP, PyTorch 2.11; start it with torchrun (the launch export)
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import AutoModelForCausalLM

MODEL_PATH = os.environ.get("MODEL_PATH", "tiny")  # a Hugging Face checkpoint
MICRO_BATCH, SEQ_LEN, ACCUMULATION = 4, 256, 1

dist.init_process_group("nccl")
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
model = AutoModelForCausalLM.from_pretrained(MODEL_PATH, torch_dtype=torch.bfloat16)
VOCAB = model.config.vocab_size
model = DDP(model.cuda(), device_ids=[local_rank])
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)


def batches():
    while True:  # replace with your data loader
        yield torch.randint(0, VOCAB, (MICRO_BATCH, SEQ_LEN), device="cuda")


data = batches()
for step in range(100):
    for micro in range(ACCUMULATION):
        tokens = next(data)
        loss = model(input_ids=tokens, labels=tokens).loss / ACCUMULATION
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad()
dist.destroy_process_group()
