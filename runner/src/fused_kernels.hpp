#pragma once
// Fused elementwise CUDA kernels for the decoder's memory-bound steps. The kernel profile of a 3B step
// on an H200 put about 19 ms of 120 in separate multiply / silu / negate / concatenate kernels of
// rotary embeddings and SwiGLU (11 multiplies per layer, each reading and writing the whole tensor);
// one pass per direction moves the bytes once. bf16 storage, fp32 arithmetic, one rounding per output.
// Built only for CUDA builds (SHARDWISE_WITH_FUSED_KERNELS); callers keep the ATen composition as the
// path for every other device and dtype.

#include "adamw_kernel_body.hpp"
#include "rotary_qkv_kernel.hpp"

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

// Rotary embedding of the fused q/k/v projection, q, k and v in one pass (one launch each way, and the
// backward writes straight into the projection's gradient, which the q/k/v concatenation used to
// assemble). Each part is a head-major view: element (b, h, t, d) of part p lies at
// data + b * batchStride + h * headStride + t * seqStride + d (d contiguous). Part 0 holds `heads`
// heads (q), parts 1 and 2 `kvHeads` each (k, v). q and k are turned by the rotate-half convention of
// Hugging Face's Llama/Qwen2 (dimension d paired with d + headDim / 2); v is copied. cos and sin are
// [>= seq, headDim] contiguous. inverse = true applies the transpose of the rotation (the backward).
// (HeadsView, QkvViews and QkvShape: rotary_qkv_kernel.hpp.)
void rotaryQkv(const QkvViews& in, const QkvViews& out, const QkvShape& shape, const void* cos, const void* sin,
               bool inverse, cudaStream_t stream);

// Cross-entropy of one chunk of bf16 logits [rows, vocab] (contiguous) against int64 targets [rows]:
// rowLoss[r] = logsumexp(logits[r]) - logits[r, targets[r]] in fp32, and the logits overwritten in
// place by (softmax(logits[r]) - onehot(targets[r])) * scale in bf16, the chunk's logit gradient.
// Two passes over the bf16 logits per row (an online max / sum of exponentials, then the gradient);
// the ATen composition it replaces made an fp32 copy of the chunk and about eight passes over it
// (5.8 ms of a 105 ms step of Qwen2.5-3B on an H200). A target outside [0, vocab) gives a NaN loss.
void crossEntropyInPlace(void* logits, const std::int64_t* targets, float* rowLoss, std::int64_t rows,
                         std::int64_t vocab, float scale, cudaStream_t stream);

// RMSNorm over the rows of a [rows, hidden] bf16 block (contiguous, 16-byte aligned), fp32 arithmetic:
// h = x + residual, rounded to bf16 as the bf16 add rounds, written to hOut (residual not null), else
// h = x; out = h * rsqrt(mean(h^2) + eps) * weight, rounded once; rstd[r] (fp32, when not null) keeps
// each row's reciprocal RMS for the backward. One pass where the residual add, the norm and its
// autograd bookkeeping took three kernels (rmsnorm_kernel.cu). hidden: a multiple of 8, at most
// kMaxNormHidden.
inline constexpr std::int64_t kMaxNormHidden = 8192;
void rmsNormForward(const void* x, const void* residual, const void* weight, void* hOut, void* out, float* rstd,
                    std::int64_t rows, std::int64_t hidden, float eps, cudaStream_t stream);

// Gradient of rmsNormForward for dn = d loss / d out: dh = rstd * (g - n * mean(g * n)) + dres, with
// g = dn * weight and n = h * rstd (dres, the gradient that reaches h around the norm, may be null);
// the weight's gradient, the sum over rows of dn * n, is written to dWeight (bf16) or added to it
// (accumulate) through fp32 partial sums in `workspace` (rmsNormBackwardWorkspace(rows, hidden)
// floats): deterministic, no atomics.
std::int64_t rmsNormBackwardWorkspace(std::int64_t rows, std::int64_t hidden);
void rmsNormBackward(const void* dn, const void* h, const void* weight, const float* rstd, const void* dres, void* dh,
                     void* dWeight, bool accumulate, float* workspace, std::int64_t rows, std::int64_t hidden,
                     cudaStream_t stream);

// AdamW over n elements of a unit's flat state in one pass, in torch.optim.AdamW's order and fp32
// arithmetic (decoupled weight decay, then the moments, then the bias-corrected step). The step count t
// is read from device memory (a float), so that a captured CUDA graph replays it with the count the
// runner advances. Bf16: parameter, gradient and moments bf16 (the pure-bf16 policy), 14 bytes per
// element; Fp32Master: parameter (the fp32 master) and moments fp32, gradient bf16, and bf16Copy (when
// not null) receives the updated master rounded to bf16, 28 bytes per element. The kernels it replaces
// moved the same bytes at about half of HBM bandwidth (PyTorch's multi-tensor fused AdamW, pure bf16)
// or several times over (ATen ops on the master).
enum class AdamWState { Bf16, Fp32Master };
// (AdamWHyper: adamw_kernel_body.hpp.)
// maxBlocks > 0 caps the grid (a step that runs beside other kernels leaves them SMs); 0: as many
// blocks as keep every SM's loads in flight.
void adamw(void* param, const void* grad, void* expAvg, void* expAvgSq, void* bf16Copy, std::int64_t n,
           AdamWState state, const float* step, const AdamWHyper& h, int maxBlocks, cudaStream_t stream);

} // namespace shardwise::runner::kernels
