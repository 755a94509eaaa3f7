// The Hugging Face config.json reader: which families Shardwise plans and the runner builds, and the
// fields that change a decoder's maths, each either carried into the ModelSpec or refused by name.
// docs/user-guide.md ("Model configs") lists them and says what adding a family takes.
#include "shardwise/spec/json.hpp"

#include "model_bounds.hpp"
#include "shardwise/spec/quote.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <sstream>
#include <string_view>

namespace shardwise {

using nlohmann::json;

namespace {

constexpr const char* kAllowedFamilies = "qwen2, llama, mistral";

std::string field(const std::string& key)
{
    return "config.json." + key;
}

std::string text(const json& v)
{
    if (v.is_number_float()) {
        std::ostringstream os;
        os << v.get<double>();
        return os.str();
    }
    return v.dump();
}

// Typed access to one object of the config, naming the key on every mistake.
class HfReader {
public:
    HfReader(const json& j, std::string prefix)
        : m_j(j)
        , m_prefix(std::move(prefix))
    {
    }

    std::string name(const std::string& key) const { return m_prefix + key; }
    bool has(const char* key) const { return m_j.contains(key) && !m_j.at(key).is_null(); }
    const json& at(const char* key) const { return m_j.at(key); }

    std::int64_t integer(const char* key, detail::Range r, std::optional<std::int64_t> fallback = std::nullopt) const
    {
        if (!has(key)) {
            if (!fallback)
                throw SpecError(name(key), "missing required field (an integer in " + detail::rangeText(r) + ")");
            return *fallback;
        }
        const json& v = m_j.at(key);
        if (!v.is_number() || (v.is_number_float() && std::floor(v.get<double>()) != v.get<double>()))
            throw SpecError(name(key), "expected an integer in " + detail::rangeText(r) + ", got " + text(v));
        // Compared as a double first, so 9e18 or 2^64-1 is a range error and never a wrapped cast.
        const double d = v.get<double>();
        if (d < static_cast<double>(r.lo) || d > static_cast<double>(r.hi))
            throw SpecError(name(key),
                            "must be in " + detail::rangeText(r) + ", got " + text(v)
                                + " (outside what a trainable decoder plausibly has)");
        return v.is_number_float() ? static_cast<std::int64_t>(d) : v.get<std::int64_t>();
    }

    double number(const char* key, double lo, double hi, std::optional<double> fallback = std::nullopt) const
    {
        if (!has(key)) {
            if (!fallback)
                throw SpecError(name(key), "missing required field (a number)");
            return *fallback;
        }
        const json& v = m_j.at(key);
        std::ostringstream range;
        range << "[" << lo << ", " << hi << "]";
        if (!v.is_number())
            throw SpecError(name(key), "expected a number in " + range.str() + ", got " + text(v));
        const double x = v.get<double>();
        if (!(x >= lo && x <= hi))
            throw SpecError(name(key), "must be in " + range.str() + ", got " + text(v));
        return x;
    }

    bool boolean(const char* key, bool fallback) const
    {
        if (!has(key))
            return fallback;
        if (!m_j.at(key).is_boolean())
            throw SpecError(name(key), "expected true or false, got " + text(m_j.at(key)));
        return m_j.at(key).get<bool>();
    }

