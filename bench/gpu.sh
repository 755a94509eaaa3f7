#!/usr/bin/env bash
# Builds shardwise-runner against the machine's PyTorch (LibTorch + CUDA + NCCL) and measures every
# strategy beside PyTorch's own DDP / FSDP2 (the torch backend, shardwise-torch-runner from the same
# checkout) in the same call, then writes the results table.
#
#   bench/gpu.sh [all|runner|reference|torch|equivalence|probe|build|scale]    (default: all)
#
# all: native runner + torch backend + the table; runner: the native runner only; reference (alias
# torch): the torch backend only. The torch backend runs TORCH_STRATEGIES (default: zero0 = DDP,
# fsdp2_noreshard, fsdp2_reshard, fsdp2_reshard_offload) at every precision of PRECISIONS, one rank,
# with the native runner's model, shapes and steps; events go to torch_<strategy>_<precision>.jsonl,
# and the bf16 rows also to reference_<mode>.json (mode ddp / noreshard / reshard / offload) for the
# table's reference columns. TORCH_ARGS="--compile" adds flags to every torch-backend run;
# SHARDWISE_TORCH_MODEL=plain|transformers picks its decoder (default: Transformers when it imports).
#
# equivalence: zero0 and fsdp2_reshard (EQUIV_STRATEGIES) with both backends from the same initial
# weights (shardwise-runner --dump-initial-params -> shardwise-torch-runner --init-params) and the same
# synthetic tokens, on CUDA at bf16, one rank; prints the per-step losses side by side
# (equivalence.txt). EQUIV_MODEL=qwen2.5-0.5b EQUIV_SEQ=1024 EQUIV_STEPS=10 (all timed, no warm-up).
#
# scale: the multi-GPU benchmark (issue 9) in one call: for each world size W of "1 $WORLDS" that the
# machine has GPUs for, every model of MODELS and every strategy of STRATEGIES, W ranks (one per GPU,
# LOCAL_RANK = GPU index), plus one `--probe` with W ranks per W for the collective bus bandwidths;
# then bench/gpu/scaling_table.py (tokens/s per GPU at W over W=1). Events of rank R of a run go to
# runner_<model>_<strategy>_<precision>_w<W>_r<R>.jsonl. World 1 runs come from the same call, so the
# scaling figures compare runs of one machine and one binary.
#   WORLDS="2 4 8" (default "1": world 1 only)  MODELS="qwen2.5-3b qwen2.5-7b"
#   BUDGET_S=540: no run starts after that many seconds of the call (those left are listed as
#   skipped in scale_manifest.tsv); RUN_TIMEOUT_S=150: wall-clock limit of one run (all its ranks),
#   so one hung collective cannot take the call; PROBE_MAX_BYTES=268435456
#   DEVICE=cpu: the same recipe on CPUs with Gloo (a rehearsal: default MODELS=tiny, SEQ=128,
#   WARMUP=1, STEPS=3, no build: BUILD must hold bin/shardwise-runner), worlds not bounded by GPUs
#   SCALE_BACKENDS="native torch": also the torch backend at every W, for the strategies of
#   TORCH_STRATEGIES among STRATEGIES (events torch_<model>_<strategy>_<precision>_w<W>_r<R>.jsonl,
#   outcomes in scale_manifest_torch.tsv; the scaling table stays the native runner's)
#   FIDELITY=path of shardwise-bench-fidelity (default $BUILD/bin/shardwise-bench-fidelity): when it
#   exists, the planner's predictions for every cell go into the scaling table
#
# Environment (defaults = the benchmark of bench/results/h200.md):
#   MODEL=qwen2.5-3b SEQ=2048 MICRO_BATCH=1 WARMUP=5 STEPS=15 (offload: OFFLOAD_WARMUP=4 OFFLOAD_STEPS=4)
#   STRATEGIES="zero0 zero1 ..."  PRECISIONS="bf16 bf16-fp32-master"
#   ATEN_STRATEGIES="zero0" also runs those with the ATen composition (SHARDWISE_FUSED_KERNELS=0)
#   RESULTS=dir for the JSON Lines and tables (default build-gpu/results; scale: build-gpu/results-scale)
#   BUILD=build dir (default build-gpu)
#   ARCHIVE=file.tgz: also pack the results directory into one archive at the end (a machine that hands
#   back a limited number of files still returns every run's events)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
what="${1:-all}"
build="${BUILD:-build-gpu}"
results="${RESULTS:-$build/results}"
# scale keeps its own folder: its rank files must not mix with the world-1 table of `all`.
[[ "$what" == scale && -z "${RESULTS:-}" ]] && results="$build/results-scale"
device="${DEVICE:-cuda}"
[[ "$device" == cuda || "$device" == cpu ]] || { echo "DEVICE must be cuda or cpu, got $device" >&2; exit 2; }
# CPU rehearsal defaults: a tiny model and a few steps, so the whole recipe runs in minutes on two cores.
if [[ "$device" == cpu ]]; then
    cpu_default() { echo "$1"; }
