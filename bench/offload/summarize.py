#!/usr/bin/env python3
"""Prints one line per runner event file under the given folders: the cell, its median timed step,
tokens/s and peak allocated GiB from the summary event (the figures the fidelity analyzer reads)."""
import json
import pathlib
import sys

for root in sys.argv[1:]:
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
            print(f"{f.relative_to(root)}\tno summary")
            continue
        staging = (start or {}).get("versions", {}).get("offload_staging", "")
        peak = summary.get("memory", {}).get("peak_allocated", 0) / 2**30
        print(f"{root}/{f.relative_to(root)}\t{summary.get('tokens_per_s', 0):,.0f} tokens/s\t"
              f"peak {peak:.2f} GiB\t{staging}")
