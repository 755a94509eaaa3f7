#include "side_stream.hpp"

#ifdef SHARDWISE_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#endif

namespace shardwise::runner {

#ifdef SHARDWISE_WITH_CUDA

namespace {

class CudaSideStream final : public SideStream {
public:
    explicit CudaSideStream(const at::Device& device)
        : m_device(device.index())
        , m_stream(at::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index()))
    {
    }

    void run(const std::function<void()>& enqueue) override
    {
        c10::cuda::CUDAGuard onDevice(m_device);
        m_handedOff.record(at::cuda::getCurrentCUDAStream(m_device));
        m_handedOff.block(m_stream);
        c10::cuda::CUDAStreamGuard onSide(m_stream);
        enqueue();
    }

    void joinCurrent() override
    {
        c10::cuda::CUDAGuard onDevice(m_device);
        m_done.record(m_stream);
        m_done.block(at::cuda::getCurrentCUDAStream(m_device));
    }

private:
    c10::DeviceIndex m_device;
    at::cuda::CUDAStream m_stream;
    // Reused for every hand-off and join (a wait takes the event's state when it is issued), so a step
    // creates no CUDA events.
    at::cuda::CUDAEvent m_handedOff;
    at::cuda::CUDAEvent m_done;
};

} // namespace

std::unique_ptr<SideStream> SideStream::create(const at::Device& device)
{
    if (!device.is_cuda())
        return nullptr;
    return std::make_unique<CudaSideStream>(device);
}

#else

std::unique_ptr<SideStream> SideStream::create(const at::Device&)
{
    return nullptr;
}

#endif

} // namespace shardwise::runner
