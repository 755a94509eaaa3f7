// The runner's device AdamW (fused_kernels.hpp, adamw): one pass over a unit's flat state, its body
// (adamw_kernel_body.hpp) as device code.
#include <cuda_bf16.h>
#define SHARDWISE_KERNEL_FN __device__ __forceinline__

#include "adamw_kernel_body.hpp"
#include "fused_kernels.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace shardwise::runner::kernels {

namespace {

constexpr int kThreads = 256;

// The pack and tail bodies (adamw_kernel_body.hpp) over a grid-stride loop. The packs cover
// [0, n - n % Vec); the first threads of the grid take the remaining elements one each.
template <typename S, typename G, int Vec>
__global__ void adamwKernel(S* __restrict__ p, const G* __restrict__ g, S* __restrict__ m, S* __restrict__ v,
                            __nv_bfloat16* __restrict__ copy, std::int64_t n, const float* __restrict__ step,
                            AdamWHyper h)
{
    // The step count lives on the device so that a captured step replays with the current count.
    const AdamWScalars s = adamwScalars(h, *step);
    const std::int64_t packs = n / Vec;
    const std::int64_t first = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t i = first; i < packs; i += stride)
        adamwPackAt<S, G, Vec>(i, p, g, m, v, copy, s);
    const std::int64_t e = packs * Vec + first;
    if (e < n)
        adamwElementAt<S, G>(e, p, g, m, v, copy, s);
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
