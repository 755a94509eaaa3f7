#!/usr/bin/env bash
# The framework targets' accuracy batches, on the GPU machine: each batch is a matrix of cells
# (matrix-<batch>.tsv beside this script) measured by bench/fidelity/run.sh with one runner and one
# precision, so `shardwise-bench-fidelity analyze` predicts each model's cells from the other models'
# runs (leave-one-model-out).
#
#   bench/frameworks/measure.sh BATCH[:SECONDS]...
#
#   torch-fp32-master   the torch backend (shardwise-torch-runner: DDP / fully_shard on the eager
#                       Transformers decoder) at bf16-fp32-master, the fsdp2 target's default precision
#   torch-bf16          the same at pure bf16 (Accelerate's memory-constrained mode)
#   native-fp32-master  shardwise-runner at bf16-fp32-master
#
# SECONDS is the batch's wall-clock budget (default 240). Builds shardwise-runner and stages the
# harness first (bench/gpu.sh build) unless $BUILD/bin holds both. Results: $RESULTS/<batch>/ (default
# build-gpu/frameworks), and ARCHIVE=file.tgz packs them into one file after every batch.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
build="${BUILD:-build-gpu}"
results="${RESULTS:-$build/frameworks}"
(($# > 0)) || { sed -n '2,16p' "$0"; exit 2; }
if [[ ! -x "$build/bin/shardwise-runner" || ! -x "$build/bin/shardwise-torch-runner" ]]; then
    BUILD="$build" bench/gpu.sh build
fi
mkdir -p "$results"
# shellcheck source=bench/kernel_policy.sh
source bench/kernel_policy.sh
apply_kernel_check "$build/results"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
for spec in "$@"; do
    batch="${spec%%:*}"
    budget=240
    [[ "$spec" == *:* ]] && budget="${spec##*:}"
    case "$batch" in
    torch-*) runner="$build/bin/shardwise-torch-runner" ;;
    native-*) runner="$build/bin/shardwise-runner" ;;
    *) echo "measure.sh: unknown batch $batch" >&2; exit 2 ;;
    esac
    case "$batch" in
    *-fp32-master) precision=bf16-fp32-master ;;
    *-bf16) precision=bf16 ;;
    *) echo "measure.sh: batch $batch names no precision" >&2; exit 2 ;;
    esac
    matrix="bench/frameworks/matrix-$batch.tsv"
    [[ -r "$matrix" ]] || { echo "measure.sh: $matrix not found" >&2; exit 2; }
    echo "== $batch: $runner, precision $precision, budget ${budget}s"
    bench/fidelity/run.sh --runner "$runner" --matrix "$matrix" --out "$results/$batch" --budget-s "$budget" \
        --probe-timeout-s 0 --cell-timeout-s 150 --runner-args "--precision $precision" || true
    [[ -n "${ARCHIVE:-}" ]] && tar czf "$ARCHIVE" -C "$(dirname "$results")" "$(basename "$results")"
done
