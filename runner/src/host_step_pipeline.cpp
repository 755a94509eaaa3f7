#include "host_step_pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace shardwise::runner {

HostStepPipeline::HostStepPipeline(std::size_t units)
    : m_busy(units, 0)
    , m_thread([this] { run(); })
{
}

HostStepPipeline::~HostStepPipeline()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_changed.notify_all();
    m_thread.join();
}

void HostStepPipeline::submit(std::size_t unit, CommTicket arrival, std::function<void()> work)
{
    {
        std::lock_guard lock(m_mutex);
        if (unit >= m_busy.size())
            throw std::out_of_range("HostStepPipeline::submit: no unit " + std::to_string(unit));
        if (m_busy[unit])
            throw std::logic_error("HostStepPipeline::submit: unit " + std::to_string(unit)
                                   + " is still being stepped");
        // The first unit of a step, nothing of the last one left: the backward is handing units in
        // again, and they are stepped in the order they come until it has handed in all of them.
        if (std::none_of(m_busy.begin(), m_busy.end(), [](char b) { return b != 0; }))
            m_all = false;
        m_busy[unit] = 1;
        m_queue.push_back({ unit, std::move(arrival), std::move(work) });
    }
    m_changed.notify_all();
}

void HostStepPipeline::submittedAll()
{
    {
        std::lock_guard lock(m_mutex);
        m_all = true;
    }
    m_changed.notify_all();
}

bool HostStepPipeline::idle(std::size_t unit) const
{
    std::lock_guard lock(m_mutex);
    return !m_busy.at(unit);
}

void HostStepPipeline::rethrowFailure()
{
    if (m_failure)
        std::rethrow_exception(m_failure);
}

void HostStepPipeline::waitFor(std::size_t unit)
{
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return !m_busy.at(unit) || m_failure; });
    rethrowFailure();
}

void HostStepPipeline::waitAll()
{
    std::unique_lock lock(m_mutex);
    m_changed.wait(
        lock, [&] { return m_failure || std::none_of(m_busy.begin(), m_busy.end(), [](char b) { return b != 0; }); });
    rethrowFailure();
    m_all = false;
}

void HostStepPipeline::run()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_changed.wait(lock, [&] { return m_stopping || !m_queue.empty(); });
        if (m_stopping)
            return;
        // While the backward is still handing units in, they are stepped as they come; afterwards the
        // lowest unit first, which is the order the next forward needs them in.
        auto next = m_queue.begin();
        if (m_all)
            next = std::min_element(m_queue.begin(), m_queue.end(),
                                    [](const Item& a, const Item& b) { return a.unit < b.unit; });
        Item item = std::move(*next);
        m_queue.erase(next);
        lock.unlock();
        std::exception_ptr failure;
        try {
            // The copy runs on a device stream; poll its completion rather than block in the driver, so
            // a run that is being torn down (a peer failed) is never held here.
            while (item.arrival && !item.arrival->finished()) {
                {
                    std::lock_guard check(m_mutex);
                    if (m_stopping)
                        return;
                }
                std::this_thread::sleep_for(std::chrono::microseconds(50));
            }
            item.work();
        } catch (...) {
            failure = std::current_exception();
        }
        lock.lock();
        if (failure && !m_failure)
            m_failure = failure;
        m_busy[item.unit] = 0;
        m_changed.notify_all();
    }
}

} // namespace shardwise::runner
