#include "shardwise/spec/specs.hpp"

#include <cmath>
#include <limits>
#include <numbers>

namespace shardwise {

namespace {

// Saturating arithmetic: a product or sum outside int64 becomes INT64_MAX (or INT64_MIN), never a
// wrapped value, so a count is either exact or visibly absurd.
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

std::int64_t mul(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        return (a < 0) != (b < 0) ? kMin : kMax;
    return r;
}

std::int64_t add(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        return a < 0 ? kMin : kMax;
    return r;
}

} // namespace

std::int64_t ModelSpec::attentionParams() const
{
    const std::int64_t qOut = mul(heads, headDim);
    const std::int64_t kvOut = mul(kvHeads, headDim);
    const std::int64_t q = mul(hidden, qOut);
    const std::int64_t kv = mul(2, mul(hidden, kvOut));
    const std::int64_t o = mul(qOut, hidden);
    const std::int64_t bias = qkvBias ? add(qOut, mul(2, kvOut)) : 0;
    return add(add(q, kv), add(o, bias));
}

std::int64_t ModelSpec::mlpParams() const
{
    const std::int64_t matrices = activation == ActivationKind::SwiGlu ? 3 : 2;
    return mul(matrices, mul(hidden, ffn));
}

std::int64_t ModelSpec::normParams() const
{
    return norm == NormKind::LayerNorm ? mul(2, hidden) : hidden;
}

std::int64_t ModelSpec::layerParams() const
{
    return add(add(attentionParams(), mlpParams()), mul(2, normParams()));
}

std::int64_t ModelSpec::embeddingParams() const
{
    return mul(vocab, hidden);
}

std::int64_t ModelSpec::headParams() const
{
    return tiedEmbeddings ? 0 : mul(vocab, hidden);
}

std::int64_t ModelSpec::rootParams() const
{
    return add(add(embeddingParams(), headParams()), normParams());
}

std::int64_t ModelSpec::parameterCount() const
{
    return add(mul(layers, layerParams()), rootParams());
}

std::vector<double> rotaryInverseFrequencies(const ModelSpec& m)
{
    std::vector<double> inv;
    if (m.headDim < 2)
        return inv;
    inv.reserve(static_cast<std::size_t>(m.headDim / 2));
    const RopeScaling& s = m.ropeScaling;
    for (std::int64_t i = 0; i < m.headDim; i += 2) {
        double f = std::pow(m.ropeTheta, -static_cast<double>(i) / static_cast<double>(m.headDim));
        if (s.kind == RopeScalingKind::Linear) {
            f /= s.factor;
        } else if (s.kind == RopeScalingKind::Llama3) {
            // Transformers' _compute_llama3_parameters: wavelengths longer than the pretrained context
            // over low_freq_factor are stretched by factor, shorter than it over high_freq_factor kept,
            // and the band between blended linearly in context / wavelength.
            const double context = static_cast<double>(s.originalMaxPosition);
            const double lowFreqWavelen = context / s.lowFreqFactor;
            const double highFreqWavelen = context / s.highFreqFactor;
            const double wavelen = 2.0 * std::numbers::pi / f;
            if (wavelen > lowFreqWavelen) {
                f /= s.factor;
            } else if (wavelen >= highFreqWavelen) {
                const double smooth = (context / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
                f = (1.0 - smooth) * f / s.factor + smooth * f;
            }
        }
        inv.push_back(f);
    }
    return inv;
}

std::string_view ropeScalingId(RopeScalingKind k)
{
    switch (k) {
    case RopeScalingKind::Linear:
        return "linear";
    case RopeScalingKind::Llama3:
        return "llama3";
    case RopeScalingKind::None:
        break;
    }
    return "none";
}

std::string_view precisionId(PrecisionPolicy p)
{
    return p == PrecisionPolicy::PureBf16 ? "bf16" : "bf16-fp32-master";
}

std::string_view interconnectId(Interconnect i)
{
    return i == Interconnect::NvLink ? "nvlink" : "pcie";
}

std::string_view deviceId(DeviceKind d)
{
    return d == DeviceKind::Cpu ? "cpu" : "cuda";
}

std::string_view checkpointPolicyId(CheckpointPolicy p)
{
    return p == CheckpointPolicy::Full ? "full" : "selective";
}

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

std::string_view normId(NormKind n)
{
    return n == NormKind::RmsNorm ? "rmsnorm" : "layernorm";
}

std::string_view activationId(ActivationKind a)
{
    return a == ActivationKind::SwiGlu ? "swiglu" : "gelu";
}

} // namespace shardwise
