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
        at::cuda::CUDAEvent handedOff;
        handedOff.record(at::cuda::getCurrentCUDAStream(m_device));
        handedOff.block(m_stream);
        c10::cuda::CUDAStreamGuard onSide(m_stream);
        enqueue();
    }

    void joinCurrent() override
    {
        c10::cuda::CUDAGuard onDevice(m_device);
        at::cuda::CUDAEvent done;
        done.record(m_stream);
        done.block(at::cuda::getCurrentCUDAStream(m_device));
    }

private:
    c10::DeviceIndex m_device;
    at::cuda::CUDAStream m_stream;
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
