#include "swiglu.hpp"

#include <torch/autograd.h>

namespace shardwise::runner {

namespace {

struct SwiGlu : torch::autograd::Function<SwiGlu> {
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& gate, const at::Tensor& up)
    {
        ctx->save_for_backward({gate, up});
        return at::silu(gate) * up;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const auto& gate = saved[0];
        const auto& up = saved[1];
        const auto& grad = grads[0];
        // d/dgate = grad * up * silu'(gate); silu_backward is that derivative in one kernel.
        return {at::silu_backward(grad * up, gate), grad * at::silu(gate)};
    }
};

} // namespace

at::Tensor swiglu(const at::Tensor& gate, const at::Tensor& up)
{
    return SwiGlu::apply(gate, up);
}

} // namespace shardwise::runner
