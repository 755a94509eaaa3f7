#include "workspace/plan_input.hpp"

#include "shardwise/spec/json.hpp"
#include "shardwise/spec/presets.hpp"

#include <QJsonDocument>

#include <nlohmann/json.hpp>

namespace shardwise::gui {

namespace {

int requiredInt(const QJsonObject& s, const char* key, const std::string& field)
{
    const QJsonValue v = s.value(QLatin1String(key));
    if (!v.isDouble())
        throw SpecError(field, "missing or not a number");
    return v.toInt();
}

// A field added after forms were first saved: absent means the default the older form was planned with.
// Its range is checked with the rest of the cluster (validate).
double optionalNumber(const QJsonObject& s, const char* key, const std::string& field, double fallback)
{
    const QJsonValue v = s.value(QLatin1String(key));
    if (v.isUndefined())
        return fallback;
    if (!v.isDouble())
        throw SpecError(field, "not a number");
    return v.toDouble();
}

} // namespace

EstimateInput planInputFromState(const QJsonObject& s)
{
    EstimateInput in;
    in.model = resolveModel(s.value(QStringLiteral("model")).toString().toStdString(), "model");
    const QString gpu = s.value(QStringLiteral("gpu")).toString();
    if (gpu == QLatin1String("custom")) {
        const QJsonObject c = s.value(QStringLiteral("custom_gpu")).toObject();
        in.gpu.id = "custom";
        in.gpu.name = "Custom GPU";
        in.gpu.memoryMiB = static_cast<std::int64_t>(c.value(QStringLiteral("memory_gib")).toDouble() * 1024.0);
        in.gpu.bf16Tflops = c.value(QStringLiteral("bf16_tflops")).toDouble();
        in.gpu.hbmGBps = c.value(QStringLiteral("hbm_gbps")).toDouble();
        in.gpu.nvlinkGBps = c.value(QStringLiteral("nvlink_gbps")).toDouble();
        in.gpu.pcieGBps = c.value(QStringLiteral("pcie_gbps")).toDouble();
        validate(in.gpu, "custom_gpu");
    } else {
        in.gpu = resolveGpu(gpu.toStdString(), "gpu");
    }
    in.cluster.gpusPerNode = requiredInt(s, "gpus_per_node", "cluster.gpus_per_node");
    in.cluster.nodes = requiredInt(s, "nodes", "cluster.nodes");
    in.cluster.hostRamGiB = optionalNumber(s, "host_ram_gib", "cluster.host_ram_gib", ClusterSpec {}.hostRamGiB);
    in.cluster.intraNode
        = parseInterconnect(s.value(QStringLiteral("interconnect")).toString().toStdString(), "cluster.intra_node");
    in.training.precision
        = parsePrecision(s.value(QStringLiteral("precision")).toString().toStdString(), "training.precision");
    in.training.microBatch = requiredInt(s, "micro_batch", "training.micro_batch");
    in.training.seqLen = requiredInt(s, "seq_len", "training.seq_len");
    in.training.expandableSegments = s.value(QStringLiteral("expandable_segments")).toBool();
    in.training.activationCheckpointing = s.value(QStringLiteral("activation_checkpointing")).toBool();
    // Absent in workspaces saved before the option: eager steps. Under bf16-fp32-master no strategy can
    // be captured (the form disables the box), so the plan stays eager rather than predicting graphs.
    in.training.cudaGraphs
        = s.value(QStringLiteral("cuda_graphs")).toBool(false) && in.training.precision == PrecisionPolicy::PureBf16;
    // Fields added with the framework target; absent in forms saved before it: the native runner, one
    // accumulation step, full checkpointing, the default network.
    in.cluster.interNodeGBps
        = optionalNumber(s, "inter_node_gbps", "cluster.inter_node_gbps", ClusterSpec {}.interNodeGBps);
    in.training.gradAccumulation
        = static_cast<int>(optionalNumber(s, "grad_accumulation", "training.grad_accumulation", 1));
    in.training.checkpointPolicy = parseCheckpointPolicy(
        s.value(QStringLiteral("checkpoint_policy")).toString(QStringLiteral("full")).toStdString(),
        "training.checkpoint_policy");
    in.framework.framework = parseFramework(
        s.value(QStringLiteral("framework")).toString(QStringLiteral("native")).toStdString(), "framework");
    in.framework.version = s.value(QStringLiteral("framework_version")).toString().trimmed().toStdString();
    in.framework.compiled = s.value(QStringLiteral("compile")).toBool(false)
        && (in.framework.framework == Framework::Fsdp2 || in.framework.framework == Framework::Torchtitan);
    if (const QJsonValue k = s.value(QStringLiteral("knobs")); k.isObject())
        in.knobs = knobsFromJson(nlohmann::json::parse(QJsonDocument(k.toObject()).toJson().toStdString()), "knobs");
    validate(in.cluster, "cluster");
    validate(in.training, "training");
    return in;
}

} // namespace shardwise::gui
