#!/usr/bin/env python3
"""Turns one bench/gpu.sh run (native runner and torch backend summaries, same call) into the results
table: h200.json (one object per strategy and precision, then the torch backend's own rows with
"backend": "torch") and h200.md. The reference a native row is compared with is the torch backend's
run of the matching PyTorch setup (DDP for the ZeRO stages) at the same precision, or a
reference_<mode>.json of an older call. Standard library only.

usage: results_table.py RESULTS_DIR [--out DIR] [--commit SHA] [--command CMD]
"""
import argparse
import json
import pathlib

# Strategy -> the reference mode it is compared with, and the speed-up the benchmark asks for.
TARGETS = {
    "zero0": ("ddp", 1.3), "zero1": ("ddp", 1.3), "zero2": ("ddp", 1.3), "zero3": ("ddp", 1.3),
    "fsdp2_noreshard": ("noreshard", 1.5), "fsdp2_reshard": ("reshard", 1.5),
    "zero2_offload": ("offload", 3.0), "zero3_offload": ("offload", 3.0), "fsdp2_reshard_offload": ("offload", 3.0),
}
GIB = 2 ** 30


def summary_of(path):
    for line in path.read_text().splitlines():
        if '"event":"summary"' in line:
            return json.loads(line)
    return None


def start_of(path):
    for line in path.read_text().splitlines():
        if '"event":"start"' in line:
            return json.loads(line)
    return None


