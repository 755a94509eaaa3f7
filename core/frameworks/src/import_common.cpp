#include "common.hpp"

#include "shardwise/frameworks/import_limits.hpp"
#include "shardwise/spec/json.hpp"
#include "shardwise/spec/message.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <filesystem>
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
            const std::string key = "shardwise." + clipForMessage(name);
            if (eq == std::string::npos)
                throw SpecError(
                    key, "expected name=value in the \"# shardwise:\" record, got '" + clipForMessage(field) + "'");
            const std::string value = field.substr(eq + 1);
            auto number = [&](int lo, int hi) {
                int x = 0;
                const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), x);
                if (value.empty() || ec != std::errc() || ptr != value.data() + value.size() || x < lo || x > hi)
                    throw SpecError(key,
                                    "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi)
                                        + "], got '" + clipForMessage(value) + "'");
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
            } else if (name == "nodes") {
                const int v = number(1, 4096);
                if (!s.nodes)
                    s.nodes = v;
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
                    throw SpecError(key, "expected off, full or selective, got '" + clipForMessage(value) + "'");
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
            throw SpecError(key,
                            "'" + clipForMessage(device)
                                + "' is not planned: Shardwise plans offload to CPU memory only (cpu or none)");
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

// What a message may carry of a warning: a key and a message each cut to a sane length.
void clipWarnings(ImportedSettings& s)
{
    for (ConfigWarning& w : s.warnings) {
        w.key = clipForMessage(w.key, 4 * kMaxEchoChars);
        w.message = clipForMessage(w.message, 8 * kMaxEchoChars);
    }
}

ImportedSettings importText(std::string_view text, std::string_view fileName, const std::string& directory)
{
    const std::string name = fileName.empty() ? std::string("the config") : clipForMessage(fileName, 400);
    // The extension decides (a bad .json is reported as bad JSON); a name without one is told by its text.
    const ConfigFormat format = configFormatFor(text, fileName);
    checkConfigText(text, format, name);
    ImportedSettings s;
    try {
        switch (format) {
        case ConfigFormat::Torchtitan:
            s = detail::importTorchtitan(text);
            break;
        case ConfigFormat::DsConfig:
            s = detail::importDsConfig(detail::parseDsConfigText(text, name));
            break;
        case ConfigFormat::Accelerate:
            s = detail::importAccelerate(text, directory);
            break;
        }
    } catch (const SpecError& e) {
        // Every message quotes at most a few hundred characters of the file, whatever a parser echoed.
        std::string message = e.what();
        if (message.rfind(e.field() + ": ", 0) == 0)
            message.erase(0, e.field().size() + 2);
        if (message.size() <= 8 * kMaxEchoChars && e.field().size() <= 4 * kMaxEchoChars)
            throw;
        throw SpecError(clipForMessage(e.field(), 4 * kMaxEchoChars), clipForMessage(message, 8 * kMaxEchoChars));
    }
    clipWarnings(s);
    return s;
}

} // namespace

ImportedSettings importConfig(std::string_view text, std::string_view fileName)
{
    return importText(text, fileName, "");
}

ImportedSettings importConfigFile(const std::string& path)
{
    const std::string text = readConfigFile(path);
    return importText(text, path, std::filesystem::path(path).parent_path().string());
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
    if (s.overlapComm) {
        k.overlapComm = *s.overlapComm;
        k.overlapCommStated = true;
    }
}

} // namespace shardwise::frameworks
