#!/usr/bin/env bash
# Builds shardwise-runner against the machine's PyTorch (LibTorch + CUDA + NCCL) and measures every
# strategy beside the PyTorch FSDP2 reference in the same call, then writes the results table.
#
#   bench/gpu.sh [all|runner|reference|probe|build]    (default: all)
#
# Environment (defaults = the benchmark of bench/results/h200.md):
#   MODEL=qwen2.5-3b SEQ=2048 MICRO_BATCH=1 WARMUP=5 STEPS=15 (offload: OFFLOAD_WARMUP=4 OFFLOAD_STEPS=4)
#   STRATEGIES="zero0 zero1 ..."  PRECISIONS="bf16 bf16-fp32-master"
#   ATEN_STRATEGIES="zero0" also runs those with the ATen composition (SHARDWISE_FUSED_KERNELS=0)
#   REFERENCE=path/to/fsdp2_reference.py (default .ref/fsdp2_reference.py; modes ddp reshard noreshard offload)
#   RESULTS=dir for the JSON Lines and tables (default build-gpu/results)
#   BUILD=build dir (default build-gpu)
#   ARCHIVE=file.tgz: also pack the results directory into one archive at the end (a machine that hands
#   back a limited number of files still returns every run's events)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
what="${1:-all}"
build="${BUILD:-build-gpu}"
results="${RESULTS:-$build/results}"
model="${MODEL:-qwen2.5-3b}"
seq="${SEQ:-2048}"
mb="${MICRO_BATCH:-1}"
warmup="${WARMUP:-5}"
steps="${STEPS:-15}"
offload_warmup="${OFFLOAD_WARMUP:-4}"
offload_steps="${OFFLOAD_STEPS:-4}"
strategies="${STRATEGIES:-zero0 zero1 zero2 zero3 fsdp2_noreshard fsdp2_reshard zero3_offload fsdp2_reshard_offload}"
precisions="${PRECISIONS:-bf16}"
reference="${REFERENCE:-.ref/fsdp2_reference.py}"
# The image keeps cmake and ninja beside its Python.
[[ -d /opt/torch/.venv/bin ]] && export PATH="/opt/torch/.venv/bin:$PATH"
mkdir -p "$results"

build_runner() {
    local prefix
    prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"
    # Warnings are not errors here: GCC 13 warns inside LibTorch's own headers.
    cmake -S runner/standalone -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$prefix" -DSHARDWISE_WARNINGS_AS_ERRORS=OFF >"$results/configure.log"
    local targets=(shardwise-runner)
    grep -q "shardwise-runner-kernel-check" "$build/build.ninja" 2>/dev/null && targets+=(shardwise-runner-kernel-check)
    if ! cmake --build "$build" --target "${targets[@]}" >"$results/build.log" 2>&1; then
        grep -E "error|FAILED" -A3 "$results/build.log" | head -n 60
        echo "build failed; retrying without the fused kernels" >&2
        cmake "$build" -DSHARDWISE_RUNNER_FUSED_KERNELS=OFF >>"$results/configure.log"
        if ! cmake --build "$build" --target shardwise-runner >>"$results/build.log" 2>&1; then
            echo "build failed; retrying without the kernel profiler" >&2
            cmake "$build" -DSHARDWISE_RUNNER_PROFILER=OFF >>"$results/configure.log"
            cmake --build "$build" --target shardwise-runner 2>&1 | grep -E "error|FAILED" -A3 | head -n 60
        fi
    fi
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
    grep '"event":"summary"' "$results/$tag.jsonl" | python3 -c '
import json,sys
for line in sys.stdin:
    s=json.loads(line); m=s["memory"]
    ph=s.get("phase_peak_allocated", {})
    print("%-24s %-17s %9.0f tok/s  peak alloc %6.2f GiB (fwd %.2f bwd %.2f opt %.2f)  reserved %6.2f GiB  nccl %.3f exposed %.3f" % (sys.argv[1], sys.argv[2],
          s["tokens_per_s"], m["peak_allocated"]/2**30, ph.get("forward",0)/2**30, ph.get("backward",0)/2**30, ph.get("optimizer",0)/2**30,
          m["peak_reserved"]/2**30, s["nccl_share"], s["exposed_comm_share"]))' "$s" "$p" \
        || tail -n 5 "$results/$tag.log"
}

run_reference() {
    [[ -f "$reference" ]] || { echo "reference script $reference not found" >&2; return 1; }
    local mode
    for mode in ddp noreshard reshard offload; do
        local n=20
        [[ "$mode" == offload ]] && n=8
        STEPS=$n SEQ="$seq" PYTHONUNBUFFERED=1 torchrun --standalone --nproc_per_node=1 "$reference" "$mode" \
            >"$results/reference_$mode.log" 2>&1 || echo "reference $mode exited $?" >&2
        grep '^RESULT ' "$results/reference_$mode.log" | sed 's/^RESULT //' | tee "$results/reference_$mode.json" \
            || tail -n 5 "$results/reference_$mode.log"
    done
}

case "$what" in
build) build_runner ;;
probe)
    build_runner
    RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29511 \
        "$build/bin/shardwise-runner" --probe --device cuda | tee "$results/probe.jsonl"
    ;;
runner | reference | all)
    device_facts
    build_runner
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
    echo "usage: $0 [all|runner|reference|probe|build]" >&2
    exit 2
    ;;
esac
if [[ -n "${ARCHIVE:-}" ]]; then
    tar czf "$ARCHIVE" -C "$(dirname "$results")" "$(basename "$results")"
fi
