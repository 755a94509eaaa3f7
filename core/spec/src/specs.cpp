#include "shardwise/spec/specs.hpp"

namespace shardwise {

std::int64_t ModelSpec::attentionParams() const
{
    const std::int64_t q = hidden * heads * headDim;
    const std::int64_t kv = 2 * hidden * kvHeads * headDim;
    const std::int64_t o = heads * headDim * hidden;
    const std::int64_t bias = qkvBias ? (heads + 2 * kvHeads) * headDim : 0;
    return q + kv + o + bias;
}

std::int64_t ModelSpec::mlpParams() const
{
    const std::int64_t matrices = activation == ActivationKind::SwiGlu ? 3 : 2;
    return matrices * hidden * ffn;
}

std::int64_t ModelSpec::normParams() const { return norm == NormKind::LayerNorm ? 2 * hidden : hidden; }

std::int64_t ModelSpec::layerParams() const { return attentionParams() + mlpParams() + 2 * normParams(); }

std::int64_t ModelSpec::embeddingParams() const { return vocab * hidden; }

std::int64_t ModelSpec::headParams() const { return tiedEmbeddings ? 0 : vocab * hidden; }

std::int64_t ModelSpec::rootParams() const { return embeddingParams() + headParams() + normParams(); }

std::int64_t ModelSpec::parameterCount() const { return layers * layerParams() + rootParams(); }

std::string_view precisionId(PrecisionPolicy p)
{
    return p == PrecisionPolicy::PureBf16 ? "bf16" : "bf16-fp32-master";
}

std::string_view interconnectId(Interconnect i) { return i == Interconnect::NvLink ? "nvlink" : "pcie"; }

std::string_view deviceId(DeviceKind d) { return d == DeviceKind::Cpu ? "cpu" : "cuda"; }

std::string_view checkpointPolicyId(CheckpointPolicy p) { return p == CheckpointPolicy::Full ? "full" : "selective"; }

PrecisionPolicy defaultPrecision(Framework f)
{
    return f == Framework::Native ? PrecisionPolicy::PureBf16 : PrecisionPolicy::Bf16Fp32Master;
}

std::optional<CheckpointPolicy> defaultCheckpointing(Framework f)
{
    if (f == Framework::Torchtitan)
        return CheckpointPolicy::Selective;
    return std::nullopt;
}

bool canCaptureCudaGraphs(Strategy s, PrecisionPolicy precision, DeviceKind device)
{
    const StrategyTraits& t = traits(s);
    return device == DeviceKind::Cuda && precision == PrecisionPolicy::PureBf16 && !t.offloadsOptimizer
        && !t.offloadsParameters;
}

std::string_view normId(NormKind n) { return n == NormKind::RmsNorm ? "rmsnorm" : "layernorm"; }

std::string_view activationId(ActivationKind a) { return a == ActivationKind::SwiGlu ? "swiglu" : "gelu"; }

} // namespace shardwise
