#pragma once
// A linear layer over a unit's flat buffers whose backward writes the weight (and bias) gradient
// straight into the unit's gradient buffer: one GEMM into the buffer, where autograd's AccumulateGrad
// would have the GEMM write a fresh gradient and then add it into the buffer (three more passes over
// every weight's bytes each step: about 18 GB, 5-6 ms, on a 3B model in bf16). When the buffer's
// owner has not zeroed the range this step (its flag says "unwritten"), the GEMM overwrites it
// (beta = 0): neither the zeroing pass nor the GEMM's read of the old values (2 x 6 GB a step on a
// 3B model) happens.
// The weight may span several adjacent slots of one unit (q, k and v; gate and up), so fused
// projections run as one GEMM forward and two backward.

#include <ATen/ATen.h>

#include <cstdint>

namespace shardwise::runner {

// A gradient range's "not written this step" flag, owned by the gradient buffer's owner: set when it
// hands out the range without zeroing it; the first writer overwrites the range and clears it; later
// writers accumulate. Null: the range is zeroed, every writer accumulates.
using UnwrittenFlag = std::uint8_t*;

struct LinearWeight {
    at::Tensor weight;     // [out, in], not tracked by autograd
    at::Tensor weightGrad; // [out, in], same memory layout in the gradient buffer
    at::Tensor bias;       // [out] or undefined
    at::Tensor biasGrad;   // [out] or undefined
    UnwrittenFlag weightUnwritten = nullptr;
    UnwrittenFlag biasUnwritten = nullptr;
};

// An RMSNorm's weight with its gradient range, for the fused norm (fused_norm.hpp), which writes the
// weight's gradient itself as linearIntoGrad does.
struct NormWeight {
    at::Tensor weight; // [hidden], not tracked by autograd
    at::Tensor grad;   // [hidden], same memory layout in the gradient buffer
    UnwrittenFlag unwritten = nullptr;
};

// Adds `update` to `target`, or copies it there when `unwritten` is set (and clears the flag).
void writeOrAccumulate(at::Tensor& target, const at::Tensor& update, UnwrittenFlag unwritten);

// Where the linear's input is an RMSNorm's output: the norm's input and weight, from which the
// backward recomputes the input instead of keeping it from the forward. The norm keeps its own
// input for its backward anyway, so per layer and token this saves two hidden-wide bf16 tensors
// (the inputs of the q/k/v and gate/up projections: 0.56 GiB of Qwen2.5-3B's activations at 2048
// tokens) for two norm passes in backward (about 0.4 ms a step on an H200); the recomputation is
// bit-identical to the forward's.
struct NormedInput {
    at::Tensor input;  // the norm's input, kept by the norm's own backward
    at::Tensor weight; // the norm's weight (a view of the unit's parameters, gathered again for backward)
    double eps = 0.0;
    bool fused = false; // the forward ran the fused norm kernel (fused_norm.hpp), so the recomputation does
};

// Selective activation checkpointing (decoder_model.hpp): where the linear's input is a cheap function
// of a tensor that the op before it keeps for its own backward anyway, the backward recomputes the
// input from that tensor instead of keeping it (the way NormedInput does for the norms). SwiGlu: the
// down projection's input swiglu(gateUp) from the fused gate/up output, which swiglu's backward keeps
// ([tokens, ffn] not held); MergeHeads: the O projection's input, the attention output [B, H, T, D]
// transposed to [B, T, H * D] (a contiguous copy), from the attention output, which flash and
// memory-efficient attention keep for their backward ([tokens, heads x head_dim] not held).
enum class DerivedKind { SwiGlu, MergeHeads };
struct DerivedInput {
    DerivedKind kind = DerivedKind::SwiGlu;
    at::Tensor source;
};

// y = input W^T (+ b) for input [..., in]; differentiable in `input`. The gradient buffers must hold
// their memory (materialised) when the backward runs. With `normed`, `input` must be
// rmsNorm(normed->input, normed->weight, normed->eps) and is not kept for the backward.
at::Tensor linearIntoGrad(const at::Tensor& input, const LinearWeight& w, const NormedInput* normed = nullptr);
// The same with `input` computed from `derived` as its kind says; `input` is not kept for the backward.
at::Tensor linearIntoGrad(const at::Tensor& input, const LinearWeight& w, const DerivedInput& derived);

// The embedding lookup table[ids] ([..., hidden] for ids [...]) whose backward adds each token's
// gradient row straight into the table's gradient range `grad` ([vocab, hidden], materialised by then):
// zeroed first when `unwritten` says so (an untied table), else added to what is there (the tied head's
// GEMM wrote it in the forward pass, head_loss.hpp). Autograd's lookup built a dense [vocab, hidden]
// gradient (a zero fill and a scatter) and added it into the range: 1.9 GB more traffic a step for
// Qwen2.5-3B's tied 151,936 x 2,048 table (a step's add kernels took 0.85 ms on an H100, most of it
// this add). The rows go in by index_put_'s sorted accumulation: repeated tokens summed in fp32 in a
// fixed order, one rounding per row, so the result does not depend on scheduling. `table` is the
// graph's edge (the output needs a gradient), but no gradient flows to it through autograd.
at::Tensor embeddingIntoGrad(const at::Tensor& table, const at::Tensor& ids, const at::Tensor& grad,
                             UnwrittenFlag unwritten);

} // namespace shardwise::runner
