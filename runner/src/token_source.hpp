#pragma once
// Each rank's token batches: synthetic from (seed, rank) or windows of a token file. All steps'
// tokens are prepared up front so the step loop only copies into one persistent device buffer.

#include "shardwise/spec/specs.hpp"

#include <ATen/ATen.h>

namespace shardwise::runner {

class TokenSource {
public:
    TokenSource(const RunConfig& config, int rank, int world, const at::Device& device);

    // Loads optimizer step `step`'s batch into the device buffer; returns {inputs, targets}, each
    // [N x B, T] for N accumulated micro-batches of B sequences (micro-batch i: rows i x B onwards).
    std::pair<at::Tensor, at::Tensor> batch(int step);

private:
    at::Tensor m_host;   // [steps, B, T + 1] int64
    at::Tensor m_device; // [B, T + 1] int64
};

} // namespace shardwise::runner
