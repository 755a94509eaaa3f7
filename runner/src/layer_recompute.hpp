#pragma once
// Full activation checkpointing of one decoder layer: the forward runs without building a graph and
// keeps only the layer's input; the backward runs the layer's forward again from that input, now
// recording, and then its backward (a nested, "reentrant" backward, as torch.utils.checkpoint with
// use_reentrant=True does). The layer's parameters must be usable when the backward starts: the
// sharding engine gathers them again in the hook on the layer's output (preBackward), which runs
// before this node, exactly as it does for a layer that kept its activations.

#include <ATen/ATen.h>

#include <functional>

namespace shardwise::runner {

// The layer's forward from its input. Called twice: once in the forward pass (no graph recorded) and
// once from the backward; whatever it refers to must outlive the step's backward.
using LayerForward = std::function<at::Tensor(const at::Tensor&)>;

// forward(input), differentiable in `input` and in the leaves the layer's graph reaches (the norm
// weights), with nothing but `input` kept between the forward and the backward.
at::Tensor recomputedInBackward(const at::Tensor& input, LayerForward forward);

} // namespace shardwise::runner
