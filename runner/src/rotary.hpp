#pragma once
// Rotary position embedding, rotate-half convention (Hugging Face Llama/Qwen2): for each head the first
// half of the dimensions pairs with the second, y = x * cos + rotate_half(x) * sin. x is
// [batch, heads, seq, headDim]; cos and sin are [>= seq, headDim] tables. The fused CUDA path reads x
// once and writes y once in each direction and saves nothing for backward beyond the tables.

#include <ATen/ATen.h>

namespace shardwise::runner {

at::Tensor rotary(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin);

} // namespace shardwise::runner
