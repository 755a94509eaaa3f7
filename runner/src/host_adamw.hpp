#pragma once
// The host AdamW's arithmetic and threads, without LibTorch (cpu_adamw.hpp wraps them for tensors), so
// that bench/offload/host_adamw_bench.cpp measures the product's kernel built on its own.
// One pass over each element: parameter, gradient and both moments read once, parameter and moments
// written once; fp32 arithmetic in torch.optim.AdamW's order whatever the storage (fp32 or bf16).

#include <cstdint>
#include <functional>

namespace shardwise::runner::host {

enum class Storage { F32, Bf16 };

struct AdamWCoefficients {
    float decay; // 1 - lr * weight_decay
    float beta1, oneMinusBeta1;
    float beta2, oneMinusBeta2;
    float sqrtBias2; // sqrt(1 - beta2^t)
    float eps;
    float negStepSize; // -lr / (1 - beta1^t)
};

// The scalars as torch.optim.AdamW computes them (double), narrowed as ATen does for fp32 kernels.
// `step` counts from 1.
AdamWCoefficients adamwCoefficients(std::int64_t step, double lr, double beta1, double beta2, double eps,
                                    double weightDecay);

// p, m and v hold n elements of `state`, g n elements of `grad`; spread over hostThreads() threads in
// tasks of kAdamWGrain elements.
void adamwStep(void* p, const void* g, void* m, void* v, std::int64_t n, Storage state, Storage grad,
               const AdamWCoefficients& c);
// Elements [begin, end) of the same arrays, on the calling thread.
void adamwRange(void* p, const void* g, void* m, void* v, std::int64_t begin, std::int64_t end, Storage state,
                Storage grad, const AdamWCoefficients& c);
// 64 Ki elements per task: large enough to amortise scheduling, small enough to balance 16+ threads.
inline constexpr std::int64_t kAdamWGrain = std::int64_t { 1 } << 16;

// Runs chunk(begin, end) over [0, n) in tasks of `grain` elements on every host thread, the caller's
// included, and returns when all are done.
void forEachChunk(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)>& chunk);

// The threads the host optimizer uses: one per CPU this process may run on, or SHARDWISE_HOST_THREADS.
// Not ATen's intra-op pool: launchers commonly set OMP_NUM_THREADS=1 for the ranks, which would leave a
// 3-billion-parameter AdamW on one core.
int hostThreads();

} // namespace shardwise::runner::host
