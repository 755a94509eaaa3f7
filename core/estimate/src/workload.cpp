// What one step asks of a GPU independent of sharding: FLOPs per token, activations saved for
// backward, and the logits at the loss. Derivations and sources: docs/formulas.md.
#include "parts.hpp"

#include <shardwise/spec/head_chunk.hpp>

#include <algorithm>
#include <cmath>

namespace shardwise {

namespace {
double d(std::int64_t x)
{
    return static_cast<double>(x);
}
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
    if (eagerDecoder(in))
        return eagerLayerActivationBytesPerToken(in);
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
double detail::finalActivationBytesPerToken(const ModelSpec& m)
{
    return 4.0 * d(m.hidden) + 12.0;
}

// Bytes saved per token per decoder layer by the eager PyTorch decoders the frameworks train
// (Transformers' Qwen2DecoderLayer / LlamaDecoderLayer with SDPA attention; torchtitan's
// TransformerBlock is the same sequence of ops), counted from what autograd keeps for each op:
//   each RMSNorm: the fp32 upcast of its input (pow and the multiply by the reciprocal RMS keep it),
//     the fp32 reciprocal RMS, and the bf16 normalised output the weight multiply keeps: 6h + 4, twice
//   attention: rotated q and k and the value, which SDPA keeps (2a + 4kv; multiplying by the rotary
//     tables keeps only the tables), SDPA's output and its contiguous copy for the O projection (4a),
//     the fp32 log-sum-exp per head
//   SwiGLU MLP: the gate and up projections' outputs, SiLU's output and the product the down
//     projection keeps: 8f (GELU MLP: the up output, the GELU output: 4f)
// Against the native count (above) it keeps both norms' fp32 inputs and bf16 outputs (+8h) and the
// unfused SiLU output (+2f); eagerActivationBytesScale fits what else a framework keeps.
double detail::eagerLayerActivationBytesPerToken(const EstimateInput& in)
{
    const ModelSpec& m = in.model;
    const double h = d(m.hidden);
    const double a = d(m.heads * m.headDim);
    const double kv = d(m.kvHeads * m.headDim);
    const double f = d(m.ffn);
    double bytes = 2.0 * (6.0 * h + 4.0) + 6.0 * a + 4.0 * kv;
    bytes += in.attention == AttentionKernel::Flash ? 4.0 * d(m.heads)
                                                    : 2.0 * d(m.heads) * static_cast<double>(in.training.seqLen);
    bytes += m.activation == ActivationKind::SwiGlu ? 8.0 * f : 4.0 * f;
    return bytes;
}

// Selective activation checkpointing (torchtitan's "op" policy, torchtitan/models/llama3/infra/
// parallelize.py _apply_ac_to_transformer_block): the outputs of SDPA and of every other matmul are
// saved, the rest of the layer is recomputed. What a layer then keeps per token: its bf16 input
// (the recomputation starts there), SDPA's output and log-sum-exp, and half of the seven matmul
// outputs (q 2a, k and v 2kv each, o 2h, gate and up 2f each, down 2h), which also serve as the
// inputs of the matmuls that follow them.
double detail::selectiveLayerActivationBytesPerToken(const EstimateInput& in)
{
    const ModelSpec& m = in.model;
    const double h = d(m.hidden);
    const double a = d(m.heads * m.headDim);
    const double kv = d(m.kvHeads * m.headDim);
    const double f = d(m.ffn);
    const double matmulOutputs
        = 2.0 * a + 4.0 * kv + 4.0 * h + (m.activation == ActivationKind::SwiGlu ? 4.0 * f : 2.0 * f);
    return 2.0 * h + 2.0 * a + 4.0 * d(m.heads) + 0.5 * matmulOutputs;
}

// Selective checkpointing in the native runner (runner/src/decoder_model.hpp): every matmul output
// and what attention keeps stay as without checkpointing; the down projection recomputes its input,
// SwiGLU's output (2f), from the gate/up output SwiGLU keeps, and the O projection its input, the
// attention output's merged-heads copy (2a), from the attention output, which flash attention keeps
// (math attention does not: the output is then kept in the copy's place, the same bytes). No matmul
// runs twice.
double detail::nativeSelectiveLayerActivationBytesPerToken(const EstimateInput& in)
{
    const ModelSpec& m = in.model;
    double bytes = layerActivationBytesPerToken(in);
    if (m.activation == ActivationKind::SwiGlu)
        bytes -= 2.0 * d(m.ffn);
    if (in.attention == AttentionKernel::Flash)
        bytes -= 2.0 * d(m.heads * m.headDim);
    return bytes;
}

double activationBytes(const EstimateInput& in)
{
    const ModelSpec& m = in.model;
    const double tokens = static_cast<double>(in.training.microBatch) * static_cast<double>(in.training.seqLen);
    const double perLayer = detail::layerActivationBytesPerToken(in);
    // The eager decoders' final norm keeps its fp32 input and bf16 output like the layers' norms.
    const double final = detail::eagerDecoder(in) ? 6.0 * d(m.hidden) + 12.0 : detail::finalActivationBytesPerToken(m);
    if (!in.training.activationCheckpointing)
        return tokens * (d(m.layers) * perLayer + final);
    if (in.training.checkpointPolicy == CheckpointPolicy::Selective && !detail::eagerDecoder(in))
        // Every layer keeps its selected tensors; the one in backward adds what it recomputes.
        return tokens
            * ((d(m.layers) - 1.0) * detail::nativeSelectiveLayerActivationBytesPerToken(in) + perLayer + final);
    if (in.training.checkpointPolicy == CheckpointPolicy::Selective)
        // Every layer keeps its selected tensors; the one recomputing in backward briefly holds all.
        return tokens * (d(m.layers) * detail::selectiveLayerActivationBytesPerToken(in) + perLayer + final);
    // Full checkpointing keeps each layer's bf16 input and recomputes one layer at a time in backward.
    return tokens * (d(m.layers) * 2.0 * d(m.hidden) + perLayer + final);
}

// The runner's head + loss (runner/src/head_loss.cpp) handles the tokens in equal chunks of at most
// 640 MiB of fp32 logits (shardwise/spec/head_chunk.hpp) and computes both gradients in the forward
// pass, so the [tokens, vocab] logits never exist: what is live is one chunk's logits at
// logitsBytesPerElement (atenLogitsBytesPerElement when the cross-entropy ran as ATen ops).
double logitsBytes(const EstimateInput& in, const Calibration& c)
{
    const double tokens = static_cast<double>(in.training.microBatch) * static_cast<double>(in.training.seqLen);
    const double vocab = d(in.model.vocab);
    // The frameworks' heads produce the whole [tokens, vocab] logits and the loss upcasts them.
    if (detail::eagerDecoder(in))
        return tokens * vocab * c.eagerLogitsBytesPerElement;
    const auto rows
        = headChunkRows(static_cast<std::int64_t>(in.training.microBatch) * in.training.seqLen, in.model.vocab);
    return static_cast<double>(rows) * vocab
        * (in.fusedKernels.crossEntropy ? c.logitsBytesPerElement : c.atenLogitsBytesPerElement);
}

// What each fused kernel saves against its ATen composition, in bytes read and written per token
// (bf16, 2 bytes an element), counted from the two paths of the runner's sources:
// - SwiGLU (runner/src/swiglu.cpp), per ffn width f: the fused forward reads gate and up and writes
//   their product (6f), the fused backward reads gate, up and the gradient and writes both gradients
//   (10f). ATen: silu (4f) and the product (6f) forward; grad * up (6f), silu_backward (6f), silu
//   again (4f) and grad * silu (6f) backward. 16f more.
// - Rotary (runner/src/rotary.cpp), per rotated width w (q: heads x head_dim, k: kv_heads x head_dim):
//   fused, one read and one write each way (4w forward, 4w backward). ATen forward: the negated half
//   (2w), the concatenation (4w), x cos and rotated sin (4w each), their sum (6w): 20w; its autograd
//   backward: grad cos and grad sin (4w each), the negation's backward (2w), the two slices' backward
//   into zero-filled full-width gradients (4w each), two sums into x's gradient (6w each): 30w.
//   42w more.
// - Cross-entropy (runner/src/head_loss.cpp), per logit element: the fused kernel reads the bf16
//   logits and writes their gradient in place (4). ATen: the fp32 copy (6), log-sum-exp (a max pass
//   and an exp-sum pass over a temporary, 12), subtract and exp in place (8 each), the scale (8) and
//   the cast back to bf16 (6): 48. 44 more.
detail::AtenCompositionBytes detail::atenCompositionBytes(const EstimateInput& in)
{
    AtenCompositionBytes b;
    if (in.framework.framework != Framework::Native)
        return b;
    const ModelSpec& m = in.model;
    const double tokens = static_cast<double>(in.training.microBatch) * static_cast<double>(in.training.seqLen);
    double perLayerToken = 0;
    if (!in.fusedKernels.swiglu && m.activation == ActivationKind::SwiGlu)
        perLayerToken += 16.0 * d(m.ffn);
    if (!in.fusedKernels.rotary)
        perLayerToken += 42.0 * d((m.heads + m.kvHeads) * m.headDim);
    b.layers = tokens * d(m.layers) * perLayerToken;
    if (!in.fusedKernels.crossEntropy)
        b.head = tokens * d(m.vocab) * 44.0;
    return b;
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
