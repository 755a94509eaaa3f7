#include "fused_kernels.hpp"

#include <cuda_bf16.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace shardwise::runner::kernels {

namespace {

constexpr int kThreads = 256;
constexpr int kVec = 8; // bf16 values per 16-byte load

struct alignas(16) Pack {
    __nv_bfloat16 v[kVec];
};

void check(const char* what)
{
    const auto status = cudaGetLastError();
    if (status != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

int deviceSms()
{
    static const int sms = [] {
        int device = 0, count = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
        return count > 0 ? count : 132;
    }();
    return sms;
}

// The sum of one float per thread over the block (kThreads threads), returned to every thread.
// `shared` holds one float per warp; it may be reused as soon as this returns.
__device__ __forceinline__ float blockSum(float v, float* shared)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (lane == 0)
        shared[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float total = lane < kThreads / 32 ? shared[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset >>= 1)
            total += __shfl_xor_sync(0xffffffffu, total, offset);
        if (lane == 0)
            shared[0] = total;
    }
    __syncthreads();
    const float total = shared[0];
    __syncthreads();
    return total;
}

// The row's pack that thread threadIdx.x holds in its k-th slot: packs t, t + kThreads, ..
__device__ __forceinline__ std::int64_t packOf(int k)
{
    return threadIdx.x + static_cast<std::int64_t>(k) * kThreads;
}

// One block per row; thread t holds the row's packs t, t + kThreads, .. (Packs of them at most).
template <int Packs, bool Residual>
__global__ void rmsNormForwardKernel(const __nv_bfloat16* x, const __nv_bfloat16* residual, const __nv_bfloat16* weight,
                                     __nv_bfloat16* h, __nv_bfloat16* out, float* rstdOut, std::int64_t hidden,
                                     float eps)
{
    __shared__ float shared[kThreads / 32];
    const std::int64_t row = blockIdx.x;
    const std::int64_t packs = hidden / kVec;
    float values[Packs][kVec];
    float squares = 0.0f;
#pragma unroll
    for (int k = 0; k < Packs; ++k) {
        const std::int64_t p = packOf(k);
        if (p >= packs)
            continue;
        const std::int64_t at = row * hidden + p * kVec;
        Pack a = *reinterpret_cast<const Pack*>(x + at);
        if constexpr (Residual) {
            // Rounded as the bf16 add rounds: the norm reads h as it is stored.
            const Pack b = *reinterpret_cast<const Pack*>(residual + at);
#pragma unroll
            for (int i = 0; i < kVec; ++i)
                a.v[i] = __float2bfloat16(__bfloat162float(a.v[i]) + __bfloat162float(b.v[i]));
            *reinterpret_cast<Pack*>(h + at) = a;
        }
#pragma unroll
        for (int i = 0; i < kVec; ++i) {
            values[k][i] = __bfloat162float(a.v[i]);
            squares += values[k][i] * values[k][i];
        }
    }
    const float rstd = rsqrtf(blockSum(squares, shared) / static_cast<float>(hidden) + eps);
    if (rstdOut != nullptr && threadIdx.x == 0)
        rstdOut[row] = rstd;
#pragma unroll
    for (int k = 0; k < Packs; ++k) {
        const std::int64_t p = packOf(k);
        if (p >= packs)
            continue;
        const Pack w = *reinterpret_cast<const Pack*>(weight + p * kVec);
        Pack o;
#pragma unroll
        for (int i = 0; i < kVec; ++i)
            o.v[i] = __float2bfloat16(values[k][i] * rstd * __bfloat162float(w.v[i]));
        *reinterpret_cast<Pack*>(out + row * hidden + p * kVec) = o;
    }
}

// Rows first .. first + rowsPerBlock - 1 per block, each thread on the same columns of every row, so
// the weight gradient's per-column sums stay in registers; one fp32 partial row per block.
template <int Packs, bool Residual>
__global__ void rmsNormBackwardKernel(const __nv_bfloat16* dn, const __nv_bfloat16* h, const __nv_bfloat16* weight,
                                      const float* rstd, const __nv_bfloat16* dres, __nv_bfloat16* dh, float* partial,
                                      std::int64_t rows, std::int64_t hidden, std::int64_t rowsPerBlock)
{
    __shared__ float shared[kThreads / 32];
    const std::int64_t packs = hidden / kVec;
    float w[Packs][kVec];
    float dw[Packs][kVec];
#pragma unroll
    for (int k = 0; k < Packs; ++k) {
        const std::int64_t p = packOf(k);
        const Pack wp = p < packs ? *reinterpret_cast<const Pack*>(weight + p * kVec) : Pack {};
#pragma unroll
        for (int i = 0; i < kVec; ++i) {
            w[k][i] = p < packs ? __bfloat162float(wp.v[i]) : 0.0f;
            dw[k][i] = 0.0f;
        }
    }
    const std::int64_t first = blockIdx.x * rowsPerBlock;
    const std::int64_t last = first + rowsPerBlock < rows ? first + rowsPerBlock : rows;
    for (std::int64_t row = first; row < last; ++row) {
        const float r = rstd[row];
        float g[Packs][kVec];
        float normed[Packs][kVec];
        float dot = 0.0f;
#pragma unroll
        for (int k = 0; k < Packs; ++k) {
            const std::int64_t p = packOf(k);
            if (p >= packs)
                continue;
            const std::int64_t at = row * hidden + p * kVec;
            const Pack d = *reinterpret_cast<const Pack*>(dn + at);
            const Pack x = *reinterpret_cast<const Pack*>(h + at);
#pragma unroll
            for (int i = 0; i < kVec; ++i) {
                const float grad = __bfloat162float(d.v[i]);
                normed[k][i] = __bfloat162float(x.v[i]) * r;
                g[k][i] = grad * w[k][i];
                dot += g[k][i] * normed[k][i];
                dw[k][i] += grad * normed[k][i];
            }
        }
        const float mean = blockSum(dot, shared) / static_cast<float>(hidden);
#pragma unroll
        for (int k = 0; k < Packs; ++k) {
            const std::int64_t p = packOf(k);
            if (p >= packs)
                continue;
            const std::int64_t at = row * hidden + p * kVec;
            Pack extra {};
            if constexpr (Residual)
                extra = *reinterpret_cast<const Pack*>(dres + at);
            Pack o;
#pragma unroll
            for (int i = 0; i < kVec; ++i) {
                const float skip = Residual ? __bfloat162float(extra.v[i]) : 0.0f;
                o.v[i] = __float2bfloat16(r * (g[k][i] - normed[k][i] * mean) + skip);
            }
            *reinterpret_cast<Pack*>(dh + at) = o;
        }
    }
#pragma unroll
    for (int k = 0; k < Packs; ++k) {
        const std::int64_t p = packOf(k);
        if (p >= packs)
            continue;
        float* dst = partial + blockIdx.x * hidden + p * kVec;
#pragma unroll
        for (int i = 0; i < kVec; ++i)
            dst[i] = dw[k][i];
    }
}

// Sums the partial rows per column: 32 columns per block, 8 groups of partial rows, then one write
// (or add) per column in bf16.
__global__ void weightGradReduceKernel(const float* partial, std::int64_t parts, std::int64_t hidden,
                                       __nv_bfloat16* dWeight, bool accumulate)
{
    __shared__ float tile[8][33];
    const std::int64_t col = blockIdx.x * 32 + threadIdx.x;
    float sum = 0.0f;
    if (col < hidden)
        for (std::int64_t p = threadIdx.y; p < parts; p += 8)
            sum += partial[p * hidden + col];
    tile[threadIdx.y][threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.y == 0 && col < hidden) {
        float total = 0.0f;
#pragma unroll
        for (int y = 0; y < 8; ++y)
            total += tile[y][threadIdx.x];
        if (accumulate)
            total += __bfloat162float(dWeight[col]);
        dWeight[col] = __float2bfloat16(total);
    }
}

int packsPerThread(std::int64_t hidden)
{
    const std::int64_t packs = hidden / kVec;
    return packs <= kThreads ? 1 : packs <= 2 * kThreads ? 2 : 4;
}

std::int64_t rowsPerBlock(std::int64_t rows)
{
    // Four blocks per SM keep the loads in flight; more rows per block mean fewer partial rows.
    const std::int64_t blocks = 4 * static_cast<std::int64_t>(deviceSms());
    return std::max<std::int64_t>(1, (rows + blocks - 1) / blocks);
}

template <int Packs>
void launchForward(const void* x, const void* residual, const void* weight, void* h, void* out, float* rstd,
                   std::int64_t rows, std::int64_t hidden, float eps, cudaStream_t stream)
{
    const auto* xb = static_cast<const __nv_bfloat16*>(x);
    const auto* wb = static_cast<const __nv_bfloat16*>(weight);
    auto* ob = static_cast<__nv_bfloat16*>(out);
    const auto grid = static_cast<unsigned int>(rows);
    if (residual != nullptr)
        rmsNormForwardKernel<Packs, true><<<grid, kThreads, 0, stream>>>(
            xb, static_cast<const __nv_bfloat16*>(residual), wb, static_cast<__nv_bfloat16*>(h), ob, rstd, hidden, eps);
    else
        rmsNormForwardKernel<Packs, false>
            <<<grid, kThreads, 0, stream>>>(xb, nullptr, wb, nullptr, ob, rstd, hidden, eps);
}

template <int Packs>
void launchBackward(const void* dn, const void* h, const void* weight, const float* rstd, const void* dres, void* dh,
                    float* partial, std::int64_t rows, std::int64_t hidden, std::int64_t perBlock, std::int64_t parts,
                    cudaStream_t stream)
{
    const auto* dnb = static_cast<const __nv_bfloat16*>(dn);
    const auto* hb = static_cast<const __nv_bfloat16*>(h);
    const auto* wb = static_cast<const __nv_bfloat16*>(weight);
    auto* dhb = static_cast<__nv_bfloat16*>(dh);
    const auto grid = static_cast<unsigned int>(parts);
    if (dres != nullptr)
        rmsNormBackwardKernel<Packs, true><<<grid, kThreads, 0, stream>>>(
            dnb, hb, wb, rstd, static_cast<const __nv_bfloat16*>(dres), dhb, partial, rows, hidden, perBlock);
    else
        rmsNormBackwardKernel<Packs, false>
            <<<grid, kThreads, 0, stream>>>(dnb, hb, wb, rstd, nullptr, dhb, partial, rows, hidden, perBlock);
}

void checkShape(const char* what, std::int64_t rows, std::int64_t hidden)
{
    if (rows <= 0 || hidden <= 0 || hidden % kVec != 0 || hidden > kMaxNormHidden)
        throw std::invalid_argument(std::string(what) + ": rows " + std::to_string(rows) + ", hidden "
                                    + std::to_string(hidden) + " (a positive multiple of 8 up to "
                                    + std::to_string(kMaxNormHidden) + ")");
}

} // namespace

void rmsNormForward(const void* x, const void* residual, const void* weight, void* hOut, void* out, float* rstd,
                    std::int64_t rows, std::int64_t hidden, float eps, cudaStream_t stream)
{
    checkShape("rmsNormForward", rows, hidden);
    switch (packsPerThread(hidden)) {
    case 1:
        launchForward<1>(x, residual, weight, hOut, out, rstd, rows, hidden, eps, stream);
        break;
    case 2:
        launchForward<2>(x, residual, weight, hOut, out, rstd, rows, hidden, eps, stream);
        break;
    default:
        launchForward<4>(x, residual, weight, hOut, out, rstd, rows, hidden, eps, stream);
        break;
    }
    check("rmsNormForward");
}

std::int64_t rmsNormBackwardWorkspace(std::int64_t rows, std::int64_t hidden)
{
    const std::int64_t perBlock = rowsPerBlock(rows);
    return (rows + perBlock - 1) / perBlock * hidden;
}

void rmsNormBackward(const void* dn, const void* h, const void* weight, const float* rstd, const void* dres, void* dh,
                     void* dWeight, bool accumulate, float* workspace, std::int64_t rows, std::int64_t hidden,
                     cudaStream_t stream)
{
    checkShape("rmsNormBackward", rows, hidden);
    const std::int64_t perBlock = rowsPerBlock(rows);
    const std::int64_t parts = (rows + perBlock - 1) / perBlock;
    switch (packsPerThread(hidden)) {
    case 1:
        launchBackward<1>(dn, h, weight, rstd, dres, dh, workspace, rows, hidden, perBlock, parts, stream);
        break;
    case 2:
        launchBackward<2>(dn, h, weight, rstd, dres, dh, workspace, rows, hidden, perBlock, parts, stream);
        break;
    default:
        launchBackward<4>(dn, h, weight, rstd, dres, dh, workspace, rows, hidden, perBlock, parts, stream);
        break;
    }
    check("rmsNormBackward");
    const dim3 block(32, 8);
    weightGradReduceKernel<<<static_cast<unsigned int>((hidden + 31) / 32), block, 0, stream>>>(
        workspace, parts, hidden, static_cast<__nv_bfloat16*>(dWeight), accumulate);
    check("rmsNormBackward weight gradient");
}

} // namespace shardwise::runner::kernels
