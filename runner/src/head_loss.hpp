#pragma once
// The output head and the next-token loss in one chunked pass (head_loss.cpp says how and why).

#include "linear.hpp"

#include <ATen/ATen.h>

namespace shardwise::runner {

// Mean cross-entropy of logits = hidden [tokens, H] x weight [V, H]^T against targets [tokens]
// (int64), computed in fp32; differentiable in hidden and weight. rowsPerChunk 0 picks the chunk so
// one chunk's fp32 logits stay near 256 MiB. With `weightGradSink` (weight-shaped), the weight's
// gradient is written there instead of going through autograd: the forward accumulates it and the
// backward scales it by the incoming gradient, so the sink must hold nothing else yet: zeros, or any
// values when `sinkUnwritten` is set (the first chunk then overwrites the sink and clears the flag).
// The gradients are those of gradientScale x the loss (the loss returned is not scaled). With
// gradientScale != 1 (accumulated micro-batches) the sink may hold the earlier micro-batches'
// gradient, and the incoming gradient must then be 1 (loss.backward()), so that the backward's
// scaling leaves it as it is. IncomingGradient::One: the caller backpropagates the returned loss itself
// (loss.backward(), gradient 1), and the backward hands the gradients on without scaling them (for
// Qwen2.5-3B a pass of 1.2 GB over the head's gradient, 0.44 ms of an H100 step); the loss must then not
// enter any other expression that is differentiated.
enum class IncomingGradient { Any, One };
at::Tensor chunkedHeadLoss(const at::Tensor& hidden, const at::Tensor& weight, const at::Tensor& targets,
                           std::int64_t rowsPerChunk = 0, const at::Tensor& weightGradSink = {},
                           UnwrittenFlag sinkUnwritten = nullptr, double gradientScale = 1.0,
                           IncomingGradient incoming = IncomingGradient::Any);

} // namespace shardwise::runner
