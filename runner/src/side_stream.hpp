#pragma once
// A second CUDA stream for device work the compute stream hands off and needs only later: each unit's
// optimizer step, issued as soon as the unit's gradient is reduced, runs there beside the rest of the
// backward (sharding_engine.hpp). Runs without CUDA have none.

#include <ATen/ATen.h>

#include <functional>
#include <memory>

namespace shardwise::runner {

class SideStream {
public:
    // Null where `device` is not a CUDA device or the runner was built without CUDA.
    static std::unique_ptr<SideStream> create(const at::Device& device);
    virtual ~SideStream() = default;
    // Runs `enqueue` with the side stream current, after it has waited for what the calling thread's
    // current stream has enqueued so far. Waits `enqueue` adds (Communicator::streamWaits) order it
    // after more. Inside a CUDA graph capture the side stream joins the capture through that wait.
    virtual void run(const std::function<void()>& enqueue) = 0;
    // The calling thread's current stream waits for everything enqueued on the side stream so far.
    virtual void joinCurrent() = 0;
};

} // namespace shardwise::runner
