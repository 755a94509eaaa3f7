#include "linear.hpp"

#include "compat.hpp"
#include "fused_norm.hpp"
#include "gemm_sm_target.hpp"
#include "swiglu.hpp"

#include <torch/autograd.h>

#include <stdexcept>

namespace shardwise::runner {

namespace {

// The bias's gradient, the sum of the output gradient's rows, as one GEMM of a row of ones with them
// into the buffer (overwriting an unwritten range, else adding), fp32 accumulation: cuBLAS writes the
// buffer itself, where ATen's column sum (0.43 ms of a Qwen2.5-3B step on an H100 for the q/k/v
// biases, reading at about a third of HBM speed) was followed by a copy or add. The GEMM's own time
// has not been profiled apart from the step (bench/results/runner-speed-1624171.md).
void biasGradientInto(at::Tensor& biasGrad, const at::Tensor& rows, UnwrittenFlag unwritten)
{
    if (biasGrad.scalar_type() != rows.scalar_type()) {
        writeOrAccumulate(biasGrad, rows.sum(0).to(biasGrad.scalar_type()), unwritten);
        return;
    }
    const auto ones = at::ones({ 1, rows.size(0) }, rows.options());
    auto target = biasGrad.view({ 1, biasGrad.size(0) });
    if (unwritten && *unwritten) {
        at::mm_out(target, ones, rows);
        *unwritten = 0;
    } else {
        target.addmm_(ones, rows);
    }
}

struct LinearIntoGrad : torch::autograd::Function<LinearIntoGrad> {
    // The buffers come as one non-tensor argument: they are not graph edges (and LibTorch before 2.0
    // rejects undefined tensor arguments, such as a missing bias); they are kept as data, not saved
    // variables, because the parameter buffer may be released and gathered again before backward.
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& input, const LinearWeight& w,
                              const NormedInput& normed, const DerivedInput& derived)
    {
        if (normed.input.defined()) {
            ctx->saved_data["norm_input"] = normed.input;
            ctx->saved_data["norm_weight"] = normed.weight;
            ctx->saved_data["norm_eps"] = normed.eps;
            ctx->saved_data["norm_fused"] = normed.fused;
        } else if (derived.source.defined()) {
            ctx->saved_data["derived_source"] = derived.source;
            ctx->saved_data["derived_kind"] = static_cast<std::int64_t>(derived.kind);
            ctx->saved_data["derived_width"] = input.size(-1);
        } else {
            ctx->save_for_backward({ input });
        }
        ctx->saved_data["weight"] = w.weight;
        ctx->saved_data["weight_grad"] = w.weightGrad;
        ctx->saved_data["bias_grad"] = w.biasGrad;
        ctx->saved_data["weight_unwritten"] = reinterpret_cast<std::int64_t>(w.weightUnwritten);
        ctx->saved_data["bias_unwritten"] = reinterpret_cast<std::int64_t>(w.biasUnwritten);
        return w.bias.defined() ? at::linear(input, w.weight, w.bias) : at::linear(input, w.weight);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads)
    {
        applyGemmSmTarget(); // this thread's cuBLAS handle, before the recomputation's GEMMs too
        at::Tensor input;
        if (ctx->saved_data.count("norm_input") != 0) {
            at::NoGradGuard noGrad;
            const auto normInput = ctx->saved_data["norm_input"].toTensor();
            const auto normWeight = ctx->saved_data["norm_weight"].toTensor();
            const auto eps = ctx->saved_data["norm_eps"].toDouble();
            input = ctx->saved_data["norm_fused"].toBool() ? fusedRmsNormValue(normInput, normWeight, eps)
                                                           : compat::rmsNorm(normInput, normWeight, eps);
            // Autograd releases saved variables after the backward, never saved_data: let the norm's
            // input go with the norm's own saved copy instead of at the graph's end (after the
            // optimizer step, while the loss tensor lives).
            ctx->saved_data.erase("norm_input");
        } else if (ctx->saved_data.count("derived_source") != 0) {
            at::NoGradGuard noGrad;
            input = recomputeDerived(static_cast<DerivedKind>(ctx->saved_data["derived_kind"].toInt()),
                                     ctx->saved_data["derived_source"].toTensor(),
                                     ctx->saved_data["derived_width"].toInt());
            ctx->saved_data.erase("derived_source"); // as norm_input above
        } else {
            input = ctx->get_saved_variables()[0];
        }
        const auto weight = ctx->saved_data["weight"].toTensor();
        auto weightGrad = ctx->saved_data["weight_grad"].toTensor();
        auto biasGrad = ctx->saved_data["bias_grad"].toTensor();
        TORCH_CHECK(weightGrad.storage().nbytes() > 0, "linear backward: the weight's gradient buffer is released");

        const auto& grad = grads[0];
        const auto out = grad.size(-1);
        const auto rows = grad.reshape({ -1, out });
        const auto flat = input.reshape({ -1, input.size(-1) });
        auto* weightUnwritten = reinterpret_cast<UnwrittenFlag>(ctx->saved_data["weight_unwritten"].toInt());
        if (weightUnwritten && *weightUnwritten) {
            at::mm_out(weightGrad, rows.t(), flat);
            *weightUnwritten = 0;
        } else {
            weightGrad.addmm_(rows.t(), flat);
        }
        if (biasGrad.defined())
            biasGradientInto(biasGrad, rows,
                             reinterpret_cast<UnwrittenFlag>(ctx->saved_data["bias_unwritten"].toInt()));
        return { at::matmul(grad, weight), at::Tensor(), at::Tensor(), at::Tensor() };
    }

