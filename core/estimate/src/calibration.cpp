#include "shardwise/estimate/calibration.hpp"

#include "shardwise/spec/json.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <sstream>

namespace shardwise {

namespace {

struct Field {
    const char* name;
    double Calibration::*member;
    double lo;
    double hi;
};

// One row per coefficient: the JSON name and the range a measurement could plausibly produce.
constexpr std::array kFields {
    Field { "headroom_fraction", &Calibration::headroomFraction, 0.0, 0.5 },
    Field { "host_usable_fraction", &Calibration::hostUsableFraction, 0.05, 1.0 },
    Field { "fragmentation_fraction", &Calibration::fragmentationFraction, 0.0, 1.0 },
    Field { "fragmentation_fraction_expandable", &Calibration::fragmentationFractionExpandable, 0.0, 1.0 },
    Field { "cuda_context_gib", &Calibration::cudaContextGiB, 0.0, 16.0 },
    Field { "nccl_buffers_gib", &Calibration::ncclBuffersGiB, 0.0, 16.0 },
    Field { "logits_bytes_per_element", &Calibration::logitsBytesPerElement, 0.0, 64.0 },
    Field { "aten_logits_bytes_per_element", &Calibration::atenLogitsBytesPerElement, 0.0, 64.0 },
    Field { "activation_bytes_scale", &Calibration::activationBytesScale, 0.1, 10.0 },
    Field { "device_workspace_gib", &Calibration::deviceWorkspaceGiB, 0.0, 16.0 },
    Field { "matmul_efficiency", &Calibration::matmulEfficiency, 0.01, 1.0 },
    Field { "attention_efficiency", &Calibration::attentionEfficiency, 0.01, 1.0 },
    Field { "flash_attention2_hopper_efficiency", &Calibration::flashAttention2HopperEfficiency, 0.01, 1.0 },
    Field { "elementwise_hbm_efficiency", &Calibration::elementwiseHbmEfficiency, 0.001, 1.0 },
    Field { "layer_kernel_s", &Calibration::layerKernelS, 0.0, 0.1 },
    Field { "layer_launch_s", &Calibration::layerLaunchS, 0.0, 0.1 },
    Field { "launch_overlap", &Calibration::launchOverlap, 0.0, 1.0 },
    Field { "launch_combine_exponent", &Calibration::launchCombineExponent, 0.0, 64.0 },
    Field { "optimizer_hbm_efficiency", &Calibration::optimizerHbmEfficiency, 0.01, 1.0 },
    Field { "master_optimizer_hbm_efficiency", &Calibration::masterOptimizerHbmEfficiency, 0.01, 1.0 },
    Field { "fused_adamw_hbm_efficiency", &Calibration::fusedAdamwHbmEfficiency, 0.01, 1.0 },
    Field { "aten_composition_hbm_efficiency", &Calibration::atenCompositionHbmEfficiency, 0.01, 1.0 },
    Field { "nvlink_bus_efficiency", &Calibration::nvlinkBusEfficiency, 0.01, 1.0 },
    Field { "pcie_bus_efficiency", &Calibration::pcieBusEfficiency, 0.01, 1.0 },
    Field { "inter_node_bus_efficiency", &Calibration::interNodeBusEfficiency, 0.01, 1.0 },
    Field { "all_reduce_overlap", &Calibration::allReduceOverlap, 0.0, 1.0 },
    Field { "bucket_all_reduce_overlap", &Calibration::bucketAllReduceOverlap, 0.0, 1.0 },
    Field { "zero3_gather_overlap", &Calibration::zero3GatherOverlap, 0.0, 1.0 },
    Field { "fsdp2_gather_overlap", &Calibration::fsdp2GatherOverlap, 0.0, 1.0 },
    Field { "unit_collective_overhead_s", &Calibration::unitCollectiveOverheadS, 0.0, 1.0 },
    Field { "unit_collective_kernel_s", &Calibration::unitCollectiveKernelS, 0.0, 0.1 },
    Field { "zero0_step_s_per_param", &Calibration::zero0StepSPerParam, 0.0, 1e-8 },
    Field { "zero1_step_s_per_param", &Calibration::zero1StepSPerParam, 0.0, 1e-8 },
    Field { "zero2_step_s_per_param", &Calibration::zero2StepSPerParam, 0.0, 1e-8 },
    Field { "zero3_step_s_per_param", &Calibration::zero3StepSPerParam, 0.0, 1e-8 },
    Field { "zero2_offload_step_s_per_param", &Calibration::zero2OffloadStepSPerParam, 0.0, 1e-8 },
    Field { "zero3_offload_step_s_per_param", &Calibration::zero3OffloadStepSPerParam, 0.0, 1e-8 },
    Field { "fsdp2_noreshard_step_s_per_param", &Calibration::fsdp2NoReshardStepSPerParam, 0.0, 1e-8 },
    Field { "fsdp2_reshard_step_s_per_param", &Calibration::fsdp2ReshardStepSPerParam, 0.0, 1e-8 },
    Field { "fsdp2_reshard_offload_step_s_per_param", &Calibration::fsdp2ReshardOffloadStepSPerParam, 0.0, 1e-8 },
    Field { "pcie_copy_efficiency", &Calibration::pcieCopyEfficiency, 0.01, 1.0 },
    Field { "offload_copy_overlap", &Calibration::offloadCopyOverlap, 0.0, 1.0 },
    Field { "cpu_adam_params_per_s", &Calibration::cpuAdamParamsPerS, 1e6, 1e12 },
    Field { "host_step_overlap", &Calibration::hostStepOverlap, 0.0, 1.0 },
    Field { "device_step_overlap", &Calibration::deviceStepOverlap, 0.0, 1.0 },
    Field { "eager_activation_bytes_scale", &Calibration::eagerActivationBytesScale, 0.1, 10.0 },
    Field { "eager_logits_bytes_per_element", &Calibration::eagerLogitsBytesPerElement, 0.0, 64.0 },
    Field { "eager_fragmentation_fraction", &Calibration::eagerFragmentationFraction, 0.0, 2.0 },
    Field { "eager_fragmentation_gib", &Calibration::eagerFragmentationGiB, 0.0, 64.0 },
    Field { "eager_headroom_fraction", &Calibration::eagerHeadroomFraction, 0.0, 0.5 },
    Field { "eager_adamw_step_temporary_fraction", &Calibration::eagerAdamwStepTemporaryFraction, 0.0, 2.0 },
    Field { "eager_elementwise_hbm_efficiency", &Calibration::eagerElementwiseHbmEfficiency, 0.001, 1.0 },
    Field { "eager_layer_kernel_s", &Calibration::eagerLayerKernelS, 0.0, 0.1 },
    Field { "eager_layer_launch_s", &Calibration::eagerLayerLaunchS, 0.0, 0.1 },
    Field { "compiled_elementwise_hbm_efficiency", &Calibration::compiledElementwiseHbmEfficiency, 0.001, 1.0 },
    Field { "compiled_launch_fraction", &Calibration::compiledLaunchFraction, 0.0, 1.0 },
    Field { "ddp_step_s_per_param", &Calibration::ddpStepSPerParam, 0.0, 1e-8 },
    Field { "fsdp2_noreshard_framework_step_s_per_param", &Calibration::fsdp2NoReshardFrameworkStepSPerParam, 0.0,
            1e-8 },
    Field { "fsdp2_reshard_framework_step_s_per_param", &Calibration::fsdp2ReshardFrameworkStepSPerParam, 0.0, 1e-8 },
    Field { "deepspeed_step_s_per_param", &Calibration::deepspeedStepSPerParam, 0.0, 1e-8 },
    Field { "fsdp2_unit_collective_s", &Calibration::fsdp2UnitCollectiveS, 0.0, 1.0 },
    Field { "deepspeed_module_fetch_s", &Calibration::deepspeedModuleFetchS, 0.0, 1.0 },
    Field { "deepspeed_gather_overlap", &Calibration::deepspeedGatherOverlap, 0.0, 1.0 },
    Field { "torch_cpu_adam_params_per_s", &Calibration::torchCpuAdamParamsPerS, 1e6, 1e12 },
    Field { "torch_cpu_adam_master_factor", &Calibration::torchCpuAdamMasterFactor, 0.25, 8.0 },
    Field { "deepspeed_cpu_adam_params_per_s", &Calibration::deepspeedCpuAdamParamsPerS, 1e6, 1e12 },
    Field { "deepspeed_host_buffer_factor", &Calibration::deepspeedHostBufferFactor, 1.0, 4.0 },
};

std::string fieldPath(const std::string& path, const std::string& name)
{
    return path.empty() ? name : path + "." + name;
}

} // namespace

double Calibration::*stepSPerParamMember(Strategy s)
{
    switch (s) {
    case Strategy::Zero0:
        return &Calibration::zero0StepSPerParam;
    case Strategy::Zero1:
        return &Calibration::zero1StepSPerParam;
    case Strategy::Zero2:
        return &Calibration::zero2StepSPerParam;
    case Strategy::Zero3:
        return &Calibration::zero3StepSPerParam;
    case Strategy::Zero2Offload:
        return &Calibration::zero2OffloadStepSPerParam;
    case Strategy::Zero3Offload:
        return &Calibration::zero3OffloadStepSPerParam;
    case Strategy::Fsdp2NoReshard:
        return &Calibration::fsdp2NoReshardStepSPerParam;
    case Strategy::Fsdp2Reshard:
        return &Calibration::fsdp2ReshardStepSPerParam;
    case Strategy::Fsdp2ReshardOffload:
        return &Calibration::fsdp2ReshardOffloadStepSPerParam;
    }
    return &Calibration::zero0StepSPerParam;
}

nlohmann::json toJson(const Calibration& c)
{
    nlohmann::json j = nlohmann::json::object();
    for (const Field& f : kFields)
        j[f.name] = c.*f.member;
    return j;
}

Calibration calibrationFromJson(const nlohmann::json& j, const std::string& path)
{
    if (!j.is_object())
        throw SpecError(path.empty() ? "(document)" : path, "expected a JSON object");
    Calibration c;
    for (const auto& [key, value] : j.items()) {
        const Field* field = nullptr;
        for (const Field& f : kFields)
            if (key == f.name)
                field = &f;
        if (!field) {
            std::string allowed;
            for (const Field& f : kFields)
                allowed += (allowed.empty() ? "" : ", ") + std::string(f.name);
            throw SpecError(fieldPath(path, key), "unknown field; allowed fields: " + allowed);
        }
        if (!value.is_number())
            throw SpecError(fieldPath(path, key), "expected a number, got " + value.dump());
        const double x = value.get<double>();
        if (!(x >= field->lo && x <= field->hi)) {
            std::ostringstream os;
            os << "must be in [" << field->lo << ", " << field->hi << "], got " << x;
            throw SpecError(fieldPath(path, key), os.str());
        }
        c.*(field->member) = x;
    }
    return c;
}

} // namespace shardwise
