#!/usr/bin/env python3
"""Fits the framework targets' memory coefficients (core/estimate calibration.hpp: eager activation
scale, eager logits bytes per element, eager fragmentation fraction and constant, eager headroom) to
rehearsed cells of the torch backend, and judges the fit leave-one-model-out.

  bench/rehearsal/fit_framework_memory.py --cli build/ci/bin/shardwise-cli --gpu h100-80gb \\
      --results bench/results/world-rehearsal-torch-h100 [--activation-scale 0.969] [--logits-bytes 12.03]

--activation-scale and --logits-bytes are the values the CLI was built with: the plan's breakdown is
divided by them to get the counted bytes the fit scales. Model, per cell whose predicted peak lies at
the start of backward:
  allocated = state + gathered + reduce buffers + workspace + a x activations + l x logits
  reserved  = (1 + f) x allocated + c
a and l are fitted to the measured peak allocated bytes, f and c to the peak reserved bytes (least
squares). Leave-one-model-out: each model's cells are predicted by the fit to the other models. The
headroom is the worst leave-one-model-out under-prediction of the reserved bytes, u, as 1 - 1/(1 + u).
Prints the coefficients and a Markdown table of the held-out predictions. Needs numpy.
"""

import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np

GIB = 2.0 ** 30
COLUMNS = ["backend", "model", "strategy", "world", "seq", "micro_batch", "precision", "checkpointing",
           "expandable"]


def cells(results):
    out = []
    for d in results:
        with open(os.path.join(d, "manifest.tsv"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                parts = line.rstrip("\n").split("\t")
                c = dict(zip(["key"] + COLUMNS, parts))
                if c["backend"] != "torch":
                    continue
                summary = None
                with open(os.path.join(d, "cells", c["key"] + ".jsonl"), encoding="utf-8") as ev:
                    for l in ev:
                        try:
                            e = json.loads(l)
                        except ValueError:
                            continue
                        if e.get("event") == "summary":
                            summary = e
                if summary:
                    c["alloc"] = summary["memory"]["peak_allocated"] / GIB
                    c["res"] = summary["memory"]["peak_reserved"] / GIB
                    out.append(c)
    # One cell per configuration (a matrix may list one twice).
    seen, unique = set(), []
    for c in out:
        k = tuple(c[x] for x in COLUMNS)
        if k not in seen:
            seen.add(k)
            unique.append(c)
    return unique


def breakdown(cli, c, gpu, root):
    w = int(c["world"])
    per = min(w, 8)
    args = [cli, "plan", "--model", c["model"], "--gpu", gpu, "--gpus-per-node", str(per), "--nodes",
            str(math.ceil(w / per)), "--seq", c["seq"], "--micro-batch", c["micro_batch"], "--precision",
            c["precision"], "--checkpointing-policy", c["checkpointing"], "--framework", "fsdp2", "--format", "json"]
    if c["expandable"] == "1":
        args.append("--expandable-segments")
    plan = json.loads(subprocess.run(args, capture_output=True, text=True, check=True, cwd=root).stdout)
    return next(x for x in plan["candidates"] if x["strategy"] == c["strategy"])["breakdown_gib"]


def fit(rows):
    X = np.array([[r["A"], r["L"]] for r in rows])
    y = np.array([r["alloc"] - r["fixed"] for r in rows])
    (a, l), *_ = np.linalg.lstsq(X, y, rcond=None)
    ap = np.array([r["fixed"] + a * r["A"] + l * r["L"] for r in rows])
    X2 = np.stack([ap, np.ones(len(rows))], axis=1)
    (k, c), *_ = np.linalg.lstsq(X2, np.array([r["res"] for r in rows]), rcond=None)
    return a, l, k - 1.0, c


def predict(p, r):
    a, l, f, c = p
    alloc = r["fixed"] + a * r["A"] + l * r["L"]
    return alloc, (1.0 + f) * alloc + c


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", required=True)
    p.add_argument("--gpu", required=True)
    p.add_argument("--results", action="append", required=True)
    p.add_argument("--activation-scale", type=float, default=0.969)
    p.add_argument("--logits-bytes", type=float, default=12.03)
    args = p.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rows = []
    for c in cells(args.results):
        b = breakdown(os.path.abspath(args.cli), c, args.gpu, root)
        if b["activations"] == 0:  # the plan puts its peak in the optimizer step: not this model's
            continue
        c["A"] = b["activations"] / args.activation_scale
        c["L"] = b["logits_and_loss"] / (args.logits_bytes)
        c["fixed"] = (b["device_params"] + b["device_grads"] + b["device_optimizer"] + b["gathered_params"]
                      + b["comm_buffers"] + b.get("workspace", 0.0))
        rows.append(c)
    a, l, f, c = fit(rows)
    print("all cells (%d): eager_activation_bytes_scale %.3f, eager_logits_bytes_per_element %.2f, "
          "eager_fragmentation_fraction %.3f, eager_fragmentation_gib %.2f" % (len(rows), a, l, f, c))
    errors = []
    print("\n| held-out model | strategy | W | seq | B | precision | ckpt | exp.seg | reserved GiB | predicted GiB | error |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for m in sorted(set(r["model"] for r in rows)):
        train = [r for r in rows if r["model"] != m]
        fold = fit(train)
        for r in (r for r in rows if r["model"] == m):
            _, res = predict(fold, r)
            e = (res - r["res"]) / r["res"]
            errors.append(e)
            name = os.path.basename(m)[:-5] if m.endswith(".json") else m
            print("| %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %+.1f %% |" % (
                name, r["strategy"], r["world"], r["seq"], r["micro_batch"], r["precision"], r["checkpointing"],
                "on" if r["expandable"] == "1" else "off", r["res"], res, 100 * e))
    e = np.array(errors)
    under = -e.min()
    print("\nleave-one-model-out: %d of %d within the goal (-5 %% .. +7 %%), median |error| %.1f %%, "
          "worst under %.1f %%, worst over %.1f %%; headroom 1 - 1/(1 + %.3f) = %.3f" % (
              int(((e >= -0.05) & (e <= 0.07)).sum()), len(e), 100 * np.median(np.abs(e)), 100 * under,
              100 * e.max(), under, 1 - 1 / (1 + under)))


if __name__ == "__main__":
    sys.exit(main())
