#pragma once
// Whether an elementwise step takes its fused CUDA kernel (fused_kernels.hpp) or the ATen composition:
// fused for bf16 CUDA tensors in builds with the kernels, unless SHARDWISE_FUSED_KERNELS=0 (the
// composition stays available to compare against on the same machine).

#include <ATen/ATen.h>

namespace shardwise::runner {

// True when this build carries the fused kernels and the environment does not turn them off.
bool fusedKernelsEnabled();

bool takesFusedPath(const at::Tensor& t);

// The device AdamW kernel (fused_kernels.hpp, adamw): with the fused kernels, unless
// SHARDWISE_FUSED_ADAMW=0 (PyTorch's fused AdamW, or the ATen ops for an fp32 master, take the step then:
// the reference it is measured against on the same machine).
bool fusedAdamWEnabled();

} // namespace shardwise::runner
