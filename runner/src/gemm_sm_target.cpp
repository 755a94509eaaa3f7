#include "gemm_sm_target.hpp"

#include "compat.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <optional>

#ifdef SHARDWISE_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>

#include <dlfcn.h>
#endif

namespace shardwise::runner {

namespace {

std::atomic<int> g_carveout { 0 };

#ifdef SHARDWISE_WITH_CUDA
// Looked up in the cuBLAS that LibTorch loaded, so the runner links no cuBLAS of its own (a second
// copy could differ in version from the one whose handles LibTorch creates).
using SetSmCountTarget = int (*)(cublasHandle_t, int);
SetSmCountTarget setSmCountTarget()
{
    static const auto fn = reinterpret_cast<SetSmCountTarget>(dlsym(RTLD_DEFAULT, "cublasSetSmCountTarget"));
    return fn;
}

int deviceSms()
{
    static const int sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
    return sms;
}
#endif

} // namespace

int backwardGemmCarveout()
{
    static const int carveout = [] {
        const char* value = std::getenv("SHARDWISE_BACKWARD_GEMM_CARVEOUT");
        const int n = value ? std::atoi(value) : kDefaultBackwardGemmCarveout;
        return n > 0 ? n : 0;
    }();
    return carveout;
}

std::string backwardGemmCarveoutPart(int sms)
{
    return "backward GEMMs leave " + std::to_string(sms) + " SMs";
}

void setBackwardGemmCarveout(int sms)
{
#ifdef SHARDWISE_WITH_CUDA
    const int clamped = sms > 0 && sms < deviceSms() ? sms : 0;
    g_carveout.store(clamped, std::memory_order_relaxed);
#if SHARDWISE_TORCH_AT_LEAST(2, 7)
    std::optional<std::int32_t> libraryCarveout;
    if (clamped > 0)
        libraryCarveout = clamped;
    at::globalContext()._setSMCarveout_EXPERIMENTAL(libraryCarveout);
#endif
#else
    (void)sms;
#endif
}

void applyGemmSmTarget()
{
#ifdef SHARDWISE_WITH_CUDA
    thread_local cublasHandle_t handle = nullptr;
    thread_local int applied = 0;
    const int carveout = g_carveout.load(std::memory_order_relaxed);
    if (carveout == applied && (carveout == 0 || handle == at::cuda::getCurrentCUDABlasHandle()))
        return;
    const auto fn = setSmCountTarget();
    if (!fn)
        return;
    handle = at::cuda::getCurrentCUDABlasHandle();
    // 0 gives cuBLAS its default (every SM) back.
    fn(handle, carveout > 0 ? deviceSms() - carveout : 0);
    applied = carveout;
#endif
}

} // namespace shardwise::runner
