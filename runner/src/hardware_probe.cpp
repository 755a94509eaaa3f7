#include "hardware_probe.hpp"

#include "communicator.hpp"
#include "cpu_adamw.hpp"
#include "device_metrics.hpp"
#include "event_stream.hpp"
#include "layer_issue_probe.hpp"
#include "step_graph.hpp"
#include "training_run.hpp"

#include "shardwise/protocol/statistics.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

namespace shardwise::runner {

namespace {

using Clock = std::chrono::steady_clock;

class Probe {
public:
    Probe(const at::Device& device, Communicator& comm, int repetitions)
        : m_device(device)
        , m_comm(comm)
        , m_repetitions(repetitions)
    {
    }

    // Median seconds of `run` over the repetitions, after two untimed ones; the device and the
    // communicator are drained around every repetition so each is timed alone.
    double medianSeconds(const std::function<void()>& run)
    {
        std::vector<double> seconds;
        for (int i = 0; i < m_repetitions + 2; ++i) {
            drain();
            const auto begin = Clock::now();
            run();
            drain();
            if (i >= 2)
                seconds.push_back(std::chrono::duration<double>(Clock::now() - begin).count());
        }
        return stats::median(seconds);
    }

    // Median seconds of one replay of `step` captured as a CUDA graph, after two eager runs of it on
    // the graph's stream. The communicator's streams are joined at the end of the capture, and the
    // timing events the graph records into are kept alive with it.
    double replayedSeconds(const std::function<void()>& step)
    {
        StepGraph graph(m_device); // its stream is current while it lives: warm-up, capture and replays
        step();
        step();
        m_comm.takeCommTime();
        graph.capture([&] {
            step();
            m_comm.joinCompute();
        });
        m_comm.keepCapturedTimings();
        return medianSeconds([&] { graph.replay(); });
    }

    void add(std::string kind, std::int64_t bytes, double value, std::string unit)
    {
        m_results.push_back({ std::move(kind), bytes, value, std::move(unit), m_repetitions });
    }

    std::vector<protocol::ProbeResult> take() { return std::move(m_results); }

private:
    void drain()
    {
        synchronizeDevice(m_device);
        m_comm.synchronize();
    }

