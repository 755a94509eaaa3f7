#pragma once
// The rotary q/k/v kernel's work for one index (fused_kernels.hpp, rotaryQkv), shared by the CUDA kernel
// (fused_kernels.cu) and a host emulation (tests/runner/test_kernel_host.cpp) that runs it over
// every index on the CPU, so CI checks its indexing, strides and maths without a GPU. Plain includers
// get the view and shape types only; the body needs the includer to define SHARDWISE_KERNEL_FN (the
// function qualifiers: __device__ __forceinline__ under nvcc, inline on the host) and to supply
// __nv_bfloat16 with __bfloat162float and __float2bfloat16 (cuda_bf16.h, or the test's emulation).

#include "kernel_body.hpp"

#include <cstdint>

namespace shardwise::runner::kernels {

// Each part is a head-major view: element (b, h, t, d) of part p lies at
// data + b * batchStride + h * headStride + t * seqStride + d (d contiguous). Part 0 holds `heads`
// heads (q), parts 1 and 2 `kvHeads` each (k, v).
struct HeadsView {
    void* data = nullptr;
    std::int64_t batchStride = 0;
    std::int64_t headStride = 0;
    std::int64_t seqStride = 0;
};
struct QkvViews {
    HeadsView part[3];
};
struct QkvShape {
    std::int64_t batch = 0;
    std::int64_t seq = 0;
    std::int64_t heads = 0;
    std::int64_t kvHeads = 0;
    std::int64_t headDim = 0;
};

// Indices the kernel covers at Vec elements per pack: one per (token, head of q, k or v, pack of the
// first half).
inline SHARDWISE_HOST_DEVICE std::int64_t rotaryQkvWork(const QkvShape& s, int vec)
{
    return s.batch * s.seq * (s.heads + 2 * s.kvHeads) * (s.headDim / 2 / vec);
}

#ifdef SHARDWISE_KERNEL_FN
// Index i reads the pack at d and its partner at d + headDim / 2 and writes both, so every element is
// read and written once: q and k turned (inverse: by the transpose, the backward), v copied.
template <int Vec>
SHARDWISE_KERNEL_FN void rotaryQkvAt(std::int64_t i, const QkvViews& in, const QkvViews& out, const QkvShape& s,
                                     const __nv_bfloat16* cosTable, const __nv_bfloat16* sinTable, bool inverse)
{
    using Pack = KernelPack<__nv_bfloat16, Vec>;
    const int half = static_cast<int>(s.headDim / 2);
    const int packs = half / Vec;
    const int kvFirst = static_cast<int>(s.heads);
    const int vFirst = static_cast<int>(s.heads + s.kvHeads);
    const std::int64_t perToken = static_cast<std::int64_t>(s.heads + 2 * s.kvHeads) * packs;
    const std::int64_t token = i / perToken;
    const int rest = static_cast<int>(i - token * perToken);
    const int slot = rest / packs;
    const int d = (rest - slot * packs) * Vec;
    const std::int64_t b = token / s.seq;
    const std::int64_t t = token - b * s.seq;
    const int part = slot < kvFirst ? 0 : (slot < vFirst ? 1 : 2);
    const int h = slot - (part == 0 ? 0 : (part == 1 ? kvFirst : vFirst));
    const HeadsView& iv = in.part[part];
    const HeadsView& ov = out.part[part];
    const auto* src
        = static_cast<const __nv_bfloat16*>(iv.data) + b * iv.batchStride + h * iv.headStride + t * iv.seqStride;
    auto* dst = static_cast<__nv_bfloat16*>(ov.data) + b * ov.batchStride + h * ov.headStride + t * ov.seqStride;
    const auto x1 = *reinterpret_cast<const Pack*>(src + d);
    const auto x2 = *reinterpret_cast<const Pack*>(src + d + half);
    if (part == 2) {
        *reinterpret_cast<Pack*>(dst + d) = x1;
        *reinterpret_cast<Pack*>(dst + d + half) = x2;
        return;
    }
    const auto* cosRow = cosTable + t * s.headDim;
    const auto* sinRow = sinTable + t * s.headDim;
    const auto c1 = *reinterpret_cast<const Pack*>(cosRow + d);
    const auto c2 = *reinterpret_cast<const Pack*>(cosRow + d + half);
    const auto s1 = *reinterpret_cast<const Pack*>(sinRow + d);
    const auto s2 = *reinterpret_cast<const Pack*>(sinRow + d + half);
    Pack y1;
    Pack y2;
    for (int k = 0; k < Vec; ++k) {
        const float a1 = __bfloat162float(x1.v[k]);
        const float a2 = __bfloat162float(x2.v[k]);
        const float cc1 = __bfloat162float(c1.v[k]);
        const float cc2 = __bfloat162float(c2.v[k]);
        const float ss1 = __bfloat162float(s1.v[k]);
        const float ss2 = __bfloat162float(s2.v[k]);
        // Forward: y1 = x1 c1 - x2 s1, y2 = x2 c2 + x1 s2. Its transpose (backward):
        // dx1 = dy1 c1 + dy2 s2, dx2 = dy2 c2 - dy1 s1.
        y1.v[k] = __float2bfloat16(inverse ? a1 * cc1 + a2 * ss2 : a1 * cc1 - a2 * ss1);
        y2.v[k] = __float2bfloat16(inverse ? a2 * cc2 - a1 * ss1 : a2 * cc2 + a1 * ss2);
    }
    *reinterpret_cast<Pack*>(dst + d) = y1;
    *reinterpret_cast<Pack*>(dst + d + half) = y2;
}
#endif

} // namespace shardwise::runner::kernels
