// The runner's device AdamW (fused_kernels.hpp, adamw): one pass over a unit's flat state.
#include "fused_kernels.hpp"

#include <cuda_bf16.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace shardwise::runner::kernels {

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float toFloat(__nv_bfloat16 x)
{
    return __bfloat162float(x);
}
__device__ __forceinline__ float toFloat(float x)
{
    return x;
}
__device__ __forceinline__ void store(float x, __nv_bfloat16& out)
{
    out = __float2bfloat16_rn(x);
}
__device__ __forceinline__ void store(float x, float& out)
{
    out = x;
}

// Vec elements of T moved as one load or store (16 bytes for 8 bf16 or 4 fp32).
template <typename T, int Vec> struct alignas(sizeof(T) * Vec) Pack {
    T v[Vec];
};

struct StepScalars {
    float decay; // 1 - lr * weight_decay
    float beta1, oneMinusBeta1, beta2, oneMinusBeta2;
    float eps;
    float stepSize;  // lr / (1 - beta1^t)
    float sqrtBias2; // sqrt(1 - beta2^t)
};

// torch.optim.AdamW's order (decoupled decay, the moments, then the bias-corrected step), in fp32.
__device__ __forceinline__ void update(float& p, float g, float& m, float& v, const StepScalars& s)
{
    p *= s.decay;
    m = s.beta1 * m + s.oneMinusBeta1 * g;
    v = s.beta2 * v + s.oneMinusBeta2 * g * g;
    const float denom = sqrtf(v) / s.sqrtBias2 + s.eps;
    p -= s.stepSize * m / denom;
}

// S: parameter and moment storage (bf16, or fp32 for a master); G: gradient storage. copy, when not
// null, receives the updated parameter in bf16 (the compute copy of an fp32 master). The packs cover
// [0, n - n % Vec); the first threads of the grid take the remaining elements one each.
template <typename S, typename G, int Vec>
__global__ void adamwKernel(S* __restrict__ p, const G* __restrict__ g, S* __restrict__ m, S* __restrict__ v,
                            __nv_bfloat16* __restrict__ copy, std::int64_t n, const float* __restrict__ step,
                            AdamWHyper h)
{
    // The step count lives on the device so that a captured step replays with the current count.
    const double t = *step;
    StepScalars s;
    s.decay = static_cast<float>(1.0 - h.lr * h.weightDecay);
    s.beta1 = static_cast<float>(h.beta1);
    s.oneMinusBeta1 = static_cast<float>(1.0 - h.beta1);
    s.beta2 = static_cast<float>(h.beta2);
    s.oneMinusBeta2 = static_cast<float>(1.0 - h.beta2);
    s.eps = static_cast<float>(h.eps);
    s.stepSize = static_cast<float>(h.lr / (1.0 - pow(h.beta1, t)));
    s.sqrtBias2 = static_cast<float>(sqrt(1.0 - pow(h.beta2, t)));

    const std::int64_t packs = n / Vec;
    const std::int64_t first = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = first; i < packs; i += stride) {
        auto P = reinterpret_cast<Pack<S, Vec>*>(p)[i];
        const auto Gr = reinterpret_cast<const Pack<G, Vec>*>(g)[i];
        auto M = reinterpret_cast<Pack<S, Vec>*>(m)[i];
        auto V = reinterpret_cast<Pack<S, Vec>*>(v)[i];
        Pack<__nv_bfloat16, Vec> C;
#pragma unroll
        for (int k = 0; k < Vec; ++k) {
            float pk = toFloat(P.v[k]), mk = toFloat(M.v[k]), vk = toFloat(V.v[k]);
            update(pk, toFloat(Gr.v[k]), mk, vk, s);
            store(pk, P.v[k]);
            store(mk, M.v[k]);
            store(vk, V.v[k]);
            C.v[k] = __float2bfloat16_rn(pk);
        }
        reinterpret_cast<Pack<S, Vec>*>(p)[i] = P;
        reinterpret_cast<Pack<S, Vec>*>(m)[i] = M;
        reinterpret_cast<Pack<S, Vec>*>(v)[i] = V;
        if (copy)
            reinterpret_cast<Pack<__nv_bfloat16, Vec>*>(copy)[i] = C;
    }
    const std::int64_t e = packs * Vec + first;
    if (e < n) {
        float pk = toFloat(p[e]), mk = toFloat(m[e]), vk = toFloat(v[e]);
        update(pk, toFloat(g[e]), mk, vk, s);
        store(pk, p[e]);
        store(mk, m[e]);
        store(vk, v[e]);
        if (copy)
            copy[e] = __float2bfloat16_rn(pk);
    }
}

bool aligned16(const void* q)
{
    return q == nullptr || reinterpret_cast<std::uintptr_t>(q) % 16 == 0;
}

template <typename S, typename G>
void launch(void* p, const void* g, void* m, void* v, void* copy, std::int64_t n, const float* step,
            const AdamWHyper& h, int maxBlocks, cudaStream_t stream)
{
    constexpr int Vec = 16 / sizeof(S);
    // Enough blocks to keep every SM's loads in flight; the grid-stride loop covers the rest.
    static const int sms = [] {
        int device = 0, count = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
        return count;
    }();
    const bool vector = aligned16(p) && aligned16(g) && aligned16(m) && aligned16(v) && aligned16(copy);
    const std::int64_t work = vector ? n / Vec + 1 : n;
    const std::int64_t cap = maxBlocks > 0 ? maxBlocks : static_cast<std::int64_t>(sms > 0 ? sms : 132) * 8;
    const auto blocks = static_cast<unsigned int>(
        std::max<std::int64_t>(1, std::min<std::int64_t>((work + kThreads - 1) / kThreads, cap)));
    auto* c = static_cast<__nv_bfloat16*>(copy);
    if (vector)
        adamwKernel<S, G, Vec><<<blocks, kThreads, 0, stream>>>(static_cast<S*>(p), static_cast<const G*>(g),
                                                                static_cast<S*>(m), static_cast<S*>(v), c, n, step, h);
    else
        adamwKernel<S, G, 1><<<blocks, kThreads, 0, stream>>>(static_cast<S*>(p), static_cast<const G*>(g),
                                                              static_cast<S*>(m), static_cast<S*>(v), c, n, step, h);
    const auto status = cudaGetLastError();
    if (status != cudaSuccess)
        throw std::runtime_error(std::string("adamw kernel: ") + cudaGetErrorString(status));
}

} // namespace

void adamw(void* param, const void* grad, void* expAvg, void* expAvgSq, void* bf16Copy, std::int64_t n,
           AdamWState state, const float* step, const AdamWHyper& h, int maxBlocks, cudaStream_t stream)
{
    if (n <= 0)
        return;
    if (state == AdamWState::Bf16)
        launch<__nv_bfloat16, __nv_bfloat16>(param, grad, expAvg, expAvgSq, bf16Copy, n, step, h, maxBlocks, stream);
    else
        launch<float, __nv_bfloat16>(param, grad, expAvg, expAvgSq, bf16Copy, n, step, h, maxBlocks, stream);
}

} // namespace shardwise::runner::kernels
