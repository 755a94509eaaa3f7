// shardwise-bench-host-adamw: the offload strategies' host AdamW (runner/src/host_adamw.cpp, the
// product's kernel and threads) against a memory pass with the same access pattern through the same
// threads: every element's parameter, gradient and moments read and parameter and moments written, with
// no arithmetic. Their ratio says whether the kernel is bound by the host's memory or by its arithmetic.
//
//   shardwise-bench-host-adamw [--elements N] [--repetitions R] [--state bf16|fp32] [--grad bf16|fp32]
//                              [--pages default|huge|small] [--grain N]
//
// One JSON line per measurement: kernel (adamw | memory_pass), params/s and GB/s (the bytes the pass
// must move at least), median of R passes after one untimed pass. The thread count is the product's
// (SHARDWISE_HOST_THREADS or the CPUs this process may run on). --pages: huge asks for transparent huge
// pages on the buffers, small forbids them (page-locked buffers from cudaHostAlloc are small pages).
// bench/offload/measure.sh host-adamw runs it over thread counts and page sizes beside PyTorch's fused
// CPU AdamW in the same call.

#include "host_adamw.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

using shardwise::runner::host::Storage;
namespace host = shardwise::runner::host;

struct Options {
    std::int64_t elements = std::int64_t { 1 } << 30;
    int repetitions = 5;
    Storage state = Storage::Bf16;
    Storage grad = Storage::Bf16;
    std::string pages = "default";
    std::int64_t grain = host::kAdamWGrain;
};

[[noreturn]] void usage(const char* why)
{
    std::fprintf(stderr,
                 "shardwise-bench-host-adamw: %s\nusage: shardwise-bench-host-adamw [--elements N] [--repetitions R] "
                 "[--state bf16|fp32] [--grad bf16|fp32] [--pages default|huge|small] [--grain N]\n",
                 why);
    std::exit(2);
}

Storage storageArg(std::string_view v, const char* flag)
{
    if (v == "bf16")
        return Storage::Bf16;
    if (v == "fp32")
        return Storage::F32;
    usage((std::string(flag) + " takes bf16 or fp32").c_str());
}

Options parse(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view flag = argv[i];
        if (i + 1 >= argc)
            usage((std::string(flag) + " needs a value").c_str());
        const char* value = argv[++i];
        if (flag == "--elements")
            o.elements = std::atoll(value);
        else if (flag == "--repetitions")
            o.repetitions = std::atoi(value);
        else if (flag == "--state")
            o.state = storageArg(value, "--state");
        else if (flag == "--grad")
            o.grad = storageArg(value, "--grad");
        else if (flag == "--pages")
            o.pages = value;
        else if (flag == "--grain")
            o.grain = std::atoll(value);
        else
            usage(("unknown option " + std::string(flag)).c_str());
    }
    if (o.elements < 1 || o.repetitions < 1 || o.grain < 1)
        usage("--elements, --repetitions and --grain must be positive");
    if (o.pages != "default" && o.pages != "huge" && o.pages != "small")
        usage("--pages takes default, huge or small");
    return o;
}

std::size_t bytesOf(Storage s)
{
    return s == Storage::Bf16 ? 2 : 4;
}

// Anonymous memory with the asked page policy, first touched by the threads that will use it.
void* buffer(std::size_t bytes, const Options& o)
{
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        usage("cannot map the buffers (--elements too large for this host?)");
    if (o.pages != "default" && madvise(p, bytes, o.pages == "huge" ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) != 0)
        std::perror("madvise");
    auto* bytesPtr = static_cast<unsigned char*>(p);
    host::forEachChunk(static_cast<std::int64_t>(bytes), o.grain * 4, [&](std::int64_t b, std::int64_t e) {
        // Small positive values in either storage: 0x3C00 is bf16 0.0078, 0x3C003C00 two of them or an
        // fp32 of the same order.
        for (std::int64_t i = b; i < e; i += 2) {
            bytesPtr[i] = 0x00;
            if (i + 1 < e)
                bytesPtr[i + 1] = 0x3C;
        }
    });
    return p;
}

template <typename F> double medianSeconds(int repetitions, F&& pass)
{
    pass();
    std::vector<double> s;
    for (int r = 0; r < repetitions; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        pass();
        s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(s.begin(), s.end());
    return s[s.size() / 2];
}

// The same reads and writes as the kernel and nothing else: each stored word gains the gradient's bits
// (integer adds the compiler vectorises), so no load or store can be dropped.
template <typename S, typename G>
void memoryPass(S* __restrict p, const G* __restrict g, S* __restrict m, S* __restrict v, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i) {
        const auto gi = static_cast<S>(g[i]);
        p[i] = static_cast<S>(p[i] + gi);
        m[i] = static_cast<S>(m[i] ^ gi);
        v[i] = static_cast<S>(v[i] + 1);
    }
}

template <typename S, typename G> void memoryPassOver(void* p, const void* g, void* m, void* v, const Options& o)
{
    host::forEachChunk(o.elements, o.grain, [&](std::int64_t b, std::int64_t e) {
        memoryPass(static_cast<S*>(p) + b, static_cast<const G*>(g) + b, static_cast<S*>(m) + b, static_cast<S*>(v) + b,
                   e - b);
    });
}

void report(const char* kernel, const Options& o, double seconds)
{
    const double bytes
        = static_cast<double>(o.elements) * static_cast<double>(3 * 2 * bytesOf(o.state) + bytesOf(o.grad));
    std::printf("{\"kernel\":\"%s\",\"state\":\"%s\",\"grad\":\"%s\",\"pages\":\"%s\",\"threads\":%d,"
                "\"grain\":%lld,\"elements\":%lld,\"seconds\":%.6f,\"params_per_s\":%.4e,\"gb_per_s\":%.2f}\n",
                kernel, o.state == Storage::Bf16 ? "bf16" : "fp32", o.grad == Storage::Bf16 ? "bf16" : "fp32",
                o.pages.c_str(), host::hostThreads(), static_cast<long long>(o.grain),
                static_cast<long long>(o.elements), seconds, static_cast<double>(o.elements) / seconds,
                bytes / seconds / 1e9);
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv)
{
    const Options o = parse(argc, argv);
    const auto n = static_cast<std::size_t>(o.elements);
    void* p = buffer(n * bytesOf(o.state), o);
    void* g = buffer(n * bytesOf(o.grad), o);
    void* m = buffer(n * bytesOf(o.state), o);
    void* v = buffer(n * bytesOf(o.state), o);

    std::int64_t step = 0;
    const double adamw = medianSeconds(o.repetitions, [&] {
        const auto c = host::adamwCoefficients(++step, 1e-3, 0.9, 0.999, 1e-8, 0.01);
        host::forEachChunk(o.elements, o.grain, [&](std::int64_t b, std::int64_t e) {
            host::adamwRange(p, g, m, v, b, e, o.state, o.grad, c);
        });
    });
    report("adamw", o, adamw);

    const double memory = medianSeconds(o.repetitions, [&] {
        const bool bf16State = o.state == Storage::Bf16, bf16Grad = o.grad == Storage::Bf16;
        if (bf16State && bf16Grad)
            memoryPassOver<std::uint16_t, std::uint16_t>(p, g, m, v, o);
        else if (bf16State)
            memoryPassOver<std::uint16_t, std::uint32_t>(p, g, m, v, o);
        else if (bf16Grad)
            memoryPassOver<std::uint32_t, std::uint16_t>(p, g, m, v, o);
        else
            memoryPassOver<std::uint32_t, std::uint32_t>(p, g, m, v, o);
    });
    report("memory_pass", o, memory);
    return 0;
}