else
    cpu_default() { echo "$2"; }
fi
model="${MODEL:-qwen2.5-3b}"
seq="${SEQ:-$(cpu_default 128 2048)}"
mb="${MICRO_BATCH:-1}"
warmup="${WARMUP:-$(cpu_default 1 5)}"
steps="${STEPS:-$(cpu_default 3 15)}"
offload_warmup="${OFFLOAD_WARMUP:-$(cpu_default 1 4)}"
offload_steps="${OFFLOAD_STEPS:-$(cpu_default 2 4)}"
if [[ "$what" == scale ]]; then
    # The scaling targets (zero1, zero2, fsdp2_noreshard at 4 GPUs) first, offload last: a call cut by
    # its budget loses the least useful runs.
    strategies="${STRATEGIES:-zero1 zero2 fsdp2_noreshard zero0 zero3 fsdp2_reshard zero2_offload zero3_offload fsdp2_reshard_offload}"
else
    strategies="${STRATEGIES:-zero0 zero1 zero2 zero3 fsdp2_noreshard fsdp2_reshard zero2_offload zero3_offload fsdp2_reshard_offload}"
fi
models="${MODELS:-$(cpu_default tiny "qwen2.5-3b qwen2.5-7b")}"
worlds="${WORLDS:-1}"
budget_s="${BUDGET_S:-540}"
run_timeout_s="${RUN_TIMEOUT_S:-150}"
probe_max_bytes="${PROBE_MAX_BYTES:-268435456}"
fidelity="${FIDELITY:-$build/bin/shardwise-bench-fidelity}"
for n in $worlds; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "WORLDS: '$n' is not a world size (whole number >= 1)" >&2; exit 2; }
done
for n in "$budget_s" "$run_timeout_s" "$probe_max_bytes"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "BUDGET_S, RUN_TIMEOUT_S and PROBE_MAX_BYTES take whole numbers > 0, got '$n'" >&2; exit 2; }
done
precisions="${PRECISIONS:-bf16}"
torch_strategies="${TORCH_STRATEGIES:-zero0 fsdp2_noreshard fsdp2_reshard fsdp2_reshard_offload}"
scale_backends="${SCALE_BACKENDS:-native}"
# The image keeps cmake and ninja beside its Python.
[[ -d /opt/torch/.venv/bin ]] && export PATH="/opt/torch/.venv/bin:$PATH"
mkdir -p "$results"

