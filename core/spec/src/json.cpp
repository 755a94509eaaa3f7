#include "shardwise/spec/json.hpp"

#include "model_bounds.hpp"
#include "shardwise/spec/quote.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <sstream>

namespace shardwise {

using nlohmann::json;

SpecError::SpecError(std::string field, const std::string& message)
    : std::runtime_error(field.empty() ? message : field + ": " + message)
    , m_field(std::move(field))
{
}

namespace {

std::string join(const std::string& path, const std::string& name)
{
    return path.empty() ? name : path + "." + name;
}

std::string formatNumber(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

// Reads named fields of one JSON object, validating type and range, and rejects unknown fields so a
// misspelt key is an error rather than a silently ignored default.
class FieldReader {
public:
    FieldReader(const json& j, std::string path, std::initializer_list<const char*> allowed)
        : m_j(j)
        , m_path(std::move(path))
    {
        if (!j.is_object())
            throw SpecError(m_path.empty() ? "(document)" : m_path, "expected a JSON object");
        for (const auto& [key, value] : j.items()) {
            bool known = false;
            for (const char* a : allowed)
                known = known || key == a;
            if (!known) {
                std::string list;
                for (const char* a : allowed)
                    list += (list.empty() ? "" : ", ") + std::string(a);
                throw SpecError(join(m_path, key), "unknown field; allowed fields: " + list);
            }
        }
    }

    bool has(const char* name) const { return m_j.contains(name) && !m_j.at(name).is_null(); }
    std::string field(const char* name) const { return join(m_path, name); }

    std::int64_t integer(const char* name, std::int64_t lo, std::int64_t hi,
                         std::optional<std::int64_t> fallback = std::nullopt) const
    {
        if (!has(name))
            return required(name, fallback);
        const json& v = m_j.at(name);
        std::int64_t x = 0;
        if (v.is_number_integer())
            x = v.get<std::int64_t>();
        else if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()
                 && std::abs(v.get<double>()) < 9e18)
            x = static_cast<std::int64_t>(v.get<double>());
        else
            throw SpecError(field(name),
                            "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got "
                                + v.dump());
        if (x < lo || x > hi)
            throw SpecError(field(name),
                            "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got "
                                + std::to_string(x));
        return x;
    }

    double number(const char* name, double lo, double hi, std::optional<double> fallback = std::nullopt) const
    {
        if (!has(name))
            return required(name, fallback);
        const json& v = m_j.at(name);
        if (!v.is_number())
            throw SpecError(field(name),
                            "expected a number in [" + formatNumber(lo) + ", " + formatNumber(hi) + "], got "
                                + v.dump());
        const double x = v.get<double>();
        if (!(x >= lo && x <= hi))
            throw SpecError(field(name),
                            "must be in [" + formatNumber(lo) + ", " + formatNumber(hi) + "], got " + formatNumber(x));
        return x;
    }

    bool boolean(const char* name, std::optional<bool> fallback = std::nullopt) const
    {
        if (!has(name))
            return required(name, fallback);
        const json& v = m_j.at(name);
        if (!v.is_boolean())
            throw SpecError(field(name), "expected true or false, got " + v.dump());
        return v.get<bool>();
    }

    std::string string(const char* name, std::optional<std::string> fallback = std::nullopt) const
    {
        if (!has(name))
            return required(name, fallback);
        const json& v = m_j.at(name);
        if (!v.is_string())
            throw SpecError(field(name), "expected a string, got " + v.dump());
        return v.get<std::string>();
    }

    const json& object(const char* name) const
    {
        if (!has(name))
            throw SpecError(field(name), "missing required field");
        return m_j.at(name);
    }

private:
    template <typename T> T required(const char* name, const std::optional<T>& fallback) const
    {
        if (!fallback)
            throw SpecError(field(name), "missing required field");
        return *fallback;
    }

    const json& m_j;
    std::string m_path;
};

NormKind parseNorm(const std::string& v, const std::string& field)
{
    if (v == "rmsnorm")
        return NormKind::RmsNorm;
    if (v == "layernorm")
        return NormKind::LayerNorm;
    throw SpecError(field, "unknown norm '" + v + "'; allowed: rmsnorm, layernorm");
}

ActivationKind parseActivation(const std::string& v, const std::string& field)
{
    if (v == "swiglu" || v == "silu")
        return ActivationKind::SwiGlu;
    if (v == "gelu")
        return ActivationKind::Gelu;
    throw SpecError(field, "unknown activation '" + v + "'; allowed: swiglu, gelu");
}

} // namespace

Strategy parseStrategy(const std::string& value, const std::string& field)
{
    if (auto s = strategyFromId(value))
        return *s;
    throw SpecError(field, "unknown strategy '" + value + "'; allowed: " + strategyIdList());
}

PrecisionPolicy parsePrecision(const std::string& value, const std::string& field)
{
    if (value == "bf16")
        return PrecisionPolicy::PureBf16;
    if (value == "bf16-fp32-master")
        return PrecisionPolicy::Bf16Fp32Master;
    throw SpecError(field, "unknown precision '" + value + "'; allowed: bf16, bf16-fp32-master");
}

CheckpointPolicy parseCheckpointPolicy(const std::string& value, const std::string& field)
{
    if (value == "full")
        return CheckpointPolicy::Full;
    if (value == "selective")
        return CheckpointPolicy::Selective;
    throw SpecError(field, "unknown activation checkpointing policy '" + value + "'; allowed: full, selective");
}

RunBackend parseBackend(const std::string& value, const std::string& field)
{
    if (auto b = backendFromId(value))
        return *b;
    throw SpecError(field, "unknown backend '" + value + "'; allowed: native, torch");
}

Framework parseFramework(const std::string& value, const std::string& field)
{
    if (auto f = frameworkFromId(value))
        return *f;
    throw SpecError(field, "unknown framework '" + value + "'; allowed: " + frameworkIdList());
}

Interconnect parseInterconnect(const std::string& value, const std::string& field)
{
    if (value == "nvlink")
        return Interconnect::NvLink;
    if (value == "pcie")
        return Interconnect::Pcie;
    throw SpecError(field, "unknown interconnect '" + value + "'; allowed: nvlink, pcie");
}

DeviceKind parseDevice(const std::string& value, const std::string& field)
{
    if (value == "cpu")
        return DeviceKind::Cpu;
    if (value == "cuda")
        return DeviceKind::Cuda;
    throw SpecError(field, "unknown device '" + value + "'; allowed: cpu, cuda");
}

// ---- to JSON ----------------------------------------------------------------------------------

json toJson(const ModelSpec& m)
{
    json j { { "id", m.id },
             { "name", m.name },
             { "family", m.family },
             { "layers", m.layers },
             { "hidden", m.hidden },
             { "ffn", m.ffn },
             { "heads", m.heads },
             { "kv_heads", m.kvHeads },
             { "head_dim", m.headDim },
             { "vocab", m.vocab },
             { "tied_embeddings", m.tiedEmbeddings },
             { "qkv_bias", m.qkvBias },
             { "norm", normId(m.norm) },
             { "activation", activationId(m.activation) },
             { "rope_theta", m.ropeTheta },
             { "norm_eps", m.normEps },
             { "max_position", m.maxPosition } };
    // Written only when the frequencies are rescaled: model files from before it read the same.
    if (m.ropeScaling.kind != RopeScalingKind::None) {
        json s { { "type", ropeScalingId(m.ropeScaling.kind) }, { "factor", m.ropeScaling.factor } };
        if (m.ropeScaling.kind == RopeScalingKind::Llama3) {
            s["low_freq_factor"] = m.ropeScaling.lowFreqFactor;
            s["high_freq_factor"] = m.ropeScaling.highFreqFactor;
            s["original_max_position"] = m.ropeScaling.originalMaxPosition;
        }
        j["rope_scaling"] = s;
    }
    return j;
}

json toJson(const GpuSpec& g)
{
    json j { { "id", g.id },
             { "name", g.name },
             { "memory_mib", g.memoryMiB },
             { "bf16_tflops", g.bf16Tflops },
             { "hbm_gbps", g.hbmGBps },
             { "nvlink_gbps", g.nvlinkGBps },
             { "pcie_gbps", g.pcieGBps } };
    if (!g.architecture.empty())
        j["architecture"] = g.architecture;
    if (!g.gkeMachineSeries.empty())
        j["gke"] = { { "machine_series", g.gkeMachineSeries }, { "accelerator", g.gkeAccelerator } };
    return j;
}

json toJson(const ClusterSpec& c)
{
    return json { { "gpus_per_node", c.gpusPerNode },
                  { "nodes", c.nodes },
                  { "intra_node", interconnectId(c.intraNode) },
                  { "intra_node_gbps", c.intraNodeGBps },
                  { "inter_node_gbps", c.interNodeGBps },
                  { "host_ram_gib", c.hostRamGiB },
                  { "cpu_cores", c.cpuCores } };
}

json toJson(const TrainingSpec& t)
{
    json j { { "precision", precisionId(t.precision) },
             { "micro_batch", t.microBatch },
             { "seq_len", t.seqLen },
             { "activation_checkpointing", t.activationCheckpointing },
             { "expandable_segments", t.expandableSegments },
             { "grad_accumulation", t.gradAccumulation } };
    if (t.cudaGraphs) // written only when on: configurations from before the option read the same
        j["cuda_graphs"] = true;
    if (t.checkpointPolicy != CheckpointPolicy::Full) // likewise: absent reads as full
        j["checkpoint_policy"] = checkpointPolicyId(t.checkpointPolicy);
    return j;
}

json toJson(const TuningKnobs& k)
{
    return json { { "reduce_bucket_elements", k.reduceBucketElements },
                  { "allgather_bucket_elements", k.allgatherBucketElements },
                  { "prefetch_bucket_elements", k.prefetchBucketElements },
                  { "persistence_threshold", k.persistenceThreshold },
                  { "fsdp_live_units", k.fsdpLiveUnits },
                  { "max_live_parameters", k.maxLiveParameters },
                  { "max_reuse_distance", k.maxReuseDistance },
                  { "overlap_comm", k.overlapComm } };
}

json toJson(const RunConfig& r)
{
    json j {
        { "model", toJson(r.model) },        { "strategy", strategyId(r.strategy) }, { "training", toJson(r.training) },
        { "knobs", toJson(r.knobs) },        { "device", deviceId(r.device) },       { "world_size", r.worldSize },
        { "warmup_steps", r.warmupSteps },   { "timed_steps", r.timedSteps },        { "seed", r.seed },
        { "learning_rate", r.learningRate }, { "token_file", r.tokenFile }
    };
    // Written only for the torch backend: configurations from before it read as native.
    if (r.backend != RunBackend::Native)
        j["backend"] = backendId(r.backend);
    if (r.torchCompile)
        j["torch_compile"] = true;
    if (r.rehearseWorld > 0)
        j["rehearse_world"] = r.rehearseWorld;
    return j;
}

// ---- from JSON --------------------------------------------------------------------------------

ModelSpec modelFromJson(const json& j, const std::string& path)
{
    using namespace detail;
    FieldReader r(j, path,
                  { "id", "name", "family", "layers", "hidden", "ffn", "heads", "kv_heads", "head_dim", "vocab",
                    "tied_embeddings", "qkv_bias", "norm", "activation", "rope_theta", "norm_eps", "max_position",
                    "rope_scaling" });
    ModelSpec m;
    m.id = r.string("id", std::string {});
    // A model id reaches launch lines, batch scripts and Job manifests: one character set (quote.hpp).
    // An empty one is the file's name, which the caller checks the same way.
    if (!m.id.empty())
        checkModelId(m.id, r.field("id"));
    m.name = r.string("name", m.id);
    m.family = r.string("family", std::string { "llama" });
    // Every dimension bounded as it is read (model_bounds.hpp); validate() checks the products.
    m.layers = r.integer("layers", kLayers.lo, kLayers.hi);
    m.hidden = r.integer("hidden", kHidden.lo, kHidden.hi);
    m.ffn = r.integer("ffn", kFfn.lo, kFfn.hi);
    m.heads = r.integer("heads", kHeads.lo, kHeads.hi);
    m.kvHeads = r.integer("kv_heads", 1, m.heads, m.heads);
    m.headDim = r.integer("head_dim", 1, kHeadDim.hi, m.hidden / m.heads);
    m.vocab = r.integer("vocab", kVocab.lo, kVocab.hi);
    m.tiedEmbeddings = r.boolean("tied_embeddings", false);
    m.qkvBias = r.boolean("qkv_bias", false);
    m.norm = parseNorm(r.string("norm", std::string { "rmsnorm" }), r.field("norm"));
    m.activation = parseActivation(r.string("activation", std::string { "swiglu" }), r.field("activation"));
    m.ropeTheta = r.number("rope_theta", 1.0, 1e12, 10000.0);
    m.normEps = r.number("norm_eps", 1e-12, 1e-1, 1e-6);
    m.maxPosition = r.integer("max_position", kMaxPosition.lo, kMaxPosition.hi, 0);
    if (r.has("rope_scaling")) {
        FieldReader s(r.object("rope_scaling"), r.field("rope_scaling"),
                      { "type", "factor", "low_freq_factor", "high_freq_factor", "original_max_position" });
        const std::string type = s.string("type");
        if (type == "linear")
            m.ropeScaling.kind = RopeScalingKind::Linear;
        else if (type == "llama3")
            m.ropeScaling.kind = RopeScalingKind::Llama3;
        else if (type != "none")
            throw SpecError(s.field("type"), "unknown rope scaling '" + type + "'; allowed: none, linear, llama3");
        const bool llama3 = m.ropeScaling.kind == RopeScalingKind::Llama3;
        m.ropeScaling.factor = s.number("factor", 1.0, 1024.0, 1.0);
        m.ropeScaling.lowFreqFactor
            = s.number("low_freq_factor", 1e-3, 1e3, llama3 ? std::nullopt : std::optional(1.0));
        m.ropeScaling.highFreqFactor
            = s.number("high_freq_factor", 1e-3, 1e3, llama3 ? std::nullopt : std::optional(4.0));
        m.ropeScaling.originalMaxPosition = s.integer("original_max_position", 1, kMaxPosition.hi,
                                                      llama3 ? std::nullopt : std::optional<std::int64_t>(0));
    }
    validate(m, path);
    return m;
}

GpuSpec gpuFromJson(const json& j, const std::string& path)
{
    FieldReader r(j, path,
                  { "id", "name", "memory_mib", "memory_gib", "bf16_tflops", "hbm_gbps", "nvlink_gbps", "pcie_gbps",
                    "architecture", "gke" });
    GpuSpec g;
    g.id = r.string("id", std::string { "custom" });
    g.name = r.string("name", g.id);
    if (r.has("memory_gib") && !r.has("memory_mib"))
        g.memoryMiB = static_cast<std::int64_t>(std::llround(r.number("memory_gib", 1.0, 16384.0) * 1024.0));
    else
        g.memoryMiB = r.integer("memory_mib", 1024, 16LL * 1024 * 1024);
    g.bf16Tflops = r.number("bf16_tflops", 0.1, 100000.0);
    g.hbmGBps = r.number("hbm_gbps", 1.0, 1e6, 1000.0);
    g.nvlinkGBps = r.number("nvlink_gbps", 0.0, 1e5, 0.0);
    g.pcieGBps = r.number("pcie_gbps", 0.1, 1e4, 25.0);
    g.architecture = r.string("architecture", std::string {});
    if (!g.architecture.empty() && g.architecture != "ampere" && g.architecture != "ada" && g.architecture != "hopper"
        && g.architecture != "blackwell")
        throw SpecError(r.field("architecture"),
                        "expected ampere, ada, hopper or blackwell, got '" + g.architecture + "'");
    if (r.has("gke")) {
        FieldReader gke(r.object("gke"), r.field("gke"), { "machine_series", "accelerator" });
        g.gkeMachineSeries = gke.string("machine_series", std::string {});
        g.gkeAccelerator = gke.string("accelerator", std::string {});
    }
    validate(g, path);
    return g;
}

ClusterSpec clusterFromJson(const json& j, const std::string& path)
{
    FieldReader r(
        j, path,
        { "gpus_per_node", "nodes", "intra_node", "intra_node_gbps", "inter_node_gbps", "host_ram_gib", "cpu_cores" });
    ClusterSpec c;
    c.gpusPerNode = static_cast<int>(r.integer("gpus_per_node", 1, 64, 1));
    c.nodes = static_cast<int>(r.integer("nodes", 1, 4096, 1));
    c.intraNode = parseInterconnect(r.string("intra_node", std::string { "nvlink" }), r.field("intra_node"));
    c.intraNodeGBps = r.number("intra_node_gbps", 0.0, 1e5, 0.0);
    c.interNodeGBps = r.number("inter_node_gbps", 0.01, 1e5, 12.5);
    c.hostRamGiB = r.number("host_ram_gib", 1.0, 1e6, 512.0);
    c.cpuCores = static_cast<int>(r.integer("cpu_cores", 1, 4096, 64));
    validate(c, path);
    return c;
}

TrainingSpec trainingFromJson(const json& j, const std::string& path)
{
    FieldReader r(j, path,
                  { "precision", "micro_batch", "seq_len", "activation_checkpointing", "expandable_segments",
                    "grad_accumulation", "cuda_graphs", "checkpoint_policy" });
    TrainingSpec t;
    t.precision = parsePrecision(r.string("precision", std::string { "bf16" }), r.field("precision"));
    t.microBatch = static_cast<int>(r.integer("micro_batch", 1, 4096, 1));
    t.seqLen = static_cast<int>(r.integer("seq_len", 1, 1 << 20, 2048));
    t.activationCheckpointing = r.boolean("activation_checkpointing", false);
    t.expandableSegments = r.boolean("expandable_segments", false);
    t.gradAccumulation = static_cast<int>(r.integer("grad_accumulation", 1, 65536, 1));
    t.cudaGraphs = r.boolean("cuda_graphs", false);
    t.checkpointPolicy
        = parseCheckpointPolicy(r.string("checkpoint_policy", std::string { "full" }), r.field("checkpoint_policy"));
    validate(t, path);
    return t;
}

TuningKnobs knobsFromJson(const json& j, const std::string& path)
{
    FieldReader r(j, path,
                  { "reduce_bucket_elements", "allgather_bucket_elements", "prefetch_bucket_elements",
                    "persistence_threshold", "fsdp_live_units", "max_live_parameters", "max_reuse_distance",
                    "overlap_comm" });
    TuningKnobs d;
    TuningKnobs k;
    k.reduceBucketElements = r.integer("reduce_bucket_elements", 1, 1LL << 40, d.reduceBucketElements);
    k.allgatherBucketElements = r.integer("allgather_bucket_elements", 1, 1LL << 40, d.allgatherBucketElements);
    k.prefetchBucketElements = r.integer("prefetch_bucket_elements", 0, 1LL << 40, d.prefetchBucketElements);
    k.persistenceThreshold = r.integer("persistence_threshold", 0, 1LL << 40, d.persistenceThreshold);
    k.fsdpLiveUnits = static_cast<int>(r.integer("fsdp_live_units", 1, 64, d.fsdpLiveUnits));
    k.maxLiveParameters = r.integer("max_live_parameters", 0, 1LL << 40, d.maxLiveParameters);
    k.maxReuseDistance = r.integer("max_reuse_distance", 0, 1LL << 40, d.maxReuseDistance);
    k.overlapComm = r.boolean("overlap_comm", d.overlapComm);
    return k;
}

RunConfig runConfigFromJson(const json& j, const std::string& path)
{
    FieldReader r(j, path,
                  { "model", "strategy", "training", "knobs", "device", "world_size", "warmup_steps", "timed_steps",
                    "seed", "learning_rate", "token_file", "backend", "torch_compile", "rehearse_world" });
    RunConfig c;
    c.model = modelFromJson(r.object("model"), r.field("model"));
    c.strategy = parseStrategy(r.string("strategy"), r.field("strategy"));
    if (r.has("training"))
        c.training = trainingFromJson(r.object("training"), r.field("training"));
    if (r.has("knobs"))
        c.knobs = knobsFromJson(r.object("knobs"), r.field("knobs"));
    c.device = parseDevice(r.string("device", std::string { "cpu" }), r.field("device"));
    c.worldSize = static_cast<int>(r.integer("world_size", 1, 65536, 1));
    c.warmupSteps = static_cast<int>(r.integer("warmup_steps", 0, 100000, 5));
    c.timedSteps = static_cast<int>(r.integer("timed_steps", 1, 100000, 15));
    c.seed = static_cast<std::uint64_t>(r.integer("seed", 0, std::numeric_limits<std::int64_t>::max(), 1234));
    c.learningRate = r.number("learning_rate", 0.0, 10.0, 1e-3);
    c.tokenFile = r.string("token_file", std::string {});
    c.backend = parseBackend(r.string("backend", std::string { "native" }), r.field("backend"));
    c.torchCompile = r.boolean("torch_compile", false);
    c.rehearseWorld = static_cast<int>(r.integer("rehearse_world", 1, kMaxRehearsedWorld, 0));
    validate(c, path);
    return c;
}

// ---- validation -------------------------------------------------------------------------------

void validate(const ModelSpec& m, const std::string& path)
{
    detail::checkModelShape(m, path, detail::kSpecFieldNames);
    const RopeScaling& s = m.ropeScaling;
    if (s.kind != RopeScalingKind::None && !(s.factor >= 1.0 && s.factor <= 1024.0))
        throw SpecError(join(path, "rope_scaling.factor"), "must be in [1, 1024], got " + formatNumber(s.factor));
    if (s.kind == RopeScalingKind::Llama3) {
        if (!(s.lowFreqFactor > 0 && s.highFreqFactor > s.lowFreqFactor))
            throw SpecError(join(path, "rope_scaling.high_freq_factor"),
                            "must be greater than low_freq_factor (" + formatNumber(s.lowFreqFactor)
                                + ") and both positive");
        if (s.originalMaxPosition < 1)
            throw SpecError(join(path, "rope_scaling.original_max_position"),
                            "must be positive, got " + std::to_string(s.originalMaxPosition));
    }
}

void validate(const GpuSpec& g, const std::string& path)
{
    if (g.memoryMiB < 1024)
        throw SpecError(join(path, "memory_mib"), "must be at least 1024, got " + std::to_string(g.memoryMiB));
    if (!(g.bf16Tflops > 0))
        throw SpecError(join(path, "bf16_tflops"), "must be positive, got " + formatNumber(g.bf16Tflops));
    if (!(g.pcieGBps > 0))
        throw SpecError(join(path, "pcie_gbps"), "must be positive, got " + formatNumber(g.pcieGBps));
}

void validate(const ClusterSpec& c, const std::string& path)
{
    if (c.gpusPerNode < 1 || c.gpusPerNode > 64)
        throw SpecError(join(path, "gpus_per_node"), "must be in [1, 64], got " + std::to_string(c.gpusPerNode));
    if (c.nodes < 1 || c.nodes > 4096)
        throw SpecError(join(path, "nodes"), "must be in [1, 4096], got " + std::to_string(c.nodes));
    if (c.intraNodeGBps < 0)
        throw SpecError(join(path, "intra_node_gbps"), "must be >= 0, got " + formatNumber(c.intraNodeGBps));
    if (!(c.interNodeGBps > 0))
        throw SpecError(join(path, "inter_node_gbps"), "must be positive, got " + formatNumber(c.interNodeGBps));
    // The same bounds as the JSON reader's.
    if (!(c.hostRamGiB >= 1.0 && c.hostRamGiB <= 1e6))
        throw SpecError(join(path, "host_ram_gib"), "must be in [1, 1e6], got " + formatNumber(c.hostRamGiB));
}

void validate(const TrainingSpec& t, const std::string& path)
{
    if (t.microBatch < 1 || t.microBatch > 4096)
        throw SpecError(join(path, "micro_batch"), "must be in [1, 4096], got " + std::to_string(t.microBatch));
    if (t.seqLen < 1 || t.seqLen > (1 << 20))
        throw SpecError(join(path, "seq_len"), "must be in [1, 1048576], got " + std::to_string(t.seqLen));
    if (t.gradAccumulation < 1)
        throw SpecError(join(path, "grad_accumulation"), "must be >= 1, got " + std::to_string(t.gradAccumulation));
}

void validate(const RunConfig& r, const std::string& path)
{
    validate(r.model, join(path, "model"));
    validate(r.training, join(path, "training"));
    if (r.worldSize < 1)
        throw SpecError(join(path, "world_size"), "must be >= 1, got " + std::to_string(r.worldSize));
    if (r.timedSteps < 1)
        throw SpecError(join(path, "timed_steps"), "must be >= 1, got " + std::to_string(r.timedSteps));
    if (r.warmupSteps < 0)
        throw SpecError(join(path, "warmup_steps"), "must be >= 0, got " + std::to_string(r.warmupSteps));
    if (r.model.maxPosition > 0 && r.training.seqLen > r.model.maxPosition)
        throw SpecError(join(path, "training.seq_len"),
                        "must not exceed the model's max_position (" + std::to_string(r.model.maxPosition) + "), got "
                            + std::to_string(r.training.seqLen));
    if (r.torchCompile && r.backend != RunBackend::Torch)
        throw SpecError(join(path, "torch_compile"),
                        "torch.compile needs backend torch (the native runner is not a "
                        "PyTorch program)");
    if (r.backend == RunBackend::Torch && !frameworkSupports(Framework::Fsdp2, r.strategy))
        throw SpecError(join(path, "strategy"),
                        "the torch backend cannot run " + std::string(strategyId(r.strategy))
                            + ": PyTorch expresses zero0 (DDP), fsdp2_noreshard, fsdp2_reshard and "
                              "fsdp2_reshard_offload (fully_shard)");
    if (r.rehearseWorld < 0 || r.rehearseWorld > kMaxRehearsedWorld)
        throw SpecError(join(path, "rehearse_world"),
                        "must be in [1, " + std::to_string(kMaxRehearsedWorld)
                            + "] (the largest world whose shards the "
                              "runner's padded buffers and the store represent), got "
                            + std::to_string(r.rehearseWorld));
    if (r.rehearseWorld > 0 && r.worldSize != 1)
        throw SpecError(join(path, "rehearse_world"),
                        "a rehearsal of world " + std::to_string(r.rehearseWorld)
                            + " runs one process (rank 0 of that world); world_size must be 1, got "
                            + std::to_string(r.worldSize));
    if (r.rehearseWorld > 0 && r.training.cudaGraphs)
        throw SpecError(join(path, "rehearse_world"),
                        "a rehearsal measures memory; CUDA graphs are not rehearsed (leave cuda_graphs off)");
    if (r.backend == RunBackend::Torch && r.training.cudaGraphs)
        throw SpecError(join(path, "training.cuda_graphs"),
                        "the torch backend runs eager or compiled steps, not "
                        "CUDA graphs");
    if (r.training.cudaGraphs) {
        const auto& tr = traits(r.strategy);
        const std::string where = join(path, "training.cuda_graphs");
        if (r.device != DeviceKind::Cuda)
            throw SpecError(where, "CUDA graphs need device cuda");
        if (tr.offloadsOptimizer || tr.offloadsParameters)
            throw SpecError(where,
                            std::string("CUDA graphs cannot capture ") + std::string(strategyId(r.strategy))
                                + ": its optimizer step runs on the host between the step's kernels");
        if (r.training.precision != PrecisionPolicy::PureBf16)
            throw SpecError(where,
                            "CUDA graphs need precision bf16 (the fused AdamW that reads its step count on the "
                            "device); bf16-fp32-master steps with the host's count");
        if (r.warmupSteps < kCudaGraphWarmupSteps)
            throw SpecError(where,
                            "CUDA graphs need at least " + std::to_string(kCudaGraphWarmupSteps)
                                + " warm-up steps (two eager steps settle the schedule, the third is captured), got "
                                + std::to_string(r.warmupSteps));
    }
}

} // namespace shardwise
