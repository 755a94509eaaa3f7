#include "cpu_adamw.hpp"

#include "host_adamw.hpp"

#include <stdexcept>
#include <string>

namespace shardwise::runner {

namespace {

void check(const at::Tensor& t, const char* what, std::int64_t numel)
{
    if (!t.device().is_cpu() || !t.is_contiguous() || t.numel() != numel
        || (t.scalar_type() != at::kFloat && t.scalar_type() != at::kBFloat16))
        throw std::invalid_argument(std::string("cpuAdamWStep: ") + what
                                    + " must be a contiguous CPU fp32 or bf16 tensor of the parameter's size");
}

} // namespace

void cpuAdamWStep(const at::Tensor& param, const at::Tensor& grad, const at::Tensor& expAvg, const at::Tensor& expAvgSq,
                  std::int64_t step, const AdamWSettings& s)
{
    const auto n = param.numel();
    check(param, "param", n);
    check(grad, "grad", n);
    check(expAvg, "exp_avg", n);
    check(expAvgSq, "exp_avg_sq", n);
    if (expAvg.scalar_type() != param.scalar_type() || expAvgSq.scalar_type() != param.scalar_type())
        throw std::invalid_argument("cpuAdamWStep: the moments must have the parameter's dtype");
    const auto storage = [](const at::Tensor& t) {
        return t.scalar_type() == at::kBFloat16 ? host::Storage::Bf16 : host::Storage::F32;
    };
    host::adamwStep(param.data_ptr(), grad.data_ptr(), expAvg.data_ptr(), expAvgSq.data_ptr(), n, storage(param),
                    storage(grad), host::adamwCoefficients(step, s.lr, s.beta1, s.beta2, s.eps, s.weightDecay));
}

} // namespace shardwise::runner
