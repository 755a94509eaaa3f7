#include "adamw.hpp"

#include <cmath>

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

} // namespace shardwise::runner
