#!/usr/bin/env bash
# The accuracy benchmark's measurements: runs shardwise-runner (world 1) for every cell of a matrix
# written by `shardwise-bench-fidelity matrix`, in the matrix's order, within a wall-clock budget,
# and keeps each run's JSON Lines events for `shardwise-bench-fidelity analyze`.
#
#   bench/fidelity/run.sh [--runner PATH] [--matrix FILE] [--out DIR] [--budget-s N] [--device cuda|cpu]
#                         [--cell-timeout-s N] [--probe-timeout-s N] [--archive FILE.tgz] [--cuda-graphs]
#                         [--runner-args "ARGS"]
#
# Defaults: --runner build-gpu/bin/shardwise-runner, --matrix bench/fidelity/matrix.tsv,
# --out ${OUT:-fidelity-out}, --budget-s 480, --device cuda, --cell-timeout-s 120, --probe-timeout-s 60.
# First `shardwise-runner --probe` on the same device (within the budget and --probe-timeout-s; 0 skips
# it): DIR/probe.jsonl (events) and probe.log; the analyzer starts every fold from the coefficients it
# measures, the per-layer issue time among them. A probe that fails is kept as probe.failed.jsonl.
# Then writes DIR/cells/<model>__<strategy>__<seq>.jsonl (events) and .log (stderr), and DIR/manifest.tsv:
# one line per matrix cell with what happened to it (ran: exit code and seconds; or not run: why).
# Cells the matrix marks run=no (predicted not to fit) are listed as predicted_oom_not_run; cells the
# budget leaves no time for are listed as skipped_budget. --archive packs DIR into one archive after
# every cell, so a machine that hands back few files (or a cut-off call) still returns every finished
# cell. --cuda-graphs runs the GPU-resident cells with the runner's --cuda-graphs (their warm-up raised
# to the 3 steps a capture needs where the matrix has fewer); the offload cells run eager as always.
# --runner-args passes more runner flags to every cell (e.g. "--precision bf16-fp32-master"); --runner
# may name the torch backend (shardwise-torch-runner), which takes the same flags and writes the same
# events (its --probe fails, and the batch is analysed without one: pass --probe-timeout-s 0).
# Needs bash, coreutils, tar and the runner only.
set -euo pipefail

