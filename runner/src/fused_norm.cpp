#include "fused_norm.hpp"

#include "fused_path.hpp"

#include <torch/autograd.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#ifdef SHARDWISE_WITH_FUSED_KERNELS
#include "fused_kernels.hpp"

#include <ATen/cuda/CUDAContext.h>
#endif

namespace shardwise::runner {

namespace {

// SHARDWISE_FUSED_NORM: 1 (on, the CPU's reference path included), 0 (off), -1 (unset or other: on
// where the kernels apply, off on the CPU).
int fusedNormSetting()
{
    static const int setting = [] {
        const char* v = std::getenv("SHARDWISE_FUSED_NORM");
        if (v == nullptr)
            return -1;
        return std::strcmp(v, "1") == 0 ? 1 : std::strcmp(v, "0") == 0 ? 0 : -1;
    }();
    return setting;
}

} // namespace

bool fusedNormEnabled()
{
    return fusedNormSetting() != 0;
}

bool fusedNormRunsOn(const at::Device& device)
{
    if (device.is_cpu())
        return fusedNormSetting() == 1;
    return fusedNormSetting() != 0 && device.is_cuda() && fusedKernelsEnabled();
}

namespace {

bool aligned16(const at::Tensor& t)
{
    return reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 16 == 0;
}

#ifdef SHARDWISE_WITH_FUSED_KERNELS
// The kernels read the weight in 16-byte loads; a norm's slot in the unit's flat buffer starts wherever
// the slots before it end, so an unaligned one is read from an aligned copy (hidden elements).
at::Tensor kernelWeight(const at::Tensor& weight)
{
    return aligned16(weight) && weight.is_contiguous() ? weight : weight.contiguous().clone();
}

// A gradient as the kernels read it: contiguous and on 16 bytes (a fresh copy otherwise).
at::Tensor kernelRows(const at::Tensor& t)
{
    const auto c = t.contiguous();
    return aligned16(c) ? c : c.clone();
}
#endif

// The kernels' maths as ATen ops in fp32, for the CPU (and for tensors the kernels do not take): what
// the fused norm changes around the kernels is then the same on every device, and tested there.
std::pair<at::Tensor, at::Tensor> referenceForward(const at::Tensor& h, const at::Tensor& weight, double eps)
{
    const auto hf = h.to(at::kFloat);
    const auto rstd = at::rsqrt(hf.pow(2).mean(-1, true) + eps);
    return { (hf * rstd * weight.to(at::kFloat)).to(h.scalar_type()), rstd.reshape({ -1 }) };
}

// x [..., hidden] contiguous; returns {out, rstd} and sets h = x + residual where residual is defined.
std::pair<at::Tensor, at::Tensor> normForward(const at::Tensor& x, const at::Tensor& residual, const at::Tensor& weight,
                                              at::Tensor& h, double eps, bool keepRstd)
{
#ifdef SHARDWISE_WITH_FUSED_KERNELS
    if (x.is_cuda()) {
        const auto hidden = x.size(-1);
        const auto rows = x.numel() / hidden;
        auto out = at::empty_like(x);
        at::Tensor rstd;
        if (keepRstd)
            rstd = at::empty({ rows }, x.options().dtype(at::kFloat));
        if (residual.defined())
            h = at::empty_like(x);
        const auto w = kernelWeight(weight);
        kernels::rmsNormForward(x.data_ptr(), residual.defined() ? residual.data_ptr() : nullptr, w.data_ptr(),
                                residual.defined() ? h.data_ptr() : nullptr, out.data_ptr(),
                                keepRstd ? rstd.data_ptr<float>() : nullptr, rows, hidden, static_cast<float>(eps),
                                at::cuda::getCurrentCUDAStream(x.device().index()).stream());
        return { out, rstd };
    }
#endif
    (void)keepRstd;
    if (residual.defined())
        h = x + residual;
    return referenceForward(residual.defined() ? h : x, weight, eps);
}

// dh for the norm's input (plus dres where defined); the weight's gradient into its buffer.
at::Tensor normBackward(torch::autograd::AutogradContext* ctx, const at::Tensor& dn, const at::Tensor& dres)
{
    const auto saved = ctx->get_saved_variables();
    const auto& h = saved[0];
    const auto& rstd = saved[1];
    const auto weight = ctx->saved_data["weight"].toTensor();
    auto weightGrad = ctx->saved_data["weight_grad"].toTensor();
    TORCH_CHECK(weightGrad.storage().nbytes() > 0, "fused RMSNorm backward: the weight's gradient buffer is released");
    auto* unwritten = reinterpret_cast<UnwrittenFlag>(ctx->saved_data["weight_unwritten"].toInt());
    const auto hidden = h.size(-1);
    const auto rows = h.numel() / hidden;
    const auto grad = dn.defined() ? dn.contiguous() : at::zeros_like(h);
    const auto skip = dres.defined() ? dres.contiguous() : at::Tensor();
    at::Tensor dh;
#ifdef SHARDWISE_WITH_FUSED_KERNELS
    if (h.is_cuda()) {
        TORCH_CHECK(weightGrad.scalar_type() == at::kBFloat16 && weightGrad.is_contiguous(),
                    "fused RMSNorm backward: the weight's gradient must be contiguous bf16");
        const auto dnRows = kernelRows(grad);
        const auto dresRows = skip.defined() ? kernelRows(skip) : at::Tensor();
        dh = at::empty_like(h);
        auto workspace = at::empty({ kernels::rmsNormBackwardWorkspace(rows, hidden) }, rstd.options());
        const bool accumulate = !(unwritten && *unwritten);
        kernels::rmsNormBackward(dnRows.data_ptr(), h.data_ptr(), kernelWeight(weight).data_ptr(),
                                 rstd.data_ptr<float>(), dresRows.defined() ? dresRows.data_ptr() : nullptr,
                                 dh.data_ptr(), weightGrad.data_ptr(), accumulate, workspace.data_ptr<float>(), rows,
                                 hidden, at::cuda::getCurrentCUDAStream(h.device().index()).stream());
        if (unwritten)
            *unwritten = 0;
        return dh;
    }
#endif
    const auto r = rstd.reshape({ rows, 1 });
    const auto normed = h.reshape({ rows, hidden }).to(at::kFloat) * r;
    const auto d = grad.reshape({ rows, hidden }).to(at::kFloat);
    const auto g = d * weight.to(at::kFloat);
    auto dx = r * (g - normed * (g * normed).mean(-1, true));
    if (skip.defined())
        dx = dx + skip.reshape({ rows, hidden }).to(at::kFloat);
    writeOrAccumulate(weightGrad, (d * normed).sum(0).to(weightGrad.scalar_type()), unwritten);
    return dx.to(h.scalar_type()).reshape(h.sizes());
}

void saveWeight(torch::autograd::AutogradContext* ctx, const NormWeight& w)
{
    ctx->saved_data["weight"] = w.weight;
    ctx->saved_data["weight_grad"] = w.grad;
    ctx->saved_data["weight_unwritten"] = reinterpret_cast<std::int64_t>(w.unwritten);
}

// The handoff's box is kept as data by both nodes (saved_data shares the tensor, so what one node's
// backward sets, the other's reads).
void saveHandoff(torch::autograd::AutogradContext* ctx, const ResidualGradientHandoff& handoff)
{
    if (handoff.box.defined())
        ctx->saved_data["handoff"] = handoff.box;
}

struct FusedRmsNorm : torch::autograd::Function<FusedRmsNorm> {
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const NormWeight& w,
                              double eps, const ResidualGradientHandoff& handoff)
    {
        at::Tensor unused;
        auto [out, rstd] = normForward(x, at::Tensor(), w.weight, unused, eps, true);
        ctx->save_for_backward({ x, rstd });
        saveWeight(ctx, w);
        saveHandoff(ctx, handoff);
        return out;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads)
    {
        at::Tensor dres;
        if (ctx->saved_data.count("handoff") != 0) {
            auto box = ctx->saved_data["handoff"].toTensor();
            // The post-attention norm's backward has run (o's gradient comes first); a box it left
            // empty means x reached it without needing a gradient.
            if (box.numel() > 0)
                dres = box.detach(); // a handle of its own: the reset below leaves it
            box.set_();              // the gradient's memory goes back with this node's use of it
            ctx->saved_data.erase("handoff");
        }
        return { normBackward(ctx, grads[0], dres), at::Tensor(), at::Tensor(), at::Tensor() };
    }
};

struct FusedResidualRmsNorm : torch::autograd::Function<FusedResidualRmsNorm> {
    static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x,
                                                  const at::Tensor& residual, const NormWeight& w, double eps,
                                                  const ResidualGradientHandoff& handoff)
    {
        at::Tensor h;
        auto [out, rstd] = normForward(x, residual, w.weight, h, eps, true);
        ctx->save_for_backward({ h, rstd });
        saveWeight(ctx, w);
        saveHandoff(ctx, handoff);
        return { h, out };
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads)
    {
        // h = x + residual: both receive the gradient that reaches h, around the norm and through it.
        const auto dh = normBackward(ctx, grads[1], grads[0]);
        if (ctx->saved_data.count("handoff") != 0 && ctx->needs_input_grad(0)) {
            // x's share goes to the input norm's backward, which adds it in its kernel.
            ctx->saved_data["handoff"].toTensor().set_(dh);
            ctx->saved_data.erase("handoff");
            return { at::Tensor(), dh, at::Tensor(), at::Tensor(), at::Tensor() };
        }
        return { dh, dh, at::Tensor(), at::Tensor(), at::Tensor() };
    }
};

} // namespace

