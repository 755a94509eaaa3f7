#include "flat_buffer.hpp"

#include "compat.hpp"

#include <atomic>

namespace shardwise::runner {

namespace {

// Materialise and release run on the main thread and on the autograd thread (never at once), so
// relaxed atomics suffice.
std::atomic<std::int64_t> g_resident { 0 };
std::atomic<std::int64_t> g_peak { 0 };

} // namespace

void FlatBuffer::track(std::int64_t bytes)
{
    const auto now = g_resident.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    auto peak = g_peak.load(std::memory_order_relaxed);
    while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) { }
}

std::int64_t FlatBuffer::peakResidentBytes()
{
    return g_peak.load(std::memory_order_relaxed);
}

void FlatBuffer::resetPeakResidentBytes()
{
    g_peak.store(g_resident.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

void FlatBuffer::allocate(std::int64_t numel, const at::TensorOptions& options)
{
    if (m_materialized)
        track(-residentBytes());
    m_tensor = at::empty({ numel }, options);
    m_materialized = true;
    track(residentBytes());
}

void FlatBuffer::release()
{
    if (!m_materialized)
        return;
    track(-residentBytes());
    compat::resizeStorageBytes(m_tensor, 0);
    m_materialized = false;
}

void FlatBuffer::materialize()
{
    if (m_materialized)
        return;
    compat::resizeStorageBytes(m_tensor, static_cast<std::size_t>(m_tensor.numel()) * m_tensor.element_size());
    m_materialized = true;
    track(residentBytes());
}

std::int64_t FlatBuffer::residentBytes() const
{
    return m_tensor.defined() ? static_cast<std::int64_t>(m_tensor.storage().nbytes()) : 0;
}

std::vector<at::Tensor> FlatBuffer::views(const UnitLayout& layout) const
{
    std::vector<at::Tensor> out;
    out.reserve(layout.params.size());
    for (const auto& slot : layout.params)
        out.push_back(span(slot.offset, slot.shape));
    return out;
}

at::Tensor FlatBuffer::span(std::int64_t offset, const std::vector<std::int64_t>& shape) const
{
    std::vector<std::int64_t> strides(shape.size(), 1);
    for (std::size_t i = shape.size(); i-- > 1;)
        strides[i - 1] = strides[i] * shape[i];
    // Sizes and strides are set on the TensorImpl: Tensor::set_ would grow a released storage back to
    // full size (allocating the bytes the release just gave back), and spans are taken while their
    // buffer is released (a gradient buffer during the forward pass).
    auto view = at::empty({ 0 }, m_tensor.options());
    view.set_(m_tensor.storage());
    auto* impl = view.unsafeGetTensorImpl();
    impl->set_sizes_and_strides(shape, strides);
    impl->set_storage_offset(offset);
    return view;
}

} // namespace shardwise::runner
