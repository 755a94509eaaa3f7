#!/usr/bin/env python3
"""Table of bench/graphs/run.sh: for each cell, eager against --cuda-graphs from the same call.

Reads DIR/<model>__<strategy>__<seq>__<eager|graphs>.jsonl (runner events) and prints Markdown:
tokens/s of both, the ratio graphs / eager, peak allocated GiB of both, and how far apart the losses
of every step (warm-up included) are: "identical" when bit for bit, else the largest difference.
Eager runs are themselves bit-reproducible only where no kernel accumulates with atomics in a varying
order (on the H200, Qwen2.5 at 1024 tokens: bench/results/fidelity-data-cbe1bee's repeated runs);
there a captured step must give identical losses. Exit status 1 when a run has no summary.
"""
import json
import os
import sys
from collections import defaultdict


def summary(path):
    try:
        with open(path) as f:
            for line in f:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                if e.get("event") == "summary":
                    return e
    except OSError:
        return None
    return None


def main():
    folder = sys.argv[1]
    cells = defaultdict(dict)
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".jsonl"):
            continue
        parts = name[: -len(".jsonl")].split("__")
        if len(parts) != 4:
            continue
        model, strategy, seq, mode = parts
        cells[(model, int(seq), strategy)][mode] = summary(os.path.join(folder, name))
    gib = 1024.0 ** 3
    bad = 0
    print("| model | seq | strategy | eager tok/s | graphs tok/s | graphs / eager | eager peak GiB | graphs peak GiB | losses |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (model, seq, strategy), runs in sorted(cells.items()):
        e, g = runs.get("eager"), runs.get("graphs")
        if not e or not g:
            bad += 1
            print(f"| {model} | {seq} | {strategy} | {'-' if not e else round(e['tokens_per_s'])} | "
                  f"{'-' if not g else round(g['tokens_per_s'])} | no pair | | | |")
            continue
        same = e["losses"] == g["losses"]
        apart = max((abs(a - b) for a, b in zip(e["losses"], g["losses"])), default=0.0)
        print(f"| {model} | {seq} | {strategy} | {e['tokens_per_s']:,.0f} | {g['tokens_per_s']:,.0f} | "
              f"{g['tokens_per_s'] / e['tokens_per_s']:.2f}x | {e['memory']['peak_allocated'] / gib:.2f} | "
              f"{g['memory']['peak_allocated'] / gib:.2f} | {'identical' if same else f'max diff {apart:.4f}'} |")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
