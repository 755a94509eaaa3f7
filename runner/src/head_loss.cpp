#include "head_loss.hpp"

#include "fused_path.hpp"

#include <shardwise/spec/head_chunk.hpp>

#include <torch/autograd.h>

#include <cstdlib>

#ifdef SHARDWISE_WITH_FUSED_KERNELS
#include "fused_kernels.hpp"

#include <ATen/cuda/CUDAContext.h>
#endif

namespace shardwise::runner {

namespace {

// Passed as a non-tensor argument: not a graph edge, and possibly undefined (which LibTorch before 2.0
// rejects for tensor arguments of a custom function).
struct GradSink {
    at::Tensor tensor;
    UnwrittenFlag unwritten = nullptr;
};

// Rows of logits handled at once by the head + loss: equal chunks of at most 640 MiB of fp32 logits
// (shardwise/spec/head_chunk.hpp, which the planner counts too). The fused CUDA path keeps only the
// chunk's bf16 logits; the ATen path also their fp32 copy. SHARDWISE_HEAD_CHUNK_ROWS=N overrides it (a
// smaller chunk lowers the step's memory peak by its logits, a larger one feeds the GEMMs more rows).
std::int64_t defaultRowsPerChunk(std::int64_t tokens, std::int64_t vocab)
{
    static const std::int64_t fromEnvironment = [] {
        const char* v = std::getenv("SHARDWISE_HEAD_CHUNK_ROWS");
        return v ? std::max<std::int64_t>(0, std::atoll(v)) : std::int64_t { 0 };
    }();
    return fromEnvironment > 0 ? fromEnvironment : headChunkRows(tokens, vocab);
}

// The chunk's summed cross-entropy added to `total`, and its logit gradient (softmax - onehot) x
// gradientFactor (1 / tokens, times the accumulation scale) in the logits' dtype. bf16 on CUDA: one fused kernel in
// place over the bf16 logits (no fp32 copy of the chunk exists); elsewhere the ATen composition in fp32.
at::Tensor logitGradient(at::Tensor logits, const at::Tensor& targets, double gradientFactor, at::Tensor& total)
{
#ifdef SHARDWISE_WITH_FUSED_KERNELS
    if (takesFusedPath(logits) && logits.is_contiguous()) {
        const auto t = targets.contiguous();
        auto rowLoss = at::empty({ logits.size(0) }, logits.options().dtype(at::kFloat));
        kernels::crossEntropyInPlace(logits.data_ptr(), t.data_ptr<std::int64_t>(), rowLoss.data_ptr<float>(),
                                     logits.size(0), logits.size(1), static_cast<float>(gradientFactor),
                                     at::cuda::getCurrentCUDAStream(logits.device().index()).stream());
        total.add_(rowLoss.sum());
        return logits;
    }
#endif
    const auto dtype = logits.scalar_type();
    auto wide = logits.to(at::kFloat);
    logits = at::Tensor(); // the chunk's bf16 logits go before the fp32 work begins
    const auto lse = at::logsumexp(wide, 1, /*keepdim=*/true);
    total.add_((lse - wide.gather(1, targets)).sum());
    // softmax - onehot, scaled for the mean, in place over the fp32 logits.
    wide.sub_(lse).exp_();
    wide.scatter_add_(1, targets, at::full({ wide.size(0), 1 }, -1.0, wide.options()));
    return wide.mul_(gradientFactor).to(dtype);
}

// Output head and mean next-token cross-entropy in one, chunk by chunk over the tokens, with the
// gradients computed in the forward pass (as Liger-Kernel's fused linear cross-entropy does): the
// [tokens, vocab] logits never exist at once, in bf16 or fp32, and nothing of them is kept for
// backward. Per chunk: logits = h W^T (GEMM), fp32 log-sum-exp, loss += lse - logit[target],
// dlogits = (softmax - onehot) / tokens, dh = dlogits W, dW += dlogits^T h. Same FLOPs as the plain
// head; the backward only scales the two gradients by the incoming one. With a gradient sink (the
// runner's: the weight's slot of the root unit's gradient buffer), dW accumulates there directly and
// no [vocab, hidden] gradient is held from the forward to the backward (0.58 GiB for Qwen2.5-3B, at
// the step's memory peak).
struct ChunkedHeadLoss : torch::autograd::Function<ChunkedHeadLoss> {
    static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& hidden, const at::Tensor& weight,
                              const at::Tensor& targets, std::int64_t rowsPerChunk, const GradSink& into,
                              double gradientScale, bool incomingIsOne)
    {
        const auto& sink = into.tensor;
        const auto tokens = hidden.size(0);
        const auto vocab = weight.size(0);
        const auto rows = std::max<std::int64_t>(
            1, std::min<std::int64_t>(tokens, rowsPerChunk > 0 ? rowsPerChunk : defaultRowsPerChunk(tokens, vocab)));
        auto gradHidden = at::empty_like(hidden);
        auto gradWeight = sink.defined() ? sink : at::zeros_like(weight);
        auto total = at::zeros({}, hidden.options().dtype(at::kFloat));
        const double inverseTokens = 1.0 / static_cast<double>(tokens);
        const double gradientFactor = gradientScale * inverseTokens;
        for (std::int64_t begin = 0; begin < tokens; begin += rows) {
            const auto len = std::min(rows, tokens - begin);
            const auto h = hidden.narrow(0, begin, len);
            const auto t = targets.narrow(0, begin, len).unsqueeze(1);
            const auto dlogits = logitGradient(at::mm(h, weight.t()), t, gradientFactor, total);
            auto rowsOfGradHidden = gradHidden.narrow(0, begin, len);
            at::mm_out(rowsOfGradHidden, dlogits, weight);
            if (into.unwritten && *into.unwritten) {
                at::mm_out(gradWeight, dlogits.t(), h);
                *into.unwritten = 0;
            } else {
                gradWeight.addmm_(dlogits.t(), h);
            }
        }
        ctx->saved_data["grad_hidden"] = gradHidden;
        ctx->saved_data["grad_weight"] = gradWeight;
        ctx->saved_data["sunk"] = sink.defined();
        ctx->saved_data["incoming_is_one"] = incomingIsOne;
        return total.mul_(inverseTokens);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                   torch::autograd::variable_list grads)
    {
        auto gradHidden = ctx->saved_data["grad_hidden"].toTensor();
        auto gradWeight = ctx->saved_data["grad_weight"].toTensor();
        // saved_data outlives the backward (autograd releases only saved variables): drop them here.
        ctx->saved_data.erase("grad_hidden");
        ctx->saved_data.erase("grad_weight");
        if (!ctx->saved_data["incoming_is_one"].toBool()) {
            const auto scale = grads[0].to(gradHidden.scalar_type());
            gradHidden.mul_(scale);
            gradWeight.mul_(scale); // the sink held nothing else (see chunkedHeadLoss)
        }
        const bool sunk = ctx->saved_data["sunk"].toBool();
        return { gradHidden,  sunk ? at::Tensor() : gradWeight, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(),
                 at::Tensor() };
    }
};

} // namespace

at::Tensor chunkedHeadLoss(const at::Tensor& hidden, const at::Tensor& weight, const at::Tensor& targets,
                           std::int64_t rowsPerChunk, const at::Tensor& weightGradSink, UnwrittenFlag sinkUnwritten,
                           double gradientScale, IncomingGradient incoming)
{
    if (weightGradSink.defined())
        TORCH_CHECK(weightGradSink.sizes() == weight.sizes() && weightGradSink.scalar_type() == weight.scalar_type(),
                    "chunkedHeadLoss: the weight's gradient sink must match the weight");
    return ChunkedHeadLoss::apply(hidden, weight, targets, rowsPerChunk, GradSink { weightGradSink, sinkUnwritten },
                                  gradientScale, incoming == IncomingGradient::One);
}

} // namespace shardwise::runner
