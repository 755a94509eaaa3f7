#!/usr/bin/env python3
"""Runs the world-rehearsal matrix on one GPU: each cell is one process rehearsing rank 0 of world W
(`--rehearse-world W`) with the native runner or the torch backend, in the matrix's order, within a
wall-clock budget. Keeps every cell's events and stderr, and one manifest line per cell.

  bench/rehearsal/run.py --native BUILD/bin/shardwise-runner --torch BUILD/bin/shardwise-torch-runner \\
      --out DIR [--matrix bench/rehearsal/matrix.tsv] [--budget-s 480] [--cell-timeout-s 90] \\
      [--skip N] [--only native|torch] [--warmup 2] [--steps 2] [--archive FILE.tgz]

A matrix row may carry a tenth column, memory_cap_gib: the cell then runs with SHARDWISE_MEMORY_CAP_GIB
set to it (the caching allocator may hold no more, as on a GPU of that size; bench/rehearsal/capped.py
writes such rows) and its key ends in __cap<GiB>.

DIR/cells/<key>.jsonl (events) and .log (stderr); DIR/manifest.tsv: key, the cell's columns, exit code,
seconds (or not run and why). --skip N leaves out the first N cells (a later call goes on where an
earlier one stopped); --archive packs DIR after every cell, so a cut-off call still returns each
finished cell. Needs Python 3 and the runners only.
"""

import argparse
import hashlib
import os
import subprocess
import sys
import tarfile
import time

COLUMNS = ["backend", "model", "strategy", "world", "seq", "micro_batch", "precision", "checkpointing",
           "expandable"]


def read_matrix(path):
    cells = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            c = dict(zip(COLUMNS, fields))
            if len(fields) > len(COLUMNS) and fields[len(COLUMNS)]:
                c["memory_cap_gib"] = fields[len(COLUMNS)]
            cells.append(c)
    return cells


def key_of(c):
    model = os.path.basename(c["model"])[:-5] if c["model"].endswith(".json") else c["model"]
    return "__".join([c["backend"], model, c["strategy"], "w" + c["world"], "s" + c["seq"], "b" + c["micro_batch"],
                      c["precision"], "ck-" + c["checkpointing"], "es" + c["expandable"]]
                     + (["cap" + c["memory_cap_gib"]] if "memory_cap_gib" in c else []))


def command(c, args):
    runner = args.native if c["backend"] == "native" else args.torch
    cmd = [runner, "--device", "cuda", "--model", c["model"], "--strategy", c["strategy"],
           "--rehearse-world", c["world"], "--seq", c["seq"], "--micro-batch", c["micro_batch"],
           "--precision", c["precision"], "--activation-checkpointing", c["checkpointing"],
           "--warmup", str(args.warmup), "--steps", str(args.steps)]
    env = dict(os.environ, RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", LOCAL_WORLD_SIZE="1",
               MASTER_ADDR="127.0.0.1", MASTER_PORT="29561")
    env.pop("PYTORCH_CUDA_ALLOC_CONF", None)
    env.pop("PYTORCH_ALLOC_CONF", None)
    if c["expandable"] == "1":
        env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
    env.pop("SHARDWISE_MEMORY_CAP_GIB", None)
    if "memory_cap_gib" in c:
        env["SHARDWISE_MEMORY_CAP_GIB"] = c["memory_cap_gib"]
    return cmd, env


def write_device_txt(args):
    """DIR/device.txt as bench/fidelity/run.sh writes it: the card, the checkout's commit and the SHA-256
    of each runner that will run (`runner sha256 <hex>`), so a report names what measured its cells."""
    path = os.path.join(args.out, "device.txt")
    if os.path.exists(path):
        return
    lines = []
    for cmd in (["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
                ["git", "rev-parse", "HEAD"]):
        try:
            lines.append(subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip())
        except (OSError, subprocess.TimeoutExpired):
            lines.append("%s: not available" % cmd[0])
    for backend, runner in (("native", args.native), ("torch", args.torch)):
        if args.only in (None, backend) and os.path.isfile(runner):
            with open(runner, "rb") as f:
                lines.append("runner sha256 " + hashlib.sha256(f.read()).hexdigest())
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--native", default="build-gpu/bin/shardwise-runner")
    p.add_argument("--torch", default="build-gpu/bin/shardwise-torch-runner")
    p.add_argument("--matrix", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "matrix.tsv"))
    p.add_argument("--out", required=True)
    p.add_argument("--budget-s", type=float, default=480)
    p.add_argument("--cell-timeout-s", type=float, default=90)
    p.add_argument("--skip", type=int, default=0)
    p.add_argument("--only", choices=["native", "torch"])
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--archive")
    args = p.parse_args()

    start = time.monotonic()
    os.makedirs(os.path.join(args.out, "cells"), exist_ok=True)
    write_device_txt(args)
    manifest_path = os.path.join(args.out, "manifest.tsv")
    new = not os.path.exists(manifest_path)
    manifest = open(manifest_path, "a", encoding="utf-8")
    if new:
        manifest.write("# key\t" + "\t".join(COLUMNS) + "\toutcome\texit_code\tseconds\n")
    cells = read_matrix(args.matrix)
    durations = []
    for index, c in enumerate(cells):
        if index < args.skip or (args.only and c["backend"] != args.only):
            continue
        key = key_of(c)
        elapsed = time.monotonic() - start
        typical = sorted(durations)[len(durations) // 2] if durations else 10.0
        if elapsed + typical > args.budget_s:
            print("budget reached before cell %d (%s); rerun with --skip %d" % (index, key, index), flush=True)
            break
        cmd, env = command(c, args)
        began = time.monotonic()
        with open(os.path.join(args.out, "cells", key + ".jsonl"), "w") as out, \
                open(os.path.join(args.out, "cells", key + ".log"), "w") as err:
            try:
                rc = subprocess.run(cmd, env=env, stdout=out, stderr=err, timeout=args.cell_timeout_s).returncode
                outcome = "ran"
            except subprocess.TimeoutExpired:
                rc, outcome = -1, "timeout"
        seconds = time.monotonic() - began
        durations.append(seconds)
        manifest.write("%s\t%s\t%s\t%d\t%.1f\n" % (key, "\t".join(c[k] for k in COLUMNS), outcome, rc, seconds))
        manifest.flush()
        print("%4d %-90s rc=%d %.1fs" % (index, key, rc, seconds), flush=True)
        if args.archive:
            with tarfile.open(args.archive + ".part", "w:gz") as t:
                t.add(args.out, arcname=os.path.basename(os.path.normpath(args.out)))
            os.replace(args.archive + ".part", args.archive)
    manifest.close()


if __name__ == "__main__":
    sys.exit(main())
