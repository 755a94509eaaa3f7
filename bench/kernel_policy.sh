# Sourced by the measure scripts: reads the kernel check of the build they measure with (bench/gpu.sh
# build writes $BUILD/results/kernel_check.txt) and turns off what does not match on this GPU, as
# bench/gpu.sh does for its own runs, so no batch measures a kernel that computes something else.
#   apply_kernel_check RESULTS_DIR
# A mismatch in the RMSNorm kernels (off by default) only sets fused_norm_ok=0; any other mismatch
# exports SHARDWISE_FUSED_KERNELS=0 (every fused kernel off). Each decision is printed on stderr.
apply_kernel_check() {
    local check="$1/kernel_check.txt" others
    fused_norm_ok=1
    if [[ ! -s "$check" ]]; then
        echo "kernel check: none in $1 (a build without the fused kernels?): the runs report their kernels" >&2
        fused_norm_ok=0
        return 0
    fi
    grep -q "all fused kernels match" "$check" && return 0
    grep "MISMATCH$" "$check" | grep -v "^fused kernels" >&2 || true
    others=$(grep "MISMATCH$" "$check" | grep -v "^fused kernels" | grep -cv "^rmsnorm" || true)
    if ((others > 0)); then
        export SHARDWISE_FUSED_KERNELS=0
        echo "kernel check: fused kernels do not match: measuring with SHARDWISE_FUSED_KERNELS=0" >&2
    fi
    fused_norm_ok=0
    echo "kernel check: the fused norm is not measured" >&2
}
