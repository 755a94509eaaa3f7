#pragma once
// A Qwen2/Llama-family decoder written against flat parameter views: embedding, RMSNorm, grouped-query
// attention with RoPE and causal SDPA, SwiGLU MLP, tied or untied head, cross-entropy. It owns no
// parameters: the sharding engine hands it each unit's (possibly just gathered) views through UnitHooks.

#include "linear.hpp"
#include "model_layout.hpp"

#include <ATen/ATen.h>

#include <optional>

namespace shardwise::runner {

struct GradientSink {
    at::Tensor grad;
    UnwrittenFlag unwritten = nullptr;
};

class UnitHooks {
public:
    virtual ~UnitHooks() = default;
    // Views of unit `unit`'s parameters in UnitLayout order, valid while the unit is gathered.
    virtual const std::vector<at::Tensor>& parameters(std::size_t unit) = 0;
    // The gradient view of `slot` of `unit`, its buffer materialised, for a writer that fills the
    // whole slot itself (the head's gradient sink); see UnwrittenFlag.
    virtual GradientSink gradientSink(std::size_t unit, std::size_t slot) = 0;
    // Slots first .. first + count - 1 of `unit` (adjacent, equally wide) as one matrix with its
    // gradient buffer, for linearIntoGrad; `biasFirst` names the matching bias slots (left out when
    // those are empty). The gradient buffer is materialised by the time the unit's backward runs.
    virtual LinearWeight linearWeight(std::size_t unit, std::size_t first, std::size_t count,
                                      std::optional<std::size_t> biasFirst)
        = 0;
    // Slot `slot` of `unit` (an RMSNorm weight) with its gradient range, for the fused norm; like
    // linearWeight, the gradient buffer is materialised by the time the unit's backward runs.
    virtual NormWeight normWeight(std::size_t unit, std::size_t slot) = 0;
    // Called around each decoder layer (unit = layer + 1); the returned tensor replaces the hidden
    // state so the engine can attach its backward hooks.
    virtual at::Tensor enterLayer(std::size_t unit, const at::Tensor& hidden) = 0;
    virtual at::Tensor leaveLayer(std::size_t unit, const at::Tensor& hidden) = 0;
};

// Activation checkpointing (TrainingSpec::activationCheckpointing, checkpointPolicy):
//   none       every op keeps what its backward reads, except that the projections after the norms
//              recompute the norms' outputs (linear.hpp, NormedInput), in every mode.
//   selective  the matmul outputs and attention's tensors stay; the cheap ops between them are
//              recomputed in backward by the op that reads their output: SwiGLU's output (the down
//              projection's input) and the attention output's [B, T, H * D] copy (the O projection's
//              input; linear.hpp, DerivedInput). Rotary's outputs are what attention's backward reads,
//              kept there in place of the q/k projection's output (the same bytes); nothing else keeps
//              the pre-rotary q/k, so recomputing rotary would free nothing. No matmul runs twice.
//   full       each layer keeps only its input and runs its whole forward again in backward
//              (layer_recompute.hpp); the norms, rotary, attention and every projection are recomputed.
class DecoderModel {
public:
    DecoderModel(const ModelSpec& model, std::int64_t seqLen, const at::TensorOptions& compute,
                 std::optional<CheckpointPolicy> checkpointing = std::nullopt);

    // Mean next-token cross-entropy of inputs [B, T] against targets [B, T], computed in fp32. The
    // gradients (which the head writes in the forward pass, head_loss.hpp) are those of
    // gradientScale x the loss: 1 / N for each of N accumulated micro-batches, so that their sum is the
    // gradient of the mean over the whole optimizer step's tokens. The caller backpropagates the loss
    // itself (loss.backward()): the head hands its gradients on unscaled (IncomingGradient::One).
    at::Tensor loss(const at::Tensor& inputs, const at::Tensor& targets, UnitHooks& hooks,
                    double gradientScale = 1.0) const;

private:
    at::Tensor layer(UnitHooks& hooks, std::size_t unit, const at::Tensor& x) const;
    at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& weight) const;

    ModelSpec m_model;
    std::optional<CheckpointPolicy> m_checkpointing;
    at::Tensor m_cos; // [T, head_dim], compute dtype
    at::Tensor m_sin;
};

} // namespace shardwise::runner
