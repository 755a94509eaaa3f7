#pragma once
// `--profile-kernels N`: which GPU kernels a step spends its time in, from LibTorch's Kineto
// profiler, summed by kernel name. A diagnostic: the profiled steps run slower than unprofiled ones.

#include <memory>
#include <string>

namespace shardwise::runner {

class KernelProfile {
public:
    // False where this runner was built without the profiler (CPU builds, old LibTorch).
    static bool available();
    void start();
    // Stops and returns a table of the kernels that took the most GPU time, per step.
    std::string stop(int steps, std::size_t top = 30);
};

} // namespace shardwise::runner
