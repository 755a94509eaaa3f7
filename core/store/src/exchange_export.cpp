#include "shardwise/store/exchange.hpp"

#include "shardwise/spec/quote.hpp"
#include "shardwise/store/timestamps.hpp"

#include <charconv>
#include <ostream>

namespace shardwise::store {

ImportError::ImportError(std::string location, const std::string& message)
    : StoreError(location + ": " + message)
    , m_location(std::move(location))
{
}

const std::vector<std::string>& exchangeFields()
{
    static const std::vector<std::string> fields {
        "id",
        "source",
        "import_source",
        "status",
        "model",
        "gpu_id",
        "gpu_name",
        "strategy",
        "world_size",
        "rehearsed_world",
        "nodes",
        "node_count",
        "interconnect",
        "inter_node_gbps",
        "precision",
        "micro_batch",
        "seq_len",
        "warmup_steps",
        "timed_steps",
        "launcher",
        "started_at",
        "finished_at",
        "tokens_per_s",
        "median_step_s",
        "p10_step_s",
        "p90_step_s",
        "peak_allocated_bytes",
        "peak_reserved_bytes",
        "alloc_retries",
        "nccl_share",
        "exposed_comm_share",
        "predicted_tokens_per_s",
        "predicted_step_s",
        "predicted_peak_bytes",
        "note",
        "runner_version",
        "libtorch_version",
        "cuda_version",
        "nccl_version",
        "driver_version",
        "compiler",
        "kernels",
        "activations",
        "offload_staging",
        "backend",
        "python_version",
        "torch_version",
        "transformers_version",
        "model_impl",
    };
    return fields;
}

const std::vector<std::string>& requiredImportFields()
{
    static const std::vector<std::string> fields { "model", "strategy", "world_size", "status" };
    return fields;
}

namespace {

std::string joinNodes(const std::vector<std::string>& nodes)
{
    std::string s;
    for (const auto& n : nodes)
        s += (s.empty() ? "" : ";") + n;
    return s;
}

template <typename T> nlohmann::json optionalJson(const std::optional<T>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// Shortest text that reads back as the same double.
std::string formatReal(double v)
{
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
    return ec == std::errc() ? std::string(buffer, end) : std::string();
}

// One CSV field as written. A string is text (csvText): a spreadsheet runs a cell that starts with
// = + - @ (or tab / CR) as a formula, so such text gets a quote in front (OWASP, "CSV Injection").
// Numbers are never strings here, so numeric columns stay numbers; import drops the quote again.
std::string csvCell(const nlohmann::json& v)
{
    if (v.is_null())
        return {};
    if (v.is_string())
        return csvText(v.get<std::string>());
    if (v.is_number_float())
        return formatReal(v.get<double>());
    return csvField(v.dump());
}

} // namespace

nlohmann::json toJson(const RunSummary& r)
{
    nlohmann::json j;
    j["id"] = r.id;
    j["source"] = runSourceId(r.source);
    j["import_source"] = r.importSource;
    j["status"] = runStatusId(r.status);
    j["model"] = r.modelId;
    j["gpu_id"] = r.gpuId;
    j["gpu_name"] = r.gpuName;
    j["strategy"] = strategyId(r.strategy);
    j["world_size"] = r.worldSize;
    j["rehearsed_world"] = optionalJson(r.rehearsedWorld);
    j["nodes"] = joinNodes(r.nodes);
    j["node_count"] = r.nodeCount;
    j["interconnect"] = r.interconnect;
    j["inter_node_gbps"] = optionalJson(r.interNodeGBps);
    j["precision"] = r.precision;
    j["micro_batch"] = optionalJson(r.microBatch);
    j["seq_len"] = optionalJson(r.seqLen);
    j["warmup_steps"] = optionalJson(r.warmupSteps);
    j["timed_steps"] = optionalJson(r.timedSteps);
    j["launcher"] = r.launcher;
    j["started_at"] = formatUtc(r.startedAt, true);
    j["finished_at"] = r.finishedAt ? nlohmann::json(formatUtc(*r.finishedAt, true)) : nlohmann::json(nullptr);
    j["tokens_per_s"] = optionalJson(r.tokensPerS);
    j["median_step_s"] = optionalJson(r.medianStepS);
    j["p10_step_s"] = optionalJson(r.p10StepS);
    j["p90_step_s"] = optionalJson(r.p90StepS);
    j["peak_allocated_bytes"] = optionalJson(r.peakAllocated);
    j["peak_reserved_bytes"] = optionalJson(r.peakReserved);
    j["alloc_retries"] = optionalJson(r.allocRetries);
    j["nccl_share"] = optionalJson(r.ncclShare);
    j["exposed_comm_share"] = optionalJson(r.exposedCommShare);
    j["predicted_tokens_per_s"] = optionalJson(r.predicted.tokensPerS);
    j["predicted_step_s"] = optionalJson(r.predicted.stepS);
    j["predicted_peak_bytes"] = optionalJson(r.predicted.peakBytes);
    j["note"] = r.note;
    const protocol::SoftwareVersions& v = r.versions;
    j["runner_version"] = v.runner;
    j["libtorch_version"] = v.libtorch;
    j["cuda_version"] = v.cuda;
    j["nccl_version"] = v.nccl;
    j["driver_version"] = v.driver;
    j["compiler"] = v.compiler;
    j["kernels"] = v.kernels;
    j["activations"] = v.activations;
    j["offload_staging"] = v.offloadStaging;
    j["backend"] = backendId(r.backend);
    j["python_version"] = v.python;
    j["torch_version"] = v.torch;
    j["transformers_version"] = v.transformers;
    j["model_impl"] = v.modelImpl;
    return j;
}

void exportRunsCsv(const std::vector<RunSummary>& runs, std::ostream& out)
{
    const auto& fields = exchangeFields();
    for (std::size_t i = 0; i < fields.size(); ++i)
        out << (i ? "," : "") << fields[i];
    out << "\n";
    for (const auto& run : runs) {
        const nlohmann::json j = toJson(run);
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (i)
                out << ',';
            out << csvCell(j.at(fields[i]));
        }
        out << "\n";
    }
}

void exportRunsJson(const std::vector<RunSummary>& runs, std::ostream& out)
{
    nlohmann::json list = nlohmann::json::array();
    for (const auto& run : runs)
        list.push_back(toJson(run));
    const nlohmann::json document { { "format", "shardwise-runs" },
                                    { "version", kExchangeFormatVersion },
                                    { "runs", std::move(list) } };
    out << document.dump(2) << "\n";
}

} // namespace shardwise::store
