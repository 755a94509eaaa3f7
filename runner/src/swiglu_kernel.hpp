#pragma once
// The SwiGLU kernels' work for one pack of Vec columns (fused_kernels.hpp, swigluForward and
// swigluBackward), shared by the CUDA kernels (fused_kernels.cu) and a host emulation
// (tests/runner/test_kernel_host.cpp) that runs them over every index on the CPU, so CI checks
// their indexing, strides and maths without a GPU. The includer defines SHARDWISE_KERNEL_FN and supplies
// __nv_bfloat16 with its conversions, as for rotary_qkv_kernel.hpp.

#include "kernel_body.hpp"

#include <cstdint>

namespace shardwise::runner::kernels {

// Indices the kernels cover over [rows, ffn] at Vec columns per pack (ffn a multiple of Vec).
inline SHARDWISE_HOST_DEVICE std::int64_t swigluWork(std::int64_t rows, std::int64_t ffn, int vec)
{
    return rows * (ffn / vec);
}

#ifdef SHARDWISE_KERNEL_FN
SHARDWISE_KERNEL_FN float swigluSigmoid(float x)
{
    return 1.0f / (1.0f + kernelExp(-x));
}

// Index i is row r = i / (ffn / Vec), columns from c = (i % (ffn / Vec)) * Vec. gateUp's row r holds the
// gate's ffn columns then the up projection's, from gateUp + r * stride.
template <int Vec> struct SwigluSlot {
    std::int64_t r;
    std::int64_t c;
    KernelPack<__nv_bfloat16, Vec> gate;
    KernelPack<__nv_bfloat16, Vec> up;
};
template <int Vec>
SHARDWISE_KERNEL_FN SwigluSlot<Vec> swigluLoad(std::int64_t i, const __nv_bfloat16* gateUp, std::int64_t stride,
                                               std::int64_t ffn)
{
    using Pack = KernelPack<__nv_bfloat16, Vec>;
    const std::int64_t perRow = ffn / Vec;
    const std::int64_t r = i / perRow;
    const std::int64_t c = (i - r * perRow) * Vec;
    const auto* row = gateUp + r * stride;
    return { r, c, *reinterpret_cast<const Pack*>(row + c), *reinterpret_cast<const Pack*>(row + ffn + c) };
}

// out = silu(gate) * up for the pack at index i; out is [rows, ffn] contiguous.
template <int Vec>
SHARDWISE_KERNEL_FN void swigluForwardAt(std::int64_t i, const __nv_bfloat16* gateUp, std::int64_t stride,
                                         __nv_bfloat16* out, std::int64_t ffn)
{
    const auto x = swigluLoad<Vec>(i, gateUp, stride, ffn);
    KernelPack<__nv_bfloat16, Vec> h;
    SHARDWISE_UNROLL
    for (int k = 0; k < Vec; ++k) {
        const float gf = __bfloat162float(x.gate.v[k]);
        h.v[k] = __float2bfloat16(gf * swigluSigmoid(gf) * __bfloat162float(x.up.v[k]));
    }
    *reinterpret_cast<KernelPack<__nv_bfloat16, Vec>*>(out + x.r * ffn + x.c) = h;
}

// The backward of out = silu(gate) * up for the pack at index i: grad is [rows, ffn] contiguous, dGateUp
// [rows, 2 ffn] contiguous (the gate's gradient, then the up projection's).
template <int Vec>
SHARDWISE_KERNEL_FN void swigluBackwardAt(std::int64_t i, const __nv_bfloat16* gateUp, std::int64_t stride,
                                          const __nv_bfloat16* grad, __nv_bfloat16* dGateUp, std::int64_t ffn)
{
    using Pack = KernelPack<__nv_bfloat16, Vec>;
    const auto x = swigluLoad<Vec>(i, gateUp, stride, ffn);
    const auto d = *reinterpret_cast<const Pack*>(grad + x.r * ffn + x.c);
    Pack dg;
    Pack du;
    SHARDWISE_UNROLL
    for (int k = 0; k < Vec; ++k) {
        const float gf = __bfloat162float(x.gate.v[k]);
        const float uf = __bfloat162float(x.up.v[k]);
        const float df = __bfloat162float(d.v[k]);
        const float s = swigluSigmoid(gf);
        // silu'(g) = s * (1 + g * (1 - s)).
        dg.v[k] = __float2bfloat16(df * uf * s * (1.0f + gf * (1.0f - s)));
        du.v[k] = __float2bfloat16(df * gf * s);
    }
    auto* outRow = dGateUp + x.r * 2 * ffn;
    *reinterpret_cast<Pack*>(outRow + x.c) = dg;
    *reinterpret_cast<Pack*>(outRow + ffn + x.c) = du;
}
#endif

} // namespace shardwise::runner::kernels