    // The same ops the forward's caller ran, so the recomputed input is bit-identical to the forward's.
    static at::Tensor recomputeDerived(DerivedKind kind, const at::Tensor& source, std::int64_t width)
    {
        switch (kind) {
        case DerivedKind::SwiGlu:
            return swiglu(source);
        case DerivedKind::MergeHeads:
            return source.transpose(1, 2).reshape({ source.size(0), source.size(2), width });
        }
        throw std::logic_error("linear backward: unknown derived input");
    }
};

struct EmbeddingIntoGrad : torch::autograd::Function<EmbeddingIntoGrad> {
    // The gradient range comes as data, as LinearIntoGrad's buffers do.
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& table, const at::Tensor& ids,
                              const at::Tensor& grad, std::int64_t unwritten)
    {
        ctx->save_for_backward({ ids });
        ctx->saved_data["grad"] = grad;
        ctx->saved_data["unwritten"] = unwritten;
        return at::embedding(table, ids);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads)
    {
        const auto ids = ctx->get_saved_variables()[0].reshape({ -1 });
        auto grad = ctx->saved_data["grad"].toTensor();
        TORCH_CHECK(grad.storage().nbytes() > 0, "embedding backward: the table's gradient buffer is released");
        auto* unwritten = reinterpret_cast<UnwrittenFlag>(ctx->saved_data["unwritten"].toInt());
        if (unwritten && *unwritten) {
            grad.zero_();
            *unwritten = 0;
        }
        const auto rows = grads[0].reshape({ -1, grad.size(1) }).to(grad.scalar_type());
        grad.index_put_({ ids }, rows, /*accumulate=*/true);
        return { at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor() };
    }
};

} // namespace

void writeOrAccumulate(at::Tensor& target, const at::Tensor& update, UnwrittenFlag unwritten)
{
    if (unwritten && *unwritten) {
        target.copy_(update);
        *unwritten = 0;
    } else {
        target.add_(update);
    }
}

at::Tensor linearIntoGrad(const at::Tensor& input, const LinearWeight& w, const NormedInput* normed)
{
    return LinearIntoGrad::apply(input, w, normed ? *normed : NormedInput {}, DerivedInput {});
}

at::Tensor linearIntoGrad(const at::Tensor& input, const LinearWeight& w, const DerivedInput& derived)
{
    return LinearIntoGrad::apply(input, w, NormedInput {}, derived);
}

at::Tensor embeddingIntoGrad(const at::Tensor& table, const at::Tensor& ids, const at::Tensor& grad,
                             UnwrittenFlag unwritten)
{
    TORCH_CHECK(grad.dim() == 2 && grad.sizes() == table.sizes(),
                "embedding: the gradient range is not the table's shape");
    return EmbeddingIntoGrad::apply(table, ids, grad, reinterpret_cast<std::int64_t>(unwritten));
}

} // namespace shardwise::runner
