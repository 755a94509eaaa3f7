#pragma once
// Rotary position embedding, rotate-half convention (Hugging Face Llama/Qwen2): for each head the first
// half of the dimensions pairs with the second, y = x * cos + rotate_half(x) * sin. cos and sin are
// [>= seq, headDim] tables.

#include <ATen/ATen.h>

#include <cstdint>

namespace shardwise::runner {

// x [batch, heads, seq, headDim] turned by its positions' angles (the ATen composition).
at::Tensor rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin);

// The fused q/k/v projection's output qkv [batch, seq, (heads + 2 kvHeads) headDim] as attention reads
// it: q and k turned, v as it is, each [batch, heads (kvHeads for k and v), seq, headDim].
// On bf16 CUDA tensors with the fused kernels, one kernel each way (fused_kernels.hpp, rotaryQkv): the
// forward reads qkv once and writes q, k and v into [batch, seq, heads, headDim] storage; the backward
// reads the three gradients once and writes qkv's gradient, so no concatenation joins them and nothing
// is kept beyond the tables. Elsewhere q, k and v are a split of qkv and q and k go through `rotary`.
struct RotatedQkv {
    at::Tensor q;
    at::Tensor k;
    at::Tensor v;
};
RotatedQkv rotaryQkv(const at::Tensor& qkv, std::int64_t heads, std::int64_t kvHeads, std::int64_t headDim,
                     const at::Tensor& cos, const at::Tensor& sin);

} // namespace shardwise::runner
