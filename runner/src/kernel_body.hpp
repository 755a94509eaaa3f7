#pragma once
// What the fused kernels' per-index bodies share (rotary_qkv_kernel.hpp, swiglu_kernel.hpp,
// cross_entropy_kernel.hpp, adamw_kernel_body.hpp): compiled as device code by the .cu files and as
// plain C++ by their host emulation (tests/runner/test_kernel_host.cpp).

// Work counts the launchers and the kernels both compute.
#ifdef __CUDACC__
#define SHARDWISE_HOST_DEVICE __host__ __device__
#define SHARDWISE_UNROLL _Pragma("unroll")
#else
#define SHARDWISE_HOST_DEVICE
#define SHARDWISE_UNROLL
#endif

#ifndef __CUDACC__
#include <cmath>
#endif

namespace shardwise::runner::kernels {

// Vec elements of T moved as one load or store (16 bytes for 8 bf16 or 4 fp32).
template <typename T, int Vec> struct alignas(sizeof(T) * Vec) KernelPack {
    T v[Vec];
};

#ifdef SHARDWISE_KERNEL_FN
// exp: the device's fast __expf, the host's std::exp in the emulation.
SHARDWISE_KERNEL_FN float kernelExp(float x)
{
#ifdef __CUDACC__
    return __expf(x);
#else
    return std::exp(x);
#endif
}
#endif

} // namespace shardwise::runner::kernels
