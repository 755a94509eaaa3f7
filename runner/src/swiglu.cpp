#include "swiglu.hpp"

#include <torch/autograd.h>

namespace shardwise::runner {

namespace {

struct SwiGlu : torch::autograd::Function<SwiGlu> {
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& gateUp)
    {
        TORCH_CHECK(gateUp.size(-1) % 2 == 0, "swiglu: the fused gate/up width must be even");
        ctx->save_for_backward({gateUp});
        const auto ffn = gateUp.size(-1) / 2;
        return at::silu(gateUp.narrow(-1, 0, ffn)) * gateUp.narrow(-1, ffn, ffn);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads)
    {
        const auto gateUp = ctx->get_saved_variables()[0];
        const auto ffn = gateUp.size(-1) / 2;
        const auto gate = gateUp.narrow(-1, 0, ffn);
        const auto up = gateUp.narrow(-1, ffn, ffn);
        const auto& grad = grads[0];
        auto out = at::empty_like(gateUp);
        // d/dgate = grad * up * silu'(gate): silu_backward is that derivative in one kernel.
        auto gateGrad = out.narrow(-1, 0, ffn);
        auto upGrad = out.narrow(-1, ffn, ffn);
        at::silu_backward_out(gateGrad, grad * up, gate);
        at::mul_out(upGrad, grad, at::silu(gate));
        return {out};
    }
};

} // namespace

at::Tensor swiglu(const at::Tensor& gateUp)
{
    return SwiGlu::apply(gateUp);
}

} // namespace shardwise::runner
