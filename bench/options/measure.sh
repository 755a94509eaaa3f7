#!/usr/bin/env bash
# The training options' accuracy batches, on the GPU machine: activation checkpointing (full and
# selective), gradient accumulation and zero2_offload, each a matrix beside this script measured by
# bench/fidelity/run.sh with shardwise-runner (world 1, pure bf16, sequence 2048), so that
# `shardwise-bench-fidelity analyze` predicts every cell with the option as run (the start event
# carries it) and compares. Each batch is also run in the same call without its option (batch
# "plain"), the reference its speed and memory are read against.
#
#   bench/options/measure.sh BATCH[:SECONDS]...
#
#   plain          matrix-options.tsv as is
#   ac-full        matrix-options.tsv with --activation-checkpointing full
#   ac-selective   matrix-options.tsv with --activation-checkpointing selective
#   accum2         matrix-options.tsv with --grad-accumulation 2
#   zero2-offload  matrix-zero2-offload.tsv
#
# SECONDS is the batch's wall-clock budget (default 200). Builds shardwise-runner first (bench/gpu.sh
# build) unless $BUILD/bin holds it. Results: $RESULTS/<batch>/ (default build-gpu/options), and
# ARCHIVE=file.tgz packs them into one file after every batch.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
build="${BUILD:-build-gpu}"
results="${RESULTS:-$build/options}"
(($# > 0)) || { sed -n '2,19p' "$0"; exit 2; }
[[ -x "$build/bin/shardwise-runner" ]] || BUILD="$build" bench/gpu.sh build
mkdir -p "$results"
# The lent GPU machines forbid NVLink multicast; these keep NCCL and PyTorch from asking for it.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
for spec in "$@"; do
    batch="${spec%%:*}"
    budget=200
    [[ "$spec" == *:* ]] && budget="${spec##*:}"
    matrix=bench/options/matrix-options.tsv
    case "$batch" in
    plain) args="" ;;
    ac-full) args="--activation-checkpointing full" ;;
    ac-selective) args="--activation-checkpointing selective" ;;
    accum2) args="--grad-accumulation 2" ;;
    zero2-offload) args="" matrix=bench/options/matrix-zero2-offload.tsv ;;
    *) echo "measure.sh: unknown batch $batch" >&2; exit 2 ;;
    esac
    echo "== $batch: $matrix ${args:-(no extra flags)}, budget ${budget}s"
    bench/fidelity/run.sh --runner "$build/bin/shardwise-runner" --matrix "$matrix" --out "$results/$batch" \
        --budget-s "$budget" --probe-timeout-s 0 --cell-timeout-s 150 --runner-args "--precision bf16 $args" || true
    [[ -n "${ARCHIVE:-}" ]] && tar czf "$ARCHIVE" -C "$(dirname "$results")" "$(basename "$results")"
done
