// torchtitan job-config TOML and an FSDP2 / DDP script. torchtitan keys: torchtitan/config/job_config.py
// (release 0.2: [training] local_batch_size, global_batch_size, seq_len, max_norm, mixed_precision_param,
// mixed_precision_reduce, enable_cpu_offload; [parallelism] data_parallel_replicate_degree,
// data_parallel_shard_degree, fsdp_reshard_after_forward; [activation_checkpoint] mode,
// selective_ac_option; [compile] enable, components). FSDP2: torch.distributed.fsdp.fully_shard
// (docs/source/distributed.fsdp.fully_shard.rst: MixedPrecisionPolicy, CPUOffloadPolicy, reshard_after_forward).
#include "common.hpp"

#include "shardwise/spec/quote.hpp"

#include <cstdio>

namespace shardwise::frameworks::detail {

namespace {

struct TorchtitanModel {
    std::string name;
    std::string flavor;
    bool registered = false;
};

// torchtitan's name and flavor for the plan's model: llama3's 8B, 70B and 405B (llama3_args in
// torchtitan/models/llama3/__init__.py at v0.2.0) by their shape; any other model by its own id, which
// torchtitan refuses unless a train spec is registered under it.
TorchtitanModel torchtitanModel(const ModelSpec& m)
{
    struct Flavor {
        const char* flavor;
        std::int64_t hidden, layers, heads, kvHeads, ffn;
    };
    static constexpr Flavor kLlama3[] = { { "8B", 4096, 32, 32, 8, 14336 },
                                          { "70B", 8192, 80, 64, 8, 28672 },
                                          { "405B", 16384, 126, 128, 8, 53248 } };
    if (m.family == "llama" && m.vocab == 128256)
        for (const Flavor& f : kLlama3)
            if (m.hidden == f.hidden && m.layers == f.layers && m.heads == f.heads && m.kvHeads == f.kvHeads
                && m.ffn == f.ffn)
                return { "llama3", f.flavor, true };
    return { m.id, m.id, false };
}

} // namespace

bool torchtitanHasTrainingDtype(const std::string& release)
{
    int major = 0, minor = 0;
    std::sscanf(release.c_str(), "%d.%d", &major, &minor);
    return major > 0 || minor >= 2;
}

std::string exportTorchtitan(const EstimateInput& in, Strategy s, const PlanIdentity& id)
{
    const TrainingSpec& t = in.training;
    const StrategyTraits& st = traits(s);
    const int world = in.cluster.worldSize();
    const bool ddp = s == Strategy::Zero0;
    const std::string release = in.framework.framework == Framework::Torchtitan
        ? in.framework.effectiveVersion()
        : std::string(traits(Framework::Torchtitan).defaultVersion);
    std::string out = header("# ", id,
                             "torchtitan " + release
                                 + " job config (torchtitan/config/job_config.py); merge these sections into your "
                                   "model's train config and run with --job.config_file");
    // [training] dtype exists from torchtitan 0.2.0 (torchtitan/config/job_config.py line 224 at v0.2.0;
    // 0.1.0's torchtitan/config_manager.py has none): the model is built in it (torchtitan/train.py line 151).
    const bool hasDtype = torchtitanHasTrainingDtype(release);
    const bool pure = t.precision == PrecisionPolicy::PureBf16 && hasDtype;
    if (t.precision == PrecisionPolicy::PureBf16 && !hasDtype)
        out += "# Precision: pure bf16 was asked for, but torchtitan " + commentText(release)
            + " has no [training] dtype (it came in 0.2.0): parameters\n# stay fp32 with bf16 compute, an fp32 "
              "master; the record says bf16-fp32-master.\n";
    else if (pure)
        out += "# Precision bf16: [training] dtype = \"bfloat16\" builds the model in bf16 (parameters, gradients "
               "and\n# AdamW state, no fp32 master); FSDP still reduces gradients in float32 "
               "(mixed_precision_reduce's only value).\n";
    else
        out += "# Precision bf16-fp32-master: fp32 parameters (dtype float32, the default), bf16 compute\n"
               "# (mixed_precision_param) and float32 gradient reduction (mixed_precision_reduce).\n";
    const TorchtitanModel model = torchtitanModel(in.model);
    if (!model.registered)
        out += "# torchtitan " + commentText(release) + " has no train spec for " + commentText(in.model.id)
            + " (its models: llama3, llama4, qwen3, deepseek_v3,\n# torchtitan/models/__init__.py): [model] names it "
              "so that torchtitan stops at get_train_spec instead of training\n# its default llama3 debugmodel; "
              "register a TrainSpec under that name (torchtitan/protocols/train_spec.py)\n# with this flavor, or "
              "set name and flavor to one it has.\n";
    // What torchtitan 0.2's keys cannot say, for `plan --from`: the node count (the degrees state the
    // world only; a round trip keeps the cluster's shape), and the precision where dtype cannot say it.
    out += std::string(kRecordPrefix)
        + " precision=" + std::string(precisionId(pure ? PrecisionPolicy::PureBf16 : PrecisionPolicy::Bf16Fp32Master))
        + " nodes=" + std::to_string(in.cluster.nodes) + "\n";
    out += "\n[job]\n";
    out += "description = " + tomlQuote(id.description) + "\n";
    // Without [model] torchtitan trains its default, llama3 / debugmodel (Model in job_config.py, lines 91-95
    // at v0.2.0), whatever the plan's model.
    out += "\n[model]\n";
    out += "name = " + tomlQuote(model.name) + "\n";
    out += "flavor = " + tomlQuote(model.flavor) + "\n";
    out += "\n[training]\n";
    out += "local_batch_size = " + std::to_string(t.microBatch) + "\n";
    out += "global_batch_size = " + std::to_string(globalBatch(in)) + "  # local x data-parallel degree x "
        + std::to_string(t.gradAccumulation) + " accumulation step(s)\n";
    out += "seq_len = " + std::to_string(t.seqLen) + "\n";
    out += "max_norm = 1.0\n";
    if (hasDtype)
        out += std::string("dtype = \"") + (pure ? "bfloat16" : "float32") + "\"\n";
    out += "mixed_precision_param = \"bfloat16\"\n";
    out += "mixed_precision_reduce = \"float32\"\n";
    out += std::string("enable_cpu_offload = ") + boolText(st.offloadsParameters) + "\n";
    out += "\n[parallelism]\n";
    out += "data_parallel_replicate_degree = " + std::to_string(ddp ? world : 1) + "\n";
    out += "data_parallel_shard_degree = " + std::to_string(ddp ? 1 : world) + "\n";
    out += std::string("fsdp_reshard_after_forward = ") + (st.reshardAfterForward ? "\"always\"" : "\"never\"") + "\n";
    out += "tensor_parallel_degree = 1\n";
    out += "pipeline_parallel_degree = 1\n";
    out += "context_parallel_degree = 1\n";
    out += "\n[activation_checkpoint]\n";
    out += std::string("mode = \"")
        + (!t.activationCheckpointing                              ? "none"
               : t.checkpointPolicy == CheckpointPolicy::Selective ? "selective"
                                                                   : "full")
        + "\"\n";
    if (t.activationCheckpointing && t.checkpointPolicy == CheckpointPolicy::Selective)
        out += "selective_ac_option = \"op\"\n";
    out += "\n[compile]\n";
    out += std::string("enable = ") + boolText(in.framework.compiled) + "\n";
    out += "components = [\"model\", \"loss\"]\n";
    return out;
}

std::string exportFsdp2Python(const EstimateInput& in, Strategy s, const PlanIdentity& id)
{
    const TrainingSpec& t = in.training;
    const StrategyTraits& st = traits(s);
    const bool ddp = s == Strategy::Zero0;
    const bool pure = t.precision == PrecisionPolicy::PureBf16;
    std::string out = "#!/usr/bin/env python3\n";
    out += header("# ", id,
                  std::string(ddp ? "DDP" : "FSDP2 (torch.distributed.fsdp.fully_shard)") + ", PyTorch "
                      + (in.framework.framework == Framework::Fsdp2
                             ? in.framework.effectiveVersion()
                             : std::string(traits(Framework::Fsdp2).defaultVersion))
                      + "; start it with torchrun (the launch export)");
    out += "import os\n\nimport torch\nimport torch.distributed as dist\n";
    if (ddp)
        out += "from torch.nn.parallel import DistributedDataParallel as DDP\n";
    else
        out += "from torch.distributed.device_mesh import init_device_mesh\n"
               "from torch.distributed.fsdp import CPUOffloadPolicy, MixedPrecisionPolicy, fully_shard\n";
    out += "from transformers import AutoModelForCausalLM\n\n";
    out += "MODEL_PATH = os.environ.get(\"MODEL_PATH\", " + pythonQuote(in.model.id)
        + ")  # a Hugging Face checkpoint\n";
    out += "MICRO_BATCH, SEQ_LEN, ACCUMULATION = " + std::to_string(t.microBatch) + ", " + std::to_string(t.seqLen)
        + ", " + std::to_string(t.gradAccumulation) + "\n\n";
    out += "dist.init_process_group(\"nccl\")\n";
    out += "local_rank = int(os.environ[\"LOCAL_RANK\"])\n";
    out += "torch.cuda.set_device(local_rank)\n";
    out += std::string("model = AutoModelForCausalLM.from_pretrained(MODEL_PATH, torch_dtype=torch.")
        + (pure ? "bfloat16" : "float32") + ")\n";
    out += "VOCAB = model.config.vocab_size\n";
    if (t.activationCheckpointing)
        out += std::string("model.gradient_checkpointing_enable()")
            + (t.checkpointPolicy == CheckpointPolicy::Selective
                   ? "  # selective in the plan: Transformers recomputes whole layers; torchtitan has the op policy\n"
                   : "\n");
    if (in.framework.compiled && !ddp)
        out += "for layer in model.model.layers:\n    layer.compile()  # torch.compile each decoder layer\n";
    if (ddp) {
        out += "model = DDP(model.cuda(), device_ids=[local_rank])\n";
        if (in.framework.compiled)
            out += "model = torch.compile(model)\n";
    } else {
        const std::string reshard = boolText(st.reshardAfterForward);
        out += "mesh = init_device_mesh(\"cuda\", (dist.get_world_size(),))\n";
        out += pure ? "mp = MixedPrecisionPolicy()  # parameters are bf16 already\n"
                    : "mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)\n";
        std::string extra;
        if (st.offloadsParameters) {
            out += "offload = CPUOffloadPolicy(pin_memory=True)  # parameters, gradients and the AdamW step on the "
                   "CPU\n";
            extra = ", offload_policy=offload";
        }
        out += "for layer in model.model.layers:\n";
        out += "    fully_shard(layer, mesh=mesh, reshard_after_forward="
            + std::string(reshard == "true" ? "True" : "False") + ", mp_policy=mp" + extra + ")\n";
        out += "fully_shard(model, mesh=mesh, reshard_after_forward="
            + std::string(reshard == "true" ? "True" : "False") + ", mp_policy=mp" + extra + ")\n";
    }
    out += std::string("optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5")
        + (st.offloadsParameters ? ")\n" : ", fused=True)\n");
    out += "\n\ndef batches():\n"
           "    while True:  # replace with your data loader\n"
           "        yield torch.randint(0, VOCAB, (MICRO_BATCH, SEQ_LEN), device=\"cuda\")\n\n\n";
    out += "data = batches()\n";
    out += "for step in range(100):\n";
    out += "    for micro in range(ACCUMULATION):\n";
    if (!ddp)
        out += "        model.set_requires_gradient_sync(micro == ACCUMULATION - 1)\n";
    out += "        tokens = next(data)\n";
    if (!pure && ddp)
        out += "        with torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
               "            loss = model(input_ids=tokens, labels=tokens).loss / ACCUMULATION\n";
    else
        out += "        loss = model(input_ids=tokens, labels=tokens).loss / ACCUMULATION\n";
    out += "        loss.backward()\n";
    out += "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n";
    out += "    optimizer.step()\n";
    out += "    optimizer.zero_grad()\n";
    out += "dist.destroy_process_group()\n";
    return out;
}

} // namespace shardwise::frameworks::detail
