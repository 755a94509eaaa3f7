#pragma once
// Memory and device facts for the protocol: the caching allocator's numbers on CUDA, peak RSS on CPU.

#include "shardwise/protocol/events.hpp"

#include <ATen/ATen.h>

#include <string>

namespace shardwise::runner {

protocol::MemorySample sampleMemory(const at::Device& device);

// The caching allocator's peak allocated and reserved bytes since the last reset (0 on CPU): host-side
// counters only, no driver call, so it may run inside a timed step.
struct AllocatorPeaks {
    std::int64_t allocated = 0;
    std::int64_t reserved = 0;
};
AllocatorPeaks allocatorPeaks(const at::Device& device);
void resetPeakMemory(const at::Device& device);
// Hands the caching allocator's unused blocks back to the driver: what set-up left cached (the fp32
// initialisation buffers) must not count as the training's reserved memory.
void releaseCachedMemory(const at::Device& device);
// Caps what the caching allocator may hold on a CUDA device at `bytes` (its memory fraction of the
// device's total): beyond it an allocation first frees the unused cache and retries, then fails as out
// of memory, as on a GPU of that size. Returns the bytes the cap allows (the fraction x the total).
std::int64_t capCachingAllocator(const at::Device& device, double bytes);
void selectDevice(const at::Device& device); // the current CUDA device for this thread and its children
void synchronizeDevice(const at::Device& device);
std::string deviceName(const at::Device& device);
int cudaDeviceCount(); // 0 in builds without CUDA
protocol::SoftwareVersions softwareVersions();

} // namespace shardwise::runner