    at::Device m_device;
    Communicator& m_comm;
    int m_repetitions;
    std::vector<protocol::ProbeResult> m_results;
};

std::int64_t largestSquare(std::int64_t maxBytes, std::int64_t elementBytes, std::int64_t cap)
{
    // Three n x n operands within the byte budget, n a multiple of 256 (tensor-core friendly).
    std::int64_t n = cap;
    while (n > 256 && 3 * n * n * elementBytes > maxBytes)
        n -= 256;
    return n;
}

void probeDevice(Probe& probe, const at::Device& device, std::int64_t maxBytes)
{
    const bool cuda = device.is_cuda();
    // Dense GEMM: bf16 on the GPU (what training runs), fp32 on a CPU device.
    const auto gemmType = cuda ? at::kBFloat16 : at::kFloat;
    const auto n = largestSquare(maxBytes, cuda ? 2 : 4, cuda ? 8192 : 1024);
    const auto a = at::randn({ n, n }, at::TensorOptions().device(device).dtype(gemmType));
    const auto b = at::randn({ n, n }, a.options());
    auto c = at::empty({ n, n }, a.options());
    const double gemmS = probe.medianSeconds([&] { at::mm_out(c, a, b); });
    probe.add(cuda ? "matmul_bf16" : "matmul_fp32", 0, 2.0 * n * n * n / gemmS / 1e12, "TFLOP/s");

    const auto elements = maxBytes / 2;
    const auto src = at::empty({ elements }, at::TensorOptions().device(device).dtype(at::kBFloat16)).fill_(1);
    auto dst = at::empty_like(src);
    const double copyS = probe.medianSeconds([&] { dst.copy_(src); });
    probe.add("device_copy", maxBytes, 2.0 * static_cast<double>(maxBytes) / copyS / 1e9, "GB/s");

    if (cuda) {
        auto host = at::empty({ elements }, at::TensorOptions().dtype(at::kBFloat16).pinned_memory(true)).fill_(1);
        const double upS = probe.medianSeconds([&] { dst.copy_(host, /*non_blocking=*/true); });
        probe.add("h2d_pinned", maxBytes, static_cast<double>(maxBytes) / upS / 1e9, "GB/s");
        const double downS = probe.medianSeconds([&] { host.copy_(src, /*non_blocking=*/true); });
        probe.add("d2h_pinned", maxBytes, static_cast<double>(maxBytes) / downS / 1e9, "GB/s");
    }
}

void probeCpuAdamW(Probe& probe, bool bf16, std::int64_t maxBytes)
{
    // The offload strategies' optimizer as they run it: bf16 state under pure bf16 on a GPU node,
    // fp32 otherwise; the buffers are well beyond the caches, as a model's shards are.
    const auto dtype = bf16 ? at::kBFloat16 : at::kFloat;
    const auto n = std::max<std::int64_t>(1 << 16, maxBytes / (bf16 ? 2 : 4));
    const auto options = at::TensorOptions().dtype(dtype);
    auto param = at::randn({ n }, options);
    const auto grad = at::randn({ n }, options);
    auto m = at::zeros({ n }, options);
    auto v = at::zeros({ n }, options);
    std::int64_t step = 0;
    AdamWSettings settings;
    const double s = probe.medianSeconds([&] { cpuAdamWStep(param, grad, m, v, ++step, settings); });
    probe.add("cpu_adamw", n * (bf16 ? 2 : 4), static_cast<double>(n) / s, "params/s");
}

void probeLayerIssue(Probe& probe, const at::Device& device)
{
    // Two depths of the same stack, each issued whole and then waited for: their difference is what
    // the extra layers cost, without the embedding, head and loss that both carry. On a GPU, 32 layers
    // per repetition keep the timed span well above the clock's and the launch queue's jitter. A CPU
    // device computes every operator on the issuing threads (a layer at this shape takes tens to
    // hundreds of milliseconds there, far above any jitter), so two suffice and keep the probe short.
    constexpr std::int64_t kShallow = 1;
    const std::int64_t extraLayers = device.is_cuda() ? 32 : 2;
    LayerIssueStack shallow(device, kShallow);
    LayerIssueStack deep(device, kShallow + extraLayers);
    const double shallowS = probe.medianSeconds([&] { shallow.step(); });
    const double deepS = probe.medianSeconds([&] { deep.step(); });
    probe.add("layer_issue", 0, (deepS - shallowS) / static_cast<double>(extraLayers), "s");
    if (!device.is_cuda() || !StepGraph::available())
        return;
    // The same two stacks replayed from CUDA graphs: the host issues one launch, so what is left is
    // the device's own time for the layer's kernels at a shape where their work is negligible: the
    // fixed per-layer kernel time (the planner's layer_kernel_s) that GPU-bound runs of large models
    // cannot separate from their compute.
    const double shallowG = probe.replayedSeconds([&] { shallow.step(); });
    const double deepG = probe.replayedSeconds([&] { deep.step(); });
    probe.add("layer_kernel", 0, std::max(0.0, deepG - shallowG) / static_cast<double>(extraLayers), "s");
}

void probeUnitCollective(Probe& probe, Communicator& comm, const at::Device& device)
{
    // The device time one per-unit collective adds to a step beyond its bytes, as a captured step
    // replays it: the compute stream's hand-off to the comm stream, the collective (at world 1 the
    // copy that stands for it) with its timing events, and the compute stream's wait for it. 64 tiny
    // gathers, each after a tiny compute kernel, against the compute kernels alone. World 1 only: at
    // world > 1 the figure would carry NCCL's launch, not measured here yet.
    if (!device.is_cuda() || !StepGraph::available() || comm.world() != 1)
        return;
    constexpr int kCollectives = 64;
    const auto options = at::TensorOptions().device(device).dtype(at::kBFloat16);
    auto x = at::zeros({ 4096 }, options);
    auto shard = at::zeros({ 4096 }, options);
    auto full = at::zeros({ 4096 }, options);
    auto replayed = [&](bool withCollectives) {
        return probe.replayedSeconds([&] {
            for (int i = 0; i < kCollectives; ++i) {
                x.add_(1.0);
                if (withCollectives)
                    comm.computeWaits(comm.allGather(shard, full));
            }
        });
    };
    const double alone = replayed(false);
    const double with = replayed(true);
    probe.add("unit_collective", 0, std::max(0.0, with - alone) / kCollectives, "s");
}

void probeCollectives(Probe& probe, Communicator& comm, const at::Device& device, std::int64_t maxBytes)
{
    const int world = comm.world();
    if (world < 2)
        return; // nothing crosses a link at world 1
    const auto dtype = device.is_cuda() ? at::kBFloat16 : at::kFloat;
    const std::int64_t elementBytes = device.is_cuda() ? 2 : 4;
    const double w = world;
    // 1 MiB, 16 MiB and the largest, each once: --probe-max-bytes may equal or undercut a fixed size.
    std::vector<std::int64_t> sizes;
    for (std::int64_t bytes : { std::int64_t { 1 } << 20, std::int64_t { 16 } << 20, maxBytes })
        if (bytes <= maxBytes && std::find(sizes.begin(), sizes.end(), bytes) == sizes.end())
            sizes.push_back(bytes);
    for (std::int64_t bytes : sizes) {
        // Sizes are of the full (gathered / reduced) buffer, as nccl-tests reports them.
        const auto elements = bytes / elementBytes / world * world;
        const auto realBytes = static_cast<double>(elements * elementBytes);
        auto full = at::zeros({ elements }, at::TensorOptions().device(device).dtype(dtype));
        auto shard = at::zeros({ elements / world }, full.options());
        const double ag = probe.medianSeconds([&] { comm.allGather(shard, full); });
        probe.add("all_gather", elements * elementBytes, realBytes / ag * (w - 1) / w / 1e9, "GB/s");
        const double rs = probe.medianSeconds([&] { comm.reduceScatterMean(full, shard); });
        probe.add("reduce_scatter", elements * elementBytes, realBytes / rs * (w - 1) / w / 1e9, "GB/s");
        const double ar = probe.medianSeconds([&] { comm.allReduceMean(full); });
        probe.add("all_reduce", elements * elementBytes, realBytes / ar * 2 * (w - 1) / w / 1e9, "GB/s");
    }
}

// Four significant digits: rates in the thousands and seconds per layer in the microseconds alike.
std::string formatValue(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", value);
    return text;
}

} // namespace

void runProbe(const RunnerOptions& options, const LaunchEnvironment& env)
{
    const auto& c = options.config;
    const at::Device device = prepareDevice(c, env);
    auto comm = connectRanks(c, env, options.collectiveTimeoutS);
    logLine(env.rank,
            "probing " + deviceName(device) + " with buffers up to " + std::to_string(options.probeMaxBytes >> 20)
                + " MiB");
    Probe probe(device, *comm, 10);
    probeDevice(probe, device, options.probeMaxBytes);
    probeCpuAdamW(probe, device.is_cuda(), options.probeMaxBytes);
    probeLayerIssue(probe, device);
    probeUnitCollective(probe, *comm, device);
    probeCollectives(probe, *comm, device, options.probeMaxBytes);

    protocol::ProbeEvent event;
    event.rank = env.rank;
    event.world = env.world;
    char host[256] = {};
    event.host = gethostname(host, sizeof host - 1) == 0 ? host : "unknown";
    event.deviceName = deviceName(device);
    event.versions = softwareVersions();
    event.results = probe.take();
    event.time = unixNow();
    emit(event);
    for (const auto& r : event.results)
        logLine(env.rank,
                r.kind + (r.bytes ? " @" + std::to_string(r.bytes >> 10) + " KiB" : std::string()) + ": "
                    + formatValue(r.value) + " " + r.unit);
}

} // namespace shardwise::runner
