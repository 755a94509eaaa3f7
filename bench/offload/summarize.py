#!/usr/bin/env python3
"""Prints one line per runner event file under the given folders: the cell, its median timed step,
tokens/s and peak allocated GiB from the summary event (the figures the fidelity analyzer reads), the
step schedule and kernels its start event reports.

    bench/offload/summarize.py [--probe PROBE.jsonl] FOLDER...

With --probe (a `shardwise-runner --probe` event of the same call), each line also gives tokens/s as a
share of the probe's matmul limit: matmul_bf16 / (6 N + 12 L h s) FLOPs per token, N the model's
parameters, L its layers, h its hidden size, s the sequence (the 6N + 12Lhs count of the PaLM paper's
appendix B, which bench/README.md's speed figures use)."""
import json
import pathlib
import sys


def parameters(m):
    """Parameter count of a decoder from the start event's model config (runner/src/model_layout.cpp)."""
    h, hd, ffn = m["hidden"], m["head_dim"], m["ffn"]
    q, kv = m["heads"] * hd, m["kv_heads"] * hd
    layer = h * q + 2 * h * kv + q * h + 3 * h * ffn + 2 * h
    if m.get("qkv_bias"):
        layer += q + 2 * kv
    head = 0 if m.get("tied_embeddings") else m["vocab"] * h
    return m["layers"] * layer + m["vocab"] * h + head + h


def flops_per_token(start):
    c = start["config"]
    m = c["model"]
    return 6 * parameters(m) + 12 * m["layers"] * m["hidden"] * c["training"]["seq_len"]


def matmul_tflops(probe_file):
    for line in open(probe_file):
        e = json.loads(line)
        for r in e.get("results", []):
            if r.get("kind") == "matmul_bf16":
                return r["value"]
    return None


def main(argv):
    tflops = None
    if len(argv) >= 2 and argv[0] == "--probe":
        tflops = matmul_tflops(argv[1])
        argv = argv[2:]
    for root in argv:
        for f in sorted(pathlib.Path(root).rglob("*.jsonl")):
            summary, start = None, None
            for line in f.open():
                try:
                    e = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if e.get("event") == "summary":
                    summary = e
                elif e.get("event") == "start":
                    start = e
            if summary is None:
                print(f"{root}/{f.relative_to(root)}\tno summary")
                continue
            versions = (start or {}).get("versions", {})
            peak = summary.get("memory", {}).get("peak_allocated", 0) / 2**30
            tokens = summary.get("tokens_per_s", 0)
            share = ""
            if tflops and start:
                limit = tflops * 1e12 / flops_per_token(start)
                share = f"\t{100 * tokens / limit:.1f} % of the matmul limit {limit:,.0f}"
            print(f"{root}/{f.relative_to(root)}\t{tokens:,.0f} tokens/s\tpeak {peak:.2f} GiB{share}\t"
                  f"{versions.get('offload_staging', '')}\t{versions.get('kernels', '')}")


if __name__ == "__main__":
    main(sys.argv[1:])
