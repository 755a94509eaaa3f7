#include "common.hpp"

#include "shardwise/spec/json.hpp"
#include "shardwise/spec/message.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace shardwise::frameworks {

namespace detail {

void warn(ImportedSettings& s, std::string key, std::string message)
{
    s.warnings.push_back({ std::move(key), std::move(message) });
}

void fillFromRecord(std::string_view text, ImportedSettings& s)
{
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(at, end - at);
        at = end + 1;
        if (line.substr(0, kRecordPrefix.size()) != kRecordPrefix)
            continue;
        std::istringstream fields { std::string(line.substr(kRecordPrefix.size())) };
        std::string field;
        while (fields >> field) {
            const std::size_t eq = field.find('=');
            const std::string name = field.substr(0, eq);
            const std::string key = "shardwise." + name;
            if (eq == std::string::npos)
                throw SpecError(key, "expected name=value in the \"# shardwise:\" record, got '" + field + "'");
            const std::string value = field.substr(eq + 1);
            auto number = [&](int lo, int hi) {
                int x = 0;
                const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), x);
                if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() || x < lo || x > hi)
                    throw SpecError(key,
                                    "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi)
                                        + "], got '" + value + "'");
                return x;
            };
            if (name == "micro_batch") {
                const int v = number(1, 65536);
                if (!s.microBatch)
                    s.microBatch = v;
            } else if (name == "grad_accumulation") {
                const int v = number(1, 65536);
                if (!s.gradAccumulation)
                    s.gradAccumulation = v;
            } else if (name == "seq_len") {
                const int v = number(1, 1 << 24);
                if (!s.seqLen)
                    s.seqLen = v;
            } else if (name == "precision") {
                const PrecisionPolicy p = parsePrecision(value, key);
                // The record says which of the two a bf16 key means (pure bf16 has no key of its own).
                s.precision = p;
            } else if (name == "activation_checkpointing") {
                if (value != "off" && value != "full" && value != "selective")
                    throw SpecError(key, "expected off, full or selective, got '" + value + "'");
                if (!s.activationCheckpointing || *s.activationCheckpointing == (value != "off")) {
                    s.activationCheckpointing = value != "off";
                    if (value != "off")
                        s.checkpointPolicy
                            = value == "selective" ? CheckpointPolicy::Selective : CheckpointPolicy::Full;
                }
            } else {
                warn(s, key, "not a field of Shardwise's record; ignored");
            }
        }
        return;
    }
}

Strategy strategyForZero(int stage, const std::string& optimizerDevice, const std::string& paramDevice,
                         const std::string& optimizerKey, const std::string& paramKey, ImportedSettings& s)
{
    for (const auto& [device, key] :
         { std::pair { optimizerDevice, optimizerKey }, std::pair { paramDevice, paramKey } })
        if (device != "none" && device != "cpu")
            throw SpecError(
                key, "'" + device + "' is not planned: Shardwise plans offload to CPU memory only (cpu or none)");
    const bool optimizerOff = optimizerDevice == "cpu";
    const bool paramOff = paramDevice == "cpu";
    if (stage < 2 && (optimizerOff || paramOff))
        throw SpecError(optimizerOff ? optimizerKey : paramKey,
                        "offload with ZeRO stage " + std::to_string(stage)
                            + " is none of the nine strategies; Shardwise plans CPU offload with stage 2 "
                              "(zero2_offload) or stage 3 (zero3_offload)");
    // DeepSpeed's stage 1/2 optimizer (runtime/zero/stage_1_and_2.py) reads offload_optimizer only:
    // stage 2 keeps the parameters on the GPU whatever offload_param says.
    if (stage == 2 && paramOff)
        warn(s, paramKey,
             "DeepSpeed offloads parameters at stage 3 only: stage 2 keeps them on the GPU, and so does the plan");
    if (stage == 3 && paramOff && !optimizerOff)
        throw SpecError(paramKey,
                        "parameter offload without optimizer offload is none of the nine strategies; "
                        "zero3_offload offloads the optimizer");
    if (stage == 3 && paramOff)
        warn(s, paramKey,
             "parameters offloaded too: planned as zero3_offload, which keeps the parameter shards on the GPU "
             "(the plan's device memory is an upper bound)");
    switch (stage) {
    case 0:
        return Strategy::Zero0;
    case 1:
        return Strategy::Zero1;
    case 2:
        return optimizerOff ? Strategy::Zero2Offload : Strategy::Zero2;
    default:
        return optimizerOff ? Strategy::Zero3Offload : Strategy::Zero3;
    }
}

} // namespace detail

bool ImportedSettings::sameSettings(const ImportedSettings& o) const
{
    return format == o.format && framework == o.framework && strategy == o.strategy && precision == o.precision
        && microBatch == o.microBatch && gradAccumulation == o.gradAccumulation && trainBatchSize == o.trainBatchSize
        && worldSize == o.worldSize && nodes == o.nodes && seqLen == o.seqLen
        && activationCheckpointing == o.activationCheckpointing && checkpointPolicy == o.checkpointPolicy
        && compiled == o.compiled && reduceBucketElements == o.reduceBucketElements
        && allgatherBucketElements == o.allgatherBucketElements && prefetchBucketElements == o.prefetchBucketElements
        && persistenceThreshold == o.persistenceThreshold && maxLiveParameters == o.maxLiveParameters
        && maxReuseDistance == o.maxReuseDistance && overlapComm == o.overlapComm;
}

