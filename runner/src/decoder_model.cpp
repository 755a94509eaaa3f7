#include "decoder_model.hpp"

#include "compat.hpp"
#include "fused_norm.hpp"
#include "head_loss.hpp"
#include "layer_recompute.hpp"
#include "rotary.hpp"
#include "swiglu.hpp"

#include <tuple>

namespace shardwise::runner {

DecoderModel::DecoderModel(const ModelSpec& model, std::int64_t seqLen, const at::TensorOptions& compute,
                           std::optional<CheckpointPolicy> checkpointing)
    : m_model(model)
    , m_checkpointing(checkpointing)
{
    // Rotary tables as in Hugging Face's LlamaRotaryEmbedding: inv_freq = theta^(-2i/d) with the
    // config's rope scaling applied (core/spec, rotaryInverseFrequencies), angles for each position
    // duplicated over both halves of the head dimension.
    const auto f64 = at::TensorOptions().dtype(at::kDouble);
    const auto invFreq = at::tensor(rotaryInverseFrequencies(model), f64);
    const auto angles = at::outer(at::arange(seqLen, f64), invFreq);
    const auto emb = at::cat({ angles, angles }, -1);
    m_cos = emb.cos().to(compute);
    m_sin = emb.sin().to(compute);
}

at::Tensor DecoderModel::rmsNorm(const at::Tensor& x, const at::Tensor& weight) const
{
    return compat::rmsNorm(x, weight, m_model.normEps);
}

at::Tensor DecoderModel::layer(UnitHooks& hooks, std::size_t unit, const at::Tensor& x) const
{
    const auto b = x.size(0);
    const auto t = x.size(1);
    const auto& m = m_model;
    const auto& p = hooks.parameters(unit);
    const auto qOut = m.heads * m.headDim;

    // q, k and v as one GEMM over the adjacent [q; k; v] rows; rotaryQkv turns q and k and hands the
    // three to attention, and its backward assembles the GEMM's output gradient (rotary.hpp).
    // The norms' outputs are recomputed in backward, not kept (linear.hpp, NormedInput); the fused
    // norms (fused_norm.hpp) add the residual in the post-attention norm's pass.
    const bool fusedNorms = takesFusedNormPath(x);
    const NormedInput inputNorm { x, p[InputNorm], m.normEps, fusedNorms };
    // x's gradient from the residual joins the input norm's backward (fused_norm.hpp).
    const auto handoff = fusedNorms ? residualGradientHandoff(x) : ResidualGradientHandoff {};
    const auto a = fusedNorms ? fusedRmsNorm(x, hooks.normWeight(unit, InputNorm), m.normEps, handoff)
                              : rmsNorm(x, p[InputNorm]);
    const auto qkv = linearIntoGrad(a, hooks.linearWeight(unit, Q, 3, QBias), &inputNorm);
    const auto rotated = rotaryQkv(qkv, m.heads, m.kvHeads, m.headDim, m_cos, m_sin);
    const auto heads = compat::causalAttention(rotated.q, rotated.k, rotated.v);
    const auto attn = heads.transpose(1, 2).reshape({ b, t, qOut });
    const bool selective = m_checkpointing == CheckpointPolicy::Selective;
    const auto oWeight = hooks.linearWeight(unit, O, 1, std::nullopt);
    const auto o = selective ? linearIntoGrad(attn, oWeight, DerivedInput { DerivedKind::MergeHeads, heads })
                             : linearIntoGrad(attn, oWeight);
    at::Tensor h;
    at::Tensor n;
    if (fusedNorms) {
        std::tie(h, n) = fusedResidualRmsNorm(x, o, hooks.normWeight(unit, PostNorm), m.normEps, handoff);
    } else {
        h = x + o;
        n = rmsNorm(h, p[PostNorm]);
    }
    const NormedInput postNorm { h, p[PostNorm], m.normEps, fusedNorms };
    const auto gateUp = linearIntoGrad(n, hooks.linearWeight(unit, Gate, 2, std::nullopt), &postNorm);
    const auto downWeight = hooks.linearWeight(unit, Down, 1, std::nullopt);
    return h
        + (selective ? linearIntoGrad(swiglu(gateUp), downWeight, DerivedInput { DerivedKind::SwiGlu, gateUp })
                     : linearIntoGrad(swiglu(gateUp), downWeight));
}

at::Tensor DecoderModel::loss(const at::Tensor& inputs, const at::Tensor& targets, UnitHooks& hooks,
                              double gradientScale) const
{
    const auto& root = hooks.parameters(0);
    // The table's gradient goes straight into its range (linear.hpp); when tied, after the head's.
    const auto table = hooks.gradientSink(0, Embedding);
    auto h = embeddingIntoGrad(root[Embedding], inputs, table.grad, table.unwritten);
    for (std::int64_t l = 0; l < m_model.layers; ++l) {
        const auto unit = static_cast<std::size_t>(l + 1);
        h = hooks.enterLayer(unit, h);
        if (m_checkpointing == CheckpointPolicy::Full && h.requires_grad())
            // The engine's hooks stay outside the recomputed part: the one on the output gathers the
            // layer's parameters before the recomputation, the gate on the input reduces its
            // gradients after it (sharding_engine.hpp).
            h = recomputedInBackward(h, [this, &hooks, unit](const at::Tensor& x) { return layer(hooks, unit, x); });
        else
            h = layer(hooks, unit, h);
        h = hooks.leaveLayer(unit, h);
    }
    h = takesFusedNormPath(h) ? fusedRmsNorm(h, hooks.normWeight(0, FinalNorm), m_model.normEps)
                              : rmsNorm(h, root[FinalNorm]);
    const auto headSlot = m_model.tiedEmbeddings ? Embedding : Head;
    // The head's weight gradient is the first of this step's root gradients.
    const auto sink = hooks.gradientSink(0, headSlot);
    return chunkedHeadLoss(h.reshape({ -1, h.size(-1) }), root[headSlot], targets.reshape({ -1 }), 0, sink.grad,
                           sink.unwritten, gradientScale, IncomingGradient::One);
}

} // namespace shardwise::runner
