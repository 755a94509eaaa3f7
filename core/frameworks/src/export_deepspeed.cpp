// ds_config.json. Keys and meanings: DeepSpeed's configuration reference (docs/_pages/config-json.md)
// and deepspeed/runtime/zero/config.py (DeepSpeedZeroConfig) and offload_config.py, release 0.16.
#include "common.hpp"

#include <nlohmann/json.hpp>

namespace shardwise::frameworks::detail {

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
        { "precision", precisionId(t.precision) },
        { "seq_len", t.seqLen },
        { "activation_checkpointing", checkpointingId(t) },
    };
    if (t.precision == PrecisionPolicy::PureBf16)
        j["_shardwise"]["note"] = "pure bf16: load the model in torch.bfloat16 before deepspeed.initialize; with bf16 "
                                  "off DeepSpeed keeps parameters, gradients and optimizer state in the model's dtype";
    if (t.activationCheckpointing)
        j["_shardwise"]["checkpointing_note"]
            = "DeepSpeed's activation_checkpointing section configures deepspeed.checkpointing; a Hugging Face model "
              "turns recomputation on with model.gradient_checkpointing_enable()";
    j["train_batch_size"] = globalBatch(in);
    j["train_micro_batch_size_per_gpu"] = t.microBatch;
    j["gradient_accumulation_steps"] = t.gradAccumulation;
    j["gradient_clipping"] = 1.0;
    j["bf16"] = { { "enabled", t.precision == PrecisionPolicy::Bf16Fp32Master } };
    nlohmann::ordered_json z;
    z["stage"] = stage;
    if (stage > 0) {
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
    if (traits(s).offloadsOptimizer)
        z["offload_optimizer"] = { { "device", "cpu" }, { "pin_memory", true } };
    j["zero_optimization"] = z;
    if (t.activationCheckpointing)
        j["activation_checkpointing"] = { { "partition_activations", false },
                                          { "cpu_checkpointing", false },
                                          { "contiguous_memory_optimization", false },
                                          { "synchronize_checkpoint_boundary", false } };
    return j.dump(2) + "\n";
}

} // namespace shardwise::frameworks::detail
