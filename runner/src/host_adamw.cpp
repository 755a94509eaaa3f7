#include "host_adamw.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace shardwise::runner::host {

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

// One element at a time in a loop the compiler vectorises (-O3, no aliasing between the four
// arrays); target_clones picks AVX-512 or AVX2 at run time where the CPU has them. Inlined into each
// clone below: called instead, every clone would jump to one copy compiled for the baseline x86-64
// (SSE2), and the AVX clones would run 128-bit code.
#if defined(__GNUC__)
#define SHARDWISE_INLINE __attribute__((always_inline)) inline
#else
#define SHARDWISE_INLINE inline
#endif
template <typename S, typename G>
SHARDWISE_INLINE void update(S* __restrict p, const G* __restrict g, S* __restrict m, S* __restrict v, std::int64_t n,
                             const AdamWCoefficients& c)
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

SHARDWISE_CLONES void updateF32F32(float* p, const float* g, float* m, float* v, std::int64_t n,
                                   const AdamWCoefficients& c)
{
    update(p, g, m, v, n, c);
}
SHARDWISE_CLONES void updateF32Bf16(float* p, const std::uint16_t* g, float* m, float* v, std::int64_t n,
                                    const AdamWCoefficients& c)
{
    update(p, g, m, v, n, c);
}
SHARDWISE_CLONES void updateBf16Bf16(std::uint16_t* p, const std::uint16_t* g, std::uint16_t* m, std::uint16_t* v,
                                     std::int64_t n, const AdamWCoefficients& c)
{
    update(p, g, m, v, n, c);
}
SHARDWISE_CLONES void updateBf16F32(std::uint16_t* p, const float* g, std::uint16_t* m, std::uint16_t* v,
                                    std::int64_t n, const AdamWCoefficients& c)
{
    update(p, g, m, v, n, c);
}

// The host optimizer's own threads (hostThreads()). Idle workers sleep on a condition variable, so they
// take nothing from the threads that feed the GPU.
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
        for (int i = 1; i < hostThreads(); ++i)
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

} // namespace

int hostThreads()
{
    static const int count = [] {
        int n = 0;
        if (const char* env = std::getenv("SHARDWISE_HOST_THREADS"))
            n = std::atoi(env);
        if (n <= 0) {
            cpu_set_t set;
            n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                            : static_cast<int>(std::thread::hardware_concurrency());
        }
        return std::max(n, 1);
    }();
    return count;
}

AdamWCoefficients adamwCoefficients(std::int64_t step, double lr, double beta1, double beta2, double eps,
                                    double weightDecay)
{
    const double bias1 = 1.0 - std::pow(beta1, static_cast<double>(step));
    const double bias2 = 1.0 - std::pow(beta2, static_cast<double>(step));
    return { static_cast<float>(1.0 - lr * weightDecay),
             static_cast<float>(beta1),
             static_cast<float>(1.0 - beta1),
             static_cast<float>(beta2),
             static_cast<float>(1.0 - beta2),
             static_cast<float>(std::sqrt(bias2)),
             static_cast<float>(eps),
             static_cast<float>(-lr / bias1) };
}

void forEachChunk(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)>& chunk)
{
    HostThreads::instance().parallelFor(n, grain, chunk);
}

void adamwRange(void* p, const void* g, void* m, void* v, std::int64_t begin, std::int64_t end, Storage state,
                Storage grad, const AdamWCoefficients& c)
{
    const auto len = end - begin;
    if (state == Storage::Bf16) {
        auto* ps = static_cast<std::uint16_t*>(p) + begin;
        auto* ms = static_cast<std::uint16_t*>(m) + begin;
        auto* vs = static_cast<std::uint16_t*>(v) + begin;
        if (grad == Storage::Bf16)
            updateBf16Bf16(ps, static_cast<const std::uint16_t*>(g) + begin, ms, vs, len, c);
        else
            updateBf16F32(ps, static_cast<const float*>(g) + begin, ms, vs, len, c);
    } else {
        auto* ps = static_cast<float*>(p) + begin;
        auto* ms = static_cast<float*>(m) + begin;
        auto* vs = static_cast<float*>(v) + begin;
        if (grad == Storage::Bf16)
            updateF32Bf16(ps, static_cast<const std::uint16_t*>(g) + begin, ms, vs, len, c);
        else
            updateF32F32(ps, static_cast<const float*>(g) + begin, ms, vs, len, c);
    }
}

void adamwStep(void* p, const void* g, void* m, void* v, std::int64_t n, Storage state, Storage grad,
               const AdamWCoefficients& c)
{
    forEachChunk(n, kAdamWGrain,
                 [&](std::int64_t begin, std::int64_t end) { adamwRange(p, g, m, v, begin, end, state, grad, c); });
}

} // namespace shardwise::runner::host
