#!/usr/bin/env bash
# A real world-1 run and a rehearsal of world 1 of the same cell, then rehearsals of worlds 2 and 8:
# prints each summary's peaks, state bytes, rehearsed_world and tokens/s, and the losses of the first
# two, which must be equal.   bench/rehearsal/smoke.sh RUNNER OUTDIR [MODEL] [STRATEGY]
set -euo pipefail
runner="$1" out="$2" model="${3:-qwen2.5-0.5b}" strategy="${4:-zero3}"
mkdir -p "$out"
export RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29571
common=(--device cuda --model "$model" --strategy "$strategy" --seq 1024 --warmup 2 --steps 3)
"$runner" "${common[@]}" >"$out/real_w1.jsonl" 2>"$out/real_w1.log" || echo "real run failed: $?"
for w in 1 2 8; do
    "$runner" "${common[@]}" --rehearse-world "$w" >"$out/rehearse_w$w.jsonl" 2>"$out/rehearse_w$w.log" \
        || echo "rehearsal $w failed: $?"
done
python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
for name in ["real_w1", "rehearse_w1", "rehearse_w2", "rehearse_w8"]:
    s = [json.loads(l) for l in open(os.path.join(out, name + ".jsonl")) if '"summary"' in l or '"error"' in l]
    if not s:
        print(name, "no summary"); continue
    s = s[-1]
    if s.get("event") == "error":
        print(name, "ERROR", s.get("kind"), s.get("message", "")[:300]); continue
    m = s["memory"]
    print("%-12s peak_alloc %.3f GiB reserved %.3f GiB state %s rehearsed %s tok/s %.0f median %.4f losses %s" % (
        name, m["peak_allocated"] / 2**30, m["peak_reserved"] / 2**30, s["state"], s.get("rehearsed_world"),
        s["tokens_per_s"], s["median_step_s"], ["%.6f" % x for x in s["losses"]]))
PY
