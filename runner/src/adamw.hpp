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

} // namespace shardwise::runner
