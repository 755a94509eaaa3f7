// The run list's table and one run's detail (runs_show.hpp).
#include "runs_show.hpp"

#include "shardwise/protocol/events.hpp"
#include "shardwise/published/published_import.hpp"
#include "shardwise/spec/message.hpp"
#include "shardwise/store/exchange.hpp"
#include "shardwise/store/timestamps.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>

namespace shardwise::cli {

std::string terminalText(std::string_view text)
{
    static constexpr const char* kHex = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
        if (byte < 0x20 || byte == 0x7f) {
            out += "\\x";
            out += kHex[byte >> 4];
            out += kHex[byte & 0xf];
        } else if (byte == 0xc2 && next >= 0x80 && next <= 0x9f) {
            // U+0080-U+009F in UTF-8: C1 controls, which a terminal may read as ESC sequences (CSI 0x9b).
            out += "\\u00";
            out += kHex[next >> 4];
            out += kHex[next & 0xf];
            ++i;
        } else {
            out += static_cast<char>(byte);
        }
    }
    return out;
}

namespace {

std::string gib(std::optional<std::int64_t> bytes)
{
    if (!bytes)
        return "-";
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << static_cast<double>(*bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
    return s.str();
}

// A table cell of bounded width for any double: plain digits up to a million, SI prefixes up to
// exa, scientific notation beyond (an imported 1e308 tok/s would otherwise print 309 digits).
std::string fixed(std::optional<double> v, int digits, const std::string& unit)
{
    if (!v)
        return "-";
    const double x = *v;
    char text[64];
    if (!std::isfinite(x) || std::fabs(x) < 1e6) {
        std::snprintf(text, sizeof text, "%.*f", digits, x);
        return text + unit;
    }
    static constexpr const char* kPrefixes[] = { "k", "M", "G", "T", "P", "E" };
    const int thousands = static_cast<int>(std::floor(std::log10(std::fabs(x)) / 3.0));
    if (thousands > 6) {
        std::snprintf(text, sizeof text, "%.3g", x);
        return text + unit;
    }
    std::snprintf(text, sizeof text, "%.3g %s", x / std::pow(10.0, 3 * thousands), kPrefixes[thousands - 1]);
    return text + (unit.size() > 1 && unit.front() == ' ' ? unit.substr(1) : unit);
}

std::string percent(std::optional<double> share)
{
    return share ? fixed(*share * 100.0, 0, " %") : "-";
}

std::string gpuLabel(const store::RunSummary& r)
{
    return r.gpuName.empty() ? r.gpuId : r.gpuName;
}

void printTable(std::ostream& out, std::vector<std::vector<std::string>> rows)
{
    // Every cell can come from a run file or a runner's output (a model id, a node, a note).
    for (auto& row : rows)
        for (auto& cell : row)
            cell = terminalText(cell);
    std::vector<std::size_t> width;
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (width.size() <= c)
                width.push_back(0);
            width[c] = std::max(width[c], row[c].size());
        }
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c) {
            line += row[c];
            if (c + 1 < row.size())
                line += std::string(width[c] - row[c].size() + 2, ' ');
        }
        out << line << "\n";
    }
}

std::string orDash(const std::string& s)
{
    return s.empty() ? "-" : s;
}

// "gpu-box: NCCL_DEBUG=WARN NCCL_NVLS_ENABLE=0; other: ..." as each node gave them to its ranks.
std::string ncclSettingsText(const std::map<std::string, std::map<std::string, std::string>>& byNode)
{
    std::string text;
    for (const auto& [node, env] : byNode) {
        text += (text.empty() ? "" : "; ") + node + ":";
        for (const auto& [key, value] : env)
            text += " " + key + "=" + value;
    }
    return text.empty() ? std::string("none") : text;
}

