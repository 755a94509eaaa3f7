#!/usr/bin/env python3
"""Turns one `bench/gpu.sh scale` call into the multi-GPU scaling table: per model, strategy,
precision and world size W, tokens/s (the whole world's and per GPU), scaling (tokens/s per GPU at W
over W=1, both from the same call), peak allocated / reserved (the largest of any rank), NCCL share
and exposed communication (rank 0), beside the planner's predictions when given; and the probe's
collective bus bandwidths per W. Writes PREFIX.md and PREFIX.json. Standard library only.

usage: scaling_table.py RESULTS_DIR [RESULTS_DIR ..] [--out PREFIX] [--predictions FIDELITY.json ..]
                        [--commit SHA] [--command CMD]

RESULTS_DIR holds runner_<model>_<strategy>_<precision>_w<W>_r<R>.jsonl (one file per rank),
probe_w<W>_r<R>.jsonl, device.txt and scale_manifest.tsv as bench/gpu.sh scale writes them; the
model, strategy, precision and W are read from each file's start event, not from its name.
Several folders (one call per model, say) make one table; each run's W=1 baseline is looked up among
all of them. --predictions (may repeat) is `shardwise-bench-fidelity analyze`'s JSON for the same
folders (world-1 cells under "cells", W > 1 under "multi_gpu_cells").
"""
import argparse
import json
import pathlib

GIB = 2 ** 30
# Issue 9: tokens/s per GPU at 4 GPUs >= 90 % of one GPU's for these strategies.
TARGET_STRATEGIES = ("zero1", "zero2", "fsdp2_noreshard")
TARGET_WORLD = 4
TARGET_SCALING = 0.90
STRATEGY_ORDER = ["zero0", "zero1", "zero2", "zero3", "fsdp2_noreshard", "fsdp2_reshard", "zero2_offload",
                  "zero3_offload", "fsdp2_reshard_offload"]
COLLECTIVES = ("all_gather", "reduce_scatter", "all_reduce")


def events(path):
    for line in path.read_text(errors="replace").splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            continue


def read_rank_file(path):
    """The start, summary and first error event of one rank's file (None where absent)."""
    start = summary = error = None
    for e in events(path):
        kind = e.get("event")
        if kind == "start" and start is None:
            start = e
        elif kind == "summary" and summary is None:
            summary = e
        elif kind == "error" and error is None:
            error = e
    return start, summary, error


def read_runs(dirs):
    """One entry per run: its rank files merged, keyed by (model, strategy, precision, seq, W, folder)."""
    ranks = {}
    for call, path in ((i, p) for i, res in enumerate(dirs) for p in sorted(res.glob("runner_*.jsonl"))):
        start, summary, error = read_rank_file(path)
        if start is None:
            continue
        cfg = start["config"]
        key = (cfg["model"]["id"], cfg["strategy"], cfg["training"]["precision"], cfg["training"]["seq_len"],
               start.get("world", 1), call)
        ranks.setdefault(key, []).append({"rank": start.get("rank", 0), "file": path.name, "summary": summary,
                                          "error": error})
    runs = {}
    for key, files in ranks.items():
        files.sort(key=lambda f: f["rank"])
        world = key[4]
        rank0 = files[0] if files[0]["rank"] == 0 else None
        run = {"model": key[0], "strategy": key[1], "precision": key[2], "seq": key[3], "world": world,
               "folder": str(dirs[key[5]]),
               "ranks_read": len(files), "file": rank0["file"] if rank0 else files[0]["file"]}
        errors = [f for f in files if f["error"]]
        complete = rank0 is not None and len(files) == world and all(f["summary"] for f in files)
        if complete:
            s = rank0["summary"]
            run.update(tokens_per_s=s["tokens_per_s"], tokens_per_s_per_gpu=s["tokens_per_s"] / world,
                       median_step_s=s["median_step_s"], timed_steps=s["timed_steps"],
                       nccl_share=s["nccl_share"], exposed_comm_share=s["exposed_comm_share"],
                       peak_allocated_gib=max(f["summary"]["memory"]["peak_allocated"] for f in files) / GIB,
                       peak_reserved_gib=max(f["summary"]["memory"]["peak_reserved"] for f in files) / GIB)
        else:
            # The first error in time on any rank is the cause; the others' are its echoes.
            first = min(errors, key=lambda f: f["error"].get("time", 0)) if errors else None
            run["failure"] = (f"rank {first['rank']} {first['error'].get('kind', 'error')}: {first['error'].get('message', '')}"
                              if first else
                              f"{len(files)} of {world} rank files, {sum(1 for f in files if f['summary'])} with a summary")
        runs[key] = run
    return runs


