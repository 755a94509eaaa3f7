#include "step_graph.hpp"

#include <stdexcept>

#ifdef SHARDWISE_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#endif

namespace shardwise::runner {

#ifdef SHARDWISE_WITH_CUDA

struct StepGraph::Impl {
    explicit Impl(const at::Device& device)
        : stream(at::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index()))
        , current(stream)
    {
    }

    at::cuda::CUDAStream stream;
    c10::cuda::CUDAStreamGuard current;
    at::cuda::CUDAGraph graph;
    bool captured = false;
};

bool StepGraph::available()
{
    return true;
}

StepGraph::StepGraph(const at::Device& device)
{
    if (!device.is_cuda())
        throw std::invalid_argument("StepGraph: CUDA graphs need a CUDA device");
    c10::cuda::device_synchronize(); // work queued on the default stream before the switch
    m_impl = std::make_unique<Impl>(device);
}

StepGraph::~StepGraph() = default;

void StepGraph::capture(const std::function<void()>& step)
{
    if (m_impl->captured)
        throw std::logic_error("StepGraph: the step is captured already");
    c10::cuda::device_synchronize();
    m_impl->graph.capture_begin();
    try {
        step();
    } catch (...) {
        // End the capture so the stream is usable for the error report; the graph is discarded.
        try {
            m_impl->graph.capture_end();
        } catch (...) {
        }
        throw;
    }
    m_impl->graph.capture_end();
    m_impl->captured = true;
}

bool StepGraph::captured() const
{
    return m_impl->captured;
}

void StepGraph::replay()
{
    if (!m_impl->captured)
        throw std::logic_error("StepGraph: replay before capture");
    m_impl->graph.replay();
}

#else

struct StepGraph::Impl { };

bool StepGraph::available()
{
    return false;
}
StepGraph::StepGraph(const at::Device&)
{
    throw std::runtime_error("this runner was built without CUDA graphs");
}
StepGraph::~StepGraph() = default;
void StepGraph::capture(const std::function<void()>&)
{
    throw std::logic_error("StepGraph: no CUDA");
}
bool StepGraph::captured() const
{
    return false;
}
void StepGraph::replay()
{
    throw std::logic_error("StepGraph: no CUDA");
}

#endif

} // namespace shardwise::runner
