#include "shardwise/calibrate/fit.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string_view>

#include <nlohmann/json.hpp>

namespace shardwise::calibrate {

namespace {

enum class Target { Throughput, Memory };

// One coefficient the fit may move: its JSON name, where it lives, the range searched (within
// calibrationFromJson's accepted range), whether to search it on a log scale, and which runs say
// anything about it.
struct Coefficient {
    const char* name;
    double Calibration::*member;
    double lo;
    double hi;
    bool logScale;
    Target target;
    bool (*informs)(const Observation&);
    // A framework target's term (Calibration's "Framework targets"): only runs of a framework inform it,
    // and only runs of the native runner inform the others.
    bool frameworkTerm = false;
};

bool eager(const Observation& o)
{
    return o.input.framework.framework != Framework::Native;
}

bool always(const Observation&)
{
    return true;
}
bool hasUnitCollectives(const Observation& o)
{
    const StrategyTraits& t = traits(o.strategy);
    return t.family == StrategyFamily::Fsdp2 || t.shardsParameters;
}
bool offloads(const Observation& o)
{
    return traits(o.strategy).offloadsOptimizer || traits(o.strategy).offloadsParameters;
}
bool onDevice(const Observation& o)
{
    return !offloads(o);
}
template <Strategy S> bool runs(const Observation& o)
{
    return o.strategy == S;
}
// The head's chunk is held as the fused cross-entropy holds it, or as ATen's ops do (the start event's
// versions.kernels).
bool fusedCrossEntropy(const Observation& o)
{
    return o.input.fusedKernels.crossEntropy;
}
bool atenCrossEntropy(const Observation& o)
{
    return !o.input.fusedKernels.crossEntropy;
}
bool keepsMaster(const Observation& o)
{
    return onDevice(o) && o.input.training.precision == PrecisionPolicy::Bf16Fp32Master;
}
bool compiled(const Observation& o)
{
    return o.input.framework.compiled;
}
bool eagerLayers(const Observation& o)
{
    return !offloads(o) && !compiled(o);
}
bool torchOffload(const Observation& o)
{
    return offloads(o) && o.input.framework.framework != Framework::DeepSpeed;
}
bool torchOffloadMaster(const Observation& o)
{
    return torchOffload(o) && o.input.training.precision == PrecisionPolicy::Bf16Fp32Master;
}
// The native runner's offload strategies with the host AdamW stepping each unit as its gradient arrives.
bool overlapsHostStep(const Observation& o)
{
    return traits(o.strategy).offloadsOptimizer && o.input.framework.framework == Framework::Native
        && !o.input.hostStepAfterBackward;
}
// The native runner's per-unit device AdamW beside the backward.
bool overlapsDeviceStep(const Observation& o)
{
    return stepsDeviceOptimizerBesideBackward(o.input, o.strategy);
}
bool fsdp2Units(const Observation& o)
{
    return traits(o.strategy).family == StrategyFamily::Fsdp2;
}
bool ddp(const Observation& o)
{
    return o.strategy == Strategy::Zero0 && o.input.framework.framework != Framework::DeepSpeed;
}
bool fsdp2Reshards(const Observation& o)
{
    return o.strategy == Strategy::Fsdp2Reshard || o.strategy == Strategy::Fsdp2ReshardOffload;
}
bool deepSpeedSchedule(const Observation& o)
{
    return o.input.framework.framework == Framework::DeepSpeed
        || (o.strategy != Strategy::Zero0 && traits(o.strategy).family == StrategyFamily::DeepSpeedZero);
}
bool deepSpeedFetches(const Observation& o)
{
    return deepSpeedSchedule(o) && traits(o.strategy).shardsParameters;
}

// Order matters: the dominant term first, so later coefficients fit what it leaves.
constexpr std::array kCoefficients {
    Coefficient { "matmul_efficiency", &Calibration::matmulEfficiency, 0.02, 1.0, true, Target::Throughput, onDevice },
    Coefficient { "attention_efficiency", &Calibration::attentionEfficiency, 0.02, 1.0, true, Target::Throughput,
                  onDevice },
    Coefficient { "elementwise_hbm_efficiency", &Calibration::elementwiseHbmEfficiency, 0.005, 1.0, true,
                  Target::Throughput, onDevice },
    Coefficient { "layer_kernel_s", &Calibration::layerKernelS, 0.0, 0.01, false, Target::Throughput, onDevice },
    Coefficient { "layer_launch_s", &Calibration::layerLaunchS, 0.0, 0.01, false, Target::Throughput, onDevice },
    Coefficient { "launch_combine_exponent", &Calibration::launchCombineExponent, 1.5, 64.0, true, Target::Throughput,
                  onDevice },
    Coefficient { "cpu_adam_params_per_s", &Calibration::cpuAdamParamsPerS, 1e7, 1e11, true, Target::Throughput,
                  offloads },
    Coefficient { "pcie_copy_efficiency", &Calibration::pcieCopyEfficiency, 0.05, 1.0, true, Target::Throughput,
                  offloads },
    Coefficient { "host_step_overlap", &Calibration::hostStepOverlap, 0.0, 1.0, false, Target::Throughput,
                  overlapsHostStep },
    Coefficient { "device_step_overlap", &Calibration::deviceStepOverlap, 0.0, 1.0, false, Target::Throughput,
                  overlapsDeviceStep },
    Coefficient { "zero0_step_s_per_param", &Calibration::zero0StepSPerParam, 0.0, 1e-9, false, Target::Throughput,
                  runs<Strategy::Zero0> },
    Coefficient { "zero1_step_s_per_param", &Calibration::zero1StepSPerParam, 0.0, 1e-9, false, Target::Throughput,
                  runs<Strategy::Zero1> },
    Coefficient { "zero2_step_s_per_param", &Calibration::zero2StepSPerParam, 0.0, 1e-9, false, Target::Throughput,
                  runs<Strategy::Zero2> },
    Coefficient { "zero3_step_s_per_param", &Calibration::zero3StepSPerParam, 0.0, 1e-9, false, Target::Throughput,
                  runs<Strategy::Zero3> },
    Coefficient { "zero2_offload_step_s_per_param", &Calibration::zero2OffloadStepSPerParam, 0.0, 1e-8, false,
                  Target::Throughput, runs<Strategy::Zero2Offload> },
    Coefficient { "zero3_offload_step_s_per_param", &Calibration::zero3OffloadStepSPerParam, 0.0, 1e-8, false,
                  Target::Throughput, runs<Strategy::Zero3Offload> },
    Coefficient { "fsdp2_noreshard_step_s_per_param", &Calibration::fsdp2NoReshardStepSPerParam, 0.0, 1e-9, false,
                  Target::Throughput, runs<Strategy::Fsdp2NoReshard> },
    Coefficient { "fsdp2_reshard_step_s_per_param", &Calibration::fsdp2ReshardStepSPerParam, 0.0, 1e-9, false,
                  Target::Throughput, runs<Strategy::Fsdp2Reshard> },
    Coefficient { "fsdp2_reshard_offload_step_s_per_param", &Calibration::fsdp2ReshardOffloadStepSPerParam, 0.0, 1e-8,
                  false, Target::Throughput, runs<Strategy::Fsdp2ReshardOffload> },
    // After the per-strategy step costs: a sharded strategy's extra time in GPU-bound runs grows with
    // the parameters (bench/results/fidelity-fp32-master-6cb90e3.md: 6.1 and 4.7 ms per billion on 0.5B
    // and 1.5B), and charged first to host time per collective it would be paid in full by a held-out
    // host-bound model.
    Coefficient { "unit_collective_overhead_s", &Calibration::unitCollectiveOverheadS, 0.0, 0.02, false,
                  Target::Throughput, hasUnitCollectives },
    Coefficient { "master_optimizer_hbm_efficiency", &Calibration::masterOptimizerHbmEfficiency, 0.02, 1.0, true,
                  Target::Throughput, keepsMaster },
    Coefficient { "activation_bytes_scale", &Calibration::activationBytesScale, 0.3, 5.0, true, Target::Memory,
                  always },
    Coefficient { "logits_bytes_per_element", &Calibration::logitsBytesPerElement, 2.0, 40.0, true, Target::Memory,
                  fusedCrossEntropy },
    Coefficient { "aten_logits_bytes_per_element", &Calibration::atenLogitsBytesPerElement, 2.0, 40.0, true,
                  Target::Memory, atenCrossEntropy },
    Coefficient { "device_workspace_gib", &Calibration::deviceWorkspaceGiB, 0.0, 4.0, false, Target::Memory, always },
    Coefficient { "eager_elementwise_hbm_efficiency", &Calibration::eagerElementwiseHbmEfficiency, 0.002, 1.0, true,
                  Target::Throughput, eagerLayers, true },
    Coefficient { "eager_layer_kernel_s", &Calibration::eagerLayerKernelS, 0.0, 0.01, false, Target::Throughput,
                  eagerLayers, true },
    Coefficient { "eager_layer_launch_s", &Calibration::eagerLayerLaunchS, 0.0, 0.02, false, Target::Throughput,
                  eagerLayers, true },
    Coefficient { "compiled_elementwise_hbm_efficiency", &Calibration::compiledElementwiseHbmEfficiency, 0.002, 1.0,
                  true, Target::Throughput, compiled, true },
    Coefficient { "compiled_launch_fraction", &Calibration::compiledLaunchFraction, 0.0, 1.0, false, Target::Throughput,
                  compiled, true },
    Coefficient { "ddp_step_s_per_param", &Calibration::ddpStepSPerParam, 0.0, 1e-9, false, Target::Throughput, ddp,
                  true },
    Coefficient { "fsdp2_noreshard_framework_step_s_per_param", &Calibration::fsdp2NoReshardFrameworkStepSPerParam, 0.0,
                  1e-9, false, Target::Throughput, runs<Strategy::Fsdp2NoReshard>, true },
    Coefficient { "fsdp2_reshard_framework_step_s_per_param", &Calibration::fsdp2ReshardFrameworkStepSPerParam, 0.0,
                  1e-9, false, Target::Throughput, fsdp2Reshards, true },
    Coefficient { "fsdp2_unit_collective_s", &Calibration::fsdp2UnitCollectiveS, 0.0, 0.02, false, Target::Throughput,
                  fsdp2Units, true },
    Coefficient { "torch_cpu_adam_params_per_s", &Calibration::torchCpuAdamParamsPerS, 1e7, 1e11, true,
                  Target::Throughput, torchOffload, true },
    Coefficient { "torch_cpu_adam_master_factor", &Calibration::torchCpuAdamMasterFactor, 0.5, 4.0, true,
                  Target::Throughput, torchOffloadMaster, true },
    Coefficient { "deepspeed_step_s_per_param", &Calibration::deepspeedStepSPerParam, 0.0, 1e-9, false,
                  Target::Throughput, deepSpeedSchedule, true },
    Coefficient { "deepspeed_module_fetch_s", &Calibration::deepspeedModuleFetchS, 0.0, 0.01, false, Target::Throughput,
                  deepSpeedFetches, true },
    Coefficient { "eager_activation_bytes_scale", &Calibration::eagerActivationBytesScale, 0.3, 5.0, true,
                  Target::Memory, always, true },
    Coefficient { "eager_logits_bytes_per_element", &Calibration::eagerLogitsBytesPerElement, 2.0, 40.0, true,
                  Target::Memory, always, true },
};

struct Sample {
    const Observation* obs;
    double measured;
};

double predicted(const Sample& s, const Calibration& c, Target t)
{
    const Estimate e = estimate(s.obs->input, s.obs->strategy, c);
    return t == Target::Throughput ? e.throughput.tokensPerS : e.memory.allocatedPeak();
}

double objective(const std::vector<Sample>& samples, const Calibration& c, Target t)
{
    double sum = 0;
    for (const Sample& s : samples) {
        const double p = predicted(s, c, t);
        const double r = p > 0 ? std::log(p / s.measured) : 10.0;
        sum += r * r;
    }
    return sum;
}

// Coarse grid, then golden section around the best grid point: the objective along one
// coefficient is smooth but not guaranteed unimodal over the whole range (launch-bound and
// compute-bound regimes), so the grid picks the basin first.
double minimize1D(const std::function<double(double)>& f, double lo, double hi, bool logScale)
{
    const auto to = [&](double u) { return logScale ? std::exp(u) : u; };
    double a = logScale ? std::log(lo) : lo;
    double b = logScale ? std::log(hi) : hi;
    constexpr int kGrid = 24;
    int best = 0;
    double bestValue = f(to(a));
    for (int i = 1; i <= kGrid; ++i) {
        const double v = f(to(a + (b - a) * i / kGrid));
        if (v < bestValue) {
            bestValue = v;
            best = i;
        }
    }
    const double step = (b - a) / kGrid;
    double left = a + step * std::max(best - 1, 0);
    double right = a + step * std::min(best + 1, kGrid);
    const double phi = (std::sqrt(5.0) - 1.0) / 2.0;
    double x1 = right - phi * (right - left);
    double x2 = left + phi * (right - left);
    double f1 = f(to(x1));
    double f2 = f(to(x2));
    for (int i = 0; i < 40; ++i) {
        if (f1 < f2) {
            right = x2;
            x2 = x1;
            f2 = f1;
            x1 = right - phi * (right - left);
            f1 = f(to(x1));
        } else {
            left = x1;
            x1 = x2;
            f1 = f2;
            x2 = left + phi * (right - left);
            f2 = f(to(x2));
        }
    }
    const double mid = to(0.5 * (left + right));
    return f(mid) <= bestValue ? mid : to(a + step * best);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

CalibrationFit fitCalibration(const std::vector<Observation>& observations, const Calibration& start,
                              const FitOptions& options)
{
    const nlohmann::json names = toJson(Calibration {});
    for (const std::string& name : options.fixed)
        if (!names.contains(name))
            throw std::invalid_argument("fixed coefficient '" + name + "' is not a calibration field");
    const auto isFixed = [&](std::string_view name) {
        return std::find(options.fixed.begin(), options.fixed.end(), name) != options.fixed.end();
    };

    CalibrationFit fit;
    fit.calibration = start;
    Calibration& c = fit.calibration;

    std::vector<Sample> throughput;
    std::vector<Sample> memory;
    for (const Observation& o : observations) {
        if (o.oom)
            continue;
        // A rehearsal's steps ran without communication: its memory is a rank's at world N, its
        // step time is no throughput of any world.
        if (o.tokensPerS && *o.tokensPerS > 0 && o.rehearsedWorld == 0)
            throughput.push_back({ &o, *o.tokensPerS });
        if (o.peakAllocatedBytes && *o.peakAllocatedBytes > 0)
            memory.push_back({ &o, *o.peakAllocatedBytes });
    }
    fit.throughputSamples = static_cast<int>(throughput.size());
    fit.memorySamples = static_cast<int>(memory.size());

    constexpr int kSweeps = 12;
    for (int sweep = 0; sweep < kSweeps; ++sweep) {
        for (const Coefficient& k : kCoefficients) {
            const std::vector<Sample>& all = k.target == Target::Throughput ? throughput : memory;
            if (isFixed(k.name))
                continue;
            if (std::none_of(all.begin(), all.end(),
                             [&](const Sample& s) { return k.informs(*s.obs) && k.frameworkTerm == eager(*s.obs); }))
                continue;
            // Over every sample of its target, not only those it informs: moving it must not spoil
            // the others.
            const auto f = [&](double x) {
                Calibration trial = c;
                trial.*k.member = x;
                return objective(all, trial, k.target);
            };
            // A coefficient moves only when that improves the fit: along a flat direction (a launch
            // cost while every run is GPU-bound) the runs say nothing, and the start value stands.
            const double candidate = minimize1D(f, k.lo, k.hi, k.logScale);
            if (f(candidate) < f(c.*k.member) * (1.0 - 1e-6))
                c.*k.member = candidate;
            if (sweep == 0)
                fit.fitted.push_back(k.name);
        }
    }

    // Fragmentation and the CUDA context are measured directly, not fitted. The verdict must not
    // call a run that ran out of memory "fits", so fragmentation takes the largest share seen.
    std::vector<double> fragmentation;
    std::vector<double> fragmentationExpandable;
    std::vector<double> context;
    for (const Sample& s : memory) {
        const Observation& o = *s.obs;
        if (o.peakReservedBytes && *o.peakReservedBytes >= s.measured)
            (o.input.training.expandableSegments ? fragmentationExpandable : fragmentation)
                .push_back((*o.peakReservedBytes - s.measured) / s.measured);
        if (o.runtimeContextBytes && *o.runtimeContextBytes > 0)
            context.push_back(*o.runtimeContextBytes / kGiB);
    }
    if (isFixed("fragmentation_fraction"))
        fragmentation.clear();
    if (isFixed("fragmentation_fraction_expandable"))
        fragmentationExpandable.clear();
    if (isFixed("cuda_context_gib"))
        context.clear();
    if (!fragmentation.empty()) {
        c.fragmentationFraction = std::clamp(*std::max_element(fragmentation.begin(), fragmentation.end()), 0.0, 1.0);
        fit.fitted.push_back("fragmentation_fraction");
    }
    if (!fragmentationExpandable.empty()) {
        c.fragmentationFractionExpandable
            = std::clamp(*std::max_element(fragmentationExpandable.begin(), fragmentationExpandable.end()), 0.0, 1.0);
        fit.fitted.push_back("fragmentation_fraction_expandable");
    }
    if (!context.empty()) {
        c.cudaContextGiB = std::clamp(median(context), 0.0, 16.0);
        fit.fitted.push_back("cuda_context_gib");
    }

    std::vector<Comparison> residuals;
    for (const Observation& o : observations)
        residuals.push_back(compare(o, c));
    fit.tokens = summarizeTokens(residuals);
    fit.peak = summarizePeak(residuals);
    return fit;
}

double confidence(int samples, double worstAbsResidual)
{
    if (samples <= 0)
        return 0.0;
    const double n = static_cast<double>(samples);
    return n / (n + 4.0) * std::max(0.0, 1.0 - worstAbsResidual / 0.25);
}

std::string confidenceLabel(double c)
{
    return c >= 0.7 ? "high" : c >= 0.4 ? "medium" : "low";
}

} // namespace shardwise::calibrate