runner=build-gpu/bin/shardwise-runner
matrix=bench/fidelity/matrix.tsv
out="${OUT:-fidelity-out}"
budget=480
device=cuda
cell_timeout=120
probe_timeout=60
archive=""
runner_args=""
graphs=0
while [[ $# -gt 0 ]]; do
    if [[ "$1" == --cuda-graphs ]]; then
        graphs=1
        shift
        continue
    fi
    case "$1" in
    --runner) runner="$2" ;;
    --matrix) matrix="$2" ;;
    --out) out="$2" ;;
    --budget-s) budget="$2" ;;
    --device) device="$2" ;;
    --cell-timeout-s) cell_timeout="$2" ;;
    --probe-timeout-s) probe_timeout="$2" ;;
    --archive) archive="$2" ;;
    --runner-args) runner_args="$2" ;;
    -h | --help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    [[ $# -ge 2 ]] || { echo "run.sh: $1 needs a value" >&2; exit 2; }
    shift 2
done
[[ -x "$runner" ]] || { echo "run.sh: runner $runner not found or not executable" >&2; exit 2; }
[[ -r "$matrix" ]] || { echo "run.sh: matrix $matrix not readable" >&2; exit 2; }
[[ "$budget" =~ ^[0-9]+$ ]] || { echo "run.sh: --budget-s must be whole seconds, got $budget" >&2; exit 2; }
[[ "$cell_timeout" =~ ^[0-9]+$ ]] || { echo "run.sh: --cell-timeout-s must be whole seconds" >&2; exit 2; }
[[ "$probe_timeout" =~ ^[0-9]+$ ]] || { echo "run.sh: --probe-timeout-s must be whole seconds" >&2; exit 2; }
[[ "$device" == cuda || "$device" == cpu ]] || { echo "run.sh: --device must be cuda or cpu" >&2; exit 2; }

mkdir -p "$out/cells"
manifest="$out/manifest.tsv"
printf '# model\tstrategy\tseq\tpredicted\toutcome\texit_code\tseconds\n' >"$manifest"
cp "$matrix" "$out/matrix.tsv"
{
    date -u +%Y-%m-%dT%H:%M:%SZ
    git rev-parse HEAD 2>/dev/null || true
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || true
    "$runner" --help | head -n 1 || true
    # The binary itself: batches with one digest ran one runner, whatever their checkouts' commits say
    # (a machine's copy of the repository metadata may be older than the tree it built).
    echo "runner sha256 $(sha256sum "$runner" | cut -c1-64)"
    # The machine's RAM: the matrix and the analysis take it as --host-ram-gib (offload verdicts).
    grep MemTotal /proc/meminfo 2>/dev/null || true
} >"$out/device.txt" 2>&1

start=$SECONDS
ran=0
skipped=0
# One port per run: a runner that has not released its rendezvous port must not block the next.
port=29555

# The probe measures the node and the runner, not a model (docs/calibration.md): once per batch, on the
# device the cells run on, before them. Its time comes out of the budget like a cell's.
limit=$((budget < probe_timeout ? budget : probe_timeout))
if ((limit > 5)); then
    code=0
    RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
        timeout --kill-after=5 "$limit" "$runner" --probe --device "$device" \
        >"$out/probe.jsonl" 2>"$out/probe.log" </dev/null || code=$?
    if ((code == 0)) && grep -q '"event":"probe"' "$out/probe.jsonl"; then
        echo "probe: $(grep -c '' "$out/probe.jsonl") events in $((SECONDS - start)) s (elapsed of ${budget}s)"
    else
        mv "$out/probe.jsonl" "$out/probe.failed.jsonl"
        echo "probe: failed (exit code $code; see $out/probe.log); the batch is analysed as one without a probe" >&2
    fi
elif ((probe_timeout > 0)); then
    echo "probe: skipped, the budget leaves no time for it" >&2
fi
while IFS=$'\t' read -r model strategy seq predicted run warmup steps _peak estimate _tier; do
    [[ -z "$model" || "$model" == \#* ]] && continue
    if [[ "$run" != yes ]]; then
        printf '%s\t%s\t%s\t%s\tpredicted_oom_not_run\t\t\n' "$model" "$strategy" "$seq" "$predicted" >>"$manifest"
        continue
    fi
    elapsed=$((SECONDS - start))
    left=$((budget - elapsed))
    need=${estimate%.*}
    if ((left <= need || left <= 5)); then
        printf '%s\t%s\t%s\t%s\tskipped_budget\t\t\n' "$model" "$strategy" "$seq" "$predicted" >>"$manifest"
        skipped=$((skipped + 1))
        continue
    fi
    limit=$((left < cell_timeout ? left : cell_timeout))
    tag="${model//\//_}__${strategy}__${seq}"
    read -r -a extra <<<"$runner_args"
    if ((graphs)) && [[ "$strategy" != *offload* ]]; then
        extra+=(--cuda-graphs)
        ((warmup >= 3)) || warmup=3
    fi
    port=$((port + 1))
    t0=$SECONDS
    code=0
    RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
        timeout --kill-after=5 "$limit" "$runner" --model "$model" --device "$device" --strategy "$strategy" \
        --seq "$seq" --micro-batch 1 --warmup "$warmup" --steps "$steps" "${extra[@]}" \
        >"$out/cells/$tag.jsonl" 2>"$out/cells/$tag.log" </dev/null || code=$?
    seconds=$((SECONDS - t0))
    case "$code" in
    0) outcome=completed ;;
    3) outcome=oom ;;
    124 | 137) outcome=timeout ;;
    *) outcome=failed ;;
    esac
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$model" "$strategy" "$seq" "$predicted" "$outcome" "$code" "$seconds" >>"$manifest"
    printf '%-14s %-22s seq %-5s predicted %-4s -> %-9s %3ss (elapsed %ss of %ss)\n' \
        "$model" "$strategy" "$seq" "$predicted" "$outcome" "$seconds" "$((SECONDS - start))" "$budget"
    ran=$((ran + 1))
    [[ -n "$archive" ]] && tar czf "$archive" -C "$(dirname "$out")" "$(basename "$out")"
done <"$matrix"
[[ -n "$archive" ]] && tar czf "$archive" -C "$(dirname "$out")" "$(basename "$out")"
echo "ran $ran cells, $skipped left for lack of budget, in $((SECONDS - start)) s; events under $out/cells"
