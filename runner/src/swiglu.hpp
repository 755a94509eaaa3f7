#pragma once
// silu(gate) * up with a backward that recomputes silu(gate) instead of saving it: the MLP keeps gate
// and up for backward (as the plain composition does) but not the [tokens, ffn] silu output, about
// 45 MB per layer of a 3B model at sequence 2048, for one extra elementwise kernel in backward.

#include <ATen/ATen.h>

namespace shardwise::runner {

at::Tensor swiglu(const at::Tensor& gate, const at::Tensor& up);

} // namespace shardwise::runner
