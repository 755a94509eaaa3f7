#pragma once
// The decoder's RMSNorms through the runner's own kernels (fused_kernels.hpp, rmsNormForward /
// rmsNormBackward) where they apply: bf16 CUDA rows of a width the kernels take, in builds with the
// fused kernels, unless SHARDWISE_FUSED_NORM=0 turns them off. Against ATen's rms_norm, the residual add
// in front of the post-attention norm joins the norm's pass, the gradient around the norm joins the
// norm's backward (no separate add of the two), and the weight's gradient goes straight into the
// unit's gradient buffer (no AccumulateGrad pass), as linearIntoGrad does for the projections.
// On the CPU, with SHARDWISE_FUSED_NORM=1, the same maths runs as ATen ops in fp32, so everything the
// fused norm changes around the kernels (the gradient written into the buffer, the residual joined to
// the norm, the recomputation) runs, and is tested, on every device. Elsewhere (CUDA tensors the kernels
// do not take, SHARDWISE_FUSED_NORM=0, the CPU without it set to 1) the decoder keeps compat::rmsNorm
// with autograd.

#include "linear.hpp"

#include <ATen/ATen.h>

#include <utility>

namespace shardwise::runner {

// The name start events give the fused norm in versions.kernels (docs/protocol.md).
inline constexpr const char* kFusedRmsNormName = "RMSNorm";

// Whether CUDA runs take the fused norm where it applies: unless SHARDWISE_FUSED_NORM=0.
bool fusedNormEnabled();
// Whether a run on `device` takes the fused norm for its decoder's rows: on CUDA where this build has
// the fused kernels and neither SHARDWISE_FUSED_KERNELS=0 nor SHARDWISE_FUSED_NORM=0 turns them off;
// on the CPU with SHARDWISE_FUSED_NORM=1.
bool fusedNormRunsOn(const at::Device& device);
// Whether the norm of `x` ([..., hidden]) takes the fused norm: on CUDA where the kernels apply
// (unless SHARDWISE_FUSED_NORM=0), on the CPU (its ATen reference) only with SHARDWISE_FUSED_NORM=1.
bool takesFusedNormPath(const at::Tensor& x);

// A decoder layer's input x feeds its input norm and, as the residual, the post-attention norm's
// h = x + o. The post-attention norm's backward runs first (the input norm's gradient comes through
// attention, which needs o's). Given one handoff, it leaves x's gradient to the input norm's backward,
// whose kernel adds it to its own (dres): no separate add of x's two gradients. One handoff per layer
// call (residualGradientHandoff(x)), passed to both norms of that call.
struct ResidualGradientHandoff {
    at::Tensor box; // empty until the post-attention norm's backward sets it to x's gradient from there
};
ResidualGradientHandoff residualGradientHandoff(const at::Tensor& x);

// rmsNorm(x) * w.weight, differentiable in x; the backward writes (or adds, as w.unwritten says) the
// weight's gradient into w.grad, and adds the gradient a handoff holds to x's.
at::Tensor fusedRmsNorm(const at::Tensor& x, const NormWeight& w, double eps,
                        const ResidualGradientHandoff& handoff = {});
// {h, rmsNorm(h) * w.weight} with h = x + residual, differentiable in x and residual through both;
// with a handoff, x's gradient goes to the input norm that shares it (above) instead of to x.
std::pair<at::Tensor, at::Tensor> fusedResidualRmsNorm(const at::Tensor& x, const at::Tensor& residual,
                                                       const NormWeight& w, double eps,
                                                       const ResidualGradientHandoff& handoff = {});
// The forward's value of the fused norm of h, without autograd: bit-identical to what fusedRmsNorm and
// fusedResidualRmsNorm returned for that h (the projections' recomputation, linear.hpp).
at::Tensor fusedRmsNormValue(const at::Tensor& h, const at::Tensor& weight, double eps);

} // namespace shardwise::runner
