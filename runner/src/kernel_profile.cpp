#include "kernel_profile.hpp"

#include "compat.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <vector>

#if defined(SHARDWISE_WITH_KINETO_PROFILER)
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/csrc/profiler/api.h>
#endif

namespace shardwise::runner {

#if defined(SHARDWISE_WITH_KINETO_PROFILER)

namespace {
namespace impl = torch::profiler::impl;

impl::ProfilerConfig kinetoConfig()
{
    return impl::ProfilerConfig(impl::ProfilerState::KINETO);
}

const std::set<impl::ActivityType>& activities()
{
    static const std::set<impl::ActivityType> a { impl::ActivityType::CPU, impl::ActivityType::CUDA };
    return a;
}
} // namespace

bool KernelProfile::available()
{
    return true;
}

void KernelProfile::start()
{
    torch::autograd::profiler::prepareProfiler(kinetoConfig(), activities());
    torch::autograd::profiler::enableProfiler(kinetoConfig(), activities());
}

std::string KernelProfile::stop(int steps, std::size_t top)
{
    const auto result = torch::autograd::profiler::disableProfiler();
    struct Total {
        double ns = 0;
        long calls = 0;
    };
    std::map<std::string, Total> byName;
    double allNs = 0;
    for (const auto& e : result->events()) {
        if (e.deviceType() != c10::DeviceType::CUDA)
            continue;
        auto& t = byName[e.name()];
        t.ns += static_cast<double>(e.durationNs());
        ++t.calls;
        allNs += static_cast<double>(e.durationNs());
    }
    std::vector<std::pair<std::string, Total>> rows(byName.begin(), byName.end());
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
    std::string out = "GPU time per step by kernel (all streams; " + std::to_string(steps)
        + " profiled steps): " + std::to_string(allNs / 1e6 / steps) + " ms in total\n";
    char line[512];
    for (std::size_t i = 0; i < std::min(top, rows.size()); ++i) {
        const auto& [name, t] = rows[i];
        std::snprintf(line, sizeof line, "  %9.3f ms %5.1f%% %6ld calls  %.300s\n", t.ns / 1e6 / steps,
                      allNs > 0 ? 100.0 * t.ns / allNs : 0.0, t.calls / steps, name.c_str());
        out += line;
    }
    return out;
}

#else

bool KernelProfile::available()
{
    return false;
}
void KernelProfile::start()
{
    throw std::runtime_error("this runner was built without the kernel profiler");
}
std::string KernelProfile::stop(int, std::size_t)
{
    return {};
}

#endif

} // namespace shardwise::runner
