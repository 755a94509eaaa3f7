#pragma once
// --cuda-graphs: a whole training step captured once as a CUDA graph and replayed every step after.
// The host then issues one graph launch per step instead of every kernel, copy, event and collective,
// so a step whose CPU issue time exceeded its GPU time runs at the GPU's pace. CUDA builds only.
//
// While it exists, a StepGraph's own stream is the thread's current CUDA stream: the eager steps
// before the capture, the capture and the replays all run there (a capture needs a stream other than
// the default one, and the eager steps there create what the stream needs, such as cuBLAS workspaces,
// before the capture, as PyTorch's CUDA graph notes advise).

#include <ATen/ATen.h>

#include <functional>
#include <memory>

namespace shardwise::runner {

class StepGraph {
public:
    static bool available(); // false in builds without CUDA
    explicit StepGraph(const at::Device& device);
    ~StepGraph();
    StepGraph(const StepGraph&) = delete;
    StepGraph& operator=(const StepGraph&) = delete;

    // Runs `step` under stream capture: nothing executes, its device work becomes the graph. Every
    // stream `step` forks must be joined back to the current stream before it returns. The memory
    // the step allocates comes from the graph's own pool and stays reserved for its replays.
    void capture(const std::function<void()>& step);
    bool captured() const;
    // Launches the captured step on the current stream.
    void replay();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace shardwise::runner
