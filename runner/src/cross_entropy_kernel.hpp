#pragma once
// The cross-entropy kernel's per-thread work over one row of logits (fused_kernels.hpp,
// crossEntropyInPlace), shared by the CUDA kernel (fused_kernels.cu), which joins the threads' partial
// results with warp shuffles and shared memory, and a host emulation (tests/runner/test_kernel_host.cpp)
// that runs every thread's share of every row on the CPU, so CI checks the packing, the strides over the
// vocabulary and the maths without a GPU. The includer defines SHARDWISE_KERNEL_FN and supplies
// __nv_bfloat16 with its conversions, as for rotary_qkv_kernel.hpp.

#include "kernel_body.hpp"

#include <cstdint>

#ifdef SHARDWISE_KERNEL_FN

namespace shardwise::runner::kernels {

// Running maximum and sum of exp(x - maximum) (Milakov and Gimelshein 2018, "Online normalizer
// calculation for softmax"): one pass over a row.
struct MaxSum {
    float max;
    float sum;
};

SHARDWISE_KERNEL_FN MaxSum maxSumCombine(MaxSum a, MaxSum b)
{
    const float m = fmaxf(a.max, b.max);
    if (m == -INFINITY)
        return { m, 0.0f };
    return { m, a.sum * kernelExp(a.max - m) + b.sum * kernelExp(b.max - m) };
}

SHARDWISE_KERNEL_FN MaxSum maxSumTake(MaxSum acc, float x)
{
    if (x > acc.max)
        return { x, acc.sum * kernelExp(acc.max - x) + 1.0f };
    return { acc.max, acc.sum + kernelExp(x - acc.max) };
}

// One thread's share of a row: the packs at columns first, first + step, ... below vocab (first =
// thread * Vec, step = threads * Vec).
template <int Vec>
SHARDWISE_KERNEL_FN MaxSum crossEntropyPartial(const __nv_bfloat16* row, std::int64_t vocab, std::int64_t first,
                                               std::int64_t step)
{
    MaxSum acc { -INFINITY, 0.0f };
    for (std::int64_t c = first; c < vocab; c += step) {
        const auto p = *reinterpret_cast<const KernelPack<__nv_bfloat16, Vec>*>(row + c);
        SHARDWISE_UNROLL
        for (int k = 0; k < Vec; ++k)
            acc = maxSumTake(acc, __bfloat162float(p.v[k]));
    }
    return acc;
}

// The same share of the row overwritten by the logit gradient (softmax - onehot(target)) * scale, from
// the row's log-sum-exp lse.
template <int Vec>
SHARDWISE_KERNEL_FN void crossEntropyGradient(__nv_bfloat16* row, std::int64_t vocab, std::int64_t target, float lse,
                                              float scale, std::int64_t first, std::int64_t step)
{
    for (std::int64_t c = first; c < vocab; c += step) {
        auto p = *reinterpret_cast<KernelPack<__nv_bfloat16, Vec>*>(row + c);
        SHARDWISE_UNROLL
        for (int k = 0; k < Vec; ++k) {
            float g = kernelExp(__bfloat162float(p.v[k]) - lse) * scale;
            if (c + k == target)
                g -= scale;
            p.v[k] = __float2bfloat16(g);
        }
        *reinterpret_cast<KernelPack<__nv_bfloat16, Vec>*>(row + c) = p;
    }
}

} // namespace shardwise::runner::kernels
#endif