// A real run's headline: what it measured against what its plan predicted.
void printHeadline(std::ostream& out, const store::RunSummary& r)
{
    out << "\nHeadline\n";
    const auto predicted = [](std::optional<double> v, int digits, const std::string& unit) {
        return v ? " (predicted " + fixed(v, digits, unit) + ")" : std::string();
    };
    printTable(
        out,
        {
            { "  throughput", fixed(r.tokensPerS, 0, " tokens/s") + predicted(r.predicted.tokensPerS, 0, " tokens/s") },
            { "  median step", fixed(r.medianStepS, 3, " s") + predicted(r.predicted.stepS, 3, " s") },
            { "  p10 / p90 step", fixed(r.p10StepS, 3, " s") + " / " + fixed(r.p90StepS, 3, " s") },
            { "  peak allocated",
              gib(r.peakAllocated) + (r.predicted.peakBytes ? " (predicted " + gib(r.predicted.peakBytes) + ")" : "") },
            { "  peak reserved", gib(r.peakReserved) },
            { "  alloc retries", r.allocRetries ? std::to_string(*r.allocRetries) : "-" },
            // Communication kernels overlap compute, so their share of the step is not time spent waiting.
            { "  NCCL share", percent(r.ncclShare) + " of step time in comm kernels (overlaps compute)" },
            { "  exposed comm", percent(r.exposedCommShare) + " of step time waiting for communication" },
        });
}

// A rehearsal's step time: rank 0's median, which held no communication.
std::optional<double> computeOnlyStep(const store::RunDetail& d)
{
    if (!d.summary.rehearsal())
        return std::nullopt;
    for (const auto& s : d.rankSummaries)
        if (s.rank == 0)
            return s.medianStepS;
    return std::nullopt;
}

// A rehearsal's headline: its memory against the prediction for the world it stands for, and why it
// has no throughput.
void printRehearsalHeadline(std::ostream& out, const store::RunDetail& d)
{
    const store::RunSummary& r = d.summary;
    const std::string world = std::to_string(r.effectiveWorld());
    const std::optional<double> computeOnlyStepS = computeOnlyStep(d);
    out << "\nHeadline (rehearsal of world " << world << ": memory of one rank at that world)\n";
    printTable(
        out,
        {
            { "  peak allocated",
              gib(r.peakAllocated)
                  + (r.predicted.peakBytes
                         ? " (predicted " + gib(r.predicted.peakBytes) + " per rank at world " + world + ")"
                         : "") },
            { "  peak reserved", gib(r.peakReserved) },
            { "  alloc retries", r.allocRetries ? std::to_string(*r.allocRetries) : "-" },
            { "  throughput",
              "- (a rehearsal's steps hold no communication, so they measure no tokens/s of world " + world + ")" },
            { "  compute-only step", fixed(computeOnlyStepS, 3, " s") + " (rank 0's median, no communication)" },
            { "  NCCL share", "- (no communication in a rehearsal)" },
        });
}

// The RANKS cell: the ranks that ran, or the world a rehearsal stands for.
std::string ranksText(const store::RunSummary& r)
{
    return r.rehearsedWorld ? "rehearsal of " + std::to_string(*r.rehearsedWorld) : std::to_string(r.worldSize);
}

} // namespace

void printRunTable(std::ostream& out, const std::vector<store::RunSummary>& runs)
{
    std::vector<std::vector<std::string>> rows { { "ID", "STATUS", "MODEL", "GPU", "STRATEGY", "BACKEND", "RANKS",
                                                   "THROUGHPUT", "MEDIAN STEP", "PEAK ALLOC", "PEAK RESV", "NCCL",
                                                   "SOURCE", "STARTED" } };
    for (const auto& r : runs) {
        // A published run was measured by the framework its source names, not by either backend.
        const bool published = published::isPublishedRun(r.importSource);
        rows.push_back({ std::to_string(r.id), std::string(store::runStatusId(r.status)), r.modelId, gpuLabel(r),
                         std::string(strategyId(r.strategy)), published ? "-" : std::string(backendId(r.backend)),
                         ranksText(r), fixed(r.tokensPerS, 0, " tok/s"), fixed(r.medianStepS, 3, " s"),
                         gib(r.peakAllocated), gib(r.peakReserved), percent(r.ncclShare),
                         published ? "published" : std::string(store::runSourceId(r.source)),
                         store::formatUtc(r.startedAt) });
    }
    printTable(out, rows);
    if (std::any_of(runs.begin(), runs.end(), [](const store::RunSummary& r) { return r.rehearsal(); }))
        out << "\nA rehearsal of N ran one rank alone as rank 0 of world N: its PEAK ALLOC and PEAK RESV are that "
               "rank's at world N; its steps held no communication, so it has no THROUGHPUT, MEDIAN STEP or NCCL "
               "(-).\n";
}

