#pragma once
// AdamW (Loshchilov & Hutter 2019) on flat tensors, with the update order and bias correction of
// torch.optim.AdamW: decoupled weight decay first, then the moment updates and the step.

#include <ATen/ATen.h>

namespace shardwise::runner {

struct AdamWSettings {
    double lr = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double weightDecay = 0.01;
};

// `param` and the moments share dtype and device; `grad` is cast to the moments' dtype when it differs.
// `step` counts from 1.
void adamwStep(const at::Tensor& param, const at::Tensor& grad, const at::Tensor& expAvg, const at::Tensor& expAvgSq,
               std::int64_t step, const AdamWSettings& s);

// The runner's fused device AdamW (fused_kernels.hpp, adamw) on one unit's flat state: bf16 parameter,
// gradient and moments, or an fp32 parameter (master) and moments with a bf16 gradient, whose updated
// values it also writes rounded into `bf16Copy` when that is defined. `step` is a CUDA fp32 scalar
// holding the step count. On the current CUDA stream. Returns false, touching nothing, where the kernel
// does not apply (no fused kernels in this build or SHARDWISE_FUSED_KERNELS=0, other devices or dtypes,
// non-contiguous tensors); callers then take PyTorch's fused AdamW or adamwStep. maxBlocks: the kernel's
// grid cap (fused_kernels.hpp), 0 for none.
bool fusedDeviceAdamWApplies(const at::Tensor& param, const at::Tensor& grad, const at::Tensor& expAvg,
                             const at::Tensor& expAvgSq, const at::Tensor& bf16Copy);
bool fusedDeviceAdamW(const at::Tensor& param, const at::Tensor& grad, const at::Tensor& expAvg,
                      const at::Tensor& expAvgSq, const at::Tensor& bf16Copy, const at::Tensor& step,
                      const AdamWSettings& s, int maxBlocks = 0);

} // namespace shardwise::runner