build_runner() {
    local prefix
    prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"
    # Warnings are not errors here: GCC 13 warns inside LibTorch's own headers. The fused kernels and
    # the profiler are asked for on every configure: a fallback below turns them off in the cache, and
    # a later build in the same folder must not keep that silently.
    cmake -S runner/standalone -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$prefix" -DSHARDWISE_WARNINGS_AS_ERRORS=OFF \
        -DSHARDWISE_RUNNER_FUSED_KERNELS=ON -DSHARDWISE_RUNNER_PROFILER=ON >"$results/configure.log"
    local targets=(shardwise-runner shardwise-torch-runner)
    grep -q "shardwise-runner-kernel-check" "$build/build.ninja" 2>/dev/null && targets+=(shardwise-runner-kernel-check)
    if ! cmake --build "$build" --target "${targets[@]}" >"$results/build.log" 2>&1; then
        grep -E "error|FAILED" -A3 "$results/build.log" | head -n 60
        echo "build failed; retrying WITHOUT THE FUSED KERNELS: the runner's start events will say" \
            "versions.kernels = ATen, and its memory and speed are the ATen compositions'" >&2
        cmake "$build" -DSHARDWISE_RUNNER_FUSED_KERNELS=OFF >>"$results/configure.log"
        if ! cmake --build "$build" --target shardwise-runner >>"$results/build.log" 2>&1; then
            echo "build failed; retrying without the kernel profiler" >&2
            cmake "$build" -DSHARDWISE_RUNNER_PROFILER=OFF >>"$results/configure.log"
            cmake --build "$build" --target shardwise-runner 2>&1 | grep -E "error|FAILED" -A3 | head -n 60
        fi
    fi
    # The harness is only copied; a configure from before it existed builds without it.
    [[ -x "$build/bin/shardwise-torch-runner" ]] || cmake --build "$build" --target shardwise-torch-runner >>"$results/build.log" 2>&1 || true
    [[ -x "$build/bin/shardwise-runner" ]] || return 1
    # The fused kernels are measured only once they match the ATen maths on this GPU.
    if [[ -x "$build/bin/shardwise-runner-kernel-check" ]]; then
        if ! "$build/bin/shardwise-runner-kernel-check" | tee "$results/kernel_check.txt"; then
            echo "fused kernels do not match: measuring with SHARDWISE_FUSED_KERNELS=0" >&2
            export SHARDWISE_FUSED_KERNELS=0
        fi
    fi
}

device_facts() {
    {
        nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader || true
        python3 -c 'import torch;print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", ".".join(map(str, torch.cuda.nccl.version())))' || true
        lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core|Socket|NUMA node\(s\))' || true
        free -g | head -2
    } >"$results/device.txt" 2>&1
    cat "$results/device.txt"
}

# One rank on GPU 0; world 1 is what one H200 allows. Arguments: strategy precision.
run_one() {
    local s="$1" p="$2" w="$warmup" n="$steps" extra="${3:-}"
    if [[ "$s" == *offload* ]]; then w="$offload_warmup"; n="$offload_steps"; fi
    local tag="${4:-runner_${s}_${p}}"
    RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((29500 + RANDOM % 1000)) \
        "$build/bin/shardwise-runner" --model "$model" --device cuda --strategy "$s" --precision "$p" \
        --seq "$seq" --micro-batch "$mb" --warmup "$w" --steps "$n" ${RUNNER_ARGS:-} $extra \
        >"$results/$tag.jsonl" 2>"$results/$tag.log" || echo "$tag exited $?" >&2
    print_summary "$results/$tag.jsonl" "$s" "$p" \
        || tail -n 5 "$results/$tag.log"
}

# The three variables keep NCCL, PyTorch's symmetric memory and NVSHMEM off NVLink SHARP / multicast
# (cuMulticastCreate), which the lent multi-GPU machines do not allow. Shardwise's launcher forces
# none of them (they are a node setting, default unset), so this script sets them itself.
nvls_off=(NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1)
next_port=$((29600 + RANDOM % 200))
scale_start=$SECONDS

