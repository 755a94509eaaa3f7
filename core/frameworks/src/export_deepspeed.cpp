// ds_config.json. Keys and meanings: DeepSpeed's configuration reference (docs/_pages/config-json.md)
// and deepspeed/runtime/zero/config.py (DeepSpeedZeroConfig) and offload_config.py, release 0.16.
#include "common.hpp"

#include <nlohmann/json.hpp>

namespace shardwise::frameworks::detail {

DeepSpeedMaster exportedDeepSpeedMaster(const EstimateInput& in, Strategy s)
{
    return deepSpeedMaster(deepSpeedRelease(in.framework), s, in.training.precision);
}

bool pureBf16WrittenAsFp32Master(const EstimateInput& in, Strategy s)
{
    return in.training.precision == PrecisionPolicy::PureBf16 && traits(s).family == StrategyFamily::DeepSpeedZero
        && exportedDeepSpeedMaster(in, s) == DeepSpeedMaster::Fp32;
}

std::string deepSpeedFp32MasterNote(const EstimateInput& in, Strategy s)
{
    const std::string release = deepSpeedRelease(in.framework);
    std::string note = "pure bf16 was asked for, but DeepSpeed " + release
        + " keeps fp32 master weights, fp32 Adam moments and an fp32 gradient partition at ZeRO stage "
        + std::to_string(zeroStage(s))
        + " whatever bf16.enabled says (single_partition_of_fp32_groups in stage_1_and_2.py, "
          "fp32_partitioned_groups_flat in stage3.py), so bf16 is enabled and the plan counts that fp32 master";
    if (!deepSpeedHasBf16Master(release))
        note += "; bf16 master weights and optimizer states need DeepSpeed " + std::string(kDeepSpeedBf16MasterRelease)
            + " or later (bf16.bf16_master_weights_and_grads, bf16.bf16_optimizer_states)";
    else
        note
            += "; with optimizer offload bf16 optimizer states also need DeepSpeedCPUAdam(fp32_optimizer_states=False)";
    return note;
}

PrecisionPolicy exportedPrecision(const EstimateInput& in, Strategy s)
{
    return pureBf16WrittenAsFp32Master(in, s) ? PrecisionPolicy::Bf16Fp32Master : in.training.precision;
}

std::string exportDsConfig(const EstimateInput& in, Strategy s, const PlanIdentity& id)
{
    const TrainingSpec& t = in.training;
    const TuningKnobs& k = in.knobs;
    const int stage = zeroStage(s);
    nlohmann::ordered_json j;
    // DeepSpeedConfig reads the top-level keys it knows and ignores the rest (runtime/config.py), while
    // every section rejects unknown keys (DeepSpeedConfigModel: extra="forbid"): the record goes here.
    j["_shardwise"] = {
        { "plan", id.description },
        { "model", id.modelId },
        { "gpu", id.gpuId },
        { "world", id.world },
        { "strategy", strategyId(s) },
        { "framework",
          in.framework.effectiveVersion().empty()
              ? std::string(frameworkId(in.framework.framework))
              : std::string(frameworkId(in.framework.framework)) + " " + in.framework.effectiveVersion() },
        { "precision", precisionId(exportedPrecision(in, s)) },
        { "seq_len", t.seqLen },
        { "nodes", in.cluster.nodes },
        { "activation_checkpointing", checkpointingId(t) },
    };
    const DeepSpeedMaster master = exportedDeepSpeedMaster(in, s);
    if (pureBf16WrittenAsFp32Master(in, s))
        j["_shardwise"]["note"] = deepSpeedFp32MasterNote(in, s);
    else if (t.precision == PrecisionPolicy::PureBf16 && master == DeepSpeedMaster::Bf16)
        j["_shardwise"]["note"] = "pure bf16: bf16 master weights, gradient partition and Adam moments "
                                  "(bf16.bf16_master_weights_and_grads and bf16.bf16_optimizer_states, DeepSpeed "
            + std::string(kDeepSpeedBf16MasterRelease) + " and later)";
    else if (t.precision == PrecisionPolicy::PureBf16)
        j["_shardwise"]["note"] = "pure bf16: load the model in torch.bfloat16 before deepspeed.initialize; with bf16 "
                                  "off stage 0 wraps no optimizer, so AdamW keeps bf16 moments for every parameter";
    if (t.activationCheckpointing)
        j["_shardwise"]["checkpointing_note"]
            = "DeepSpeed's activation_checkpointing section configures deepspeed.checkpointing; a Hugging Face model "
              "turns recomputation on with model.gradient_checkpointing_enable()";
    j["train_batch_size"] = globalBatch(in);
    j["train_micro_batch_size_per_gpu"] = t.microBatch;
    j["gradient_accumulation_steps"] = t.gradAccumulation;
    j["gradient_clipping"] = 1.0;
    // bf16 on wherever DeepSpeed keeps an fp32 master (its bf16 mode: the model cast to bf16, gradients
    // reduced in bf16); off only for stage 0's pure bf16, which trains the bf16 model as loaded.
    j["bf16"] = { { "enabled", master != DeepSpeedMaster::ModelDtype } };
    if (master == DeepSpeedMaster::Bf16) {
        j["bf16"]["bf16_master_weights_and_grads"] = true;
        j["bf16"]["bf16_optimizer_states"] = true;
    }
    nlohmann::ordered_json z;
    z["stage"] = stage;
    if (stage > 0) {
        // DeepSpeed turns overlap_comm on for stage 3 only when the file leaves it out
        // (DeepSpeedZeroConfig.overlap_comm_valid, runtime/zero/config.py): stages 1 and 2 state it only
        // when the plan's settings ask for it.
        if (stage == 3 || k.overlapCommStated)
            z["overlap_comm"] = k.overlapComm;
        z["contiguous_gradients"] = true;
        z["reduce_bucket_size"] = k.reduceBucketElements;
    }
    if (stage == 1 || stage == 2)
        z["allgather_bucket_size"] = k.allgatherBucketElements;
    if (stage == 3) {
        z["stage3_prefetch_bucket_size"] = k.prefetchBucketElements;
        z["stage3_param_persistence_threshold"] = k.persistenceThreshold;
        z["stage3_max_live_parameters"] = k.maxLiveParameters;
        z["stage3_max_reuse_distance"] = k.maxReuseDistance;
    }
    if (traits(s).offloadsOptimizer) {
        z["offload_optimizer"] = { { "device", "cpu" }, { "pin_memory", true } };
        // ZeRO-Offload steps on the host with DeepSpeedCPUAdam, which DeepSpeed builds from this block;
        // a script that hands deepspeed.initialize a torch optimizer instead stops with
        // ZeRORuntimeException (zero_force_ds_cpu_optimizer, runtime/engine.py). torch.optim.AdamW's
        // defaults.
        j["optimizer"]
            = { { "type", "AdamW" },
                { "params",
                  { { "lr", 1e-3 }, { "betas", { 0.9, 0.999 } }, { "eps", 1e-8 }, { "weight_decay", 0.01 } } } };
        j["_shardwise"]["optimizer_note"]
            = "offload_optimizer steps on the CPU with DeepSpeedCPUAdam, which DeepSpeed builds from the optimizer "
              "block: call deepspeed.initialize(model=..., model_parameters=model.parameters(), config=...) without "
              "optimizer=; set lr and the rest to yours (the Hugging Face Trainer and Accelerate compare them with "
              "their own arguments: write \"auto\" there)";
    }
    j["zero_optimization"] = z;
    if (t.activationCheckpointing)
        j["activation_checkpointing"] = { { "partition_activations", false },
                                          { "cpu_checkpointing", false },
                                          { "contiguous_memory_optimization", false },
                                          { "synchronize_checkpoint_boundary", false } };
    return j.dump(2) + "\n";
}

} // namespace shardwise::frameworks::detail
