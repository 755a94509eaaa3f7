#pragma once
// Fused elementwise CUDA kernels for the decoder's memory-bound steps. The kernel profile of a 3B step
// on an H200 put about 19 ms of 120 in separate multiply / silu / negate / concatenate kernels of
// rotary embeddings and SwiGLU (11 multiplies per layer, each reading and writing the whole tensor);
// one pass per direction moves the bytes once. bf16 storage, fp32 arithmetic, one rounding per output.
// Built only for CUDA builds (SHARDWISE_WITH_FUSED_KERNELS); callers keep the ATen composition as the
// path for every other device and dtype.

#include <cuda_runtime_api.h>

#include <cstdint>

namespace shardwise::runner::kernels {

// out[r, c] = silu(gateUp[r, c]) * gateUp[r, ffn + c]; gateUp rows are gateUpStride elements apart,
// out is [rows, ffn] contiguous.
void swigluForward(const void* gateUp, std::int64_t gateUpStride, void* out, std::int64_t rows, std::int64_t ffn,
                   cudaStream_t stream);

// Gradient of swigluForward: grad [rows, ffn] contiguous; gateGradUpGrad [rows, 2 * ffn] contiguous
// receives d/dgate in the first half of each row and d/dup in the second.
void swigluBackward(const void* gateUp, std::int64_t gateUpStride, const void* grad, void* gateGradUpGrad,
                    std::int64_t rows, std::int64_t ffn, cudaStream_t stream);

// Rotary embedding over x viewed as [batch, heads, seq, headDim] with element strides (the last
// dimension contiguous), the rotate-half convention of Hugging Face's Llama/Qwen2 (first half paired
// with second half). cos and sin are [>= seq, headDim] contiguous. out is written [batch, seq, heads,
// headDim] contiguous. inverse = true applies the transpose of the rotation (the backward pass).
struct RotaryShape {
    std::int64_t batch = 0;
    std::int64_t heads = 0;
    std::int64_t seq = 0;
    std::int64_t headDim = 0;
    std::int64_t batchStride = 0;
    std::int64_t headStride = 0;
    std::int64_t seqStride = 0;
};
void rotary(const void* x, const RotaryShape& shape, const void* cos, const void* sin, void* out, bool inverse,
            cudaStream_t stream);

// Cross-entropy of one chunk of bf16 logits [rows, vocab] (contiguous) against int64 targets [rows]:
// rowLoss[r] = logsumexp(logits[r]) - logits[r, targets[r]] in fp32, and the logits overwritten in
// place by (softmax(logits[r]) - onehot(targets[r])) * scale in bf16, the chunk's logit gradient.
// Two passes over the bf16 logits per row (an online max / sum of exponentials, then the gradient);
// the ATen composition it replaces made an fp32 copy of the chunk and about eight passes over it
// (5.8 ms of a 105 ms step of Qwen2.5-3B on an H200). A target outside [0, vocab) gives a NaN loss.
void crossEntropyInPlace(void* logits, const std::int64_t* targets, float* rowLoss, std::int64_t rows,
                         std::int64_t vocab, float scale, cudaStream_t stream);

} // namespace shardwise::runner::kernels