# Starts W ranks of one runner command (one per GPU, LOCAL_RANK = GPU index), each rank's stdout to
# <tag>_r<R>.jsonl and stderr to .log, under one wall-clock limit; returns the first non-zero exit
# code (124/137: the limit). A fresh MASTER_PORT per launch: a rank that has not released the last
# one must not block the next rendezvous. Arguments: W tag limit_s runner-args...
launch_world() {
    local world="$1" tag="$2" limit="$3"
    shift 3
    local port=$next_port rank code=0 c
    local -A running=() # pid -> rank, the ranks not yet finished
    next_port=$((next_port + 1))
    for ((rank = 0; rank < world; rank++)); do
        env "${nvls_off[@]}" RANK=$rank WORLD_SIZE="$world" LOCAL_RANK=$rank LOCAL_WORLD_SIZE="$world" \
            MASTER_ADDR=127.0.0.1 MASTER_PORT=$port SHARDWISE_LAUNCHER=bench-gpu.sh \
            timeout --kill-after=5 "$limit" "$build/bin/${launch_program:-shardwise-runner}" "$@" \
            >"$results/${tag}_r$rank.jsonl" 2>"$results/${tag}_r$rank.log" </dev/null &
        running[$!]=$rank
    done
    local finished
    while ((${#running[@]} > 0)); do
        c=0
        finished=""
        wait -n -p finished "${!running[@]}" || c=$?
        [[ -n "$finished" ]] || break # no child left to wait for
        unset "running[$finished]"
        if ((c != 0 && code == 0 && ${#running[@]} > 0)); then
            code=$c
            # The peers of a rank that failed (an OOM, say) wait in their next collective until the
            # runner's --timeout-s: give them a few seconds to report the failure themselves, then
            # end them (timeout forwards the signal), so one failed run does not spend the budget.
            sleep 5
            kill "${!running[@]}" 2>/dev/null || true
        elif ((c != 0 && code == 0)); then
            code=$c
        fi
    done
    return $code
}

# Seconds left of BUDGET_S, and the limit one run gets from them.
budget_left() { echo $((budget_s - (SECONDS - scale_start))); }
run_limit() {
    local left
    left=$(budget_left)
    echo $((left < run_timeout_s ? left : run_timeout_s))
}

# One run of W ranks; prints rank 0's summary with tokens/s for the whole world and per GPU.
# Arguments: model strategy precision W [backend: native (default) | torch]. Torch-backend runs are
# tagged torch_... and listed in scale_manifest_torch.tsv, so the native scaling table stays as it was.
run_world() {
    local m="$1" s="$2" p="$3" world="$4" backend="${5:-native}" w="$warmup" n="$steps" code=0
    if [[ "$s" == *offload* ]]; then w="$offload_warmup"; n="$offload_steps"; fi
    local prefix=runner manifest="$results/scale_manifest.tsv" launch_program=shardwise-runner extra="${RUNNER_ARGS:-}"
    if [[ "$backend" == torch ]]; then
        prefix=torch manifest="$results/scale_manifest_torch.tsv" launch_program=shardwise-torch-runner extra="${TORCH_ARGS:-}"
    fi
    # A model JSON path is named by its file name without .json.
    local tag
    tag="${prefix}_$(basename "$m" .json)_${s}_${p}_w${world}"
    local limit t0=$SECONDS
    limit=$(run_limit)
    if ((limit < 10)); then
        printf '%s\t%s\t%s\t%s\tskipped_budget\t\t\n' "$m" "$s" "$p" "$world" >>"$manifest"
        echo "$tag: skipped, $(budget_left) s of BUDGET_S left" >&2
        return 0
    fi
    launch_world "$world" "$tag" "$limit" --model "$m" --device "$device" --strategy "$s" --precision "$p" \
        --seq "$seq" --micro-batch "$mb" --warmup "$w" --steps "$n" $extra || code=$?
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "$s" "$p" "$world" \
        "$(case $code in 0) echo completed ;; 3) echo oom ;; 124 | 137) echo timeout ;; *) echo failed ;; esac)" \
        "$code" "$((SECONDS - t0))" >>"$manifest"
    grep -h '"event":"summary"' "$results/${tag}_r0.jsonl" | python3 -c '
import json,sys
for line in sys.stdin:
    s=json.loads(line); m=s["memory"]; w=s["world"]
    print("%-14s %-22s W=%d %10.0f tok/s (%9.0f per GPU)  peak alloc %6.2f GiB  reserved %6.2f GiB  nccl %.3f exposed %.3f" % (sys.argv[1], sys.argv[2], w,
          s["tokens_per_s"], s["tokens_per_s"] / w, m["peak_allocated"]/2**30, m["peak_reserved"]/2**30, s["nccl_share"], s["exposed_comm_share"]))' "$m" "$s" \
        || { echo "$tag exited $code" >&2; tail -n 3 "$results/${tag}_r0.log" >&2; }
}

# One --probe with W ranks: matmul and copy rates per rank and, at W > 1, collective bus bandwidths.
probe_world() {
    local world="$1" code=0 limit
    limit=$(run_limit)
    ((limit >= 10)) || { echo "probe W=$world: skipped for lack of budget" >&2; return 0; }
    launch_world "$world" "probe_w$world" "$limit" --probe --device "$device" --probe-max-bytes "$probe_max_bytes" \
        || code=$?
    ((code == 0)) || { echo "probe W=$world exited $code" >&2; tail -n 3 "$results/probe_w${world}_r0.log" >&2; }
    grep -h '"event":"probe"' "$results/probe_w${world}_r0.jsonl" | python3 -c '
import json,sys
for line in sys.stdin:
    e=json.loads(line)
    print("probe W=%d: " % e["world"] + ", ".join("%s%s %.3g %s" % (r["kind"], " @%d MiB" % (r["bytes"] >> 20) if r["bytes"] >= 2**20 else "", r["value"], r["unit"]) for r in e["results"]))' || true
}

pack() {
    [[ -n "${ARCHIVE:-}" ]] && tar czf "$ARCHIVE" -C "$(dirname "$results")" "$(basename "$results")"
    return 0
}

# Worlds of the call: 1 first (the scaling baseline), then WORLDS in order, each once, up to the GPUs
# the machine has (CPU rehearsal: no bound).
scale_worlds() {
    local have w list="" 
    if [[ "$device" == cuda ]]; then
        have=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
    else
        have=1000000
    fi
    for w in 1 $worlds; do
        if ((w > have)); then
            echo "W=$w: skipped, the machine has $have GPUs" >&2
            continue
        fi
        [[ " $list " == *" $w "* ]] || list="$list $w"
    done
    echo $list
}

run_scale() {
    printf '# model\tstrategy\tprecision\tworld\toutcome\texit_code\tseconds\n' >"$results/scale_manifest.tsv"
    if [[ " $scale_backends " == *" torch "* ]]; then
        printf '# model\tstrategy\tprecision\tworld\toutcome\texit_code\tseconds\n' >"$results/scale_manifest_torch.tsv"
    fi
    local list w m s p
    list=$(scale_worlds)
    echo "worlds: $list; models: $models; strategies: $strategies; budget ${budget_s} s" >&2
    for w in $list; do probe_world "$w"; done
    pack
    for m in $models; do
        for s in $strategies; do
            for p in $precisions; do
                for w in $list; do
                    if [[ " $scale_backends " == *" native "* ]]; then run_world "$m" "$s" "$p" "$w"; fi
                    # The torch backend runs the strategies PyTorch expresses.
                    if [[ " $scale_backends " == *" torch "* && " $torch_strategies " == *" $s "* ]]; then
                        run_world "$m" "$s" "$p" "$w" torch
                    fi
                done
            done
            pack
        done
    done
    local predictions=()
    if [[ -x "$fidelity" ]]; then
        # The planner's predictions for the same cells (presets; world 1 also calibrated leave one model out).
        if "$fidelity" analyze --results "$results" --out "$results/predictions" \
            --command "bench/gpu.sh scale" >"$results/predictions.log" 2>&1; then
            predictions=(--predictions "$results/predictions.json")
        else
            echo "shardwise-bench-fidelity analyze failed:" >&2
            tail -n 5 "$results/predictions.log" >&2
        fi
    fi
    python3 bench/gpu/scaling_table.py "$results" "${predictions[@]}" \
        --commit "${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}" \
        --command "${SCALE_COMMAND:-WORLDS=\"$worlds\" MODELS=\"$models\" bench/gpu.sh scale}"
}

# Prints one summary line of a run's events file. Arguments: file label-strategy label-precision.
print_summary() {
    grep '"event":"summary"' "$1" | python3 -c '
import json,sys
for line in sys.stdin:
    s=json.loads(line); m=s["memory"]
    ph=s.get("phase_peak_allocated", {})
    print("%-24s %-17s %9.0f tok/s  peak alloc %6.2f GiB (fwd %.2f bwd %.2f opt %.2f)  reserved %6.2f GiB  nccl %.3f exposed %.3f" % (sys.argv[1], sys.argv[2],
          s["tokens_per_s"], m["peak_allocated"]/2**30, ph.get("forward",0)/2**30, ph.get("backward",0)/2**30, ph.get("optimizer",0)/2**30,
          m["peak_reserved"]/2**30, s["nccl_share"], s["exposed_comm_share"]))' "$2" "$3"
}

# One torch-backend rank on GPU 0 (shardwise-torch-runner: DDP / fully_shard), the native runner's
# shapes and steps. Arguments: strategy precision.
run_torch() {
    local s="$1" p="$2" w="$warmup" n="$steps"
    if [[ "$s" == *offload* ]]; then w="$offload_warmup"; n="$offload_steps"; fi
    local tag="torch_${s}_${p}"
    env "${nvls_off[@]}" RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((29500 + RANDOM % 1000)) \
        SHARDWISE_LAUNCHER=bench-gpu.sh \
        "$build/bin/shardwise-torch-runner" --model "$model" --device cuda --strategy "$s" --precision "$p" \
        --seq "$seq" --micro-batch "$mb" --warmup "$w" --steps "$n" ${TORCH_ARGS:-} \
        >"$results/$tag.jsonl" 2>"$results/$tag.log" || echo "$tag exited $?" >&2
    print_summary "$results/$tag.jsonl" "torch $s" "$p" || tail -n 5 "$results/$tag.log"
}

# The torch backend's rows, and its bf16 summaries as reference_<mode>.json for results_table.py.
run_reference() {
    [[ -x "$build/bin/shardwise-torch-runner" ]] || { echo "$build/bin/shardwise-torch-runner not built" >&2; return 1; }
    local s p
    for p in $precisions; do
        for s in $torch_strategies; do run_torch "$s" "$p"; done
    done
    python3 - "$results" <<'PY'
import json, pathlib, sys
res = pathlib.Path(sys.argv[1])
modes = {"zero0": "ddp", "fsdp2_noreshard": "noreshard", "fsdp2_reshard": "reshard", "fsdp2_reshard_offload": "offload"}
for strategy, mode in modes.items():
    path = res / ("torch_%s_bf16.jsonl" % strategy)
    summary = next((json.loads(l) for l in path.read_text().splitlines() if '"event":"summary"' in l), None) if path.exists() else None
    if summary:
        out = {"mode": mode, "strategy": strategy, "backend": "torch", "tokens_per_s": summary["tokens_per_s"],
               "peak_alloc_gib": summary["memory"]["peak_allocated"] / 2 ** 30, "median_step_s": summary["median_step_s"]}
        (res / ("reference_%s.json" % mode)).write_text(json.dumps(out) + "\n")
PY
}

# Both backends from one set of initial weights: the native runner writes them before its first step,
# the harness loads them; the synthetic tokens come from the same generator in both.
run_equivalence() {
    local m="${EQUIV_MODEL:-qwen2.5-0.5b}" sq="${EQUIV_SEQ:-1024}" n="${EQUIV_STEPS:-10}" s
    # The dumps are full fp32 models: kept out of RESULTS (and so out of ARCHIVE).
    local dumps="$build/equivalence-dumps"
    mkdir -p "$dumps"
    local common=(--model "$m" --device cuda --precision bf16 --seq "$sq" --micro-batch "$mb" --warmup 0 --steps "$n")
    for s in ${EQUIV_STRATEGIES:-zero0 fsdp2_reshard}; do
        env "${nvls_off[@]}" RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((29500 + RANDOM % 1000)) \
            "$build/bin/shardwise-runner" "${common[@]}" --strategy "$s" --dump-initial-params "$dumps/initial_$s" \
            >"$results/equiv_native_$s.jsonl" 2>"$results/equiv_native_$s.log" || echo "native $s exited $?" >&2
        env "${nvls_off[@]}" RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((29500 + RANDOM % 1000)) \
            "$build/bin/shardwise-torch-runner" "${common[@]}" --strategy "$s" --init-params "$dumps/initial_$s.rank0" \
            ${TORCH_ARGS:-} >"$results/equiv_torch_$s.jsonl" 2>"$results/equiv_torch_$s.log" || echo "torch $s exited $?" >&2
        rm -f "$dumps/initial_$s".rank*
    done
    python3 - "$results" ${EQUIV_STRATEGIES:-zero0 fsdp2_reshard} <<'PY' | tee "$results/equivalence.txt"
import json, pathlib, sys
res = pathlib.Path(sys.argv[1])
def run(path):
    steps, impl = {}, "?"
    if path.exists():
        for line in path.read_text().splitlines():
            if not line.startswith("{"):
                continue
            e = json.loads(line)
            if e["event"] == "step":
                steps[e["step"]] = e["loss"]
            elif e["event"] == "start":
                impl = e["versions"].get("model_impl", "native")
            elif e["event"] == "error":
                steps["error"] = e["message"]
    return steps, impl
for s in sys.argv[2:]:
    native, _ = run(res / ("equiv_native_%s.jsonl" % s))
    torch, impl = run(res / ("equiv_torch_%s.jsonl" % s))
    print("%s, bf16, same initial weights and tokens (torch backend decoder: %s)" % (s, impl))
    print("%5s %14s %14s %10s" % ("step", "native loss", "torch loss", "rel diff"))
    for k in sorted(k for k in set(native) | set(torch) if k != "error"):
        a, b = native.get(k), torch.get(k)
        rel = "%.2e" % (abs(a - b) / abs(a)) if a is not None and b is not None and a else "-"
        print("%5d %14s %14s %10s" % (k, "%.6f" % a if a is not None else "-", "%.6f" % b if b is not None else "-", rel))
    for name, r in (("native", native), ("torch", torch)):
        if "error" in r:
            print("%s failed: %s" % (name, r["error"]))
    print()
PY
}

case "$what" in
build) build_runner ;;
scale)
    if [[ "$device" == cuda ]]; then
        device_facts
        build_runner
    else
        [[ -x "$build/bin/shardwise-runner" ]] \
            || { echo "DEVICE=cpu builds nothing: $build/bin/shardwise-runner not found (set BUILD)" >&2; exit 2; }
        { lscpu | grep -E '^(Model name|CPU\(s\))' || true; free -g | head -2; } >"$results/device.txt" 2>&1
        cat "$results/device.txt"
    fi
    # The commit measured, on its own line (shardwise-bench-fidelity reads 40-hex-digit lines as the
    # runner's commit).
    echo "${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}" >>"$results/device.txt"
    run_scale
    ;;
equivalence)
    device_facts
    build_runner
    run_equivalence
    ;;
probe)
    build_runner
    RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29511 \
        "$build/bin/shardwise-runner" --probe --device cuda | tee "$results/probe.jsonl"
    ;;
runner | reference | torch | all)
    device_facts
    build_runner
    [[ "$what" == torch ]] && what=reference
    [[ "$what" != runner ]] && run_reference
    if [[ "$what" != reference ]]; then
        for p in $precisions; do
            for s in $strategies; do run_one "$s" "$p"; done
        done
    fi
    # ATEN_STRATEGIES="zero0 ...": the same runs with the ATen composition instead of the fused kernels
    # (tag aten_<s>_bf16), the fused kernels' gain measured in the same call.
    for s in ${ATEN_STRATEGIES:-}; do
        SHARDWISE_FUSED_KERNELS=0 run_one "$s" bf16 "" "aten_${s}_bf16" | sed 's/^/aten /'
    done
    # CHUNK_ROWS=128 CHUNK_STRATEGIES="fsdp2_reshard ...": the same runs with that many head rows per
    # chunk (tag chunk<rows>_<s>_bf16), the chunk's share of the memory peak measured in the same call.
    for s in ${CHUNK_STRATEGIES:-}; do
        SHARDWISE_HEAD_CHUNK_ROWS="${CHUNK_ROWS:-128}" run_one "$s" bf16 "" "chunk${CHUNK_ROWS:-128}_${s}_bf16" \
            | sed "s/^/chunk ${CHUNK_ROWS:-128} /"
    done
    if [[ "$what" == all ]]; then
        python3 bench/gpu/results_table.py "$results" --commit "${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}" \
            --command "bench/gpu.sh all"
    fi
    # PROFILE="zero0 ...": one more short run each with --profile-kernels (kernel table in the log).
    for s in ${PROFILE:-}; do
        warmup=2 steps=2 offload_warmup=1 offload_steps=2 run_one "$s" bf16 "--profile-kernels 2" "profile_$s" >/dev/null
        grep -A32 "GPU time per step" "$results/profile_$s.log" || tail -n 5 "$results/profile_$s.log"
    done
    ;;
*)
    echo "usage: $0 [all|runner|reference|torch|equivalence|probe|build|scale]" >&2
    exit 2
    ;;
esac
if [[ -n "${ARCHIVE:-}" ]]; then
    tar czf "$ARCHIVE" -C "$(dirname "$results")" "$(basename "$results")"
fi
