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

RotatedQkv splitQkv(const at::Tensor& qkv, std::int64_t heads, std::int64_t kvHeads, std::int64_t headDim)
{
    const auto b = qkv.size(0);
    const auto t = qkv.size(1);
    const auto parts = qkv.split_with_sizes({ heads * headDim, kvHeads * headDim, kvHeads * headDim }, -1);
    return { parts[0].view({ b, t, heads, headDim }).transpose(1, 2),
             parts[1].view({ b, t, kvHeads, headDim }).transpose(1, 2),
             parts[2].view({ b, t, kvHeads, headDim }).transpose(1, 2) };
}

#ifdef SHARDWISE_WITH_FUSED_KERNELS
// A [batch, heads, seq, headDim] tensor (last dimension contiguous) as the kernel's view of it.
kernels::HeadsView headsView(const at::Tensor& x)
{
    return { x.data_ptr(), x.stride(0), x.stride(1), x.stride(2) };
}

kernels::QkvViews qkvViews(const RotatedQkv& parts)
{
    kernels::QkvViews views;
    views.part[0] = headsView(parts.q);
    views.part[1] = headsView(parts.k);
    views.part[2] = headsView(parts.v);
    return views;
}

at::Tensor lastDimContiguous(const at::Tensor& x)
{
    return x.stride(-1) == 1 ? x : x.contiguous();
}

struct RotaryQkv : torch::autograd::Function<RotaryQkv> {
    static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, const at::Tensor& qkv,
                                                  const at::Tensor& cos, const at::Tensor& sin, std::int64_t heads,
                                                  std::int64_t kvHeads)
    {
        const auto headDim = qkv.size(2) / (heads + 2 * kvHeads);
        const kernels::QkvShape shape { qkv.size(0), qkv.size(1), heads, kvHeads, headDim };
        ctx->save_for_backward({ cos, sin });
        ctx->saved_data["heads"] = heads;
        ctx->saved_data["kv_heads"] = kvHeads;
        const auto in = splitQkv(lastDimContiguous(qkv), heads, kvHeads, headDim);
        const auto b = shape.batch;
        const auto t = shape.seq;
        const RotatedQkv out { at::empty({ b, t, heads, headDim }, qkv.options()).transpose(1, 2),
                               at::empty({ b, t, kvHeads, headDim }, qkv.options()).transpose(1, 2),
                               at::empty({ b, t, kvHeads, headDim }, qkv.options()).transpose(1, 2) };
        kernels::rotaryQkv(qkvViews(in), qkvViews(out), shape, cos.data_ptr(), sin.data_ptr(), false,
                           at::cuda::getCurrentCUDAStream(qkv.device().index()).stream());
        return { out.q, out.k, out.v };
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const auto heads = ctx->saved_data["heads"].toInt();
        const auto kvHeads = ctx->saved_data["kv_heads"].toInt();
        const auto& any = grads[0].defined() ? grads[0] : (grads[1].defined() ? grads[1] : grads[2]);
        const auto b = any.size(0);
        const auto t = any.size(2);
        const auto headDim = any.size(3);
        const auto part = [&](std::size_t i, std::int64_t n) {
            return grads[i].defined() ? lastDimContiguous(grads[i]) : at::zeros({ b, n, t, headDim }, any.options());
        };
        const RotatedQkv in { part(0, heads), part(1, kvHeads), part(2, kvHeads) };
        auto dqkv = at::empty({ b, t, (heads + 2 * kvHeads) * headDim }, any.options());
        const kernels::QkvShape shape { b, t, heads, kvHeads, headDim };
        kernels::rotaryQkv(qkvViews(in), qkvViews(splitQkv(dqkv, heads, kvHeads, headDim)), shape, saved[0].data_ptr(),
                           saved[1].data_ptr(), true, at::cuda::getCurrentCUDAStream(any.device().index()).stream());
        return { dqkv, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor() };
    }
};
#endif

} // namespace

at::Tensor rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin)
{
    TORCH_CHECK(x.dim() == 4 && x.size(3) % 2 == 0, "rotary: x must be [batch, heads, seq, even headDim]");
    TORCH_CHECK(cos.size(0) >= x.size(2) && cos.size(1) == x.size(3), "rotary: the tables are shorter than seq");
    return rotaryComposition(x, cos, sin);
}

RotatedQkv rotaryQkv(const at::Tensor& qkv, std::int64_t heads, std::int64_t kvHeads, std::int64_t headDim,
                     const at::Tensor& cos, const at::Tensor& sin)
{
    TORCH_CHECK(qkv.dim() == 3 && qkv.size(2) == (heads + 2 * kvHeads) * headDim && headDim % 2 == 0,
                "rotary: qkv must be [batch, seq, (heads + 2 kvHeads) x even headDim]");
    TORCH_CHECK(cos.size(0) >= qkv.size(1) && cos.size(1) == headDim, "rotary: the tables are shorter than seq");
#ifdef SHARDWISE_WITH_FUSED_KERNELS
    if (takesFusedPath(qkv) && cos.scalar_type() == at::kBFloat16 && sin.scalar_type() == at::kBFloat16
        && cos.is_contiguous() && sin.is_contiguous()) {
        const auto parts = RotaryQkv::apply(qkv, cos, sin, heads, kvHeads);
        return { parts[0], parts[1], parts[2] };
    }
#endif
    auto parts = splitQkv(qkv, heads, kvHeads, headDim);
    parts.q = rotary(parts.q, cos, sin);
    parts.k = rotary(parts.k, cos, sin);
    return parts;
}

} // namespace shardwise::runner
