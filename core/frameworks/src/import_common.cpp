#include "common.hpp"

#include "shardwise/spec/json.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace shardwise::frameworks {

namespace detail {

void warn(ImportedSettings& s, std::string key, std::string message)
{
    s.warnings.push_back({std::move(key), std::move(message)});
}

Strategy strategyForZero(int stage, const std::string& optimizerDevice, const std::string& paramDevice,
                         const std::string& optimizerKey, const std::string& paramKey, ImportedSettings& s)
{
    for (const auto& [device, key] : {std::pair{optimizerDevice, optimizerKey}, std::pair{paramDevice, paramKey}})
        if (device != "none" && device != "cpu")
            throw SpecError(key, "'" + device + "' is not planned: Shardwise plans offload to CPU memory only (cpu or none)");
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
        throw SpecError(paramKey, "parameter offload without optimizer offload is none of the nine strategies; "
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
    const std::string worldKey = s.format == ConfigFormat::DsConfig ? "train_batch_size" : "num_processes";
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
            throw SpecError(worldKey, "a world of " + std::to_string(*s.worldSize) + " GPU(s) does not divide over "
                                          + std::to_string(in.cluster.nodes) + " node(s)");
        in.cluster.gpusPerNode = *s.worldSize / in.cluster.nodes;
    }
    if (s.trainBatchSize && !(s.microBatch && s.gradAccumulation)) {
        const std::int64_t world = in.cluster.worldSize();
        const std::int64_t tbs = *s.trainBatchSize;
        if (!s.microBatch && s.gradAccumulation) {
            const std::int64_t per = static_cast<std::int64_t>(in.training.gradAccumulation) * world;
            if (tbs % per != 0)
                throw SpecError("train_batch_size", std::to_string(tbs) + " is not a multiple of accumulation x world ("
                                                        + std::to_string(per) + ")");
            in.training.microBatch = static_cast<int>(tbs / per);
        } else {
            const std::int64_t per = static_cast<std::int64_t>(in.training.microBatch) * world;
            if (tbs % per != 0)
                throw SpecError("train_batch_size", std::to_string(tbs) + " is not a multiple of micro-batch x world ("
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
