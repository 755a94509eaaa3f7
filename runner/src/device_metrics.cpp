#include "device_metrics.hpp"

#include "compat.hpp"
#include "fused_norm.hpp"
#include "fused_path.hpp"
#include "step_schedule.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#ifdef SHARDWISE_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <cuda_runtime_api.h>
#include <nccl.h>
#endif

namespace shardwise::runner {

namespace {

std::int64_t hostPeakRss()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::int64_t>(usage.ru_maxrss) * 1024; // Linux reports KiB
}

} // namespace

protocol::MemorySample sampleMemory(const at::Device& device)
{
    protocol::MemorySample m;
    m.hostPeakRss = hostPeakRss();
#ifdef SHARDWISE_WITH_CUDA
    if (device.is_cuda()) {
        using namespace c10::cuda::CUDACachingAllocator;
        const auto stats = getDeviceStats(device.index());
        // StatType::AGGREGATE is index 0; the enum moved namespaces across 2.x releases.
        constexpr std::size_t all = 0;
        m.allocated = stats.allocated_bytes[all].current;
        m.reserved = stats.reserved_bytes[all].current;
        m.peakAllocated = stats.allocated_bytes[all].peak;
        m.peakReserved = stats.reserved_bytes[all].peak;
        m.allocRetries = stats.num_alloc_retries;
        std::size_t freeBytes = 0;
        std::size_t totalBytes = 0;
        // NCCL's buffers and the CUDA context live outside the caching allocator; this sees them.
        if (cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess) {
            m.deviceFree = static_cast<std::int64_t>(freeBytes);
            m.deviceTotal = static_cast<std::int64_t>(totalBytes);
        }
    }
#else
    (void)device;
#endif
    return m;
}

AllocatorPeaks allocatorPeaks(const at::Device& device)
{
    AllocatorPeaks p;
#ifdef SHARDWISE_WITH_CUDA
    if (device.is_cuda()) {
        const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
        constexpr std::size_t all = 0; // StatType::AGGREGATE, as in sampleMemory
        p.allocated = stats.allocated_bytes[all].peak;
        p.reserved = stats.reserved_bytes[all].peak;
    }
#else
    (void)device;
#endif
    return p;
}

void resetPeakMemory(const at::Device& device)
{
#ifdef SHARDWISE_WITH_CUDA
    if (device.is_cuda())
        c10::cuda::CUDACachingAllocator::resetPeakStats(device.index());
#else
    (void)device;
#endif
}

void releaseCachedMemory(const at::Device& device)
{
#ifdef SHARDWISE_WITH_CUDA
    if (device.is_cuda())
        c10::cuda::CUDACachingAllocator::emptyCache();
#else
    (void)device;
#endif
}

std::int64_t capCachingAllocator(const at::Device& device, double bytes)
{
#ifdef SHARDWISE_WITH_CUDA
    if (device.is_cuda()) {
        std::size_t free = 0;
        std::size_t total = 0;
        if (cudaMemGetInfo(&free, &total) != cudaSuccess || total == 0)
            return 0;
        const double fraction = std::min(1.0, bytes / static_cast<double>(total));
        c10::cuda::CUDACachingAllocator::setMemoryFraction(fraction, device.index());
        return static_cast<std::int64_t>(fraction * static_cast<double>(total));
    }
#endif
    (void)device;
    (void)bytes;
    return 0;
}

void selectDevice(const at::Device& device)
{
#ifdef SHARDWISE_WITH_CUDA
    if (device.is_cuda())
        c10::cuda::set_device(device.index());
#else
    (void)device;
#endif
}

void synchronizeDevice(const at::Device& device)
{
#ifdef SHARDWISE_WITH_CUDA
    if (device.is_cuda())
        at::cuda::getCurrentCUDAStream(device.index()).synchronize();
#else
    (void)device;
#endif
}

std::string deviceName(const at::Device& device)
{
#ifdef SHARDWISE_WITH_CUDA
    if (device.is_cuda())
        return at::cuda::getDeviceProperties(device.index())->name;
#else
    (void)device;
#endif
    return "cpu";
}

int cudaDeviceCount()
{
#ifdef SHARDWISE_WITH_CUDA
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
#else
    return 0;
#endif
}

protocol::SoftwareVersions softwareVersions()
{
    protocol::SoftwareVersions v;
    v.runner = SHARDWISE_RUNNER_VERSION;
    v.libtorch = TORCH_VERSION;
    v.activations = protocol::kNormInputsRecomputed; // linear.hpp, NormedInput
    // unit_schedule.cpp, downloadReducedSlice; sharding_engine.cpp, the host step pipeline
    v.offloadStaging = protocol::kOffloadStagingInPlace;
    if (hostStepPerUnit())
        v.offloadStaging += std::string("; ") + protocol::kHostStepPerUnit;
    v.kernels = fusedKernelsEnabled()
        ? std::string("fused ") + protocol::kFusedRotary + " + " + protocol::kFusedSwiglu + " + "
            + protocol::kFusedCrossEntropy + (fusedAdamWEnabled() ? std::string(" + ") + protocol::kFusedAdamW : "")
            + (fusedNormEnabled() ? std::string(" + ") + kFusedRmsNormName : "") + " on CUDA bf16, ATen elsewhere"
        : std::string(protocol::kKernelsAten);
#if defined(__clang__)
    v.compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
    v.compiler = "gcc " __VERSION__;
#endif
#ifdef SHARDWISE_WITH_CUDA
    int runtime = 0;
    if (cudaRuntimeGetVersion(&runtime) == cudaSuccess)
        v.cuda = std::to_string(runtime / 1000) + "." + std::to_string((runtime % 1000) / 10);
    int driver = 0;
    if (cudaDriverGetVersion(&driver) == cudaSuccess)
        v.driver = "cuda " + std::to_string(driver / 1000) + "." + std::to_string((driver % 1000) / 10);
    int nccl = 0;
    if (ncclGetVersion(&nccl) == ncclSuccess)
        v.nccl = std::to_string(nccl / 10000) + "." + std::to_string((nccl % 10000) / 100) + "."
            + std::to_string(nccl % 100);
#endif
    return v;
}

} // namespace shardwise::runner
