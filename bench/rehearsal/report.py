#!/usr/bin/env python3
"""Predicted against measured for the world-rehearsal matrix: reads the cells bench/rehearsal/run.py
kept, asks `shardwise-cli plan --format json` for every cell's prediction on each target that applies,
and writes a Markdown report and a TSV of every cell.

  bench/rehearsal/report.py --cli build/ci/bin/shardwise-cli --gpu h100-80gb --results DIR [--results DIR2] \\
      --out bench/results/world-rehearsal-<commit> [--card "NVIDIA H100 80GB HBM3"] [--command "..."]

Per cell: the measured peak reserved and allocated (the allocator's peaks over the timed steps), and
for each target the plan's peak less its CUDA context (runtime_context), as a relative error against
the measured reserved bytes: (predicted - measured) / measured. The goal: within +-7 %, and never more
than 5 % under. Targets: the native runner's cells against `plan` (native); the torch backend's
(PyTorch DDP / fully_shard) against `plan --framework fsdp2` (the TSV's main columns) and
`--framework torchtitan` (its torchtitan_* columns). World W plans W GPUs as ceil(W/8) nodes of
min(W, 8).
"""

import argparse
import glob
import json
import math
import os
import subprocess
import sys

GIB = 2.0 ** 30
# The plan targets each backend's cells are predicted on, its own first: the native runner's against
# `plan`; PyTorch's fully_shard / DDP against `plan --framework fsdp2` and `--framework torchtitan`
# (torchtitan trains with the same fully_shard).
TARGETS = {"native": ["native"], "torch": ["fsdp2", "torchtitan"]}
COLUMNS = ["backend", "model", "strategy", "world", "seq", "micro_batch", "precision", "checkpointing",
           "expandable"]


def read_cells(results):
    cells = []
    for d in results:
        manifest = os.path.join(d, "manifest.tsv")
        with open(manifest, encoding="utf-8") as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                parts = line.rstrip("\n").split("\t")
                c = dict(zip(["key"] + COLUMNS + ["outcome", "exit_code", "seconds"], parts))
                c["events"] = os.path.join(d, "cells", c["key"] + ".jsonl")
                cells.append(c)
    return cells


def measured(c):
    summary, error = None, None
    try:
        with open(c["events"], encoding="utf-8") as f:
            for line in f:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                if e.get("event") == "summary":
                    summary = e
                elif e.get("event") == "error":
                    error = e
    except OSError:
        pass
    return summary, error


def plan_args(c, gpu, framework):
    w = int(c["world"])
    per_node = min(w, 8)
    nodes = math.ceil(w / per_node)
    model = c["model"]
    args = ["plan", "--model", model, "--gpu", gpu, "--gpus-per-node", str(per_node), "--nodes", str(nodes),
            "--seq", c["seq"], "--micro-batch", c["micro_batch"], "--precision", c["precision"], "--format", "json"]
    if c["checkpointing"] != "none":
        args += ["--checkpointing-policy", c["checkpointing"]]
    else:
        args += ["--checkpointing-policy", "none"]
    if c["expandable"] == "1":
        args += ["--expandable-segments"]
    if framework:
        args += ["--framework", framework]
    return args


_plans = {}


