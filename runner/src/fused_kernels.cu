// The rotary q/k/v, SwiGLU and cross-entropy kernels' bodies (rotary_qkv_kernel.hpp, included by
// fused_kernels.hpp, swiglu_kernel.hpp and cross_entropy_kernel.hpp) as device code.
#include <cuda_bf16.h>
#define SHARDWISE_KERNEL_FN __device__ __forceinline__

#include "cross_entropy_kernel.hpp"
#include "fused_kernels.hpp"
#include "swiglu_kernel.hpp"

#include <stdexcept>
#include <string>

namespace shardwise::runner::kernels {

namespace {

constexpr int kThreads = 256;

void check(const char* what)
{
    const auto status = cudaGetLastError();
    if (status != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

unsigned int blocksFor(std::int64_t work)
{
    const auto blocks = (work + kThreads - 1) / kThreads;
    // A grid-stride loop covers the rest; 2^20 blocks is far more than an H200's 132 SMs can hold.
    return static_cast<unsigned int>(blocks < (1 << 20) ? blocks : (1 << 20));
}

// Grid-stride loops over swiglu_kernel.hpp's per-pack bodies.
template <int Vec>
__global__ void swigluForwardKernel(const __nv_bfloat16* gateUp, std::int64_t stride, __nv_bfloat16* out,
                                    std::int64_t rows, std::int64_t ffn)
{
    const std::int64_t total = swigluWork(rows, ffn, Vec);
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
        swigluForwardAt<Vec>(i, gateUp, stride, out, ffn);
}

template <int Vec>
__global__ void swigluBackwardKernel(const __nv_bfloat16* gateUp, std::int64_t stride, const __nv_bfloat16* grad,
                                     __nv_bfloat16* dGateUp, std::int64_t rows, std::int64_t ffn)
{
    const std::int64_t total = swigluWork(rows, ffn, Vec);
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
        swigluBackwardAt<Vec>(i, gateUp, stride, grad, dGateUp, ffn);
}

bool aligned16(const void* p)
{
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

template <int Vec>
__global__ void rotaryQkvKernel(QkvViews in, QkvViews out, QkvShape s, const __nv_bfloat16* cosTable,
                                const __nv_bfloat16* sinTable, bool inverse)
{
    const std::int64_t total = rotaryQkvWork(s, Vec);
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < total;
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
        rotaryQkvAt<Vec>(i, in, out, s, cosTable, sinTable, inverse);
}

constexpr int kCeThreads = 512;

template <int Vec>
__global__ void crossEntropyKernel(__nv_bfloat16* logits, const std::int64_t* targets, float* rowLoss,
                                   std::int64_t vocab, float scale)
{
    __shared__ MaxSum warpTotals[kCeThreads / 32];
    __shared__ float targetLogit;
    __shared__ float lse;
    auto* row = logits + static_cast<std::int64_t>(blockIdx.x) * vocab;
    const std::int64_t target = targets[blockIdx.x];
    const bool valid = target >= 0 && target < vocab;
    if (threadIdx.x == 0)
        targetLogit = valid ? __bfloat162float(row[target]) : NAN;

    MaxSum acc = crossEntropyPartial<Vec>(row, vocab, threadIdx.x * Vec, blockDim.x * Vec);
    for (int offset = 16; offset > 0; offset /= 2)
        acc = maxSumCombine(
            acc,
            MaxSum { __shfl_xor_sync(0xffffffffu, acc.max, offset), __shfl_xor_sync(0xffffffffu, acc.sum, offset) });
    if (threadIdx.x % 32 == 0)
        warpTotals[threadIdx.x / 32] = acc;
    __syncthreads(); // also orders the read of the target's logit before the overwrite below
    if (threadIdx.x == 0) {
        MaxSum total = warpTotals[0];
        for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w)
            total = maxSumCombine(total, warpTotals[w]);
        lse = total.max + logf(total.sum);
        rowLoss[blockIdx.x] = lse - targetLogit;
    }
    __syncthreads();

    crossEntropyGradient<Vec>(row, vocab, target, lse, scale, threadIdx.x * Vec, blockDim.x * Vec);
}

} // namespace

void crossEntropyInPlace(void* logits, const std::int64_t* targets, float* rowLoss, std::int64_t rows,
                         std::int64_t vocab, float scale, cudaStream_t stream)
{
    if (rows == 0)
        return;
    if (rows > 0x7fffffff)
        throw std::invalid_argument("cross-entropy kernel: more rows than a grid holds");
    auto* l = static_cast<__nv_bfloat16*>(logits);
    const auto grid = static_cast<unsigned int>(rows);
    if (vocab % 8 == 0 && aligned16(logits))
        crossEntropyKernel<8><<<grid, kCeThreads, 0, stream>>>(l, targets, rowLoss, vocab, scale);
    else
        crossEntropyKernel<1><<<grid, kCeThreads, 0, stream>>>(l, targets, rowLoss, vocab, scale);
    check("cross-entropy kernel");
}

void swigluForward(const void* gateUp, std::int64_t gateUpStride, void* out, std::int64_t rows, std::int64_t ffn,
                   cudaStream_t stream)
{
    if (rows == 0 || ffn == 0)
        return;
    const auto* in = static_cast<const __nv_bfloat16*>(gateUp);
    auto* o = static_cast<__nv_bfloat16*>(out);
    if (ffn % 8 == 0 && gateUpStride % 8 == 0 && aligned16(gateUp) && aligned16(out))
        swigluForwardKernel<8>
            <<<blocksFor(swigluWork(rows, ffn, 8)), kThreads, 0, stream>>>(in, gateUpStride, o, rows, ffn);
    else
        swigluForwardKernel<1>
            <<<blocksFor(swigluWork(rows, ffn, 1)), kThreads, 0, stream>>>(in, gateUpStride, o, rows, ffn);
    check("swiglu forward kernel");
}

void swigluBackward(const void* gateUp, std::int64_t gateUpStride, const void* grad, void* gateGradUpGrad,
                    std::int64_t rows, std::int64_t ffn, cudaStream_t stream)
{
    if (rows == 0 || ffn == 0)
        return;
    const auto* in = static_cast<const __nv_bfloat16*>(gateUp);
    const auto* d = static_cast<const __nv_bfloat16*>(grad);
    auto* o = static_cast<__nv_bfloat16*>(gateGradUpGrad);
    if (ffn % 8 == 0 && gateUpStride % 8 == 0 && aligned16(gateUp) && aligned16(grad) && aligned16(gateGradUpGrad))
        swigluBackwardKernel<8>
            <<<blocksFor(swigluWork(rows, ffn, 8)), kThreads, 0, stream>>>(in, gateUpStride, d, o, rows, ffn);
    else
        swigluBackwardKernel<1>
            <<<blocksFor(swigluWork(rows, ffn, 1)), kThreads, 0, stream>>>(in, gateUpStride, d, o, rows, ffn);
    check("swiglu backward kernel");
}

void rotaryQkv(const QkvViews& in, const QkvViews& out, const QkvShape& shape, const void* cos, const void* sin,
               bool inverse, cudaStream_t stream)
{
    const auto half = shape.headDim / 2;
    const auto work = rotaryQkvWork(shape, 1);
    if (work == 0)
        return;
    if (shape.headDim % 2 != 0 || shape.heads + 2 * shape.kvHeads > 0x7fffffff / half)
        throw std::invalid_argument("rotary q/k/v kernel: an odd head dimension or too many heads");
    bool vectorized = half % 8 == 0 && aligned16(cos) && aligned16(sin);
    for (const auto* views : { &in, &out })
        for (const auto& v : views->part)
            vectorized = vectorized && aligned16(v.data) && v.batchStride % 8 == 0 && v.headStride % 8 == 0
                && v.seqStride % 8 == 0;
    const auto* c = static_cast<const __nv_bfloat16*>(cos);
    const auto* s = static_cast<const __nv_bfloat16*>(sin);
    if (vectorized)
        rotaryQkvKernel<8><<<blocksFor(rotaryQkvWork(shape, 8)), kThreads, 0, stream>>>(in, out, shape, c, s, inverse);
    else
        rotaryQkvKernel<1><<<blocksFor(work), kThreads, 0, stream>>>(in, out, shape, c, s, inverse);
    check("rotary q/k/v kernel");
}

} // namespace shardwise::runner::kernels
