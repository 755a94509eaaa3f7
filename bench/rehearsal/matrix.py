#!/usr/bin/env python3
"""Writes the world-rehearsal matrix (bench/rehearsal/matrix.tsv): one rank of world W rehearsed on one
GPU, for both backends, in the order the cells run, so a budget cut short still leaves every model at
the common worlds first.

  bench/rehearsal/matrix.py > bench/rehearsal/matrix.tsv

Columns: backend model strategy world seq micro_batch precision checkpointing expandable.
`model` is a preset id or a model JSON under bench/rehearsal/ (llama-3.2-1b.json).
"""

NATIVE = ["zero0", "zero1", "zero2", "zero3", "fsdp2_noreshard", "fsdp2_reshard", "zero2_offload",
          "zero3_offload", "fsdp2_reshard_offload"]
TORCH = ["zero0", "fsdp2_noreshard", "fsdp2_reshard", "fsdp2_reshard_offload"]
MODELS = ["qwen2.5-0.5b", "bench/rehearsal/llama-3.2-1b.json", "qwen2.5-3b", "llama-3.1-8b"]
# Parameters (preset JSON arithmetic) to keep offload cells inside a 125 GiB host: the host holds
# about 14 bytes a parameter per rank (fp32 master, moments, gradient staging) for zero3_offload.
PARAMS_B = {"qwen2.5-0.5b": 0.49, "bench/rehearsal/llama-3.2-1b.json": 1.24, "qwen2.5-3b": 3.09,
            "llama-3.1-8b": 8.03}
OFFLOAD = {"zero2_offload", "zero3_offload", "fsdp2_reshard_offload"}
BASE = dict(seq=2048, micro_batch=1, precision="bf16", checkpointing="none", expandable=0)


def cell(backend, model, strategy, world, **over):
    c = dict(BASE, **over)
    return (backend, model, strategy, world, c["seq"], c["micro_batch"], c["precision"], c["checkpointing"],
            c["expandable"])


def host_fits(model, strategy, world):
    return strategy not in OFFLOAD or PARAMS_B[model] * 16 / world <= 64


def main():
    rows = []

    def grid(backend, strategies, worlds, models):
        for world in worlds:
            for model in models:
                for s in strategies:
                    if host_fits(model, s, world):
                        rows.append(cell(backend, model, s, world))

    def factors(backend, strategies, models):
        # One factor at a time around the base, at world 8.
        for model in models:
            for s in strategies:
                for over in (dict(seq=4096), dict(seq=8192), dict(micro_batch=4), dict(precision="bf16-fp32-master"),
                             dict(checkpointing="full"), dict(checkpointing="selective"), dict(expandable=1),
                             dict(checkpointing="full", seq=8192, micro_batch=4)):
                    rows.append(cell(backend, model, s, 8, **over))

    big = ["qwen2.5-3b", "llama-3.1-8b"]
    # PyTorch itself first: the framework target's fit decides the worst error a plan can make.
    for world in (4, 16, 64, 1):
        for model in MODELS:
            rows.append(cell("torch", model, "fsdp2_reshard", world))
    for over in (dict(seq=8192), dict(precision="bf16-fp32-master"), dict(checkpointing="full"),
                 dict(checkpointing="selective"), dict(expandable=1), dict(micro_batch=4)):
        rows.append(cell("torch", "qwen2.5-3b", "fsdp2_reshard", 8, **over))
    for model in MODELS:
        rows.append(cell("torch", model, "fsdp2_noreshard", 8))
    rows.append(cell("torch", "qwen2.5-3b", "zero0", 8))
    rows.append(cell("torch", "llama-3.1-8b", "fsdp2_reshard_offload", 8))
    rows.append(cell("torch", "qwen2.5-3b", "fsdp2_reshard_offload", 8))
    for over in (dict(seq=8192), dict(precision="bf16-fp32-master"), dict(checkpointing="full"), dict(expandable=1)):
        rows.append(cell("torch", "llama-3.1-8b", "fsdp2_reshard", 8, **over))
    # Priority order: world 8 natively, PyTorch itself at worlds 8 and 1, the native runner at world 64
    # and one factor at a time (world 1 of the native runner is the fidelity bench's own matrix, so its
    # other worlds come last), then the rest of PyTorch's grid.
    grid("native", NATIVE, (8,), MODELS)
    grid("torch", TORCH, (8, 1), big)
    grid("native", NATIVE, (64,), MODELS)
    factors("native", ["zero2", "zero3", "fsdp2_reshard", "zero3_offload"], big)
    factors("torch", ["fsdp2_reshard", "zero0"], big)
    grid("torch", TORCH, (64, 2, 4, 16), big)
    grid("torch", TORCH, (8, 1, 64, 2, 4, 16), MODELS[:2])
    grid("native", NATIVE, (2, 4, 16, 1), MODELS)
    print("# backend\tmodel\tstrategy\tworld\tseq\tmicro_batch\tprecision\tcheckpointing\texpandable")
    for r in rows:
        print("\t".join(str(x) for x in r))


if __name__ == "__main__":
    main()
