// Accelerate config YAML (`accelerate launch --config_file`). Top-level keys: ClusterConfig in
// src/accelerate/commands/config/config_args.py, which refuses unknown keys, so the plan is named in
// comments; fsdp_config keys: docs/source/usage_guides/fsdp.md and concept_guides/fsdp1_vs_fsdp2.md;
// deepspeed_config keys: docs/source/usage_guides/deepspeed.md (Accelerate 1.x).
#include "common.hpp"

#include "shardwise/spec/quote.hpp"

namespace shardwise::frameworks::detail {

namespace {

void line(std::string& out, int indent, const std::string& key, const std::string& value)
{
    out += std::string(static_cast<std::size_t>(indent), ' ') + key + ": " + value + "\n";
}

} // namespace

std::string exportAccelerate(const EstimateInput& in, Strategy s, const PlanIdentity& id)
{
    const TrainingSpec& t = in.training;
    const StrategyTraits& st = traits(s);
    const bool fsdp = st.family == StrategyFamily::Fsdp2;
    const bool deepspeed = st.family == StrategyFamily::DeepSpeedZero && s != Strategy::Zero0;
    std::string out = header("# ", id, "Accelerate config, `accelerate launch --config_file accelerate.yaml train.py`");
    // Accelerate hands DeepSpeed bf16.enabled from mixed_precision and nothing else of the bf16 section,
    // so its ZeRO stages keep DeepSpeed's fp32 master whatever precision the plan asks for.
    const bool dsMaster = deepspeed && t.precision == PrecisionPolicy::PureBf16;
    const PrecisionPolicy recorded = dsMaster ? PrecisionPolicy::Bf16Fp32Master : t.precision;
    if (dsMaster && exportedDeepSpeedMaster(in, s) == DeepSpeedMaster::Bf16)
        out += "# Precision: pure bf16 needs bf16.bf16_master_weights_and_grads and bf16_optimizer_states (DeepSpeed "
            + std::string(kDeepSpeedBf16MasterRelease)
            + " and\n# later), which no deepspeed_config key here sets: export ds-config and name it in "
              "deepspeed_config_file;\n# this file alone trains with an fp32 master.\n";
    else if (dsMaster)
        out += "# Precision: pure bf16 was asked for, but DeepSpeed " + commentText(deepSpeedRelease(in.framework))
            + "'s ZeRO stages keep fp32 master weights, fp32 Adam\n# moments and an fp32 gradient partition whatever "
              "bf16 says: mixed_precision bf16 below enables DeepSpeed's bf16\n# and the plan counts that fp32 "
              "master.\n";
    else if (t.precision == PrecisionPolicy::PureBf16 && fsdp)
        // fsdp2_prepare_model upcasts every trainable parameter to fp32 unless mixed_precision is 'no'
        // (src/accelerate/utils/fsdp_utils.py lines 804-810 at main 16cb6eb; FSDP2 support since 1.6, PR #3394).
        out += "# Precision bf16: load the model with torch_dtype=torch.bfloat16. mixed_precision is 'no' below: with\n"
               "# bf16 or fp16 there Accelerate's FSDP2 preparation upcasts every trainable parameter to fp32\n"
               "# (fsdp2_prepare_model, src/accelerate/utils/fsdp_utils.py), an fp32 master the plan does not count.\n"
               "# With 'no' fully_shard keeps the bf16 parameters and reduces gradients in bf16, as planned.\n";
    else if (t.precision == PrecisionPolicy::PureBf16)
        out += "# Precision bf16: load the model with torch_dtype=torch.bfloat16. mixed_precision is 'no' below: no\n"
               "# autocast, the bf16 parameters, gradients and AdamW state are all there is.\n";
    else if (fsdp)
        // FullyShardedDataParallelPlugin.set_mixed_precision (src/accelerate/utils/dataclasses.py lines 2119-2124
        // at main 16cb6eb) sets param_dtype = reduce_dtype = bf16 from mixed_precision; no config key changes it.
        out += "# Precision bf16-fp32-master: fp32 parameters (Accelerate upcasts them), bf16 compute. Gradient\n"
               "# reduction: mixed_precision bf16 gives the FSDP2 plugin MixedPrecisionPolicy(param_dtype=bf16,\n"
               "# reduce_dtype=bf16) (FullyShardedDataParallelPlugin.set_mixed_precision), and no config key changes "
               "it.\n"
               "# The plan counts float32 reduction (fully_shard's reduce_dtype=float32, as train_fsdp2.py and "
               "torchtitan\n"
               "# run it); to reduce as planned the script passes\n"
               "#   "
               "Accelerator(fsdp_plugin=FullyShardedDataParallelPlugin(mixed_precision_policy=MixedPrecisionPolicy(\n"
               "#       param_dtype=torch.bfloat16, reduce_dtype=torch.float32)))\n"
               "# (the plugin's other settings still come from this file). Left at bf16, the reduce-scatters move "
               "half\n"
               "# the bytes the plan counts and each layer's fp32 gradient copy is not allocated.\n";
    else
        out += "# Precision bf16-fp32-master: load the model in float32 (the default); mixed_precision bf16 computes\n"
               "# in bf16 and keeps fp32 master weights and AdamW state.\n";
    if (t.activationCheckpointing && t.checkpointPolicy == CheckpointPolicy::Selective)
        out += "# Selective checkpointing has no Accelerate key: fsdp_activation_checkpointing recomputes whole "
               "layers.\n";
    // Batch settings. ClusterConfig and the FSDP plugin have no key for the micro-batch or (outside
    // deepspeed_config) the accumulation: the micro-batch is the script's DataLoader batch size or
    // TrainingArguments' per_device_train_batch_size (DeepSpeed's train_micro_batch_size_per_gpu is filled
    // from it); Accelerator(gradient_accumulation_steps=...) defaults to the environment variable
    // ACCELERATE_GRADIENT_ACCUMULATION_STEPS (Accelerator's docstring, src/accelerate/accelerator.py),
    // which the launch export sets.
    const std::string micro = std::to_string(t.microBatch);
    const std::string accumulation = std::to_string(t.gradAccumulation);
    out += "# Micro-batch " + micro + " per GPU: no Accelerate config key; set per_device_train_batch_size=" + micro
        + " (TrainingArguments)\n# or the DataLoader's batch_size=" + micro + " in the script"
        + (deepspeed ? " (Accelerate passes it to DeepSpeed as train_micro_batch_size_per_gpu).\n" : ".\n");
    if (deepspeed)
        out += "# Accumulation " + accumulation + ": deepspeed_config.gradient_accumulation_steps below.\n";
    else
        out += "# Accumulation " + accumulation
            + ": no config key outside deepspeed_config; launch with\n"
              "# ACCELERATE_GRADIENT_ACCUMULATION_STEPS="
            + accumulation
            + " (Accelerator's default; the launch export sets it)\n# or set gradient_accumulation_steps="
            + accumulation + " in TrainingArguments.\n";
    // What the keys cannot say, for `plan --from` (Accelerate refuses unknown keys, so a comment).
    out += std::string(kRecordPrefix) + " micro_batch=" + micro + " grad_accumulation=" + accumulation
        + " seq_len=" + std::to_string(t.seqLen) + " precision=" + std::string(precisionId(recorded))
        + " activation_checkpointing=" + std::string(checkpointingId(t)) + "\n";
    if (in.cluster.nodes > 1)
        out += "# Several nodes: main_process_ip is the first node's address; machine_rank is each node's index.\n";
    line(out, 0, "compute_environment", "LOCAL_MACHINE");
    line(out, 0, "debug", "false");
    if (deepspeed) {
        out += "deepspeed_config:\n";
        line(out, 2, "gradient_accumulation_steps", std::to_string(t.gradAccumulation));
        line(out, 2, "gradient_clipping", "1.0");
        line(out, 2, "offload_optimizer_device", st.offloadsOptimizer ? "cpu" : "none");
        line(out, 2, "offload_param_device", st.offloadsParameters ? "cpu" : "none");
        if (zeroStage(s) == 3) {
            line(out, 2, "zero3_init_flag", "true");
            line(out, 2, "zero3_save_16bit_model", "true");
        }
        line(out, 2, "zero_stage", std::to_string(zeroStage(s)));
    }
    line(out, 0, "distributed_type", fsdp ? "FSDP" : deepspeed ? "DEEPSPEED" : "MULTI_GPU");
    line(out, 0, "downcast_bf16", "'no'");
    if (in.framework.compiled) {
        out += "dynamo_config:\n";
        line(out, 2, "dynamo_backend", "INDUCTOR");
    }
    line(out, 0, "enable_cpu_affinity", "false");
    if (fsdp) {
        out += "fsdp_config:\n";
        line(out, 2, "fsdp_activation_checkpointing", boolText(t.activationCheckpointing));
        line(out, 2, "fsdp_auto_wrap_policy", "TRANSFORMER_BASED_WRAP");
        line(out, 2, "fsdp_cpu_ram_efficient_loading", "true");
        line(out, 2, "fsdp_offload_params", boolText(st.offloadsParameters));
        line(out, 2, "fsdp_reshard_after_forward", boolText(st.reshardAfterForward));
        line(out, 2, "fsdp_state_dict_type", "SHARDED_STATE_DICT");
        line(out, 2, "fsdp_transformer_layer_cls_to_wrap", decoderLayerClass(in.model));
        line(out, 2, "fsdp_version", "2");
    }
    line(out, 0, "machine_rank", "0");
    if (in.cluster.nodes > 1)
        line(out, 0, "main_process_ip", "HEAD_NODE_ADDRESS");
    line(out, 0, "main_process_port", "29500");
    line(out, 0, "main_training_function", "main");
    // Pure bf16 outside DeepSpeed: 'no', so Accelerate neither upcasts the bf16 parameters nor autocasts.
    line(out, 0, "mixed_precision",
         !deepspeed && t.precision == PrecisionPolicy::PureBf16 ? std::string("'no'") : std::string("bf16"));
    line(out, 0, "num_machines", std::to_string(in.cluster.nodes));
    line(out, 0, "num_processes", std::to_string(in.cluster.worldSize()));
    line(out, 0, "rdzv_backend", "static");
    line(out, 0, "same_network", "true");
    line(out, 0, "use_cpu", "false");
    return out;
}

} // namespace shardwise::frameworks::detail
