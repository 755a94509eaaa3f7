// What one step asks of a GPU independent of sharding: FLOPs per token, activations saved for
// backward, and the logits at the loss. Derivations and sources: docs/formulas.md.
#include "parts.hpp"

#include <algorithm>
#include <cmath>

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

// Parameters that go through a GEMM once per token: all but an untied embedding table (a lookup); a
// tied table is the head's GEMM weight.
double detail::gemmParams(const ModelSpec& m)
{
    const double embedding = m.tiedEmbeddings ? 0.0 : d(m.vocab) * d(m.hidden);
    return d(m.parameterCount()) - embedding;
}

// Causal attention FLOPs per token, forward + backward: QK^T and AV are 4 a s FLOPs per token per layer
// without the mask, half with it; flash attention's backward does twice the forward's matmuls
// (recomputing the scores included): 3 x 2 a s = 6 a s per layer, half the PaLM convention's 12.
double detail::causalAttentionFlopsPerToken(const ModelSpec& m, int seqLen)
{
    return 6.0 * d(m.layers) * d(m.heads * m.headDim) * static_cast<double>(seqLen);
}

// Bytes saved for backward per token per decoder layer, counted tensor by tensor from what the
// runner's layer keeps (runner/src/decoder_model.cpp layer(), swiglu.cpp, linear.cpp; the count
// follows Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models",
// section 4.1, adapted to a pre-norm decoder with grouped K/V, no dropout and a fused gate/up GEMM):
//   hidden-wide, bf16: layer input and post-attention residual (each norm's input)               4h
//     (runners before versions.activations also kept both norms' outputs: + 4h)
//   attention, bf16: rotated q, attention output, O-projection input (the contiguous copy)       6a
//   rotated k and v, bf16, at their own (grouped) width: K/V are not repeated to every head       4kv
//   flash attention's fp32 log-sum-exp per head                                                  4 heads
//     (math attention instead keeps the bf16 probabilities: + 2 heads s, quadratic in s)
//   SwiGLU, bf16: the fused gate/up output [2f] and the SwiGLU output [f]                        6f
//     (GELU MLP: the up output and the GELU output, 4f)
//   fp32 reciprocal RMS of the two norms                                                         8
// Checked against the H200 runs of a runner that kept the norm outputs: the peak grows by 1.0226 MB
// per token for Qwen2.5-0.5B (this count with the final terms: 1.0225 MB) and 2.146 MB for
// Qwen2.5-1.5B (2.144 MB).
double detail::layerActivationBytesPerToken(const EstimateInput& in)
{
    const ModelSpec& m = in.model;
    const double h = d(m.hidden);
    const double a = d(m.heads * m.headDim);
    const double kv = d(m.kvHeads * m.headDim);
    const double f = d(m.ffn);
    double bytes = (in.normInputsKept ? 8.0 : 4.0) * h + 6.0 * a + 4.0 * kv + 8.0;
    bytes += in.attention == AttentionKernel::Flash ? 4.0 * d(m.heads)
                                                    : 2.0 * d(m.heads) * static_cast<double>(in.training.seqLen);
    bytes += m.activation == ActivationKind::SwiGlu ? 6.0 * f : 4.0 * f;
    return bytes;
}

// Per token outside the decoder layers: the final norm's input (2h) and fp32 reciprocal RMS (4), the
// head's input gradient, computed in the forward pass by the chunked head + loss and held until
// backward (2h), and the int64 token ids the embedding's backward keeps (8).
double detail::finalActivationBytesPerToken(const ModelSpec& m) { return 4.0 * d(m.hidden) + 12.0; }

double activationBytes(const EstimateInput& in)
{
    const ModelSpec& m = in.model;
    const double tokens = static_cast<double>(in.training.microBatch) * static_cast<double>(in.training.seqLen);
    const double perLayer = detail::layerActivationBytesPerToken(in);
    const double final = detail::finalActivationBytesPerToken(m);
    if (!in.training.activationCheckpointing)
        return tokens * (d(m.layers) * perLayer + final);
    // Checkpointing keeps each layer's bf16 input and recomputes one layer at a time in backward.
    return tokens * (d(m.layers) * 2.0 * d(m.hidden) + perLayer + final);
}

// The runner's head + loss (runner/src/head_loss.cpp) handles the tokens in chunks of 256 MiB of fp32
// logits and computes both gradients in the forward pass, so the [tokens, vocab] logits never exist:
// what is live is one chunk's logits at logitsBytesPerElement.
double logitsBytes(const EstimateInput& in, const Calibration& c)
{
    const double tokens = static_cast<double>(in.training.microBatch) * static_cast<double>(in.training.seqLen);
    const double vocab = d(in.model.vocab);
    const double rowsPerChunk = std::max(1.0, std::floor(detail::kHeadChunkFp32Bytes / (4.0 * vocab)));
    return std::min(tokens, rowsPerChunk) * vocab * c.logitsBytesPerElement;
}

// In the last layer's backward the MLP's input gradients are live next to every activation: the
// gradient of the fused gate/up output [2f] and of the SwiGLU output [f] in bf16 (GELU: 2f). At long
// sequences this outgrows the head's chunk (Qwen2.5-7B at 8192 tokens: 0.87 GiB).
double detail::backwardWorkingBytes(const EstimateInput& in)
{
    const ModelSpec& m = in.model;
    const double tokens = static_cast<double>(in.training.microBatch) * static_cast<double>(in.training.seqLen);
    return tokens * (m.activation == ActivationKind::SwiGlu ? 6.0 : 4.0) * d(m.ffn);
}

} // namespace shardwise
