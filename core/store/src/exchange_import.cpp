#include "shardwise/store/exchange.hpp"

#include "csv.hpp"
#include "shardwise/spec/message.hpp"
#include "shardwise/spec/quote.hpp"
#include "shardwise/store/timestamps.hpp"
#include "statement.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <istream>
#include <limits>
#include <map>
#include <sstream>

namespace shardwise::store {

using detail::Statement;

namespace {

// One incoming run as text cells by field name, whatever format it came in.
struct IncomingRow {
    std::function<std::string(const std::string& field)> locate; // "line 4, column 'x'" / "runs[3].x"
    std::string rowLocation;                                     // "line 4" / "runs[3]"
    std::map<std::string, std::string> cells;                    // missing and empty cells are absent
};

struct IncomingRun {
    std::string importSource;
    RunStatus status = RunStatus::Completed;
    std::string note;
    std::string modelId;
    std::string gpuId;
    std::string gpuName;
    Strategy strategy = Strategy::Zero0;
    int worldSize = 1;
    std::optional<std::int64_t> rehearsedWorld;
    std::vector<std::string> nodes;
    int nodeCount = 1;
    std::string interconnect;
    std::optional<double> interNodeGBps;
    std::string precision;
    std::optional<std::int64_t> microBatch, seqLen, warmupSteps, timedSteps;
    std::string launcher;
    double startedAt = 0;
    double finishedAt = 0;
    std::optional<double> tokensPerS, medianStepS, p10StepS, p90StepS, ncclShare, exposedCommShare;
    std::optional<std::int64_t> peakAllocated, peakReserved, allocRetries;
    std::optional<double> predictedTokensPerS, predictedStepS;
    std::optional<std::int64_t> predictedPeakBytes;
    protocol::SoftwareVersions versions;     // files written before these fields leave them empty
    RunBackend backend = RunBackend::Native; // files written before the field hold native runs
};

class RowReader {
public:
    explicit RowReader(const IncomingRow& row)
        : m_row(row)
    {
    }

    std::optional<std::string> text(const std::string& field) const
    {
        const auto it = m_row.cells.find(field);
        if (it == m_row.cells.end() || it->second.empty())
            return std::nullopt;
        return it->second;
    }

    std::string required(const std::string& field) const
    {
        auto v = text(field);
        if (!v)
            throw ImportError(m_row.locate(field), "a value is required");
        return *v;
    }

