#include "adamw.hpp"

#include "fused_path.hpp"

#include <cmath>

#ifdef SHARDWISE_WITH_FUSED_KERNELS
#include "fused_kernels.hpp"

#include <ATen/cuda/CUDAContext.h>
#endif

namespace shardwise::runner {

void adamwStep(const at::Tensor& param, const at::Tensor& grad, const at::Tensor& expAvg, const at::Tensor& expAvgSq,
               std::int64_t step, const AdamWSettings& s)
{
    const auto g = grad.scalar_type() == expAvg.scalar_type() && grad.device() == expAvg.device()
        ? grad
        : grad.to(expAvg.options());
    const double bias1 = 1.0 - std::pow(s.beta1, static_cast<double>(step));
    const double bias2 = 1.0 - std::pow(s.beta2, static_cast<double>(step));
    param.mul_(1.0 - s.lr * s.weightDecay);
    expAvg.mul_(s.beta1).add_(g, 1.0 - s.beta1);
    expAvgSq.mul_(s.beta2).addcmul_(g, g, 1.0 - s.beta2);
    const auto denom = (expAvgSq.sqrt() / std::sqrt(bias2)).add_(s.eps);
    param.addcdiv_(expAvg, denom, -s.lr / bias1);
}

bool fusedDeviceAdamWApplies(const at::Tensor& param, const at::Tensor& grad, const at::Tensor& expAvg,
                             const at::Tensor& expAvgSq, const at::Tensor& bf16Copy)
{
#ifdef SHARDWISE_WITH_FUSED_KERNELS
    if (!fusedAdamWEnabled() || !param.defined() || !param.is_cuda() || !param.is_contiguous())
        return false;
    const auto type = param.scalar_type();
    if (type != at::kFloat && type != at::kBFloat16)
        return false;
    const auto same = [&](const at::Tensor& t, at::ScalarType want) {
        return t.defined() && t.device() == param.device() && t.scalar_type() == want && t.numel() == param.numel()
            && t.is_contiguous();
    };
    return same(grad, at::kBFloat16) && same(expAvg, type) && same(expAvgSq, type)
        && (!bf16Copy.defined() || same(bf16Copy, at::kBFloat16));
#else
    (void)param, (void)grad, (void)expAvg, (void)expAvgSq, (void)bf16Copy;
    return false;
#endif
}

bool fusedDeviceAdamW(const at::Tensor& param, const at::Tensor& grad, const at::Tensor& expAvg,
                      const at::Tensor& expAvgSq, const at::Tensor& bf16Copy, const at::Tensor& step,
                      const AdamWSettings& s, int maxBlocks)
{
    if (!fusedDeviceAdamWApplies(param, grad, expAvg, expAvgSq, bf16Copy) || !step.defined()
        || step.device() != param.device() || step.scalar_type() != at::kFloat)
        return false;
#ifdef SHARDWISE_WITH_FUSED_KERNELS
    const auto n = param.numel();
    const bool master = param.scalar_type() == at::kFloat;
    const kernels::AdamWHyper h { s.lr, s.beta1, s.beta2, s.eps, s.weightDecay };
    kernels::adamw(param.data_ptr(), grad.data_ptr(), expAvg.data_ptr(), expAvgSq.data_ptr(),
                   bf16Copy.defined() ? bf16Copy.data_ptr() : nullptr, n,
                   master ? kernels::AdamWState::Fp32Master : kernels::AdamWState::Bf16, step.data_ptr<float>(), h,
                   maxBlocks, at::cuda::getCurrentCUDAStream(param.device().index()).stream());
    return true;
#else
    (void)s, (void)maxBlocks;
    return false;
#endif
}

} // namespace shardwise::runner