nlohmann::json runDetailJson(const store::RunDetail& d)
{
    nlohmann::json j;
    j["run"] = store::toJson(d.summary);
    // A rehearsal's step time, which "run" leaves out (median_step_s is world N's and it has none).
    const auto computeOnly = computeOnlyStep(d);
    j["compute_only_step_s"] = computeOnly ? nlohmann::json(*computeOnly) : nlohmann::json();
    j["config"] = d.config;
    j["versions"]
        = { { "runner", d.versions.runner }, { "libtorch", d.versions.libtorch }, { "cuda", d.versions.cuda },
            { "nccl", d.versions.nccl },     { "driver", d.versions.driver },     { "compiler", d.versions.compiler } };
    j["backend"] = backendId(d.summary.backend);
    if (d.summary.backend == RunBackend::Torch)
        j["framework"] = { { "python", d.versions.python },
                           { "torch", d.versions.torch },
                           { "transformers", d.versions.transformers },
                           { "model_impl", d.versions.modelImpl } };
    j["allocator"] = { { "conf", d.allocator.conf }, { "expandable_segments", d.allocator.expandableSegments } };
    j["nccl_env"] = nlohmann::json::object(); // by node; nodes without a setting are left out
    for (const auto& [node, env] : d.ncclEnv)
        j["nccl_env"][node] = env;
    j["ranks"] = nlohmann::json::array();
    for (const auto& r : d.ranks)
        j["ranks"].push_back(
            { { "rank", r.rank }, { "host", r.host }, { "local_rank", r.localRank }, { "device", r.deviceName } });
    j["rank_summaries"] = nlohmann::json::array();
    for (const auto& s : d.rankSummaries)
        j["rank_summaries"].push_back(protocol::toJson(protocol::Event(s)));
    j["errors"] = nlohmann::json::array();
    for (const auto& e : d.errors)
        j["errors"].push_back(protocol::toJson(protocol::Event(e)));
    j["diagnoses"] = nlohmann::json::array();
    for (const auto& g : d.diagnoses)
        j["diagnoses"].push_back(
            { { "code", g.code },
              { "title", g.title },
              { "detail", g.detail },
              { "first_failure_rank", g.firstFailureRank ? nlohmann::json(*g.firstFailureRank) : nlohmann::json() },
              { "document", g.document } });
    return j;
}