def read_manifest(dirs):
    """(model, strategy, precision, W) -> how each launch ended (completed, timeout, skipped_budget ..)."""
    out = {}
    lines = [(call, line) for call, res in enumerate(dirs) if (res / "scale_manifest.tsv").exists()
             for line in (res / "scale_manifest.tsv").read_text().splitlines()]
    for call, line in lines:
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        if len(f) >= 5:
            out[(pathlib.Path(f[0]).name.removesuffix(".json"), f[1], f[2], int(f[3]), call)] = {
                "outcome": f[4], "exit_code": f[5] if len(f) > 5 else "", "seconds": f[6] if len(f) > 6 else ""}
    return out


def read_probes(dirs):
    """Rank 0's probe event per W and call: collective bus bandwidths (nccl-tests convention), matmul rate."""
    probes = []
    for path in (p for res in dirs for p in sorted(res.glob("probe_w*_r0.jsonl"))):
        for e in events(path):
            if e.get("event") != "probe":
                continue
            results = e.get("results", [])
            probes.append({
                "world": e.get("world", 1), "device": e.get("device_name", ""),
                "collectives": [{"kind": r["kind"], "bytes": r["bytes"], "bus_gbps": r["value"]}
                                for r in results if r["kind"] in COLLECTIVES],
                "matmul": [{"kind": r["kind"], "tflops": r["value"]} for r in results if r["kind"].startswith("matmul")],
            })
    probes.sort(key=lambda p: p["world"])
    return probes


def read_predictions(paths):
    """Rank 0's file name -> the planner's predictions for that cell (presets, and the calibrated ones)."""
    out = {}
    for path in paths or []:
        out.update(read_prediction_file(path))
    return out


def resolved(folder):
    """A results folder as both tools name it, whatever path led to it."""
    return str(pathlib.Path(folder).resolve())


def read_prediction_file(path):
    report = json.loads(pathlib.Path(path).read_text())
    out = {}
    # Leave one model out needs another model to fit on: with one model its fold starts from the
    # presets with the additive time terms at 0 and fits nothing, which is no prediction.
    several_models = len(report.get("folds") or []) > 1
    for c in report.get("cells") or []:
        out[(resolved(c["batch"]), c["file"])] = {"presets": c["presets"], "calibrated": c.get("calibrated") if several_models else None,
                          "calibrated_kind": "leave one model out"}
    for c in report.get("multi_gpu_cells") or []:
        out[(resolved(c["batch"]), c["file"])] = {"presets": c["presets"], "calibrated": c.get("calibrated_world1"),
                          "calibrated_kind": "fitted on world 1"}
    return out