    std::optional<std::string> string(const char* key) const
    {
        if (!has(key))
            return std::nullopt;
        if (!m_j.at(key).is_string())
            throw SpecError(name(key), "expected a string, got " + text(m_j.at(key)));
        return m_j.at(key).get<std::string>();
    }

private:
    const json& m_j;
    std::string m_prefix;
};

// ---- families -----------------------------------------------------------------------------------

bool allowedFamily(std::string_view t)
{
    return t == "qwen2" || t == "llama" || t == "mistral";
}

// Families known to route tokens through experts, refused even where the expert count is missing.
bool knownMixtureOfExperts(std::string_view t)
{
    for (std::string_view moe :
         { "mixtral",     "qwen2_moe", "qwen3_moe",    "qwen3_next",    "deepseek",   "deepseek_v2",
           "deepseek_v3", "dbrx",      "jamba",        "olmoe",         "granitemoe", "granitemoeshared",
           "phimoe",      "jetmoe",    "arctic",       "minimax",       "llama4",     "llama4_text",
           "gpt_oss",     "glm4_moe",  "ernie4_5_moe", "hunyuan_v1_moe" })
        if (t == moe)
            return true;
    return false;
}

// What a dense family off the list has that the planner and the runner's decoder do not model.
const char* unsupportedBecause(std::string_view t)
{
    if (t == "gemma")
        return "a GeGLU MLP, embeddings scaled by sqrt(hidden_size), RMSNorm weights offset by one";
    if (t == "gemma2")
        return "attention and final-logit softcapping, sliding-window layers alternating with global ones, extra "
               "norms after attention and MLP, scaled embeddings, a GeGLU MLP";
    if (t == "gemma3" || t == "gemma3_text")
        return "q/k norms, sliding-window layers alternating with global ones, extra norms after attention and MLP, "
               "scaled embeddings, a GeGLU MLP";
    if (t == "qwen3")
        return "RMSNorm on q and k inside attention (q_norm, k_norm)";
    if (t == "olmo2")
        return "norms after attention and MLP instead of before, q/k norms";
    if (t == "qwen2_vl" || t == "qwen2_5_vl")
        return "a vision encoder and multimodal rotary embeddings (mrope)";
    if (t == "gpt2" || t == "gpt_neox" || t == "gptj" || t == "falcon" || t == "phi" || t == "bloom" || t == "opt")
        return "LayerNorm and a plain GELU MLP, not RMSNorm and SwiGLU";
    return nullptr;
}

// The first field that says the config routes tokens through experts, and its value.
std::optional<std::pair<std::string, std::string>> expertField(const json& j)
{
    for (const char* key : { "num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts" })
        if (j.contains(key) && j.at(key).is_number() && j.at(key).get<double>() > 1)
            return std::make_pair(std::string(key), text(j.at(key)));
    auto active = [](const json& v) {
        return !v.is_null() && !(v.is_number() && v.get<double>() == 0) && !(v.is_boolean() && !v.get<bool>());
    };
    for (const char* key :
         { "num_experts_per_tok", "n_shared_experts", "moe_intermediate_size", "shared_expert_intermediate_size" })
        if (j.contains(key) && active(j.at(key)))
            return std::make_pair(std::string(key), text(j.at(key)));
    for (const auto& [key, value] : j.items())
        if (key.rfind("moe_", 0) == 0 && active(value))
            return std::make_pair(key, text(value));
    return std::nullopt;
}

void checkFamily(const json& j, const std::string& modelType)
{
    const auto expert = expertField(j);
    if (expert || knownMixtureOfExperts(modelType)) {
        const std::string which = expert ? " (" + expert->first + " = " + expert->second + ")" : std::string();
        const bool blameType = !allowedFamily(modelType) || !expert;
        throw SpecError(field(blameType ? "model_type" : expert->first),
                        "'" + modelType + "' is a mixture-of-experts model" + which
                            + "; Shardwise plans dense decoders: " + kAllowedFamilies);
    }
    if (allowedFamily(modelType))
        return;
    const char* why = unsupportedBecause(modelType);
    throw SpecError(field("model_type"),
                    "'" + modelType + "' is not a family Shardwise plans or the runner builds"
                        + (why ? std::string(" (it has ") + why + ")" : std::string()) + "; allowed: "
                        + kAllowedFamilies + " (docs/user-guide.md, Model configs, says what adding one takes)");
}

// ---- fields that change the maths -----------------------------------------------------------------

RopeScaling readRopeScaling(const json& r, const std::string& key)
{
    if (!r.is_object())
        throw SpecError(field(key), "expected an object or null, got " + text(r));
    const HfReader s(r, field(key) + ".");
    // Transformers writes rope_type; configs from before 4.45 wrote type.
    const char* typeKey = s.has("rope_type") ? "rope_type" : "type";
    const std::string type = s.string(typeKey).value_or("default");
    RopeScaling out;
    if (type == "default")
        return out;
    if (type == "linear") {
        out.kind = RopeScalingKind::Linear;
        out.factor = s.number("factor", 1.0, 1024.0);
        return out;
    }
    if (type == "llama3") {
        out.kind = RopeScalingKind::Llama3;
        out.factor = s.number("factor", 1.0, 1024.0);
        out.lowFreqFactor = s.number("low_freq_factor", 1e-3, 1e3);
        out.highFreqFactor = s.number("high_freq_factor", 1e-3, 1e3);
        out.originalMaxPosition
            = s.integer("original_max_position_embeddings", detail::Range { 1, detail::kMaxPosition.hi });
        if (!(out.highFreqFactor > out.lowFreqFactor))
            throw SpecError(s.name("high_freq_factor"),
                            "must be greater than low_freq_factor (" + text(r.at("low_freq_factor")) + ")");
        return out;
    }
    throw SpecError(s.name(typeKey),
                    "rope scaling '" + type
                        + "' is not modelled (it rescales rotary embeddings per sequence length or "
                          "scales attention); Shardwise and its runner apply default, linear and "
                          "llama3");
}

void checkAttentionWindow(const HfReader& hf, const std::string& modelType, std::int64_t maxPosition)
{
    if (hf.has("layer_types")) {
        const json& types = hf.at("layer_types");
        if (!types.is_array())
            throw SpecError(field("layer_types"), "expected an array, got " + text(types));
        for (const json& t : types)
            if (!t.is_string() || t.get<std::string>() != "full_attention")
                throw SpecError(field("layer_types"),
                                "a layer of type " + text(t)
                                    + ": the runner's decoder has full causal attention in "
                                      "every layer");
    }
    // Qwen2 uses its window only with use_sliding_window; Mistral whenever sliding_window is set.
    const bool windowed = modelType == "qwen2" ? hf.boolean("use_sliding_window", false) : hf.has("sliding_window");
    if (!windowed)
        return;
    const std::int64_t window = hf.integer("sliding_window", detail::Range { 1, detail::kMaxPosition.hi });
    if (maxPosition > 0 && window >= maxPosition)
        return; // the window spans the whole context: full causal attention exactly
    throw SpecError(field("sliding_window"),
                    std::to_string(window) + " tokens is shorter than the model's context (max_position_embeddings "
                        + (maxPosition > 0 ? std::to_string(maxPosition) : std::string("unknown"))
                        + "): past it sliding-window attention differs from the full causal attention Shardwise plans "
                          "and the runner computes");
}

} // namespace

ModelSpec modelFromHuggingFaceConfig(const json& j, const std::string& id)
{
    if (!j.is_object())
        throw SpecError("config.json", "expected a JSON object");
    const HfReader hf(j, "config.json.");
    const auto modelType = hf.string("model_type");
    if (!modelType)
        throw SpecError(field("model_type"),
                        std::string("missing: the family decides the decoder; allowed: ") + kAllowedFamilies);
    checkFamily(j, *modelType);

    ModelSpec m;
    // The id is the folder's name: the same character set as every model id (quote.hpp).
    checkModelId(id, "config.json (the folder name as model id)");
    m.id = id;
    m.name = id;
    m.family = *modelType;
    // Each dimension is bounded as it is read, so nothing below multiplies an implausible value.
    m.hidden = hf.integer("hidden_size", detail::kHidden);
    m.layers = hf.integer("num_hidden_layers", detail::kLayers);
    m.ffn = hf.integer("intermediate_size", detail::kFfn);
    m.heads = hf.integer("num_attention_heads", detail::kHeads);
    m.vocab = hf.integer("vocab_size", detail::kVocab);
    m.kvHeads = hf.integer("num_key_value_heads", detail::Range { 1, m.heads }, m.heads);
    // Transformers: head_dim when given (Mistral-Nemo: 128 with hidden 5120 over 32 heads), else
    // hidden_size // num_attention_heads; q and o are heads x head_dim wide either way.
    m.headDim = hf.integer("head_dim", detail::kHeadDim, m.hidden / m.heads);
    m.maxPosition = hf.integer("max_position_embeddings", detail::Range { 1, detail::kMaxPosition.hi }, 0);
    m.tiedEmbeddings = hf.boolean("tie_word_embeddings", false);

    // Qwen2 always has q/k/v biases and no o bias; Llama's attention_bias puts biases on q, k, v and
    // o, and its mlp_bias on the MLP, neither of which the runner's decoder has; Mistral has none.
    const bool attentionBias = hf.boolean("attention_bias", false);
    const bool mlpBias = hf.boolean("mlp_bias", false);
    m.qkvBias = *modelType == "qwen2";
    if (*modelType == "llama" && attentionBias)
        throw SpecError(field("attention_bias"),
                        "Llama's attention_bias adds biases to q, k, v and o; the runner's "
                        "decoder has q/k/v biases only (Qwen2's)");
    if (*modelType == "llama" && mlpBias)
        throw SpecError(field("mlp_bias"), "biases on the MLP's gate, up and down projections are not modelled");

    const std::string act = hf.string("hidden_act").value_or("silu");
    if (act != "silu" && act != "swish")
        throw SpecError(field("hidden_act"), "'" + act + "': the runner's gated MLP is SwiGLU (silu)");
    m.activation = ActivationKind::SwiGlu;
    m.norm = NormKind::RmsNorm;
    m.normEps = hf.number("rms_norm_eps", 1e-12, 1e-1, 1e-6);

    if (hf.number("attention_dropout", 0.0, 1.0, 0.0) > 0)
        throw SpecError(field("attention_dropout"), "must be 0: the runner trains without dropout");
    if (hf.number("partial_rotary_factor", 0.0, 1.0, 1.0) != 1.0)
        throw SpecError(field("partial_rotary_factor"), "must be 1: the runner rotates the whole head dimension");
    checkAttentionWindow(hf, *modelType, m.maxPosition);

    // Rotary base and scaling: Transformers 5 writes both into rope_parameters, earlier versions
    // rope_theta beside rope_scaling.
    m.ropeTheta = hf.number("rope_theta", 1.0, 1e12, 10000.0);
    if (hf.has("rope_parameters")) {
        const json& p = hf.at("rope_parameters");
        if (p.is_object() && p.contains("rope_theta"))
            m.ropeTheta = HfReader(p, field("rope_parameters") + ".").number("rope_theta", 1.0, 1e12);
        m.ropeScaling = readRopeScaling(p, "rope_parameters");
    } else if (hf.has("rope_scaling")) {
        m.ropeScaling = readRopeScaling(hf.at("rope_scaling"), "rope_scaling");
    }

    detail::checkModelShape(m, "config.json", detail::kHuggingFaceFieldNames);
    validate(m, "config.json");
    return m;
}

} // namespace shardwise