void printRunDetail(std::ostream& out, const store::RunDetail& d)
{
    const auto& r = d.summary;
    out << "Run " << r.id << ": " << store::runStatusId(r.status) << " (" << store::runSourceId(r.source)
        << (r.importSource.empty() ? "" : ", from " + terminalText(r.importSource)) << ")\n";
    std::string nodes;
    for (const auto& n : r.nodes)
        nodes += (nodes.empty() ? "" : ", ") + n;
    std::vector<std::vector<std::string>> rows {
        { "  model", r.modelId },
        { "  gpu", gpuLabel(r) + (r.gpuId.empty() || r.gpuId == gpuLabel(r) ? "" : " (" + r.gpuId + ")") },
        { "  strategy", std::string(strategyId(r.strategy)) + " - " + std::string(traits(r.strategy).label) },
        { "  backend",
          r.backend == RunBackend::Torch ? "torch (PyTorch harness, shardwise-torch-runner)"
                                         : "native (shardwise-runner)" },
        { "  ranks",
          std::to_string(r.worldSize) + " on " + countOf(r.nodeCount, "node") + ": " + orDash(nodes)
              + (r.rehearsedWorld ? "; a rehearsal of world " + std::to_string(*r.rehearsedWorld)
                         + " (rank 0 alone, through a communicator that moves no data)"
                                  : std::string()) },
        { "  interconnect", orDash(r.interconnect) },
        { "  inter-node",
          r.interNodeGBps ? fixed(r.interNodeGBps, 1, " GB/s per node per direction (the plan's)") : "-" },
        { "  precision", orDash(r.precision) },
        { "  micro-batch", r.microBatch ? std::to_string(*r.microBatch) + " sequences" : "-" },
        { "  sequence", r.seqLen ? std::to_string(*r.seqLen) + " tokens" : "-" },
        { "  steps",
          (r.warmupSteps ? std::to_string(*r.warmupSteps) : "-") + " warm-up + "
              + (r.timedSteps ? std::to_string(*r.timedSteps) : "-") + " timed" },
        { "  launcher", orDash(r.launcher) },
        { "  started", store::formatUtc(r.startedAt) },
        { "  finished", r.finishedAt ? store::formatUtc(*r.finishedAt) : "-" },
        { "  software",
          "runner " + orDash(d.versions.runner) + ", LibTorch " + orDash(d.versions.libtorch) + ", CUDA "
              + orDash(d.versions.cuda) + ", NCCL " + orDash(d.versions.nccl) + ", driver "
              + orDash(d.versions.driver) },
        { "  framework",
          r.backend == RunBackend::Native
              ? std::string("-")
              : "Python " + orDash(d.versions.python) + ", torch " + orDash(d.versions.torch) + ", Transformers "
                  + (d.versions.transformers.empty() ? std::string("not installed") : d.versions.transformers)
                  + ", model " + orDash(d.versions.modelImpl) },
        { "  allocator", orDash(d.allocator.conf) + (d.allocator.expandableSegments ? " (expandable segments)" : "") },
        { "  NCCL settings", ncclSettingsText(d.ncclEnv) },
    };
    if (!r.note.empty())
        rows.push_back({ "  note", r.note });
    printTable(out, rows);

    if (r.rehearsedWorld)
        printRehearsalHeadline(out, d);
    else
        printHeadline(out, r);

    if (!d.rankSummaries.empty()) {
        out << "\nPer-rank summaries\n";
        // A rehearsal's steps are compute only: no tokens/s and no communication share.
        const bool rehearsal = r.rehearsal();
        std::vector<std::vector<std::string>> table { { "  RANK", "HOST",
                                                        rehearsal ? "COMPUTE-ONLY STEP" : "MEDIAN STEP", "TOKENS/S",
                                                        "PEAK ALLOC", "PEAK RESV", "RETRIES", "NCCL" } };
        for (const auto& s : d.rankSummaries) {
            std::string host = "-";
            for (const auto& p : d.ranks)
                if (p.rank == s.rank)
                    host = p.host;
            table.push_back({ "  " + std::to_string(s.rank), host, fixed(s.medianStepS, 3, " s"),
                              rehearsal ? "-" : fixed(s.tokensPerS, 0, ""), gib(s.memory.peakAllocated),
                              gib(s.memory.peakReserved), std::to_string(s.memory.allocRetries),
                              rehearsal ? "-" : percent(s.ncclShare) });
        }
        printTable(out, table);
    }
    if (!d.errors.empty()) {
        out << "\nErrors (first failure first)\n";
        for (const auto& e : d.errors) {
            out << "  rank " << e.rank << (e.step ? ", step " + std::to_string(*e.step) : "") << ": "
                << protocol::errorKindId(e.kind) << ": " << terminalText(e.message);
            if (e.reservedUnallocated > 0)
                out << " [reserved but unallocated: " << gib(e.reservedUnallocated) << "]";
            out << "\n";
        }
    }
    if (!d.diagnoses.empty()) {
        out << "\nDiagnosis\n";
        for (const auto& g : d.diagnoses) {
            out << "  " << terminalText(g.title) << " [" << terminalText(g.code) << "]"
                << (g.firstFailureRank ? " (first failure on rank " + std::to_string(*g.firstFailureRank) + ")" : "")
                << "\n";
            if (!g.detail.empty())
                out << "    " << terminalText(g.detail) << "\n";
        }
    }
}

void printRunLogs(std::ostream& out, const std::vector<store::RankLogLine>& lines)
{
    out << "\nLogs (" << countOf(lines.size(), "line") << ")\n";
    for (const auto& l : lines)
        out << "  rank " << l.rank << " " << l.stream << (l.level.empty() ? "" : " " + terminalText(l.level)) << ": "
            << terminalText(l.text) << "\n";
}

} // namespace shardwise::cli
