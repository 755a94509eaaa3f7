#pragma once
// One unit's parameters (or gradients) as a single flat buffer whose bytes can be dropped and
// re-created in place. Parameter views are separate TensorImpls over the same StorageImpl with their
// own version counters, so collectives writing the flat buffer do not trip autograd's saved-tensor
// checks, and tensors saved for backward see the data again once the buffer is re-materialised.

#include "model_layout.hpp"

#include <ATen/ATen.h>

namespace shardwise::runner {

class FlatBuffer {
public:
    void allocate(std::int64_t numel, const at::TensorOptions& options);
    void release();     // storage shrinks to 0 bytes
    void materialize(); // storage grows back to its full size; contents undefined

    bool allocated() const { return m_tensor.defined(); }
    bool materialized() const { return m_materialized; }
    const at::Tensor& tensor() const { return m_tensor; }
    std::int64_t residentBytes() const;

    // One view per parameter slot, shaped as the slot says.
    std::vector<at::Tensor> views(const UnitLayout& layout) const;
    // A row-major view of `shape` starting `offset` elements into the buffer, outside autograd; taking
    // it never allocates, whether the buffer is materialised or not.
    at::Tensor span(std::int64_t offset, const std::vector<std::int64_t>& shape) const;

    // The most bytes every FlatBuffer of this process held materialised at once since the last reset:
    // the full parameter and gradient buffers of the units (gathered, or resident for the strategies
    // that keep them). It is what the schedule allocates, on any device, so a rehearsal's figure can be
    // held against a real run's where no allocator reports peaks (the CPU).
    static std::int64_t peakResidentBytes();
    static void resetPeakResidentBytes();

private:
    void track(std::int64_t bytes);

    at::Tensor m_tensor;
    bool m_materialized = false;
};

} // namespace shardwise::runner
