#pragma once
// The offloaded optimizer step, unit by unit, on a host thread of its own (the offload strategies).
//
// A unit's host AdamW can run as soon as its reduced gradient shard has arrived in host memory: the
// backward produces them from the last decoder layer to the first, and the host steps each while the
// GPU computes the next units' backward and copies their gradients down (ZeRO-Offload's "one-step
// delayed" schedule is not used: every step uses its own gradients). Once the backward has handed in
// every unit, the host takes the rest in forward order (lowest unit first), so the next step's forward
// waits only for the unit it reaches: the root and first layers are stepped first, and the GPU runs
// their forward while the host steps the later layers. The arithmetic of each unit's step is the same
// call as without the pipeline; only when it runs changes.

#include "communicator.hpp"

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace shardwise::runner {

class HostStepPipeline {
public:
    explicit HostStepPipeline(std::size_t units);
    ~HostStepPipeline();
    HostStepPipeline(const HostStepPipeline&) = delete;
    HostStepPipeline& operator=(const HostStepPipeline&) = delete;

    // Queues `work` for `unit`, to run once `arrival` (the copy of its gradient to the host) is done.
    // A unit may have one piece of work queued or running at a time.
    void submit(std::size_t unit, CommTicket arrival, std::function<void()> work);
    // Every unit of this step has been submitted: the rest runs in forward (ascending unit) order.
    void submittedAll();
    // Whether `unit` has no work queued or running.
    bool idle(std::size_t unit) const;
    // Blocks until `unit` has no work queued or running; rethrows the first failure of any work.
    void waitFor(std::size_t unit);
    void waitAll();

private:
    struct Item {
        std::size_t unit;
        CommTicket arrival;
        std::function<void()> work;
    };
    void run();
    void rethrowFailure();

    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<Item> m_queue;
    std::vector<char> m_busy; // per unit: queued or running
    bool m_all = false;
    bool m_stopping = false;
    std::exception_ptr m_failure;
    std::thread m_thread; // last: started once everything above exists
};

} // namespace shardwise::runner
