#include "rotary.hpp"

#include "fused_path.hpp"

#ifdef SHARDWISE_WITH_FUSED_KERNELS
#include "fused_kernels.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <torch/autograd.h>
#endif

namespace shardwise::runner {

namespace {

at::Tensor rotaryComposition(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin)
{
    const auto t = x.size(2);
    const auto halfDim = x.size(3) / 2;
    const auto rotated = at::cat({ -x.narrow(3, halfDim, halfDim), x.narrow(3, 0, halfDim) }, 3);
    return x * cos.narrow(0, 0, t) + rotated * sin.narrow(0, 0, t);
}

#ifdef SHARDWISE_WITH_FUSED_KERNELS
// [batch, heads, seq, headDim] in, [batch, seq, heads, headDim] storage out (returned as the
// [batch, heads, seq, headDim] view, the layout the attention kernels and the q/k/v split expect).
at::Tensor rotaryKernel(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin, bool inverse)
{
    const auto in = x.stride(3) == 1 ? x : x.contiguous();
    kernels::RotaryShape shape;
    shape.batch = in.size(0);
    shape.heads = in.size(1);
    shape.seq = in.size(2);
    shape.headDim = in.size(3);
    shape.batchStride = in.stride(0);
    shape.headStride = in.stride(1);
    shape.seqStride = in.stride(2);
    auto out = at::empty({ shape.batch, shape.seq, shape.heads, shape.headDim }, in.options());
    kernels::rotary(in.data_ptr(), shape, cos.data_ptr(), sin.data_ptr(), out.data_ptr(), inverse,
                    at::cuda::getCurrentCUDAStream(in.device().index()).stream());
    return out.transpose(1, 2);
}

struct Rotary : torch::autograd::Function<Rotary> {
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const at::Tensor& cos,
                              const at::Tensor& sin)
    {
        ctx->save_for_backward({ cos, sin });
        return rotaryKernel(x, cos, sin, false);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        return { rotaryKernel(grads[0], saved[0], saved[1], true), at::Tensor(), at::Tensor() };
    }
};
#endif

} // namespace

at::Tensor rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin)
{
    TORCH_CHECK(x.dim() == 4 && x.size(3) % 2 == 0, "rotary: x must be [batch, heads, seq, even headDim]");
    TORCH_CHECK(cos.size(0) >= x.size(2) && cos.size(1) == x.size(3), "rotary: the tables are shorter than seq");
#ifdef SHARDWISE_WITH_FUSED_KERNELS
    if (takesFusedPath(x) && cos.scalar_type() == at::kBFloat16 && sin.scalar_type() == at::kBFloat16
        && cos.is_contiguous() && sin.is_contiguous())
        return Rotary::apply(x, cos, sin);
#endif
    return rotaryComposition(x, cos, sin);
}

} // namespace shardwise::runner
