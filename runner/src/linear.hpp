#pragma once
// A linear layer over a unit's flat buffers whose backward writes the weight (and bias) gradient
// straight into the unit's gradient buffer: one GEMM accumulating into the buffer, where autograd's
// AccumulateGrad would have the GEMM write a fresh gradient and then add it into the buffer (three
// more passes over every weight's bytes each step: about 18 GB, 5-6 ms, on a 3B model in bf16).
// The weight may span several adjacent slots of one unit (q, k and v; gate and up), so fused
// projections run as one GEMM forward and two backward.

#include <ATen/ATen.h>

namespace shardwise::runner {

struct LinearWeight {
    at::Tensor weight;     // [out, in], not tracked by autograd
    at::Tensor weightGrad; // [out, in], same memory layout in the gradient buffer; accumulated into
    at::Tensor bias;       // [out] or undefined
    at::Tensor biasGrad;   // [out] or undefined
};

// y = input W^T (+ b) for input [..., in]; differentiable in `input`. The gradient buffers must hold
// their memory (materialised) when the backward runs.
at::Tensor linearIntoGrad(const at::Tensor& input, const LinearWeight& w);

} // namespace shardwise::runner
