#!/usr/bin/env python3
"""Does a plan that says "fits" run on a GPU of exactly that size? Rehearsed cells under a memory cap.

A rehearsal with the whole GPU to spare shows how much the caching allocator reserves, not how much it
needs: it keeps freed blocks cached while memory is free, and before it reports out of memory it hands
the unused cache back and retries. This script turns measured cells whose reserved peak exceeds the
plan's peak into cells that run under SHARDWISE_MEMORY_CAP_GIB (the runner caps its caching allocator at
that many GiB, as on a smaller GPU), and reads back which of them completed.

  bench/rehearsal/capped.py matrix --from REPORT.tsv [--min-gap 0.05] [--headroom 0.01] > MATRIX.tsv
  bench/rehearsal/run.py --native ... --only native --matrix MATRIX.tsv --out DIR ...
  bench/rehearsal/capped.py report DIR

matrix: REPORT.tsv is bench/rehearsal/report.py's TSV (native cells). For every completed native cell
whose reserved peak is more than --min-gap above the plan's peak less its CUDA context, two rows:
  - "plan": the cap a GPU has on which the plan just fits, the plan's peak less context / (1 - headroom)
    (the fit verdict keeps `headroom_fraction`, 1 %, of the GPU free). It must complete if the plan's
    verdict is right;
  - "control": 90 % of the measured allocated peak. It must run out of memory: a cap that lets it
    complete is not capping.
The rows are the matrix columns of bench/rehearsal/matrix.tsv plus memory_cap_gib; the cap's purpose is
not a column: report tells the two apart by the cap's ratio to the allocated peak in REPORT.tsv.

report: one line per capped cell of DIR (run.py's output): the cap, the outcome (completed, or the
runner's error kind such as oom) and the peaks it reached; then the count of plan caps that completed
and of controls that ran out of memory.
"""

import argparse
import glob
import json
import os
import sys

COLUMNS = ["backend", "model", "strategy", "world", "seq", "micro_batch", "precision", "checkpointing",
           "expandable"]
GIB = 2.0 ** 30


def write_matrix(args):
    import csv
    with open(args.source, encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    out = ["# " + "\t".join(COLUMNS + ["memory_cap_gib"])]
    picked = 0
    # The widest gaps first: a call cut short by its budget still tests the cells that matter most.
    rows.sort(key=lambda r: -float(r["reserved_gib"]) / max(float(r["predicted_less_context_gib"]), 1e-9))
    for r in rows:
        if r["backend"] != "native" or r["outcome"] not in ("ok", "completed"):
            continue
        reserved, allocated = float(r["reserved_gib"]), float(r["allocated_gib"])
        planned = float(r["predicted_less_context_gib"])
        if reserved <= planned * (1 + args.min_gap):
            continue
        cells = [r[k] for k in COLUMNS]
        for cap in (planned / (1 - args.headroom), 0.9 * allocated):
            out.append("\t".join(cells + ["%.3f" % cap]))
        picked += 1
    if picked == 0:
        sys.exit("capped.py: no completed native cell of %s reserves more than %.0f %% above its plan"
                 % (args.source, args.min_gap * 100))
    print("\n".join(out))


def last_event(path, names):
    found = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("{"):
                continue
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if e.get("event") in names:
                found = e
    return found


def report(args):
    cells = sorted(glob.glob(os.path.join(args.dir, "cells", "*__cap*.jsonl")))
    if not cells:
        sys.exit("capped.py: %s/cells holds no capped cell (run.py names them ...__cap<GiB>.jsonl)" % args.dir)
    ratio_rows = []
    print("| cell | cap GiB | outcome | peak allocated GiB | peak reserved GiB |")
    print("|---|---|---|---|---|")
    for path in cells:
        key = os.path.basename(path)[:-len(".jsonl")]
        cap = float(key.rsplit("__cap", 1)[1])
        end = last_event(path, ("summary", "error"))
        if end is None:
            outcome, alloc, reserved = "no summary", 0.0, 0.0
        elif end["event"] == "error":
            outcome = end.get("kind", "error")
            mem = end.get("memory") or {}
            alloc, reserved = mem.get("peak_allocated", 0) / GIB, mem.get("peak_reserved", 0) / GIB
        else:
            outcome = "completed"
            alloc, reserved = end["memory"]["peak_allocated"] / GIB, end["memory"]["peak_reserved"] / GIB
        ratio_rows.append((key.rsplit("__cap", 1)[0], cap, outcome, alloc))
        print("| %s | %.2f | %s | %.2f | %.2f |" % (key, cap, outcome, alloc, reserved))
    # Per cell the larger cap is the plan's, the smaller the control (90 % of the allocated peak).
    by_cell = {}
    for cell, cap, outcome, alloc in ratio_rows:
        by_cell.setdefault(cell, []).append((cap, outcome))
    plan_ok = plan_n = control_oom = control_n = 0
    for runs in by_cell.values():
        runs.sort()
        if len(runs) >= 2:
            control_n += 1
            control_oom += runs[0][1] == "oom"
        plan_n += 1
        plan_ok += runs[-1][1] == "completed"
    print()
    print("plan caps completed: %d of %d; controls (90 %% of the allocated peak) out of memory: %d of %d"
          % (plan_ok, plan_n, control_oom, control_n))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    m = sub.add_parser("matrix")
    m.add_argument("--from", dest="source", required=True)
    m.add_argument("--min-gap", type=float, default=0.05)
    m.add_argument("--headroom", type=float, default=0.01)
    r = sub.add_parser("report")
    r.add_argument("dir")
    args = p.parse_args()
    if args.what == "matrix":
        if not 0 <= args.headroom < 1 or args.min_gap < 0:
            sys.exit("capped.py: --headroom must be in [0, 1) and --min-gap >= 0")
        write_matrix(args)
    else:
        report(args)


if __name__ == "__main__":
    sys.exit(main())
