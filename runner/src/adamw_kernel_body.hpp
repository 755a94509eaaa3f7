#pragma once
// The device AdamW's work for one pack of elements and for one element (fused_kernels.hpp, adamw),
// shared by the CUDA kernel (adamw_kernel.cu) and a host emulation (tests/runner/test_kernel_host.cpp)
// that runs it over every pack and the tail on the CPU, so CI checks its indexing, its rounding and
// torch.optim.AdamW's order without a GPU. Plain includers get AdamWHyper only; the body needs the
// includer to define SHARDWISE_KERNEL_FN and to supply __nv_bfloat16 with __bfloat162float and
// __float2bfloat16_rn, as for rotary_qkv_kernel.hpp.

#include "kernel_body.hpp"

#include <cstdint>

namespace shardwise::runner::kernels {

struct AdamWHyper { // the step's scalars are derived in double, as torch.optim.AdamW does, then narrowed
    double lr = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double weightDecay = 0.01;
};

} // namespace shardwise::runner::kernels

#ifdef SHARDWISE_KERNEL_FN
#ifndef __CUDACC__
#include <math.h>
#endif

namespace shardwise::runner::kernels {

SHARDWISE_KERNEL_FN float adamwToFloat(__nv_bfloat16 x)
{
    return __bfloat162float(x);
}
SHARDWISE_KERNEL_FN float adamwToFloat(float x)
{
    return x;
}
SHARDWISE_KERNEL_FN void adamwStore(float x, __nv_bfloat16& out)
{
    out = __float2bfloat16_rn(x);
}
SHARDWISE_KERNEL_FN void adamwStore(float x, float& out)
{
    out = x;
}

struct AdamWScalars {
    float decay; // 1 - lr * weight_decay
    float beta1, oneMinusBeta1, beta2, oneMinusBeta2;
    float eps;
    float stepSize;  // lr / (1 - beta1^t)
    float sqrtBias2; // sqrt(1 - beta2^t)
};

// The step's scalars for step count t, in double as torch.optim.AdamW derives them, then narrowed.
SHARDWISE_KERNEL_FN AdamWScalars adamwScalars(const AdamWHyper& h, double t)
{
    AdamWScalars s;
    s.decay = static_cast<float>(1.0 - h.lr * h.weightDecay);
    s.beta1 = static_cast<float>(h.beta1);
    s.oneMinusBeta1 = static_cast<float>(1.0 - h.beta1);
    s.beta2 = static_cast<float>(h.beta2);
    s.oneMinusBeta2 = static_cast<float>(1.0 - h.beta2);
    s.eps = static_cast<float>(h.eps);
    s.stepSize = static_cast<float>(h.lr / (1.0 - pow(h.beta1, t)));
    s.sqrtBias2 = static_cast<float>(sqrt(1.0 - pow(h.beta2, t)));
    return s;
}

// torch.optim.AdamW's order (decoupled decay, the moments, then the bias-corrected step), in fp32.
SHARDWISE_KERNEL_FN void adamwUpdate(float& p, float g, float& m, float& v, const AdamWScalars& s)
{
    p *= s.decay;
    m = s.beta1 * m + s.oneMinusBeta1 * g;
    v = s.beta2 * v + s.oneMinusBeta2 * g * g;
    const float denom = sqrtf(v) / s.sqrtBias2 + s.eps;
    p -= s.stepSize * m / denom;
}

// Pack i: elements [i * Vec, (i + 1) * Vec) of the parameter p (S: bf16, or fp32 for a master), its
// gradient g and moments m and v; copy, when not null, receives the updated parameter in bf16.
template <typename S, typename G, int Vec>
SHARDWISE_KERNEL_FN void adamwPackAt(std::int64_t i, S* __restrict__ p, const G* __restrict__ g, S* __restrict__ m,
                                     S* __restrict__ v, __nv_bfloat16* __restrict__ copy, const AdamWScalars& s)
{
    auto P = reinterpret_cast<KernelPack<S, Vec>*>(p)[i];
    const auto Gr = reinterpret_cast<const KernelPack<G, Vec>*>(g)[i];
    auto M = reinterpret_cast<KernelPack<S, Vec>*>(m)[i];
    auto V = reinterpret_cast<KernelPack<S, Vec>*>(v)[i];
    KernelPack<__nv_bfloat16, Vec> C;
    SHARDWISE_UNROLL
    for (int k = 0; k < Vec; ++k) {
        float pk = adamwToFloat(P.v[k]), mk = adamwToFloat(M.v[k]), vk = adamwToFloat(V.v[k]);
        adamwUpdate(pk, adamwToFloat(Gr.v[k]), mk, vk, s);
        adamwStore(pk, P.v[k]);
        adamwStore(mk, M.v[k]);
        adamwStore(vk, V.v[k]);
        C.v[k] = __float2bfloat16_rn(pk);
    }
    reinterpret_cast<KernelPack<S, Vec>*>(p)[i] = P;
    reinterpret_cast<KernelPack<S, Vec>*>(m)[i] = M;
    reinterpret_cast<KernelPack<S, Vec>*>(v)[i] = V;
    if (copy)
        reinterpret_cast<KernelPack<__nv_bfloat16, Vec>*>(copy)[i] = C;
}

// Element e alone (the tail past the last whole pack).
template <typename S, typename G>
SHARDWISE_KERNEL_FN void adamwElementAt(std::int64_t e, S* __restrict__ p, const G* __restrict__ g, S* __restrict__ m,
                                        S* __restrict__ v, __nv_bfloat16* __restrict__ copy, const AdamWScalars& s)
{
    float pk = adamwToFloat(p[e]), mk = adamwToFloat(m[e]), vk = adamwToFloat(v[e]);
    adamwUpdate(pk, adamwToFloat(g[e]), mk, vk, s);
    adamwStore(pk, p[e]);
    adamwStore(mk, m[e]);
    adamwStore(vk, v[e]);
    if (copy)
        copy[e] = __float2bfloat16_rn(pk);
}

} // namespace shardwise::runner::kernels
#endif
