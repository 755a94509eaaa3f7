// What one step asks of a GPU independent of sharding: FLOPs per token, activations saved for
// backward, and the logits at the loss. Derivations and sources: docs/formulas.md.
#include "parts.hpp"

namespace shardwise {

namespace {
double d(std::int64_t x) { return static_cast<double>(x); }
} // namespace

// PaLM (Chowdhery et al. 2022, appendix B): 6N + 12 L H Q T model FLOPs per token for forward plus
// backward, with H heads of width Q and T the sequence length. The attention term counts QK^T and
// AV without causal-mask savings, as PaLM and Megatron's MFU conventions do.
double modelFlopsPerToken(const ModelSpec& m, int seqLen)
{
    return 6.0 * d(m.parameterCount()) + 12.0 * d(m.layers) * d(m.heads * m.headDim) * static_cast<double>(seqLen);
}

// Bytes saved for backward per token per decoder layer, counted tensor by tensor for a pre-norm
// decoder in eager PyTorch/LibTorch with bf16 activations (after Korthikanti et al. 2022, "Reducing
// Activation Recomputation in Large Transformer Models", section 4.1, adapted: no dropout masks,
// RMSNorm/LayerNorm, SwiGLU, K/V repeated to all heads before SDPA as LibTorch 1.13 and Hugging Face
// eager do):
//   two norms, each input + output:            8h
//   attention: rotated q, repeated k and v, SDPA output, o_proj input copy:  10a   (a = heads x head_dim)
//   flash/mem-efficient SDPA logsumexp (fp32): 4 heads
//   math SDPA instead keeps bf16 probabilities: + 2 heads s
//   SwiGLU gate, up, silu(gate), product:      8f      (GELU: up, gelu(up): 4f)
//   fp32 reciprocal RMS per norm:              8
double detail::layerActivationBytesPerToken(const EstimateInput& in)
{
    const ModelSpec& m = in.model;
    const double h = d(m.hidden);
    const double a = d(m.heads * m.headDim);
    const double f = d(m.ffn);
    double bytes = 8.0 * h + 10.0 * a + 8.0;
    bytes += in.attention == AttentionKernel::Flash ? 4.0 * d(m.heads)
                                                    : 2.0 * d(m.heads) * static_cast<double>(in.training.seqLen);
    bytes += m.activation == ActivationKind::SwiGlu ? 8.0 * f : 4.0 * f;
    return bytes;
}

double activationBytes(const EstimateInput& in)
{
    const ModelSpec& m = in.model;
    const double tokens = static_cast<double>(in.training.microBatch) * static_cast<double>(in.training.seqLen);
    const double perLayer = detail::layerActivationBytesPerToken(in);
    const double finalNorm = 4.0 * d(m.hidden); // input + output of the final norm
    if (!in.training.activationCheckpointing)
        return tokens * (d(m.layers) * perLayer + finalNorm);
    // Checkpointing keeps each layer's bf16 input and recomputes one layer at a time in backward.
    return tokens * (d(m.layers) * 2.0 * d(m.hidden) + perLayer + finalNorm);
}

double logitsBytes(const EstimateInput& in, const Calibration& c)
{
    return static_cast<double>(in.training.microBatch) * static_cast<double>(in.training.seqLen) * d(in.model.vocab)
        * c.logitsBytesPerElement;
}

} // namespace shardwise
