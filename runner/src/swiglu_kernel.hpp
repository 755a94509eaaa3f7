#pragma once
// The SwiGLU kernels' work for one pack of Vec columns (fused_kernels.hpp, swigluForward and
// swigluBackward), shared by the CUDA kernels (fused_kernels.cu) and a host emulation
// (tests/runner/test_kernel_host.cpp) that runs them over every index on the CPU, so CI checks
// their indexing, strides and maths without a GPU. The includer defines SHARDWISE_KERNEL_FN and supplies
// __nv_bfloat16 with its conversions, as for rotary_qkv_kernel.hpp.

#include <cstdint>

#ifdef SHARDWISE_KERNEL_FN
#ifndef __CUDACC__
#include <cmath>
#endif

namespace shardwise::runner::kernels {

// Indices the kernels cover over [rows, ffn] at Vec columns per pack.
inline std::int64_t swigluWork(std::int64_t rows, std::int64_t ffn, int vec)
{
    return rows * (ffn / vec);
}

template <int Vec> struct alignas(2 * Vec) SwigluPack {
    __nv_bfloat16 v[Vec];
};

SHARDWISE_KERNEL_FN float swigluSigmoid(float x)
{
#ifdef __CUDACC__
    return 1.0f / (1.0f + __expf(-x));
#else
    return 1.0f / (1.0f + std::exp(-x));
#endif
}

// Index i is row i / (ffn / Vec), columns from (i % (ffn / Vec)) * Vec. gateUp's row r holds the gate's
// ffn columns then the up projection's, from gateUp + r * stride; out is [rows, ffn] contiguous.
template <int Vec>
SHARDWISE_KERNEL_FN void swigluForwardAt(std::int64_t i, const __nv_bfloat16* gateUp, std::int64_t stride,
                                         __nv_bfloat16* out, std::int64_t ffn)
{
    using Pack = SwigluPack<Vec>;
    const std::int64_t perRow = ffn / Vec;
    const std::int64_t r = i / perRow;
    const std::int64_t c = (i - r * perRow) * Vec;
    const auto* row = gateUp + r * stride;
    const auto g = *reinterpret_cast<const Pack*>(row + c);
    const auto u = *reinterpret_cast<const Pack*>(row + ffn + c);
    Pack h;
    for (int k = 0; k < Vec; ++k) {
        const float gf = __bfloat162float(g.v[k]);
        h.v[k] = __float2bfloat16(gf * swigluSigmoid(gf) * __bfloat162float(u.v[k]));
    }
    *reinterpret_cast<Pack*>(out + r * ffn + c) = h;
}

// The backward of out = silu(gate) * up for the pack at index i: grad is [rows, ffn] contiguous, dGateUp
// [rows, 2 ffn] contiguous (the gate's gradient, then the up projection's).
template <int Vec>
SHARDWISE_KERNEL_FN void swigluBackwardAt(std::int64_t i, const __nv_bfloat16* gateUp, std::int64_t stride,
                                          const __nv_bfloat16* grad, __nv_bfloat16* dGateUp, std::int64_t ffn)
{
    using Pack = SwigluPack<Vec>;
    const std::int64_t perRow = ffn / Vec;
    const std::int64_t r = i / perRow;
    const std::int64_t c = (i - r * perRow) * Vec;
    const auto* row = gateUp + r * stride;
    const auto g = *reinterpret_cast<const Pack*>(row + c);
    const auto u = *reinterpret_cast<const Pack*>(row + ffn + c);
    const auto d = *reinterpret_cast<const Pack*>(grad + r * ffn + c);
    Pack dg;
    Pack du;
    for (int k = 0; k < Vec; ++k) {
        const float gf = __bfloat162float(g.v[k]);
        const float uf = __bfloat162float(u.v[k]);
        const float df = __bfloat162float(d.v[k]);
        const float s = swigluSigmoid(gf);
        // silu'(g) = s * (1 + g * (1 - s)).
        dg.v[k] = __float2bfloat16(df * uf * s * (1.0f + gf * (1.0f - s)));
        du.v[k] = __float2bfloat16(df * gf * s);
    }
    auto* outRow = dGateUp + r * 2 * ffn;
    *reinterpret_cast<Pack*>(outRow + c) = dg;
    *reinterpret_cast<Pack*>(outRow + ffn + c) = du;
}

} // namespace shardwise::runner::kernels
#endif
