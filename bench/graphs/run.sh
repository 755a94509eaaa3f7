#!/usr/bin/env bash
# CUDA graphs against eager steps, in one call on one GPU: every (model, sequence, strategy) cell runs
# twice with the same binary, seed and tokens, eager first (the reference) and then with
# --cuda-graphs, alternating, and bench/graphs/compare.py writes the table: tokens/s of each, the
# ratio graphs / eager, the peak allocated of each, and whether the two runs' losses are identical
# step by step (the captured step must compute exactly what the eager one does).
#
#   bench/graphs/run.sh --runner build-gpu/bin/shardwise-runner --out DIR
#     MODELS="qwen2.5-0.5b qwen2.5-1.5b" SEQS="1024 2048" STRATEGIES="zero0 zero1 zero2 zero3
#     fsdp2_noreshard fsdp2_reshard" WARMUP=5 STEPS=20 BUDGET_S=400 (no run starts after that)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
runner="" out=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runner) runner="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
[[ -x "$runner" ]] || { echo "--runner must name the shardwise-runner binary" >&2; exit 2; }
[[ -n "$out" ]] || { echo "--out DIR is required" >&2; exit 2; }
mkdir -p "$out"
models="${MODELS:-qwen2.5-0.5b qwen2.5-1.5b}"
seqs="${SEQS:-1024 2048}"
strategies="${STRATEGIES:-zero0 zero1 zero2 zero3 fsdp2_noreshard fsdp2_reshard}"
warmup="${WARMUP:-5}" steps="${STEPS:-20}" budget="${BUDGET_S:-400}"
start=$SECONDS
{
    echo "commit $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "runner sha256 $(sha256sum "$runner" | cut -d' ' -f1)"
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || true
    echo "command MODELS=\"$models\" SEQS=\"$seqs\" STRATEGIES=\"$strategies\" WARMUP=$warmup STEPS=$steps bench/graphs/run.sh --runner $runner --out $out"
} >"$out/device.txt"
for model in $models; do
    for seq in $seqs; do
        for s in $strategies; do
            for mode in eager graphs; do
                if (( SECONDS - start > budget )); then
                    echo "$model $s $seq $mode skipped (budget)" | tee -a "$out/skipped.txt"
                    continue
                fi
                extra=()
                [[ "$mode" == graphs ]] && extra=(--cuda-graphs)
                f="$out/${model}__${s}__${seq}__${mode}.jsonl"
                RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((29500 + RANDOM % 1000)) \
                    timeout --kill-after=5 150 "$runner" --model "$model" --device cuda --strategy "$s" \
                    --seq "$seq" --warmup "$warmup" --steps "$steps" "${extra[@]}" \
                    >"$f" 2>"${f%.jsonl}.log" || echo "$model $s $seq $mode exit $?" | tee -a "$out/failed.txt"
                tail -n 1 "${f%.jsonl}.log"
            done
        done
    done
done
python3 "$root/bench/graphs/compare.py" "$out" | tee "$out/table.md"
