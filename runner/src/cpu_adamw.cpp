#include "cpu_adamw.hpp"

#include <ATen/Parallel.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace shardwise::runner {

namespace {

// bf16 is the upper half of an IEEE binary32; widening is a shift, narrowing rounds to nearest even
// (what at::BFloat16 does for finite values).
inline float widen(float x) { return x; }
inline float widen(std::uint16_t b)
{
    const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}
inline void narrow(float x, float& out) { out = x; }
inline void narrow(float x, std::uint16_t& out)
{
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    out = static_cast<std::uint16_t>(bits >> 16);
}

struct Coefficients {
    float decay;          // 1 - lr * weight_decay
    float beta1, oneMinusBeta1;
    float beta2, oneMinusBeta2;
    float sqrtBias2;      // sqrt(1 - beta2^t)
    float eps;
    float negStepSize;    // -lr / (1 - beta1^t)
};

// One element at a time in a loop the compiler vectorises (-O3, no aliasing between the four
// arrays); target_clones picks AVX-512 or AVX2 at run time where the CPU has them.
template <typename S, typename G>
void update(S* __restrict p, const G* __restrict g, S* __restrict m, S* __restrict v, std::int64_t n,
            const Coefficients& c)
{
    for (std::int64_t i = 0; i < n; ++i) {
        const float gi = widen(g[i]);
        const float pi = widen(p[i]) * c.decay;
        const float mi = widen(m[i]) * c.beta1 + gi * c.oneMinusBeta1;
        const float vi = widen(v[i]) * c.beta2 + c.oneMinusBeta2 * gi * gi;
        const float denom = std::sqrt(vi) / c.sqrtBias2 + c.eps;
        narrow(pi + c.negStepSize * (mi / denom), p[i]);
        narrow(mi, m[i]);
        narrow(vi, v[i]);
    }
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define SHARDWISE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SHARDWISE_CLONES
#endif

SHARDWISE_CLONES void updateF32F32(float* p, const float* g, float* m, float* v, std::int64_t n, const Coefficients& c)
{
    update(p, g, m, v, n, c);
}
SHARDWISE_CLONES void updateF32Bf16(float* p, const std::uint16_t* g, float* m, float* v, std::int64_t n,
                                    const Coefficients& c)
{
    update(p, g, m, v, n, c);
}
SHARDWISE_CLONES void updateBf16Bf16(std::uint16_t* p, const std::uint16_t* g, std::uint16_t* m, std::uint16_t* v,
                                     std::int64_t n, const Coefficients& c)
{
    update(p, g, m, v, n, c);
}
SHARDWISE_CLONES void updateBf16F32(std::uint16_t* p, const float* g, std::uint16_t* m, std::uint16_t* v,
                                    std::int64_t n, const Coefficients& c)
{
    update(p, g, m, v, n, c);
}

void check(const at::Tensor& t, const char* what, std::int64_t numel)
{
    if (!t.device().is_cpu() || !t.is_contiguous() || t.numel() != numel ||
        (t.scalar_type() != at::kFloat && t.scalar_type() != at::kBFloat16))
        throw std::invalid_argument(std::string("cpuAdamWStep: ") + what +
                                    " must be a contiguous CPU fp32 or bf16 tensor of the parameter's size");
}

} // namespace

void cpuAdamWStep(const at::Tensor& param, const at::Tensor& grad, const at::Tensor& expAvg,
                  const at::Tensor& expAvgSq, std::int64_t step, const AdamWSettings& s)
{
    const auto n = param.numel();
    check(param, "param", n);
    check(grad, "grad", n);
    check(expAvg, "exp_avg", n);
    check(expAvgSq, "exp_avg_sq", n);
    if (expAvg.scalar_type() != param.scalar_type() || expAvgSq.scalar_type() != param.scalar_type())
        throw std::invalid_argument("cpuAdamWStep: the moments must have the parameter's dtype");

    // Scalars as torch.optim.AdamW computes them (double), then as ATen narrows them for fp32 kernels.
    const double bias1 = 1.0 - std::pow(s.beta1, static_cast<double>(step));
    const double bias2 = 1.0 - std::pow(s.beta2, static_cast<double>(step));
    const Coefficients c{static_cast<float>(1.0 - s.lr * s.weightDecay),
                         static_cast<float>(s.beta1),
                         static_cast<float>(1.0 - s.beta1),
                         static_cast<float>(s.beta2),
                         static_cast<float>(1.0 - s.beta2),
                         static_cast<float>(std::sqrt(bias2)),
                         static_cast<float>(s.eps),
                         static_cast<float>(-s.lr / bias1)};

    const bool bf16State = param.scalar_type() == at::kBFloat16;
    const bool bf16Grad = grad.scalar_type() == at::kBFloat16;
    auto* p = param.data_ptr();
    auto* g = grad.data_ptr();
    auto* m = expAvg.data_ptr();
    auto* v = expAvgSq.data_ptr();
    // 64 Ki elements per task: large enough to amortise scheduling, small enough to balance 16+ threads.
    at::parallel_for(0, n, 1 << 16, [&](std::int64_t begin, std::int64_t end) {
        const auto len = end - begin;
        if (bf16State) {
            auto* ps = static_cast<std::uint16_t*>(p) + begin;
            auto* ms = static_cast<std::uint16_t*>(m) + begin;
            auto* vs = static_cast<std::uint16_t*>(v) + begin;
            if (bf16Grad)
                updateBf16Bf16(ps, static_cast<const std::uint16_t*>(g) + begin, ms, vs, len, c);
            else
                updateBf16F32(ps, static_cast<const float*>(g) + begin, ms, vs, len, c);
        } else {
            auto* ps = static_cast<float*>(p) + begin;
            auto* ms = static_cast<float*>(m) + begin;
            auto* vs = static_cast<float*>(v) + begin;
            if (bf16Grad)
                updateF32Bf16(ps, static_cast<const std::uint16_t*>(g) + begin, ms, vs, len, c);
            else
                updateF32F32(ps, static_cast<const float*>(g) + begin, ms, vs, len, c);
        }
    });
}

} // namespace shardwise::runner