def build_rows(runs, predictions, manifest):
    rows = []
    for key in sorted(runs, key=lambda k: (k[0], k[2], STRATEGY_ORDER.index(k[1]) if k[1] in STRATEGY_ORDER else 99,
                                           k[3], k[4], k[5])):
        run = dict(runs[key])
        # A run killed by its wall-clock limit wrote no error event: the manifest says what happened.
        launch = manifest.get((run["model"], run["strategy"], run["precision"], run["world"], key[5]))
        if "failure" in run and launch and launch["outcome"] == "timeout" and not run["failure"].startswith("rank "):
            run["failure"] = f"timeout: killed at the run's wall-clock limit after {launch['seconds']} s"
        # W=1 of the same call when it has one (same machine, same binary), else of another call.
        base = runs.get(key[:4] + (1, key[5]))
        if not base or "tokens_per_s" not in base:
            base = next((runs[k] for k in sorted(runs) if k[:5] == key[:4] + (1,) and "tokens_per_s" in runs[k]), base)
        if "tokens_per_s" in run and base and "tokens_per_s" in base:
            run["scaling"] = run["tokens_per_s_per_gpu"] / base["tokens_per_s_per_gpu"]
        if run["strategy"] in TARGET_STRATEGIES and run["world"] == TARGET_WORLD:
            run["scaling_target"] = TARGET_SCALING
            run["scaling_met"] = run.get("scaling", 0.0) >= TARGET_SCALING if "scaling" in run else None
        p = predictions.get((resolved(run["folder"]), run["file"]))
        if p:
            pre = p["presets"]
            run["planner_tokens_per_s"] = pre["predicted_tokens_per_s"]
            run["planner_peak_allocated_gib"] = pre["predicted_peak_allocated_gib"]
            run["planner_fits"] = pre["predicted_fits"]
            if p["calibrated"]:
                run["calibrated_tokens_per_s"] = p["calibrated"]["predicted_tokens_per_s"]
                run["calibrated_kind"] = p["calibrated_kind"]
            pbase = predictions.get((resolved(base["folder"]), base["file"])) if base else None
            if pbase and pbase["presets"]["predicted_tokens_per_s"] > 0:
                run["planner_scaling"] = (pre["predicted_tokens_per_s"] / run["world"]) / pbase["presets"]["predicted_tokens_per_s"]
        rows.append(run)
    return rows


def fmt(x, spec, missing="-"):
    return missing if x is None else format(x, spec)


