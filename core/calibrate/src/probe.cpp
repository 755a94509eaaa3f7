#include "shardwise/calibrate/probe.hpp"

#include <algorithm>
#include <optional>

namespace shardwise::calibrate {

namespace {

// The probe runs some kinds at several message sizes; the largest one is the bandwidth a training
// step's large collectives and copies see.
std::optional<double> largest(const std::vector<protocol::ProbeResult>& results, std::string_view kind)
{
    const protocol::ProbeResult* best = nullptr;
    for (const protocol::ProbeResult& r : results)
        if (r.kind == kind && r.value > 0 && (!best || r.bytes > best->bytes))
            best = &r;
    return best ? std::optional<double>(best->value) : std::nullopt;
}

double clamp01(double x)
{
    return std::clamp(x, 0.01, 1.0);
}

// calibrationFromJson's accepted range for layer_launch_s and layer_kernel_s (core/estimate/src/calibration.cpp).
constexpr double kMaxLayerLaunchS = 0.1;

} // namespace

std::optional<double> collectiveBusGBps(const std::vector<protocol::ProbeResult>& results)
{
    std::optional<double> bus;
    for (std::string_view kind : { "all_gather", "reduce_scatter", "all_reduce" })
        if (const auto b = largest(results, kind))
            bus = bus ? std::min(*bus, *b) : *b;
    return bus;
}

ProbeCalibration calibrationFromProbe(const std::vector<protocol::ProbeResult>& results, const GpuSpec& gpu,
                                      Interconnect link, const Calibration& base)
{
    ProbeCalibration out { base, {}, {} };
    Calibration& c = out.calibration;
    if (const auto tflops = largest(results, "matmul_bf16"); tflops && gpu.bf16Tflops > 0) {
        c.matmulEfficiency = clamp01(base.matmulEfficiency * (*tflops / gpu.bf16Tflops) / kReferenceMatmulFraction);
        out.applied.push_back("matmul_efficiency");
    }
    // AdamW is a streaming kernel: it cannot beat the measured copy bandwidth's share of the data
    // sheet's HBM figure.
    if (const auto copy = largest(results, "device_copy"); copy && gpu.hbmGBps > 0) {
        c.optimizerHbmEfficiency = clamp01(std::min(base.optimizerHbmEfficiency, *copy / gpu.hbmGBps));
        c.fusedAdamwHbmEfficiency = clamp01(std::min(base.fusedAdamwHbmEfficiency, *copy / gpu.hbmGBps));
        out.applied.push_back("optimizer_hbm_efficiency");
        out.applied.push_back("fused_adamw_hbm_efficiency");
    }
    // Offload moves both ways; the slower direction bounds it.
    const auto h2d = largest(results, "h2d_pinned");
    const auto d2h = largest(results, "d2h_pinned");
    if ((h2d || d2h) && gpu.pcieGBps > 0) {
        const double slower = std::min(h2d.value_or(*d2h), d2h.value_or(*h2d));
        c.pcieCopyEfficiency = clamp01(slower / gpu.pcieGBps);
        out.applied.push_back("pcie_copy_efficiency");
    }
    if (const auto adam = largest(results, "cpu_adamw")) {
        c.cpuAdamParamsPerS = std::clamp(*adam, 1e6, 1e12);
        out.applied.push_back("cpu_adam_params_per_s");
    }
    // Host seconds to issue one decoder layer's forward and backward at a shape whose kernels are
    // negligible (runner/src/layer_issue_probe.hpp): the per-layer CPU cost the estimate weighs
    // against the GPU's kernel time. A property of the node and the runner, not of the model.
    if (const auto issue = largest(results, "layer_issue")) {
        c.layerLaunchS = std::clamp(*issue, 0.0, kMaxLayerLaunchS);
        out.applied.push_back("layer_launch_s");
    }
    // Device seconds of one such layer's kernels replayed from a CUDA graph (no host gaps): the fixed
    // per-layer kernel time, which runs of large models trade against their compute rates.
    if (const auto kernel = largest(results, "layer_kernel")) {
        c.layerKernelS = std::clamp(*kernel, 0.0, kMaxLayerLaunchS);
        out.applied.push_back("layer_kernel_s");
    }
    // Device seconds each per-unit collective adds to a step replayed from a CUDA graph, beyond its
    // bytes (the stream hand-offs and the collective's launch). No fit moves it: runs show it only
    // beside each strategy's per-parameter cost, which absorbs it in large models.
    if (const auto handoff = largest(results, "unit_collective")) {
        c.unitCollectiveKernelS = std::clamp(*handoff, 0.0, kMaxLayerLaunchS);
        out.applied.push_back("unit_collective_kernel_s");
    }
    // Bus bandwidth (nccl-tests convention) over the link's per-direction figure is the bus
    // efficiency the estimate uses; the slowest of the collectives measured bounds all of them.
    const std::optional<double> bus = collectiveBusGBps(results);
    const double linkGBps = link == Interconnect::NvLink ? gpu.nvlinkGBps : gpu.pcieGBps;
    if (bus && linkGBps > 0) {
        if (link == Interconnect::NvLink) {
            c.nvlinkBusEfficiency = clamp01(*bus / linkGBps);
            out.applied.push_back("nvlink_bus_efficiency");
        } else {
            c.pcieBusEfficiency = clamp01(*bus / linkGBps);
            out.applied.push_back("pcie_bus_efficiency");
        }
    }
    for (const char* held : { "layer_launch_s", "layer_kernel_s" })
        if (std::find(out.applied.begin(), out.applied.end(), held) != out.applied.end())
            out.heldFixed.push_back(held);
    return out;
}

} // namespace shardwise::calibrate
