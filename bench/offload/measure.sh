#!/usr/bin/env bash
# The runner's speed batches, on the GPU machine, with their references in the same call:
#
#   bench/offload/measure.sh BATCH[:SECONDS]...
#
#   overlap          matrix-offload.tsv: the offload strategies (zero2_offload, zero3_offload,
#                    fsdp2_reshard_offload) of Qwen2.5 1.5B / 3B / 7B at sequence 2048, pure bf16, with
#                    the host AdamW stepping each unit as its gradient arrives (the runner's default)
#   after-backward   matrix-offload-3b.tsv: the same strategies for Qwen2.5-3B with
#                    SHARDWISE_HOST_STEP_OVERLAP=0 (the whole host step after the backward): the
#                    reference the overlap is read against
#   torch-offload    matrix-torch-offload-3b.tsv: the PyTorch backend's fsdp2_reshard_offload
#                    (fully_shard + CPUOffloadPolicy) for Qwen2.5-3B: the framework reference
#   speed            matrix-speed.tsv after the hardware probe (matmul_bf16 is the matmul limit):
#                    Qwen2.5-3B and 7B zero0, at the runner's default step schedule
#   carveout         Qwen2.5-3B and 7B zero0, pure bf16, each unit's AdamW beside the backward, with the
#                    backward's GEMMs leaving 0, 8, 16, 24 and 32 SMs to it
#                    (SHARDWISE_BACKWARD_GEMM_CARVEOUT; runner/src/gemm_sm_target.hpp), 0 first and last
#                    (runs.tsv: tokens/s and share of the matmul limit of the probe run first);
#                    then Qwen2.5-3B captured (--cuda-graphs) with its AdamW after the backward, and
#                    beside it (SHARDWISE_DEVICE_STEP_OVERLAP=1) at 0, 16 and 24 SMs
#   reference        Qwen2.5-3B zero0, pure bf16, at the runner's defaults (eager before and after,
#                    and --cuda-graphs) and PyTorch DDP (shardwise-torch-runner) in between, beside the
#                    probe's matmul limit (runs.tsv as carveout's): the speed figures with their
#                    reference in one call
#   fused-norm       Qwen2.5-3B and 7B zero0, pure bf16, with ATen's RMSNorm and the runner's fused norm
#                    (SHARDWISE_FUSED_NORM=0 / 1, alternating), 3B captured with each, and a kernel
#                    profile of 3B with the fused norm (runs.tsv as carveout's)
#   startup          Qwen2.5-7B zero0, one step: seconds from exec to the start of the first step
#                    (startup.tsv), three times
#   device-step      matrix-device-step.tsv: zero0, zero3 and the fsdp2 strategies (no offload) of
#                    Qwen2.5 1.5B / 3B / 7B at sequence 2048, pure bf16, each unit's fused AdamW on a
#                    side stream as soon as its gradient is reduced (SHARDWISE_DEVICE_STEP_OVERLAP=1,
#                    the runner's default for eager steps)
#   device-after-backward  the same cells with SHARDWISE_DEVICE_STEP_OVERLAP=0 (one fused AdamW
#                    after the backward): the reference the overlap is read against
#   host-adamw       the offload strategies' host AdamW (shardwise-bench-host-adamw, built here with g++
#                    from runner/src/host_adamw.cpp) against a memory pass of the same bytes, over
#                    thread counts and page sizes, beside PyTorch's fused CPU AdamW (torch_cpu_adamw.py);
#                    no GPU needed (host-adamw.jsonl)
#   device-equal     Qwen2.5-0.5B, 4 steps, each of zero0, zero3, fsdp2_reshard, fsdp2_noreshard (and
#                    zero0 with --cuda-graphs, and with --grad-accumulation 2; zero0, zero3 and
#                    fsdp2_reshard with an fp32 master) with and without the
#                    overlap, final parameters dumped and compared byte for byte (equal.tsv)
#
# carveout and fused-norm take MODELS="qwen2.5-3b ..." (default 3B and 7B) for their eager runs;
# carveout also CARVEOUT_SMS="0 16 ..." (default 0 8 16 24 32 0) and GRAPH_CELLS="after:0 beside:16 ..."
# (schedule:SMs of its captured 3B runs; default after:0 beside:0 beside:16 beside:24).
#
# SECONDS is the batch's wall-clock budget (default 240). Builds the runner and stages the harness
# first (bench/gpu.sh build) unless $BUILD/bin holds both. Results: $RESULTS/<batch>/ (default
# build-gpu/offload); ARCHIVE=file.tgz packs them into one file after every batch. Analyse with
# `shardwise-bench-fidelity analyze --results DIR/<batch> ...` (docs/calibration.md).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
build="${BUILD:-build-gpu}"
results="${RESULTS:-$build/offload}"
(($# > 0)) || { sed -n '2,53p' "$0"; exit 2; }
if [[ "$*" != host-adamw ]] && [[ ! -x "$build/bin/shardwise-runner" || ! -x "$build/bin/shardwise-torch-runner" ]]; then
    BUILD="$build" bench/gpu.sh build
fi
mkdir -p "$results"
# shellcheck source=bench/kernel_policy.sh
source bench/kernel_policy.sh
[[ "$*" == host-adamw ]] || apply_kernel_check "$build/results"
# The lent GPU machines forbid NVLink multicast; these keep NCCL and PyTorch from asking for it.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
here=bench/offload
# The hardware probe into $1/probe.jsonl: its matmul_bf16 is the matmul limit the runs are read against.
probe_into() {
    mkdir -p "$1"
    RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29690 timeout 120 "$runner" --probe \
        --device cuda >"$1/probe.jsonl" 2>"$1/probe.log" </dev/null || true
}
# zero0_run OUT TAG VALUE "VAR=X ..." RUNNER-ARGS...: one zero0 run (pure bf16, seq 2048, 4 + 12 steps)
# with those environment settings into OUT/TAG, and a line "TAG VALUE summary" in OUT/runs.tsv, ending
# with the host's one-minute load average before the run: an eager step is issued by the host, so a
# run beside other work on the CPUs (a build) is slower, and this says so.
zero0_run() {
    local out=$1 tag=$2 value=$3 settings=$4 load
    shift 4
    mkdir -p "$out/$tag"
    load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo unknown)
    # shellcheck disable=SC2086 # settings holds separate assignments
    env $settings RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((29700 + RANDOM % 200)) \
        timeout 120 "$runner" --device cuda --strategy zero0 --precision bf16 --seq 2048 --micro-batch 1 \
        --warmup 5 --steps 12 "$@" >"$out/$tag/run.jsonl" 2>"$out/$tag/run.log" </dev/null || true
    printf '%s\t%s\t%s\thost load %s\n' "$tag" "$value" \
        "$(python3 bench/offload/summarize.py --probe "$out/probe.jsonl" "$out/$tag" | tail -1)" "$load" \
        >>"$out/runs.tsv"
}
for spec in "$@"; do
    batch="${spec%%:*}"
    budget=240
    [[ "$spec" == *:* ]] && budget="${spec##*:}"
    runner="$build/bin/shardwise-runner"
    probe=0
    overlap=1
    device_overlap= # unset: the runner's default (each unit's AdamW beside the backward in eager steps)
    case "$batch" in
    overlap) matrix=$here/matrix-offload.tsv ;;
    after-backward) matrix=$here/matrix-offload-3b.tsv overlap=0 ;;
    torch-offload) matrix=$here/matrix-torch-offload-3b.tsv runner="$build/bin/shardwise-torch-runner" ;;
    speed) matrix=$here/matrix-speed.tsv probe=60 ;;
    device-step) matrix=$here/matrix-device-step.tsv probe=60 device_overlap=1 ;;
    device-after-backward) matrix=$here/matrix-device-step.tsv device_overlap=0 ;;
    carveout)
        out="$results/carveout"
        probe_into "$out"
        printf '# run\tcarveout_sms\tsummary\n' >"$out/runs.tsv"
        for model in ${MODELS:-qwen2.5-3b qwen2.5-7b}; do
            i=0
            for c in ${CARVEOUT_SMS:-0 8 16 24 32 0}; do
                i=$((i + 1))
                zero0_run "$out" "$model-c$c-$i" "$c" "SHARDWISE_BACKWARD_GEMM_CARVEOUT=$c" --model "$model"
            done
        done
        # Captured steps: one AdamW after the backward (the default), then each unit's beside it with
        # and without the carve-out.
        for cell in ${GRAPH_CELLS:-after:0 beside:0 beside:16 beside:24}; do
            schedule="${cell%%:*}" c="${cell##*:}"
            overlap_flag=1
            [[ $schedule == after ]] && overlap_flag=0
            zero0_run "$out" "qwen2.5-3b-graphs-$schedule-c$c" "$c" \
                "SHARDWISE_DEVICE_STEP_OVERLAP=$overlap_flag SHARDWISE_BACKWARD_GEMM_CARVEOUT=$c" \
                --model qwen2.5-3b --cuda-graphs
        done
        cat "$out/runs.tsv"
        [[ -n "${ARCHIVE:-}" ]] && tar czf "$ARCHIVE" -C "$(dirname "$results")" "$(basename "$results")"
        continue
        ;;
    reference)
        out="$results/reference"
        probe_into "$out"
        printf '# run\tbackend\tsummary\n' >"$out/runs.tsv"
        zero0_run "$out" qwen2.5-3b-native-1 native "" --model qwen2.5-3b
        zero0_run "$out" qwen2.5-3b-native-graphs native "" --model qwen2.5-3b --cuda-graphs
        native_runner=$runner
        runner="$build/bin/shardwise-torch-runner"
        zero0_run "$out" qwen2.5-3b-pytorch-ddp pytorch "" --model qwen2.5-3b
        runner=$native_runner
        zero0_run "$out" qwen2.5-3b-native-2 native "" --model qwen2.5-3b
        cat "$out/runs.tsv"
        [[ -n "${ARCHIVE:-}" ]] && tar czf "$ARCHIVE" -C "$(dirname "$results")" "$(basename "$results")"
        continue
        ;;
    fused-norm)
        if ((fused_norm_ok == 0)); then
            echo "measure.sh: fused-norm skipped (the kernel check above)" >&2
            continue
        fi
        out="$results/fused-norm"
        probe_into "$out"
        printf '# run\tfused_norm\tsummary\n' >"$out/runs.tsv"
        for model in ${MODELS:-qwen2.5-3b qwen2.5-7b}; do
            i=0
            for f in 0 1 0 1; do
                i=$((i + 1))
                zero0_run "$out" "$model-norm$f-$i" "$f" "SHARDWISE_FUSED_NORM=$f" --model "$model"
            done
        done
        for f in 0 1; do
            zero0_run "$out" "qwen2.5-3b-graphs-norm$f" "$f" "SHARDWISE_FUSED_NORM=$f" --model qwen2.5-3b --cuda-graphs
        done
        # Where the step's time goes with the fused norm: the kernel table of two profiled steps.
        zero0_run "$out" "qwen2.5-3b-profile-norm1" 1 "SHARDWISE_FUSED_NORM=1" --model qwen2.5-3b --profile-kernels 2
        cat "$out/runs.tsv"
        [[ -n "${ARCHIVE:-}" ]] && tar czf "$ARCHIVE" -C "$(dirname "$results")" "$(basename "$results")"
        continue
        ;;
    device-equal)
        out="$results/device-equal"
        mkdir -p "$out"
        printf '# strategy\textra\tidentical\n' >"$out/equal.tsv"
        # The fp32-master cells step the master and write its bf16 copy in one kernel beside the backward.
        for cell in zero0: zero3: fsdp2_reshard: fsdp2_noreshard: "zero0:--cuda-graphs" "zero0:--grad-accumulation 2" \
            "zero0:--precision bf16-fp32-master" "zero3:--precision bf16-fp32-master" \
            "fsdp2_reshard:--precision bf16-fp32-master"; do
            s="${cell%%:*}" extra="${cell#*:}" tag="${cell//[^a-z0-9_]/_}" warmup=1
            # A captured step needs two eager warm-up steps and the captured third.
            [[ "$extra" == *--cuda-graphs* ]] && warmup=3
            for o in 1 0; do
                # shellcheck disable=SC2086 # extra holds separate flags
                SHARDWISE_DEVICE_STEP_OVERLAP=$o RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 \
                    MASTER_PORT=$((29800 + o)) timeout 120 "$runner" --model qwen2.5-0.5b --device cuda \
                    --strategy "$s" --precision bf16 --seq 1024 --micro-batch 1 --warmup "$warmup" --steps 3 $extra \
                    --dump-params "$out/$tag.$o.bin" >"$out/$tag.$o.jsonl" 2>"$out/$tag.$o.log" </dev/null || true
            done
            # --dump-params writes one file per rank: PATH.rank<N>.
            # A run that wrote no parameters is named as such, not counted as a difference.
            if [[ ! -s "$out/$tag.1.bin.rank0" || ! -s "$out/$tag.0.bin.rank0" ]]; then
                same="did not run ($tag.1.log, $tag.0.log)"
            elif cmp -s "$out/$tag.1.bin.rank0" "$out/$tag.0.bin.rank0"; then
                same=yes
            else
                same=no
            fi
            printf '%s\t%s\t%s\n' "$s" "$extra" "$same" >>"$out/equal.tsv"
            rm -f "$out/$tag".?.bin.rank*
        done
        cat "$out/equal.tsv"
        [[ -n "${ARCHIVE:-}" ]] && tar czf "$ARCHIVE" -C "$(dirname "$results")" "$(basename "$results")"
        continue
        ;;
    host-adamw)
        out="$results/host-adamw"
        mkdir -p "$out"
        bench="$out/shardwise-bench-host-adamw"
        g++ -O3 -DNDEBUG -std=c++20 -fno-math-errno -pthread -I runner/src bench/offload/host_adamw_bench.cpp \
            runner/src/host_adamw.cpp -o "$bench"
        all=$(nproc)
        {
            lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|Flags)' | cut -c1-400
            cat /sys/kernel/mm/transparent_hugepage/enabled
        } >"$out/host.txt" 2>&1
        : >"$out/host-adamw.jsonl"
        for threads in "$all" $((all / 2)) 1; do
            for pages in default small huge; do
                [[ $threads != "$all" && $pages != default ]] && continue
                elements=$((1 << 30))
                ((threads == 1)) && elements=$((1 << 27))
                SHARDWISE_HOST_THREADS=$threads timeout 120 "$bench" --elements $elements --pages $pages \
                    >>"$out/host-adamw.jsonl" || echo "host-adamw threads=$threads pages=$pages exited $?" >&2
            done
        done
        SHARDWISE_HOST_THREADS=$all timeout 120 "$bench" --elements $((1 << 29)) --state fp32 --grad fp32 \
            >>"$out/host-adamw.jsonl" || true
        timeout 180 python3 bench/offload/torch_cpu_adamw.py $((1 << 30)) >>"$out/host-adamw.jsonl" || true
        cat "$out/host.txt" "$out/host-adamw.jsonl"
        [[ -n "${ARCHIVE:-}" ]] && tar czf "$ARCHIVE" -C "$(dirname "$results")" "$(basename "$results")"
        continue
        ;;
    startup)
        mkdir -p "$results/startup"
        printf '# model\tstrategy\tstartup_s\tfirst_step_s\n' >"$results/startup/startup.tsv"
        for i in 1 2 3; do
            t0=$(date +%s.%N)
            RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((29700 + i)) \
                timeout 120 "$runner" --model qwen2.5-7b --device cuda --strategy zero0 --seq 2048 --micro-batch 1 \
                --warmup 0 --steps 1 >"$results/startup/run$i.jsonl" 2>"$results/startup/run$i.log" </dev/null || true
            python3 - "$t0" "$results/startup/run$i.jsonl" >>"$results/startup/startup.tsv" <<'PY'
