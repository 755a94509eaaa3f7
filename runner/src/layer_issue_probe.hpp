#pragma once
// The probe's `layer_issue` figure: host seconds to issue one decoder layer's forward and backward for
// one micro-step, what the planner calls layer_launch_s (core/estimate, Calibration::layerLaunchS).
//
// A layer at a shape so small that the device finishes each kernel long before the host has issued
// the next (hidden 256, 4 query / 2 key-value heads of 64, SwiGLU 512, q/k/v bias, 128 tokens,
// micro-batch 1) is timed through the runner's own decoder code (DecoderModel, linearIntoGrad, the
// fused or ATen elementwise path the device takes, bf16 on CUDA, fp32 on the CPU): what is left is the
// per-operator cost of ATen dispatch, autograd bookkeeping and kernel launches, which does not shrink
// with the model's width and bounds small models at short sequences. On a CPU device the "kernels" run
// on the issuing thread, so the figure there also holds the layer's (tiny) compute.

#include <ATen/ATen.h>

#include <cstdint>
#include <memory>

namespace shardwise::runner {

// A stack of `layers` decoder layers sharing one layer's parameters, with a tied embedding and head
// whose cost is the same for every depth: the difference between two depths is the layers' alone.
class LayerIssueStack {
public:
    LayerIssueStack(const at::Device& device, std::int64_t layers);
    ~LayerIssueStack();
    LayerIssueStack(const LayerIssueStack&) = delete;
    LayerIssueStack& operator=(const LayerIssueStack&) = delete;

    // Issues one micro-step: forward of every layer, loss, backward into the gradient buffers. Does not
    // wait for the device.
    void step();

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace shardwise::runner
