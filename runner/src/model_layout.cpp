#include "model_layout.hpp"

#include "shardwise/spec/json.hpp"

namespace shardwise::runner {

namespace {

// Every shard is a multiple of 64 elements so shard starts stay 128-byte aligned in bf16 and
// 256-byte aligned in fp32, which NCCL and vectorised kernels prefer.
constexpr std::int64_t kShardAlignment = 64;

void add(UnitLayout& unit, std::string name, std::vector<std::int64_t> shape, ParamInit init)
{
    ParamSlot slot;
    slot.name = std::move(name);
    slot.numel = 1;
    for (auto d : shape)
        slot.numel *= d;
    slot.shape = std::move(shape);
    slot.offset = unit.numel;
    slot.init = init;
    unit.numel += slot.numel;
    unit.params.push_back(std::move(slot));
}

void pad(UnitLayout& unit, int world)
{
    const std::int64_t quantum = kShardAlignment * world;
    unit.padded = (unit.numel + quantum - 1) / quantum * quantum;
    unit.shard = unit.padded / world;
}

} // namespace

std::vector<UnitLayout> buildUnitLayouts(const ModelSpec& m, int world)
{
    if (m.norm != NormKind::RmsNorm)
        throw SpecError("model.norm", "the runner builds RMSNorm decoders only (Qwen2/Llama family)");
    if (m.activation != ActivationKind::SwiGlu)
        throw SpecError("model.activation", "the runner builds SwiGLU decoders only (Qwen2/Llama family)");
    if (m.heads % m.kvHeads != 0)
        throw SpecError("model.kv_heads", "heads must be a multiple of kv_heads for grouped-query attention");
    if (m.headDim % 2 != 0)
        throw SpecError("model.head_dim", "rotary embeddings need an even head_dim");

    std::vector<UnitLayout> units;
    UnitLayout root;
    root.name = "root";
    add(root, "model.embed_tokens.weight", { m.vocab, m.hidden }, ParamInit::Normal);
    add(root, "model.norm.weight", { m.hidden }, ParamInit::Ones);
    if (!m.tiedEmbeddings)
        add(root, "lm_head.weight", { m.vocab, m.hidden }, ParamInit::Normal);
    pad(root, world);
    units.push_back(std::move(root));

    const auto qOut = m.heads * m.headDim;
    const auto kvOut = m.kvHeads * m.headDim;
    // Without q/k/v biases the slots stay, empty, so parameter indices are the same for every family.
    for (std::int64_t l = 0; l < m.layers; ++l) {
        UnitLayout layer;
        const std::string p = "model.layers." + std::to_string(l) + ".";
        layer.name = "layer" + std::to_string(l);
        add(layer, p + "input_layernorm.weight", { m.hidden }, ParamInit::Ones);
        add(layer, p + "self_attn.q_proj.weight", { qOut, m.hidden }, ParamInit::Normal);
        add(layer, p + "self_attn.k_proj.weight", { kvOut, m.hidden }, ParamInit::Normal);
        add(layer, p + "self_attn.v_proj.weight", { kvOut, m.hidden }, ParamInit::Normal);
        add(layer, p + "self_attn.q_proj.bias", { m.qkvBias ? qOut : 0 }, ParamInit::Zeros);
        add(layer, p + "self_attn.k_proj.bias", { m.qkvBias ? kvOut : 0 }, ParamInit::Zeros);
        add(layer, p + "self_attn.v_proj.bias", { m.qkvBias ? kvOut : 0 }, ParamInit::Zeros);
        add(layer, p + "self_attn.o_proj.weight", { m.hidden, qOut }, ParamInit::Normal);
        add(layer, p + "post_attention_layernorm.weight", { m.hidden }, ParamInit::Ones);
        add(layer, p + "mlp.gate_proj.weight", { m.ffn, m.hidden }, ParamInit::Normal);
        add(layer, p + "mlp.up_proj.weight", { m.ffn, m.hidden }, ParamInit::Normal);
        add(layer, p + "mlp.down_proj.weight", { m.hidden, m.ffn }, ParamInit::Normal);
        pad(layer, world);
        units.push_back(std::move(layer));
    }
    return units;
}

} // namespace shardwise::runner