import json, sys
t0 = float(sys.argv[1])
for line in open(sys.argv[2]):
    e = json.loads(line)
    if e.get("event") == "step":
        # The step event is written when the step ends; its own time is step_time_s.
        print(f"qwen2.5-7b\tzero0\t{e['time'] - e['step_time_s'] - t0:.2f}\t{e['step_time_s']:.3f}")
        break
PY
        done
        cat "$results/startup/startup.tsv"
        [[ -n "${ARCHIVE:-}" ]] && tar czf "$ARCHIVE" -C "$(dirname "$results")" "$(basename "$results")"
        continue
        ;;
    *) echo "measure.sh: unknown batch $batch" >&2; exit 2 ;;
    esac
    echo "== $batch: $runner, $matrix, budget ${budget}s"
    env SHARDWISE_HOST_STEP_OVERLAP=$overlap ${device_overlap:+SHARDWISE_DEVICE_STEP_OVERLAP=$device_overlap} \
        bench/fidelity/run.sh --runner "$runner" --matrix "$matrix" \
        --out "$results/$batch" --budget-s "$budget" --probe-timeout-s "$probe" --cell-timeout-s 120 \
        --runner-args "--precision bf16" || true
    [[ -n "${ARCHIVE:-}" ]] && tar czf "$ARCHIVE" -C "$(dirname "$results")" "$(basename "$results")"
done