def markdown(rows, skipped, probes, device, commit, command, with_predictions):
    out = ["# Multi-GPU scaling: shardwise-runner on W GPUs of one node", "",
           f"Commit measured: `{commit}`. Command (one call): `{command}`.", "",
           "Scaling = tokens/s per GPU at W over tokens/s at W=1, same model, strategy and call. Target "
           f"(issue 9): >= {TARGET_SCALING:.0%} for {', '.join(TARGET_STRATEGIES)} at W={TARGET_WORLD}. Peaks are the "
           "largest of any rank; NCCL share (communication kernels' time over the step, overlapped or not) and "
           "exposed communication (time compute waited for it, over the step) are rank 0's.", ""]
    if with_predictions:
        out += ["Planner: `shardwise-bench-fidelity analyze` on the same events, presets (uncalibrated); "
                "\"calibrated\" is leave one model out at W=1 and the fit on every W=1 cell at W > 1.", ""]
    out += ["Device facts:", "", "```", device.strip(), "```", ""]
    head = "| model | strategy | precision | seq | W | tokens/s | per GPU | scaling (target) | peak alloc GiB | peak reserved GiB | NCCL share | exposed comm |"
    rule = "|---|---|---|---|---|---|---|---|---|---|---|---|"
    if with_predictions:
        head += " planner tokens/s | calibrated tokens/s | planner scaling | planner peak GiB |"
        rule += "---|---|---|---|"
    out += [head, rule]
    for r in rows:
        if "tokens_per_s" in r:
            tps, per = f"{r['tokens_per_s']:,.0f}", f"{r['tokens_per_s_per_gpu']:,.0f}"
        else:
            tps, per = "failed: " + r["failure"].replace("|", "/")[:120], "-"
        sc = fmt(r.get("scaling"), ".1%")
        if "scaling_target" in r:
            verdict = "met" if r["scaling_met"] else "missed" if r["scaling_met"] is False else "not measured"
            sc += f" ({TARGET_SCALING:.0%} {verdict})"
        line = (f"| {r['model']} | {r['strategy']} | {r['precision']} | {r['seq']} | {r['world']} | {tps} | {per} | {sc} | "
                f"{fmt(r.get('peak_allocated_gib'), '.2f')} | {fmt(r.get('peak_reserved_gib'), '.2f')} | "
                f"{fmt(r.get('nccl_share'), '.3f')} | {fmt(r.get('exposed_comm_share'), '.3f')} |")
        if with_predictions:
            planner_tps = fmt(r.get("planner_tokens_per_s"), ",.0f")
            if r.get("planner_fits") is False:
                planner_tps += " (does not fit)"
            line += (f" {planner_tps} | {fmt(r.get('calibrated_tokens_per_s'), ',.0f')} | "
                     f"{fmt(r.get('planner_scaling'), '.1%')} | {fmt(r.get('planner_peak_allocated_gib'), '.2f')} |")
        out.append(line)
    if skipped:
        out += ["", "Not run (the call's budget or the machine's GPUs): " +
                ", ".join(f"{m} {s} {p} W={w} ({why})" for (m, s, p, w), why in sorted(skipped.items())), ""]
    out += ["", "## Collective bus bandwidths (`shardwise-runner --probe`, W ranks; nccl-tests convention)", ""]
    if probes:
        out += ["| W | collective | message MiB | bus GB/s |", "|---|---|---|---|"]
        for p in probes:
            for c in p["collectives"]:
                out.append(f"| {p['world']} | {c['kind']} | {c['bytes'] / 2 ** 20:.0f} | {c['bus_gbps']:.3g} |")
        out.append("")
        for p in probes:
            for mm in p["matmul"]:
                out.append(f"- W={p['world']}: rank 0 {mm['kind']} {mm['tflops']:.3g} TFLOP/s")
    else:
        out.append("No probe events.")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--out", default=None, help="output prefix (default the first RESULTS_DIR/scaling)")
    ap.add_argument("--predictions", action="append", default=[])
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--command", default="bench/gpu.sh scale")
    a = ap.parse_args()
    dirs = [pathlib.Path(r) for r in a.results]
    for res in dirs:
        if not res.is_dir():
            ap.error(f"results folder {res} does not exist")
    prefix = pathlib.Path(a.out) if a.out else dirs[0] / "scaling"
    prefix.parent.mkdir(parents=True, exist_ok=True)
    runs = read_runs(dirs)
    if not runs:
        ap.error("no runner_*.jsonl with a start event under " + ", ".join(map(str, dirs)))
    predictions = read_predictions(a.predictions)
    manifest = read_manifest(dirs)
    rows = build_rows(runs, predictions, manifest)
    measured = {(r["model"], r["strategy"], r["precision"], r["world"]) for r in rows}
    skipped = {k[:4]: v["outcome"] for k, v in manifest.items() if v["outcome"] == "skipped_budget" and k[:4] not in measured}
    probes = read_probes(dirs)
    device = "\n".join((f"{res}:\n" if len(dirs) > 1 else "") + (res / "device.txt").read_text().strip()
                       for res in dirs if (res / "device.txt").exists())
    report = {"commit": a.commit, "command": a.command, "device": device.strip().splitlines(),
              "target": {"strategies": list(TARGET_STRATEGIES), "world": TARGET_WORLD, "scaling": TARGET_SCALING},
              "runs": rows, "not_run": [{"model": m, "strategy": s, "precision": p, "world": w, "why": why}
                                        for (m, s, p, w), why in sorted(skipped.items())],
              "probes": probes}
    pathlib.Path(str(prefix) + ".json").write_text(json.dumps(report, indent=1) + "\n")
    md = markdown(rows, skipped, probes, device, a.commit, a.command, bool(predictions))
    pathlib.Path(str(prefix) + ".md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
