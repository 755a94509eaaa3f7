#include "common.hpp"

#include "shardwise/spec/json.hpp"
#include "shardwise/spec/message.hpp"
#include "shardwise/spec/quote.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iterator>

namespace shardwise::frameworks {

namespace {

// The last torchtitan release with a TOML job config (torchtitan/config/job_config.py).
constexpr int kLastTomlTorchtitan[3] = { 0, 2, 2 };

struct KindEntry {
    ConfigKind kind;
    std::string_view id;
    std::string_view fileName;
};

constexpr std::array<KindEntry, kConfigKindCount> kKinds { {
    { ConfigKind::DsConfig, "ds-config", "ds_config.json" },
    { ConfigKind::Accelerate, "accelerate", "accelerate.yaml" },
    { ConfigKind::Torchtitan, "torchtitan", "shardwise.toml" },
    { ConfigKind::Fsdp2Python, "fsdp2-python", "train_fsdp2.py" },
    { ConfigKind::Launch, "launch", "launch.sh" },
    { ConfigKind::Sbatch, "sbatch", "shardwise.sbatch" },
} };

const KindEntry& entry(ConfigKind k)
{
    for (const auto& e : kKinds)
        if (e.kind == k)
            return e;
    return kKinds.front();
}

// Whether the plan targets a torchtitan release after 0.2.2: torchtitan's main branch replaced the TOML
// job config with Python config dataclasses ("Config System Refactor: TOML to Python Dataclass Registry",
// pytorch/torchtitan PR #2386, February 2026), so no TOML export, nor a launch line that runs one, fits it.
bool torchtitanWithoutToml(const EstimateInput& in)
{
    if (in.framework.framework != Framework::Torchtitan || in.framework.version.empty())
        return false;
    int v[3] = { 0, 0, 0 };
    std::sscanf(in.framework.version.c_str(), "%d.%d.%d", &v[0], &v[1], &v[2]);
    return std::lexicographical_compare(std::begin(kLastTomlTorchtitan), std::end(kLastTomlTorchtitan), std::begin(v),
                                        std::end(v));
}

std::string torchtitanWithoutTomlReason(const EstimateInput& in)
{
    return "torchtitan " + in.framework.version
        + " has no TOML job config: torchtitan replaced it with Python config dataclasses after release 0.2.2 "
          "(pytorch/torchtitan PR #2386, February 2026); plan with --framework-version 0.2.2 or earlier for a "
          "TOML, or write your release's config from the plan's figures";
}

// The framework whose vocabulary an export speaks for a strategy; Accelerate speaks DeepSpeed's for the
// ZeRO stages it hands to DeepSpeed and FSDP2's (or DDP's) for the rest.
bool kindExpresses(ConfigKind kind, const EstimateInput& in, Strategy s)
{
    switch (kind) {
    case ConfigKind::DsConfig:
        return frameworkSupports(Framework::DeepSpeed, s);
    case ConfigKind::Accelerate:
        return true;
    case ConfigKind::Torchtitan:
        return frameworkSupports(Framework::Torchtitan, s) && !torchtitanWithoutToml(in);
    case ConfigKind::Fsdp2Python:
        return frameworkSupports(Framework::Fsdp2, s);
    case ConfigKind::Launch:
    case ConfigKind::Sbatch:
        return frameworkSupports(in.framework.framework, s) && !torchtitanWithoutToml(in);
    }
    return false;
}

std::string fsdpOrDeepSpeed(Strategy s)
{
    if (traits(s).family == StrategyFamily::Fsdp2)
        return std::string(strategyId(s))
            + " is an FSDP2 setup: export accelerate, torchtitan or fsdp2-python, or plan "
              "with --framework fsdp2 or torchtitan";
    return std::string(strategyId(s))
        + " is a DeepSpeed ZeRO stage: export ds-config or accelerate, or plan with "
          "--framework deepspeed";
}

} // namespace

const std::array<ConfigKind, kConfigKindCount>& allConfigKinds()
{
    static const std::array<ConfigKind, kConfigKindCount> kinds { ConfigKind::DsConfig,   ConfigKind::Accelerate,
                                                                  ConfigKind::Torchtitan, ConfigKind::Fsdp2Python,
                                                                  ConfigKind::Launch,     ConfigKind::Sbatch };
    return kinds;
}

std::string_view configKindId(ConfigKind k)
{
    return entry(k).id;
}
std::string_view configKindFileName(ConfigKind k)
{
    return entry(k).fileName;
}

std::optional<ConfigKind> configKindFromId(std::string_view id)
{
    for (const auto& e : kKinds)
        if (e.id == id)
            return e.kind;
    return std::nullopt;
}

std::string configKindIdList()
{
    std::string out;
    for (const auto& e : kKinds)
        out += (out.empty() ? "" : ", ") + std::string(e.id);
    return out;
}

std::string_view configFormatId(ConfigFormat f)
{
    switch (f) {
    case ConfigFormat::DsConfig:
        return "ds-config";
    case ConfigFormat::Accelerate:
        return "accelerate";
    case ConfigFormat::Torchtitan:
        break;
    }
    return "torchtitan";
}

PlanIdentity planIdentity(const EstimateInput& in, Strategy s)
{
    PlanIdentity id;
    id.modelId = in.model.id;
    id.gpuId = in.gpu.id;
    id.world = in.cluster.worldSize();
    const FrameworkTarget& t = in.framework;
    std::string target(traits(t.framework).label);
    if (!t.effectiveVersion().empty())
        target += " " + t.effectiveVersion();
    if (t.compiled)
        target += " + torch.compile";
    // A DeepSpeed plan that asks for pure bf16 where DeepSpeed keeps an fp32 master names both.
    std::string precision(precisionId(in.training.precision));
    if (t.framework == Framework::DeepSpeed && detail::pureBf16WrittenAsFp32Master(in, s))
        precision = "bf16-fp32-master (pure bf16 asked for; DeepSpeed keeps an fp32 master)";
    id.description = "Shardwise plan: " + in.model.id + " on " + std::to_string(id.world) + " x " + in.gpu.id + " ("
        + countOf(in.cluster.nodes, "node") + " x " + std::to_string(in.cluster.gpusPerNode) + "), "
        + std::string(strategyId(s)) + ", sequence " + std::to_string(in.training.seqLen) + ", micro-batch "
        + std::to_string(in.training.microBatch) + " x " + std::to_string(in.training.gradAccumulation)
        + " accumulation, " + precision + ", activation checkpointing "
        + std::string(detail::checkpointingId(in.training)) + ", for " + target;
    return id;
}

std::string frameworkUnsupportedReason(Framework f, Strategy s)
{
    if (frameworkSupports(f, s))
        return {};
    return std::string(traits(f).label) + " cannot run " + std::string(strategyId(s)) + ": " + fsdpOrDeepSpeed(s);
}

bool exportSupports(ConfigKind kind, const EstimateInput& in, Strategy s)
{
    return kindExpresses(kind, in, s);
}

std::string unsupportedReason(ConfigKind kind, const EstimateInput& in, Strategy s)
{
    if (kindExpresses(kind, in, s))
        return {};
    if ((kind == ConfigKind::Torchtitan || kind == ConfigKind::Launch || kind == ConfigKind::Sbatch)
        && torchtitanWithoutToml(in) && frameworkSupports(Framework::Torchtitan, s))
        return std::string(configKindId(kind)) + ": " + torchtitanWithoutTomlReason(in);
    if (kind == ConfigKind::Launch || kind == ConfigKind::Sbatch)
        return std::string(configKindId(kind)) + ": " + frameworkUnsupportedReason(in.framework.framework, s);
    return std::string(configKindId(kind)) + " cannot express " + std::string(strategyId(s)) + ": "
        + fsdpOrDeepSpeed(s);
}

std::string exportConfig(ConfigKind kind, const EstimateInput& in, Strategy s, const PlanIdentity& id)
{
    detail::requireSupported(kind, in, s);
    switch (kind) {
    case ConfigKind::DsConfig:
        return detail::exportDsConfig(in, s, id);
    case ConfigKind::Accelerate:
        return detail::exportAccelerate(in, s, id);
    case ConfigKind::Torchtitan:
        return detail::exportTorchtitan(in, s, id);
    case ConfigKind::Fsdp2Python:
        return detail::exportFsdp2Python(in, s, id);
    case ConfigKind::Launch:
        return detail::exportLaunch(in, s, id);
    case ConfigKind::Sbatch:
        return detail::exportSbatch(in, s, id);
    }
    return {};
}

Framework configFramework(ConfigKind kind, const EstimateInput& in, Strategy s)
{
    switch (kind) {
    case ConfigKind::DsConfig:
        return Framework::DeepSpeed;
    case ConfigKind::Torchtitan:
        return Framework::Torchtitan;
    case ConfigKind::Fsdp2Python:
        return Framework::Fsdp2;
    case ConfigKind::Accelerate:
        return traits(s).family == StrategyFamily::DeepSpeedZero && s != Strategy::Zero0 ? Framework::DeepSpeed
                                                                                         : Framework::Fsdp2;
    case ConfigKind::Launch:
    case ConfigKind::Sbatch:
        break;
    }
    return in.framework.framework;
}

std::string decoderLayerClass(const ModelSpec& m)
{
    // Hugging Face transformers names each architecture's layer <Family>DecoderLayer
    // (models/qwen2/modeling_qwen2.py: Qwen2DecoderLayer; llama: LlamaDecoderLayer; mistral: MistralDecoderLayer).
    std::string family = m.family.empty() ? std::string("llama") : m.family;
    std::string out;
    bool upper = true;
    for (char c : family) {
        if (c == '_' || c == '-') {
            upper = true;
            continue;
        }
        out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        upper = false;
    }
    return out + "DecoderLayer";
}

namespace detail {

std::int64_t globalBatch(const EstimateInput& in)
{
    return static_cast<std::int64_t>(in.training.microBatch) * in.training.gradAccumulation * in.cluster.worldSize();
}

std::string commentLines(std::string_view prefix, const std::string& text)
{
    std::string out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = text.find('\n', start);
        const std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        out += std::string(prefix) + line + "\n";
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    return out;
}

std::string header(std::string_view prefix, const PlanIdentity& id, std::string_view kindLine)
{
    // Single lines whatever the plan's names hold: a newline never ends the comment.
    std::string h = std::string(prefix) + commentText(id.description) + "\n";
    h += std::string(prefix) + "Written by Shardwise; " + commentText(kindLine) + "\n";
    return h;
}

void requireSupported(ConfigKind kind, const EstimateInput& in, Strategy s)
{
    if (!kindExpresses(kind, in, s))
        throw SpecError("strategy", unsupportedReason(kind, in, s));
}

std::string_view checkpointingId(const TrainingSpec& t)
{
    if (!t.activationCheckpointing)
        return "off";
    return checkpointPolicyId(t.checkpointPolicy);
}

int zeroStage(Strategy s)
{
    switch (s) {
    case Strategy::Zero0:
        return 0;
    case Strategy::Zero1:
        return 1;
    case Strategy::Zero2:
    case Strategy::Zero2Offload:
        return 2;
    default:
        return 3;
    }
}

} // namespace detail

} // namespace shardwise::frameworks