    std::optional<std::int64_t> integer(const std::string& field, std::int64_t lo, std::int64_t hi) const
    {
        const auto v = text(field);
        if (!v)
            return std::nullopt;
        std::int64_t x = 0;
        const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
        if (ec == std::errc::result_out_of_range)
            throw ImportError(m_row.locate(field),
                              "number out of range: '" + *v + "' does not fit a 64-bit whole number");
        if (ec != std::errc() || end != v->data() + v->size())
            throw ImportError(m_row.locate(field), "expected a whole number, got '" + *v + "'");
        if (x < lo || x > hi)
            throw ImportError(m_row.locate(field),
                              "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + *v);
        return x;
    }

    std::optional<double> real(const std::string& field, double lo, double hi) const
    {
        const auto v = text(field);
        if (!v)
            return std::nullopt;
        double x = 0;
        const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
        if (ec == std::errc::result_out_of_range && end == v->data() + v->size())
            throw ImportError(m_row.locate(field),
                              "number out of range: '" + *v + "' overflows a double (the largest is about 1.8e308)");
        if (ec != std::errc() || end != v->data() + v->size() || !std::isfinite(x))
            throw ImportError(m_row.locate(field), "expected a number, got '" + *v + "'");
        if (x < lo || x > hi) {
            std::ostringstream range;
            range << "must be in [" << lo << ", " << hi << "], got " << *v;
            throw ImportError(m_row.locate(field), range.str());
        }
        return x;
    }

    std::optional<double> timestamp(const std::string& field) const
    {
        const auto v = text(field);
        if (!v)
            return std::nullopt;
        const auto t = parseUtc(*v);
        if (!t)
            throw ImportError(m_row.locate(field),
                              "expected a UTC date such as 2026-01-31 or 2026-01-31T14:05:00Z, got '" + *v + "'");
        return t;
    }

    std::string locate(const std::string& field) const { return m_row.locate(field); }

private:
    const IncomingRow& m_row;
};

constexpr auto kMaxBytes = std::numeric_limits<std::int64_t>::max();

// A rehearsal of one rank of world N: one process ran, and it has no figure its steps would have to
// stand for at world N (throughput, step times, communication shares, their predictions).
void readRehearsal(const RowReader& r, IncomingRun& run)
{
    run.rehearsedWorld = r.integer("rehearsed_world", 1, kMaxRehearsedWorld);
    if (!run.rehearsedWorld)
        return;
    const std::string what = "a rehearsal of world " + std::to_string(*run.rehearsedWorld) + " (rehearsed_world)";
    if (run.worldSize != 1)
        throw ImportError(r.locate("world_size"),
                          "must be 1 for " + what + ": one process ran as rank 0 of that world, got "
                              + std::to_string(run.worldSize));
    for (const char* field : { "tokens_per_s", "median_step_s", "p10_step_s", "p90_step_s", "nccl_share",
                               "exposed_comm_share", "predicted_tokens_per_s", "predicted_step_s" })
        if (r.text(field))
            throw ImportError(r.locate(field),
                              "must be empty for " + what
                                  + ": its steps ran without communication, so they are not that world's");
}

IncomingRun readRun(const IncomingRow& row, const std::string& defaultSource, double importTime)
{
    const RowReader r(row);
    IncomingRun run;
    run.modelId = r.required("model");
    const std::string strategy = r.required("strategy");
    const auto parsedStrategy = strategyFromId(strategy);
    if (!parsedStrategy)
        throw ImportError(r.locate("strategy"), "unknown strategy '" + strategy + "'; known: " + strategyIdList());
    run.strategy = *parsedStrategy;
    r.required("world_size");
    run.worldSize = static_cast<int>(r.integer("world_size", 1, 1'000'000).value_or(1));
    const std::string status = r.required("status");
    const auto parsedStatus = runStatusFromId(status);
    if (!parsedStatus || !isFinal(*parsedStatus))
        throw ImportError(r.locate("status"),
                          "'" + status
                              + "' is not a final status; an imported run is one of completed, "
                                "oom, failed, timeout, lost, cancelled");
    run.status = *parsedStatus;
    run.gpuId = r.text("gpu_id").value_or("");
    run.gpuName = r.text("gpu_name").value_or("");
    if (run.gpuId.empty() && run.gpuName.empty())
        throw ImportError(row.rowLocation, "needs gpu_id or gpu_name (the hardware the run was measured on)");
    run.importSource = r.text("import_source").value_or(defaultSource);
    run.note = r.text("note").value_or("");
    if (const auto nodes = r.text("nodes")) {
        std::istringstream list(*nodes);
        for (std::string name; std::getline(list, name, ';');)
            if (!name.empty())
                run.nodes.push_back(name);
    }
    run.nodeCount
        = static_cast<int>(r.integer("node_count", 1, 100'000)
                               .value_or(std::max<std::int64_t>(1, static_cast<std::int64_t>(run.nodes.size()))));
    if (run.nodeCount > run.worldSize)
        throw ImportError(r.locate(r.text("node_count") ? "node_count" : "nodes"),
                          std::to_string(run.nodeCount) + " nodes cannot hold " + countOf(run.worldSize, "rank")
                              + " (world_size); every node runs at least one");
    if (!run.nodes.empty() && r.text("node_count") && static_cast<int>(run.nodes.size()) != run.nodeCount)
        throw ImportError(r.locate("node_count"),
                          "is " + std::to_string(run.nodeCount) + " but 'nodes' names "
                              + std::to_string(run.nodes.size()));
    run.interconnect = r.text("interconnect").value_or("");
    if (!run.interconnect.empty() && run.interconnect != "nvlink" && run.interconnect != "pcie")
        throw ImportError(r.locate("interconnect"), "expected nvlink or pcie, got '" + run.interconnect + "'");
    // GB/s per node per direction, as --inter-node-gbps takes it (a 1.6 Tb/s node is 200).
    run.interNodeGBps = r.real("inter_node_gbps", 1e-3, 1e6);
    run.precision = r.text("precision").value_or("");
    // The stored precision is precisionId() of the run's policy; anything else would never match a
    // filter or a calibration.
    if (!run.precision.empty() && run.precision != precisionId(PrecisionPolicy::PureBf16)
        && run.precision != precisionId(PrecisionPolicy::Bf16Fp32Master))
        throw ImportError(r.locate("precision"),
                          "unknown precision '" + run.precision
                              + "'; known: " + std::string(precisionId(PrecisionPolicy::PureBf16)) + ", "
                              + std::string(precisionId(PrecisionPolicy::Bf16Fp32Master)));
    run.microBatch = r.integer("micro_batch", 1, 1'000'000);
    run.seqLen = r.integer("seq_len", 1, 100'000'000);
    run.warmupSteps = r.integer("warmup_steps", 0, 1'000'000);
    run.timedSteps = r.integer("timed_steps", 0, 1'000'000);
    run.launcher = r.text("launcher").value_or("");
    run.startedAt = r.timestamp("started_at").value_or(importTime);
    run.finishedAt = r.timestamp("finished_at").value_or(run.startedAt);
    if (run.finishedAt < run.startedAt)
        throw ImportError(r.locate("finished_at"), "is earlier than started_at");
    constexpr double kHuge = std::numeric_limits<double>::max();
    run.tokensPerS = r.real("tokens_per_s", 0, kHuge);
    run.medianStepS = r.real("median_step_s", 0, kHuge);
    run.p10StepS = r.real("p10_step_s", 0, kHuge);
    run.p90StepS = r.real("p90_step_s", 0, kHuge);
    run.peakAllocated = r.integer("peak_allocated_bytes", 0, kMaxBytes);
    run.peakReserved = r.integer("peak_reserved_bytes", 0, kMaxBytes);
    run.allocRetries = r.integer("alloc_retries", 0, kMaxBytes);
    run.ncclShare = r.real("nccl_share", 0, 1);
    run.exposedCommShare = r.real("exposed_comm_share", 0, 1);
    run.predictedTokensPerS = r.real("predicted_tokens_per_s", 0, kHuge);
    run.predictedStepS = r.real("predicted_step_s", 0, kHuge);
    run.predictedPeakBytes = r.integer("predicted_peak_bytes", 0, kMaxBytes);
    protocol::SoftwareVersions& v = run.versions;
    v.runner = r.text("runner_version").value_or("");
    v.libtorch = r.text("libtorch_version").value_or("");
    v.cuda = r.text("cuda_version").value_or("");
    v.nccl = r.text("nccl_version").value_or("");
    v.driver = r.text("driver_version").value_or("");
    v.compiler = r.text("compiler").value_or("");
    v.kernels = r.text("kernels").value_or("");
    v.activations = r.text("activations").value_or("");
    v.offloadStaging = r.text("offload_staging").value_or("");
    if (const auto backend = r.text("backend")) {
        const auto parsed = backendFromId(*backend);
        if (!parsed)
            throw ImportError(r.locate("backend"), "unknown backend '" + *backend + "'; known: native, torch");
        run.backend = *parsed;
    }
    v.python = r.text("python_version").value_or("");
    v.torch = r.text("torch_version").value_or("");
    v.transformers = r.text("transformers_version").value_or("");
    v.modelImpl = r.text("model_impl").value_or("");
    readRehearsal(r, run);
    return run;
}

void checkColumns(const std::vector<std::string>& present, const std::function<std::string(const std::string&)>& locate,
                  const std::string& where)
{
    const auto& known = exchangeFields();
    // A CSV header naming a field twice would have its last column win silently.
    for (auto it = present.begin(); it != present.end(); ++it)
        if (std::find(present.begin(), it, *it) != it)
            throw ImportError(locate(*it), "the field is named twice in the header; name each field once");
    for (const auto& name : present)
        if (std::find(known.begin(), known.end(), name) == known.end()) {
            std::string list;
            for (const auto& k : known)
                list += (list.empty() ? "" : ", ") + k;
            throw ImportError(locate(name), "unknown field; known fields: " + list);
        }
    for (const auto& name : requiredImportFields())
        if (std::find(present.begin(), present.end(), name) == present.end())
            throw ImportError(where, "missing the required field '" + name + "'");
}

// nlohmann reports an overflowing number without its place ("number overflow parsing '1e999'"): find
// the literal in the text to name the line.
std::string overflowLocation(const std::string& text, const std::string& message)
{
    const auto open = message.find('\'');
    const auto close = open == std::string::npos ? open : message.find('\'', open + 1);
    if (close == std::string::npos)
        return "(document)";
    const auto at = text.find(message.substr(open + 1, close - open - 1));
    if (at == std::string::npos)
        return "(document)";
    return "line " + std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

ImportResult store(Database& db, const std::vector<IncomingRun>& runs)
{
    ImportResult result;
    WriteTransaction tx(db);
    Statement insert(db.handle(), R"sql(
        INSERT INTO runs (source, import_source, status, note, model_id, gpu_id, gpu_name, strategy, world_size,
                          node_count, interconnect, precision, micro_batch, seq_len, warmup_steps, timed_steps,
                          launcher, started_at, heartbeat_at, finished_at, tokens_per_s, median_step_s, p10_step_s,
                          p90_step_s, peak_allocated, peak_reserved, alloc_retries, nccl_share, exposed_comm_share,
                          predicted_tokens_per_s, predicted_step_s, predicted_peak_bytes, runner_version,
                          libtorch_version, cuda_version, nccl_version, driver_version, compiler, kernels,
                          activations, offload_staging, backend, python_version, torch_version,
                          transformers_version, model_impl, inter_node_gbps, rehearsed_world)
        VALUES ('imported', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
                ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38,
                ?39, ?40, ?41, ?42, ?43, ?44, ?45, ?46, ?47))sql");
    Statement node(db.handle(), "INSERT INTO run_nodes (run_id, position, name) VALUES (?1, ?2, ?3)");
    // Last row first: runs list newest first and break equal start times by the higher id, so runs that
    // started in the same instant keep the file's order (an export's own order comes back unchanged).
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
        const IncomingRun& r = *it;
        insert.bind(1, r.importSource).bind(2, runStatusId(r.status)).bind(3, r.note).bind(4, r.modelId);
        insert.bind(5, r.gpuId).bind(6, r.gpuName).bind(7, strategyId(r.strategy)).bind(8, r.worldSize);
        insert.bind(9, r.nodeCount).bind(10, r.interconnect).bind(11, r.precision).bind(12, r.microBatch);
        insert.bind(13, r.seqLen).bind(14, r.warmupSteps).bind(15, r.timedSteps).bind(16, r.launcher);
        insert.bind(17, r.startedAt).bind(18, r.startedAt).bind(19, r.finishedAt).bind(20, r.tokensPerS);
        insert.bind(21, r.medianStepS).bind(22, r.p10StepS).bind(23, r.p90StepS).bind(24, r.peakAllocated);
        insert.bind(25, r.peakReserved).bind(26, r.allocRetries).bind(27, r.ncclShare);
        insert.bind(28, r.exposedCommShare).bind(29, r.predictedTokensPerS).bind(30, r.predictedStepS);
        insert.bind(31, r.predictedPeakBytes);
        const protocol::SoftwareVersions& v = r.versions;
        insert.bind(32, v.runner).bind(33, v.libtorch).bind(34, v.cuda).bind(35, v.nccl).bind(36, v.driver);
        insert.bind(37, v.compiler).bind(38, v.kernels).bind(39, v.activations).bind(40, v.offloadStaging);
        insert.bind(41, backendId(r.backend)).bind(42, v.python).bind(43, v.torch).bind(44, v.transformers);
        insert.bind(45, v.modelImpl).bind(46, r.interNodeGBps).bind(47, r.rehearsedWorld);
        insert.run();
        insert.reset();
        const std::int64_t id = detail::lastInsertId(db.handle());
        for (std::size_t i = 0; i < r.nodes.size(); ++i) {
            node.bind(1, id).bind(2, static_cast<std::int64_t>(i)).bind(3, r.nodes[i]).run();
            node.reset();
        }
        result.runIds.push_back(id);
    }
    tx.commit();
    std::reverse(result.runIds.begin(), result.runIds.end()); // the file's order
    return result;
}

} // namespace

ImportResult importRunsCsv(Database& db, std::istream& in, const std::string& source)
{
    db.requireWritable();
    const auto records = detail::readCsv(in);
    if (records.empty())
        throw ImportError("line 1", "the file is empty; expected a header line naming the fields");
    const auto& header = records.front().fields;
    const int headerLine = records.front().line;
    checkColumns(
        header, [&](const std::string& f) { return "line " + std::to_string(headerLine) + ", column '" + f + "'"; },
        "line " + std::to_string(headerLine));
    const double now = currentUnixTime();
    std::vector<IncomingRun> runs;
    for (std::size_t i = 1; i < records.size(); ++i) {
        const auto& record = records[i];
        const std::string where = "line " + std::to_string(record.line);
        if (record.fields.size() != header.size())
            throw ImportError(where,
                              "expected " + std::to_string(header.size()) + " fields as in the header, found "
                                  + std::to_string(record.fields.size()));
        IncomingRow row;
        row.rowLocation = where;
        row.locate = [where](const std::string& f) { return where + ", column '" + f + "'"; };
        for (std::size_t c = 0; c < header.size(); ++c)
            row.cells[header[c]] = csvWithoutFormulaGuard(record.fields[c]);
        runs.push_back(readRun(row, source, now));
    }
    return store(db, runs);
}

ImportResult importRunsJson(Database& db, std::istream& in, const std::string& source)
{
    db.requireWritable();
    std::ostringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw ImportError("(document)", std::string("not valid JSON: ") + e.what());
    } catch (const nlohmann::json::out_of_range& e) {
        throw ImportError(overflowLocation(text, e.what()),
                          std::string("number out of range: ") + e.what()
                              + " (a number must fit a double, at most about 1.8e308)");
    }
    const nlohmann::json* list = &document;
    if (document.is_object()) {
        if (document.contains("format") && document["format"] != "shardwise-runs")
            throw ImportError("format", "expected \"shardwise-runs\", got " + document["format"].dump());
        if (!document.contains("runs"))
            throw ImportError("runs", "missing; expected an array of run objects");
        list = &document["runs"];
        if (document.contains("version")) {
            const auto& version = document["version"];
            if (!version.is_number_integer())
                throw ImportError("version", "expected a whole number, got " + version.dump());
            if (version.get<std::int64_t>() > kExchangeFormatVersion)
                throw ImportError("version",
                                  "the file has format version " + version.dump()
                                      + ", newer than this Shardwise reads (" + std::to_string(kExchangeFormatVersion)
                                      + "); import it with a newer Shardwise");
        }
    }
    if (!list->is_array())
        throw ImportError("runs", "expected an array of run objects");
    const double now = currentUnixTime();
    std::vector<IncomingRun> runs;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string where = "runs[" + std::to_string(i) + "]";
        const auto& item = (*list)[i];
        if (!item.is_object())
            throw ImportError(where, "expected a run object, got " + std::string(item.type_name()));
        IncomingRow row;
        row.rowLocation = where;
        row.locate = [where](const std::string& f) { return where + "." + f; };
        std::vector<std::string> present;
        for (const auto& [key, value] : item.items()) {
            present.push_back(key);
            if (value.is_null())
                continue;
            if (value.is_string())
                row.cells[key] = value.get<std::string>();
            else if (value.is_number_integer())
                row.cells[key] = value.dump();
            else if (value.is_number_float())
                row.cells[key] = value.dump();
            else
                throw ImportError(row.locate(key),
                                  "expected a string or a number, got " + std::string(value.type_name()));
        }
        checkColumns(present, row.locate, where);
        runs.push_back(readRun(row, source, now));
    }
    return store(db, runs);
}

} // namespace shardwise::store