namespace {

ImportedSettings importText(std::string_view text, std::string_view fileName, const std::string& directory)
{
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    const bool json = first != std::string_view::npos && text[first] == '{';
    const std::string name = fileName.empty() ? std::string("the config") : std::string(fileName);
    // A torchtitan job config: named .toml, or its first line that is neither blank nor a comment is
    // a [section] header (no Accelerate YAML starts so: its top level is a mapping).
    bool toml = fileName.size() >= 5 && fileName.substr(fileName.size() - 5) == ".toml";
    for (std::size_t at = 0; !json && !toml && at < text.size();) {
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view line = text.substr(at, end - at);
        at = end + 1;
        const std::size_t c = line.find_first_not_of(" \t\r");
        if (c == std::string_view::npos || line[c] == '#')
            continue;
        toml = line[c] == '[';
        break;
    }
    if (toml)
        return detail::importTorchtitan(text);
    if (json) {
        nlohmann::json j;
        try {
            // DeepSpeed reads ds_config files with hjson, which allows comments; so does this.
            j = nlohmann::json::parse(text, nullptr, true, true);
        } catch (const nlohmann::json::parse_error& e) {
            throw SpecError("file", name + " is not valid JSON: " + e.what());
        }
        return detail::importDsConfig(j);
    }
    return detail::importAccelerate(text, directory);
}

} // namespace

ImportedSettings importConfig(std::string_view text, std::string_view fileName)
{
    return importText(text, fileName, "");
}

ImportedSettings importConfigFile(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw SpecError("file", "cannot read '" + path + "'");
    std::ostringstream text;
    text << f.rdbuf();
    return importText(text.str(), path, std::filesystem::path(path).parent_path().string());
}

void applyImported(const ImportedSettings& s, EstimateInput& in)
{
    const std::string worldKey = s.format == ConfigFormat::DsConfig ? "train_batch_size"
        : s.format == ConfigFormat::Accelerate                      ? "num_processes"
                                                                    : "parallelism.data_parallel_shard_degree";
    const std::string batchKey
        = s.format == ConfigFormat::Torchtitan ? "training.global_batch_size" : "train_batch_size";
    in.framework.framework = s.framework;
    if (s.compiled)
        in.framework.compiled = *s.compiled;
    if (s.precision)
        in.training.precision = *s.precision;
    if (s.microBatch)
        in.training.microBatch = *s.microBatch;
    if (s.gradAccumulation)
        in.training.gradAccumulation = *s.gradAccumulation;
    if (s.seqLen)
        in.training.seqLen = *s.seqLen;
    if (s.activationCheckpointing) {
        in.training.activationCheckpointing = *s.activationCheckpointing;
        in.training.checkpointPolicy = s.checkpointPolicy.value_or(CheckpointPolicy::Full);
    }
    if (s.nodes)
        in.cluster.nodes = *s.nodes;
    if (s.worldSize) {
        if (*s.worldSize % in.cluster.nodes != 0)
            throw SpecError(worldKey,
                            "a world of " + countOf(*s.worldSize, "GPU") + " does not divide over "
                                + countOf(in.cluster.nodes, "node"));
        in.cluster.gpusPerNode = *s.worldSize / in.cluster.nodes;
    }
    if (s.trainBatchSize && !(s.microBatch && s.gradAccumulation)) {
        const std::int64_t world = in.cluster.worldSize();
        const std::int64_t tbs = *s.trainBatchSize;
        if (!s.microBatch && s.gradAccumulation) {
            const std::int64_t per = static_cast<std::int64_t>(in.training.gradAccumulation) * world;
            if (tbs % per != 0)
                throw SpecError(batchKey,
                                std::to_string(tbs) + " is not a multiple of accumulation x world ("
                                    + std::to_string(per) + ")");
            in.training.microBatch = static_cast<int>(tbs / per);
        } else {
            const std::int64_t per = static_cast<std::int64_t>(in.training.microBatch) * world;
            if (tbs % per != 0)
                throw SpecError(batchKey,
                                std::to_string(tbs) + " is not a multiple of micro-batch x world ("
                                    + std::to_string(per) + ")");
            in.training.gradAccumulation = static_cast<int>(tbs / per);
        }
    }
    TuningKnobs& k = in.knobs;
    if (s.reduceBucketElements)
        k.reduceBucketElements = *s.reduceBucketElements;
    if (s.allgatherBucketElements)
        k.allgatherBucketElements = *s.allgatherBucketElements;
    if (s.prefetchBucketElements)
        k.prefetchBucketElements = *s.prefetchBucketElements;
    if (s.persistenceThreshold)
        k.persistenceThreshold = *s.persistenceThreshold;
    if (s.maxLiveParameters)
        k.maxLiveParameters = *s.maxLiveParameters;
    if (s.maxReuseDistance)
        k.maxReuseDistance = *s.maxReuseDistance;
    if (s.overlapComm)
        k.overlapComm = *s.overlapComm;
}

} // namespace shardwise::frameworks
