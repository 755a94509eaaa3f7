#include "swiglu.hpp"

#include "fused_path.hpp"

#include <torch/autograd.h>

#ifdef SHARDWISE_WITH_FUSED_KERNELS
#include "fused_kernels.hpp"

#include <ATen/cuda/CUDAContext.h>
#endif

namespace shardwise::runner {

namespace {

#ifdef SHARDWISE_WITH_FUSED_KERNELS
// The kernels take rows of gate/up with unit stride inside a row and one stride between rows.
bool fusedShape(const at::Tensor& gateUp)
{
    if (!takesFusedPath(gateUp) || gateUp.dim() < 2 || gateUp.stride(-1) != 1)
        return false;
    // Every leading dimension must step by whole rows, as in a contiguous [rows, width] block.
    auto expected = gateUp.stride(-2);
    for (auto d = gateUp.dim() - 2; d >= 1; --d) {
        expected *= gateUp.size(d);
        if (gateUp.size(d - 1) > 1 && gateUp.stride(d - 1) != expected)
            return false;
    }
    return gateUp.stride(-2) >= gateUp.size(-1);
}

std::int64_t rowsOf(const at::Tensor& gateUp)
{
    return gateUp.numel() / gateUp.size(-1);
}

cudaStream_t streamOf(const at::Tensor& t)
{
    return at::cuda::getCurrentCUDAStream(t.device().index()).stream();
}
#endif

struct SwiGlu : torch::autograd::Function<SwiGlu> {
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& gateUp)
    {
        TORCH_CHECK(gateUp.size(-1) % 2 == 0, "swiglu: the fused gate/up width must be even");
        ctx->save_for_backward({ gateUp });
        const auto ffn = gateUp.size(-1) / 2;
#ifdef SHARDWISE_WITH_FUSED_KERNELS
        if (fusedShape(gateUp)) {
            auto sizes = gateUp.sizes().vec();
            sizes.back() = ffn;
            auto out = at::empty(sizes, gateUp.options());
            kernels::swigluForward(gateUp.data_ptr(), gateUp.stride(-2), out.data_ptr(), rowsOf(gateUp), ffn,
                                   streamOf(gateUp));
            return out;
        }
#endif
        return at::silu(gateUp.narrow(-1, 0, ffn)) * gateUp.narrow(-1, ffn, ffn);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads)
    {
        const auto gateUp = ctx->get_saved_variables()[0];
        const auto ffn = gateUp.size(-1) / 2;
        const auto gate = gateUp.narrow(-1, 0, ffn);
        const auto up = gateUp.narrow(-1, ffn, ffn);
        auto out = at::empty(gateUp.sizes(), gateUp.options());
#ifdef SHARDWISE_WITH_FUSED_KERNELS
        if (fusedShape(gateUp)) {
            const auto grad = grads[0].contiguous();
            kernels::swigluBackward(gateUp.data_ptr(), gateUp.stride(-2), grad.data_ptr(), out.data_ptr(),
                                    rowsOf(gateUp), ffn, streamOf(gateUp));
            return { out };
        }
#endif
        const auto& grad = grads[0];
        // d/dgate = grad * up * silu'(gate): silu_backward is that derivative in one kernel.
        auto gateGrad = out.narrow(-1, 0, ffn);
        auto upGrad = out.narrow(-1, ffn, ffn);
        at::silu_backward_out(gateGrad, grad * up, gate);
        at::mul_out(upGrad, grad, at::silu(gate));
        return { out };
    }
};

} // namespace

at::Tensor swiglu(const at::Tensor& gateUp)
{
    return SwiGlu::apply(gateUp);
}

} // namespace shardwise::runner