def error_of(path):
    for line in path.read_text().splitlines():
        if '"event":"error"' in line:
            return json.loads(line)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--out", default=None)
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--command", default="bench/gpu.sh all")
    a = ap.parse_args()
    res = pathlib.Path(a.results)
    out = pathlib.Path(a.out) if a.out else res
    out.mkdir(parents=True, exist_ok=True)
    refs = {}
    for p in res.glob("reference_*.json"):
        text = p.read_text().strip()
        if text:
            r = json.loads(text.splitlines()[-1])
            refs[(r["mode"], "bf16")] = r
    torch_rows = []
    for p in sorted(res.glob("torch_*.jsonl")):
        strategy, precision = p.stem[len("torch_"):].rsplit("_", 1)
        s = summary_of(p)
        row = {"backend": "torch", "strategy": strategy, "precision": precision}
        if s is None:
            row["failure"] = (error_of(p) or {}).get("message", "no summary")
        else:
            start = start_of(p) or {}
            row.update(tokens_per_s=round(s["tokens_per_s"], 1),
                       peak_alloc_gib=round(s["memory"]["peak_allocated"] / GIB, 2),
                       peak_reserved_gib=round(s["memory"]["peak_reserved"] / GIB, 2),
                       median_step_s=s["median_step_s"], timed_steps=s["timed_steps"],
                       model_impl=start.get("versions", {}).get("model_impl", ""),
                       torch=start.get("versions", {}).get("torch", ""))
            if "phase_peak_allocated" in s:
                row["phase_peak_alloc_gib"] = {k: round(v / GIB, 2) for k, v in s["phase_peak_allocated"].items()}
            mode = TARGETS.get(strategy, (None,))[0]
            refs[(mode, precision)] = {"mode": mode, "tokens_per_s": s["tokens_per_s"],
                                      "peak_alloc_gib": s["memory"]["peak_allocated"] / GIB}
        torch_rows.append(row)
    rows = []
    for p in sorted(res.glob("runner_*.jsonl")):
        stem = p.stem[len("runner_"):]
        strategy, precision = stem.rsplit("_", 1)
        mode, target = TARGETS.get(strategy, (None, None))
        ref = refs.get((mode, precision), {})
        s = summary_of(p)
        row = {"strategy": strategy, "precision": "bf16" if precision == "bf16" else precision,
               "reference_mode": mode, "reference_tokens_per_s": ref.get("tokens_per_s"),
               "reference_peak_alloc_gib": ref.get("peak_alloc_gib")}
        if s is None:
            err = error_of(p)
            row.update(runner_tokens_per_s=None, runner_peak_alloc_gib=None,
                       failure=(err or {}).get("message", "no summary"))
        else:
            m = s["memory"]
            row.update(runner_tokens_per_s=round(s["tokens_per_s"], 1),
                       runner_peak_alloc_gib=round(m["peak_allocated"] / GIB, 2),
                       runner_peak_reserved_gib=round(m["peak_reserved"] / GIB, 2),
                       nccl_share=round(s["nccl_share"], 4), exposed_comm_share=round(s["exposed_comm_share"], 4),
                       median_step_s=s["median_step_s"], timed_steps=s["timed_steps"], warmup_steps=s["warmup_steps"])
            if "phase_peak_allocated" in s:
                row["runner_phase_peak_alloc_gib"] = {k: round(v / GIB, 2) for k, v in s["phase_peak_allocated"].items()}
            if row["reference_tokens_per_s"]:
                row["speedup"] = round(row["runner_tokens_per_s"] / row["reference_tokens_per_s"], 3)
                row["speedup_target"] = target
                if precision == "bf16":
                    row["speedup_met"] = row["speedup"] >= target
            if row["reference_peak_alloc_gib"] and precision == "bf16":
                row["memory_met"] = row["runner_peak_alloc_gib"] <= row["reference_peak_alloc_gib"]
        rows.append(row)
    order = list(TARGETS)
    rows.sort(key=lambda r: (r["precision"] != "bf16", order.index(r["strategy"]) if r["strategy"] in order else 99))
    (out / "h200.json").write_text(json.dumps(rows + torch_rows, indent=1) + "\n")

    device = (res / "device.txt").read_text() if (res / "device.txt").exists() else ""
    lines = ["| strategy | precision | runner tokens/s | reference (mode) tokens/s | speed-up (target) | runner peak alloc GiB | reference peak alloc GiB | runner peak GiB forward / backward / optimizer | NCCL share | exposed comm |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        tps = "failed: " + r.get("failure", "") if r["runner_tokens_per_s"] is None else f"{r['runner_tokens_per_s']:,.0f}"
        ref = f"{r['reference_tokens_per_s']:,.0f} ({r['reference_mode']})" if r["reference_tokens_per_s"] else "-"
        sp = f"{r['speedup']:.2f}x ({r['speedup_target']}x{' met' if r.get('speedup_met') else ' missed' if 'speedup_met' in r else ''})" if "speedup" in r else "-"
        mem = f"{r['runner_peak_alloc_gib']:.1f}" if r["runner_peak_alloc_gib"] is not None else "-"
        if "memory_met" in r:
            mem += " (<= ref)" if r["memory_met"] else " (> ref)"
        refmem = f"{r['reference_peak_alloc_gib']:.1f}" if r["reference_peak_alloc_gib"] else "-"
        nccl = f"{r['nccl_share']:.3f}" if "nccl_share" in r else "-"
        exp = f"{r['exposed_comm_share']:.3f}" if "exposed_comm_share" in r else "-"
        ph = r.get("runner_phase_peak_alloc_gib")
        phases = f"{ph['forward']:.1f} / {ph['backward']:.1f} / {ph['optimizer']:.1f}" if ph else "-"
        lines.append(f"| {r['strategy']} | {r['precision']} | {tps} | {ref} | {sp} | {mem} | {refmem} | {phases} | {nccl} | {exp} |")
    torch_lines = ["| torch backend strategy | precision | tokens/s | peak alloc GiB | peak GiB forward / backward / optimizer | decoder | torch |",
                   "|---|---|---|---|---|---|---|"]
    for r in sorted(torch_rows, key=lambda r: (r["precision"] != "bf16", order.index(r["strategy"]) if r["strategy"] in order else 99)):
        if "failure" in r:
            torch_lines.append(f"| {r['strategy']} | {r['precision']} | failed: {r['failure']} | - | - | - | - |")
            continue
        ph = r.get("phase_peak_alloc_gib")
        phases = f"{ph['forward']:.1f} / {ph['backward']:.1f} / {ph['optimizer']:.1f}" if ph else "-"
        torch_lines.append(f"| {r['strategy']} | {r['precision']} | {r['tokens_per_s']:,.0f} | {r['peak_alloc_gib']:.1f} | {phases} | {r['model_impl']} | {r['torch']} |")
    if torch_rows:
        lines += ["", "PyTorch itself (shardwise-torch-runner: DDP for zero0, fully_shard for fsdp2; comm time not measured):", ""] + torch_lines
    md = ["# shardwise-runner against PyTorch FSDP2 on one H200", "",
          f"Commit measured: `{a.commit}`. Command (on the GPU machine, one call): `{a.command}`.", "",
          "Device facts:", "", "```", device.strip(), "```", ""] + lines + [""]
    (out / "h200.md").write_text("\n".join(md))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