def prediction(cli, c, gpu, framework, root):
    args = plan_args(c, gpu, framework)
    key = tuple(args)
    if key not in _plans:
        r = subprocess.run([cli] + args, capture_output=True, text=True, cwd=root)
        _plans[key] = json.loads(r.stdout) if r.returncode == 0 else {"error": r.stderr.strip()[:200]}
    plan = _plans[key]
    if "error" in plan:
        return None, plan["error"]
    for cand in plan.get("candidates", []):
        if cand.get("strategy") == c["strategy"]:
            if cand.get("supported") is False:
                return None, "not supported by the target"
            ctx = cand["breakdown_gib"].get("runtime_context", 0.0)
            return {"peak_gib": cand["peak_gib"], "less_context_gib": cand["peak_gib"] - ctx,
                    "fits": cand["fits"], "capacity_gib": cand.get("capacity_gib"),
                    "breakdown": cand["breakdown_gib"]}, None
    return None, "no candidate %s in the plan" % c["strategy"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", required=True)
    p.add_argument("--gpu", required=True)
    p.add_argument("--results", action="append", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--card", default="")
    p.add_argument("--command", default="")
    args = p.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    rows = []
    for c in read_cells(args.results):
        summary, error = measured(c)
        row = dict(c)
        if summary:
            m = summary["memory"]
            row["reserved_gib"] = m["peak_reserved"] / GIB
            row["allocated_gib"] = m["peak_allocated"] / GIB
            row["compute_step_s"] = summary["median_step_s"]
            row["rehearsed_world"] = summary.get("rehearsed_world")
            row["outcome"] = "ok"
        elif error:
            row["outcome"] = error.get("kind", "error")
            row["error"] = error.get("message", "")[:160]
        else:
            row["outcome"] = "no events"
        row["targets"] = {}
        for target in TARGETS[c["backend"]]:
            framework = None if target == "native" else target
            pred, why = prediction(os.path.abspath(args.cli), c, args.gpu, framework, root)
            t = {"pred": pred, "why": why}
            if summary and pred:
                t["err"] = (pred["less_context_gib"] - row["reserved_gib"]) / row["reserved_gib"]
                t["err_alloc"] = (pred["less_context_gib"] - row["allocated_gib"]) / row["allocated_gib"]
            row["targets"][target] = t
        # The backend's own target (native: plan; torch: plan --framework fsdp2) is the TSV's main columns.
        main_target = row["targets"][TARGETS[c["backend"]][0]]
        row["pred"], row["why"] = main_target["pred"], main_target["why"]
        if "err" in main_target:
            row["err"], row["err_alloc"] = main_target["err"], main_target["err_alloc"]
        rows.append(row)

    os.makedirs(os.path.dirname(os.path.abspath(args.out)) or ".", exist_ok=True)
    other = sorted({t for ts in TARGETS.values() for t in ts[1:]})
    with open(args.out + ".tsv", "w", encoding="utf-8") as f:
        f.write("\t".join(COLUMNS + ["outcome", "reserved_gib", "allocated_gib", "predicted_less_context_gib",
                                     "error_vs_reserved", "predicted_fits", "compute_step_s"]
                          + ["%s_%s" % (t, k) for t in other for k in ("predicted_less_context_gib",
                                                                      "error_vs_reserved")]) + "\n")
        for r in rows:
            extra = []
            for t in other:
                x = r["targets"].get(t)
                extra.append("%.3f" % x["pred"]["less_context_gib"] if x and x["pred"] else "")
                extra.append("%.4f" % x["err"] if x and "err" in x else "")
            f.write("\t".join([r[k] for k in COLUMNS] + [
                r["outcome"], "%.3f" % r["reserved_gib"] if "reserved_gib" in r else "",
                "%.3f" % r["allocated_gib"] if "allocated_gib" in r else "",
                "%.3f" % r["pred"]["less_context_gib"] if r["pred"] else "",
                "%.4f" % r["err"] if "err" in r else "",
                str(r["pred"]["fits"]).lower() if r["pred"] else "",
                "%.4f" % r["compute_step_s"] if "compute_step_s" in r else ""] + extra) + "\n")
    print_report(rows, args)


def verdict(err):
    if err is None:
        return ""
    if err < -0.05:
        return "UNDER"
    if abs(err) > 0.07:
        return "off"
    return "ok"


def print_report(rows, args):
    out = []
    out.append("# One rank of world N rehearsed on one GPU: predicted against measured\n")
    if args.card:
        out.append("Card: %s. " % args.card)
    if args.command:
        out.append("Command: `%s`.\n" % args.command)
    for backend, target in [(b, t) for b, ts in TARGETS.items() for t in ts]:
        sel = []
        for r in rows:
            if r["backend"] != backend:
                continue
            x = {k: v for k, v in r.items() if k not in ("err", "err_alloc")}
            x.update(r["targets"][target])
            sel.append(x)
        if not sel:
            continue
        target = "plan (native runner)" if target == "native" else "plan --framework " + target
        with_err = [r for r in sel if "err" in r]
        ok = [r for r in with_err if verdict(r["err"]) == "ok"]
        under = [r for r in with_err if verdict(r["err"]) == "UNDER"]
        out.append("\n## %s backend against %s\n" % (backend, target))
        if with_err:
            errs = sorted(abs(r["err"]) for r in with_err)
            out.append("%d cells measured and predicted: %d within the goal, %d more than 5 %% under, "
                       "median |error| %.1f %%, worst %.1f %%.\n" % (
                           len(with_err), len(ok), len(under), 100 * errs[len(errs) // 2], 100 * errs[-1]))
        oom = [r for r in sel if r["outcome"] == "oom"]
        if oom:
            wrong = [r for r in oom if r["pred"] and r["pred"]["fits"]]
            out.append("%d cells ran out of memory; the plan said 'fits' for %d of them.\n" % (len(oom), len(wrong)))
        # Two more figures per cell: the plan's peak less context against the allocated peak (what the
        # fit verdict stands on: the caching allocator frees its cache and retries before it reports out
        # of memory), and, for the native runner, the plan's nvidia-smi figure (that peak plus its
        # `fragmentation` part, the cache it expects) against the reserved peak.
        alloc = [r for r in sel if "err_alloc" in r]
        if alloc:
            ea = sorted(abs(r["err_alloc"]) for r in alloc)
            out.append("Against the allocated peak: %d of %d within +-5 %%, %d more than 5 %% under, median |error| "
                       "%.1f %%, worst %.1f %%.\n" % (
                           sum(1 for r in alloc if abs(r["err_alloc"]) <= 0.05),
                           len(alloc), sum(1 for r in alloc if r["err_alloc"] < -0.05), 100 * ea[len(ea) // 2],
                           100 * ea[-1]))
        smi = []
        for r in sel:
            if r["pred"] and "reserved_gib" in r and backend == "native":
                r["err_smi"] = (r["pred"]["less_context_gib"] + r["pred"]["breakdown"].get("fragmentation", 0.0)
                                - r["reserved_gib"]) / r["reserved_gib"]
                smi.append(r)
        if smi:
            es = sorted(abs(r["err_smi"]) for r in smi)
            out.append("The plan's nvidia-smi figure (peak less context + its fragmentation part) against the reserved "
                       "peak: %d of %d within -5..+7 %%, %d more than 5 %% under, median |error| %.1f %%.\n" % (
                           sum(1 for r in smi if verdict(r["err_smi"]) == "ok"), len(smi),
                           sum(1 for r in smi if r["err_smi"] < -0.05), 100 * es[len(es) // 2]))
        out.append("| model | strategy | W | seq | B | precision | ckpt | exp.seg | reserved GiB | allocated GiB | "
                   "predicted GiB | error | verdict | error vs allocated |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in sel:
            model = os.path.basename(r["model"])[:-5] if r["model"].endswith(".json") else r["model"]
            if r["outcome"] == "ok":
                res, al = "%.2f" % r["reserved_gib"], "%.2f" % r["allocated_gib"]
            else:
                res, al = r["outcome"], ""
            pr = "%.2f" % r["pred"]["less_context_gib"] if r["pred"] else (r["why"] or "")
            err = "%+.1f %%" % (100 * r["err"]) if "err" in r else ""
            v = verdict(r.get("err"))
            if r["outcome"] == "oom" and r["pred"]:
                v = "fits?" if r["pred"]["fits"] else "oom predicted"
            ea = "%+.1f %%" % (100 * r["err_alloc"]) if "err_alloc" in r else ""
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                model, r["strategy"], r["world"], r["seq"], r["micro_batch"], r["precision"], r["checkpointing"],
                "on" if r["expandable"] == "1" else "off", res, al, pr, err, v, ea))
    with open(args.out + ".md", "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out[:12]))


if __name__ == "__main__":
    sys.exit(main())
