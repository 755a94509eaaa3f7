#include "cpu_adamw.hpp"

#include <sched.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace shardwise::runner {

namespace {

// bf16 is the upper half of an IEEE binary32; widening is a shift, narrowing rounds to nearest even
// (what at::BFloat16 does for finite values).
inline float widen(float x)
{
    return x;
}
inline float widen(std::uint16_t b)
{
    const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}
inline void narrow(float x, float& out)
{
    out = x;
}
inline void narrow(float x, std::uint16_t& out)
{
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    out = static_cast<std::uint16_t>(bits >> 16);
}

struct Coefficients {
    float decay; // 1 - lr * weight_decay
    float beta1, oneMinusBeta1;
    float beta2, oneMinusBeta2;
    float sqrtBias2; // sqrt(1 - beta2^t)
    float eps;
    float negStepSize; // -lr / (1 - beta1^t)
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

// The host optimizer's own threads, one per CPU this process may run on (SHARDWISE_HOST_THREADS
// overrides). Not ATen's intra-op pool: launchers commonly set OMP_NUM_THREADS=1 for the ranks, which
// would leave a 3-billion-parameter AdamW on one core. Idle workers sleep on a condition variable, so
// they take nothing from the threads that feed the GPU.
class HostThreads {
public:
    static HostThreads& instance()
    {
        static HostThreads pool;
        return pool;
    }

    // Runs chunk(begin, end) over [0, n) in pieces of `grain` on every thread, the caller's included.
    void parallelFor(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)>& chunk)
    {
        std::unique_lock lock(m_mutex);
        m_job = &chunk;
        m_total = n;
        m_grain = grain;
        m_next = 0;
        m_busy = static_cast<int>(m_workers.size());
        ++m_generation;
        lock.unlock();
        m_wake.notify_all();
        runChunks();
        lock.lock();
        m_done.wait(lock, [&] { return m_busy == 0; });
        m_job = nullptr;
    }

private:
    HostThreads()
    {
        int count = 0;
        if (const char* env = std::getenv("SHARDWISE_HOST_THREADS"))
            count = std::atoi(env);
        if (count <= 0) {
            cpu_set_t set;
            count = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                                : static_cast<int>(std::thread::hardware_concurrency());
        }
        for (int i = 1; i < std::max(count, 1); ++i)
            m_workers.emplace_back([this] { work(); });
    }

    ~HostThreads()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_wake.notify_all();
        for (auto& t : m_workers)
            t.join();
    }

    void runChunks()
    {
        for (;;) {
            const auto begin = m_next.fetch_add(m_grain);
            if (begin >= m_total)
                return;
            (*m_job)(begin, std::min(m_total, begin + m_grain));
        }
    }

    void work()
    {
        std::uint64_t seen = 0;
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return m_stopping || m_generation != seen; });
            if (m_stopping)
                return;
            seen = m_generation;
            lock.unlock();
            runChunks();
            lock.lock();
            if (--m_busy == 0)
                m_done.notify_one();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    std::vector<std::thread> m_workers;
    const std::function<void(std::int64_t, std::int64_t)>* m_job = nullptr;
    std::int64_t m_total = 0;
    std::int64_t m_grain = 1;
    std::atomic<std::int64_t> m_next { 0 };
    std::uint64_t m_generation = 0;
    int m_busy = 0;
    bool m_stopping = false;
};

void check(const at::Tensor& t, const char* what, std::int64_t numel)
{
    if (!t.device().is_cpu() || !t.is_contiguous() || t.numel() != numel
        || (t.scalar_type() != at::kFloat && t.scalar_type() != at::kBFloat16))
        throw std::invalid_argument(std::string("cpuAdamWStep: ") + what
                                    + " must be a contiguous CPU fp32 or bf16 tensor of the parameter's size");
}

} // namespace

void cpuAdamWStep(const at::Tensor& param, const at::Tensor& grad, const at::Tensor& expAvg, const at::Tensor& expAvgSq,
                  std::int64_t step, const AdamWSettings& s)
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
    const Coefficients c { static_cast<float>(1.0 - s.lr * s.weightDecay),
                           static_cast<float>(s.beta1),
                           static_cast<float>(1.0 - s.beta1),
                           static_cast<float>(s.beta2),
                           static_cast<float>(1.0 - s.beta2),
                           static_cast<float>(std::sqrt(bias2)),
                           static_cast<float>(s.eps),
                           static_cast<float>(-s.lr / bias1) };

    const bool bf16State = param.scalar_type() == at::kBFloat16;
    const bool bf16Grad = grad.scalar_type() == at::kBFloat16;
    auto* p = param.data_ptr();
    auto* g = grad.data_ptr();
    auto* m = expAvg.data_ptr();
    auto* v = expAvgSq.data_ptr();
    // 64 Ki elements per task: large enough to amortise scheduling, small enough to balance 16+ threads.
    HostThreads::instance().parallelFor(n, 1 << 16, [&](std::int64_t begin, std::int64_t end) {
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