bool takesFusedNormPath(const at::Tensor& x)
{
    if (fusedNormSetting() == 0 || x.dim() == 0 || !x.is_contiguous())
        return false;
    if (x.is_cpu())
        return fusedNormSetting() == 1;
#ifdef SHARDWISE_WITH_FUSED_KERNELS
    const auto hidden = x.size(-1);
    return takesFusedPath(x) && hidden % 8 == 0 && hidden <= kernels::kMaxNormHidden && aligned16(x);
#else
    return false;
#endif
}

ResidualGradientHandoff residualGradientHandoff(const at::Tensor& x)
{
    // set_ keeps a tensor's device and dtype: the box starts as an empty tensor of x's.
    return { at::empty({ 0 }, at::TensorOptions().dtype(x.scalar_type()).device(x.device())) };
}

at::Tensor fusedRmsNorm(const at::Tensor& x, const NormWeight& w, double eps, const ResidualGradientHandoff& handoff)
{
    return FusedRmsNorm::apply(x, w, eps, handoff);
}

std::pair<at::Tensor, at::Tensor> fusedResidualRmsNorm(const at::Tensor& x, const at::Tensor& residual,
                                                       const NormWeight& w, double eps,
                                                       const ResidualGradientHandoff& handoff)
{
    auto r = residual.contiguous();
    if (!aligned16(r))
        r = r.clone(); // a fresh allocation is aligned for the kernel's 16-byte loads
    auto outs = FusedResidualRmsNorm::apply(x, r, w, eps, handoff);
    return { outs[0], outs[1] };
}

at::Tensor fusedRmsNormValue(const at::Tensor& h, const at::Tensor& weight, double eps)
{
    at::Tensor unused;
    return normForward(h.contiguous(), at::Tensor(), weight, unused, eps, false).first;
}

} // namespace shardwise::runner
