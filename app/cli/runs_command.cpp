// shardwise-cli runs list|show|export|import|attach|abandon: the run store from the command line. The store's file
// is --db PATH, else $SHARDWISE_DB, else the user's data directory (core/store decides, so the GUI
// opens the same file).
#include "command.hpp"
#include "file_output.hpp"
#include "runs_attach.hpp"
#include "runs_import_published.hpp"

#include "shardwise/protocol/events.hpp"
#include "shardwise/published/published_import.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/exchange.hpp"
#include "shardwise/store/location.hpp"
#include "shardwise/store/runs.hpp"
#include "shardwise/store/timestamps.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>

namespace shardwise::cli {

namespace {

constexpr const char* kUsage = R"(usage: shardwise-cli runs <action> [options]

Actions:
  list                       runs, newest first, as a table or JSON
  show ID                    one run: configuration, software, per-rank summaries, errors (first
                             failure first) and diagnoses
  export --format csv|json   runs as CSV or JSON, to --out FILE or stdout
  import FILE                runs measured elsewhere (e.g. a published table), CSV or JSON; every
                             row is stored as imported, with its source; a bad row stores nothing
  import-published [DIR]     the published framework results shipped in bench/published (or DIR):
                             each source's measured configurations stored as runs of origin
                             'published', with its citation; cells already stored are kept,
                             --replace stores them again in place of the earlier import
  import-examples [DIR]      the example runs shipped with Shardwise (the project's own H200
                             measurements; DIR holds examples.json): each replayed as a read-only
                             run of origin 'example' with the planner's prediction for it; runs
                             already stored are kept
  attach ID                  follow a detached run on SSH nodes again (one started with
                             `run --node ... --detach-on-interrupt`, or left by a closed app):
                             connects its nodes from the store, records what the ranks wrote
                             since into the same run, and follows it to its end. Ctrl-C cancels
                             the ranks unless --detach-on-interrupt is given (then it detaches
                             again). Exit 0 when the run completes, 1 when it fails or cannot be
                             reached (it stays detached), 2 when the run is unknown, not remote,
                             already finished or followed by another program
  abandon ID                 give up a detached run for good: on each of its nodes that answers,
                             ranks still running are stopped (SIGTERM, then SIGKILL); the run
                             ends as 'lost' with a note saying it was abandoned (and --reason)
                             and which nodes were not reached, and its remote handle is dropped.
                             Exit 2 when the run is unknown or not detached

Filters (list and export):
  --model ID                 model id, exactly (case ignored)
  --strategy ID              one of )";

constexpr const char* kUsageTail = R"(
  --gpu NAME                 GPU preset id, or part of the device name ("H200")
  --node NAME                a node the run used
  --status S                 one of running, completed, oom, failed, timeout, lost, cancelled,
                             interrupted (a 'running' run whose recorder stopped reporting),
                             detached (a remote run nothing follows; its ranks may still run;
                             `runs attach ID` takes it up again)
  --source measured|imported
  --backend native|torch     what ran it: shardwise-runner, or the PyTorch harness
  --since DATE, --until DATE started at or after / before a UTC date (2026-01-31 or
                             2026-01-31T14:05:00Z)

Options:
  --db PATH                  the run store (default: $SHARDWISE_DB, else
                             $XDG_DATA_HOME/shardwise/shardwise.sqlite or
                             ~/.local/share/shardwise/shardwise.sqlite)
  --format F                 list: table|json (default table); show: text|json (default text);
                             export: csv|json (required); import: csv|json (default: by extension)
  --out FILE                 export: write to FILE instead of stdout
  --source TEXT              import: where the runs come from, for rows without their own
                             import_source (default: the file name)
  --known-hosts FILE         attach, abandon: the app's own known_hosts (default:
                             $XDG_CONFIG_HOME/shardwise/known_hosts)
  --user-known-hosts FILE    attach, abandon: the user's known_hosts, read only (default: ~/.ssh/known_hosts)
  --detach-on-interrupt      attach: Ctrl-C detaches again instead of cancelling the ranks
  --reason TEXT              abandon: why, kept in the run's note ("node gpu-b was re-imaged")

CSV and JSON carry the same fields: )";

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Options {
    std::string action;
    std::vector<std::string> positional;
    std::map<std::string, std::string> values;
};

const std::vector<std::string>& flagsWithValues()
{
    static const std::vector<std::string> flags{"--db",     "--model", "--strategy", "--gpu",
                                                "--node",   "--status", "--source",  "--since",
                                                "--until",  "--format", "--out",     "--known-hosts",
                                                "--user-known-hosts", "--reason", "--backend"};
    return flags;
}

const std::vector<std::string>& switches()
{
    static const std::vector<std::string> flags{"--detach-on-interrupt", "--replace"};
    return flags;
}

Options parse(const std::vector<std::string>& args)
{
    Options o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (std::find(switches().begin(), switches().end(), a) != switches().end()) {
            o.values[a] = "";
        } else if (a.rfind("--", 0) == 0) {
            const auto& known = flagsWithValues();
            if (std::find(known.begin(), known.end(), a) == known.end())
                throw UsageError("unknown option '" + a + "'");
            if (i + 1 >= args.size())
                throw UsageError(a + ": needs a value");
            o.values[a] = args[++i];
        } else if (o.action.empty()) {
            o.action = a;
        } else {
            o.positional.push_back(a);
        }
    }
    return o;
}

std::optional<std::string> value(const Options& o, const std::string& flag)
{
    const auto it = o.values.find(flag);
    if (it == o.values.end())
        return std::nullopt;
    return it->second;
}

void allowOnly(const Options& o, std::initializer_list<const char*> allowed)
{
    for (const auto& [flag, v] : o.values) {
        bool ok = false;
        for (const char* a : allowed)
            ok = ok || flag == a;
        if (!ok)
            throw UsageError(flag + ": not an option of 'runs " + o.action + "'");
    }
}

store::RunFilter filterFrom(const Options& o)
{
    store::RunFilter f;
    f.model = value(o, "--model");
    f.gpu = value(o, "--gpu");
    f.node = value(o, "--node");
    if (const auto s = value(o, "--strategy")) {
        f.strategy = strategyFromId(*s);
        if (!f.strategy)
            throw UsageError("--strategy: unknown strategy '" + *s + "'; known: " + strategyIdList());
    }
    if (const auto s = value(o, "--status")) {
        f.status = store::runStatusFromId(*s);
        if (!f.status)
            throw UsageError("--status: unknown status '" + *s + "'; known: " + store::runStatusIdList());
    }
    if (const auto s = value(o, "--source")) {
        if (*s != "measured" && *s != "imported")
            throw UsageError("--source: expected measured or imported, got '" + *s + "'");
        f.source = *s == "imported" ? store::RunSource::Imported : store::RunSource::Measured;
    }
    if (const auto s = value(o, "--backend")) {
        f.backend = backendFromId(*s);
        if (!f.backend)
            throw UsageError("--backend: expected native or torch, got '" + *s + "'");
    }
    for (const auto& [flag, target] : {std::pair{"--since", &f.startedFrom}, std::pair{"--until", &f.startedUntil}}) {
        if (const auto s = value(o, flag)) {
            *target = store::parseUtc(*s);
            if (!*target)
                throw UsageError(std::string(flag) + ": expected a UTC date such as 2026-01-31 or 2026-01-31T14:05:00Z, got '"
                                 + *s + "'");
        }
    }
    return f;
}

store::Database openStore(const Options& o, std::ostream& err)
{
    const auto path = store::resolveDatabasePath(value(o, "--db").value_or(""));
    store::Database db = store::Database::open(path);
    if (db.readOnly())
        err << "shardwise-cli runs: warning: " << db.readOnlyReason() << "\n";
    return db;
}

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
    static constexpr const char* kPrefixes[] = {"k", "M", "G", "T", "P", "E"};
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

std::string gpuLabel(const store::RunSummary& r) { return r.gpuName.empty() ? r.gpuId : r.gpuName; }

void printTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows)
{
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

int list(const Options& o, std::ostream& out, std::ostream& err)
{
    allowOnly(o, {"--db", "--model", "--strategy", "--gpu", "--node", "--status", "--source", "--backend", "--since",
                  "--until", "--format"});
    if (!o.positional.empty())
        throw UsageError("list takes no arguments, got '" + o.positional.front() + "'");
    const std::string format = value(o, "--format").value_or("table");
    if (format != "table" && format != "json")
        throw UsageError("--format: list prints table or json, got '" + format + "'");
    const auto filter = filterFrom(o);
    const auto db = openStore(o, err);
    const auto runs = store::listRuns(db, filter);
    if (format == "json") {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& r : runs)
            j.push_back(store::toJson(r));
        out << j.dump(2) << "\n";
        return kExitOk;
    }
    if (runs.empty()) {
        out << "no runs match (store: " << db.path().string() << ")\n";
        return kExitOk;
    }
    std::vector<std::vector<std::string>> rows{{"ID", "STATUS", "MODEL", "GPU", "STRATEGY", "BACKEND", "RANKS", "THROUGHPUT",
                                                "MEDIAN STEP", "PEAK ALLOC", "PEAK RESV", "NCCL", "SOURCE", "STARTED"}};
    for (const auto& r : runs) {
        // A published run was measured by the framework its source names, not by either backend.
        const bool published = published::isPublishedRun(r.importSource);
        rows.push_back({std::to_string(r.id), std::string(store::runStatusId(r.status)), r.modelId, gpuLabel(r),
                        std::string(strategyId(r.strategy)), published ? "-" : std::string(backendId(r.backend)),
                        std::to_string(r.worldSize), fixed(r.tokensPerS, 0, " tok/s"), fixed(r.medianStepS, 3, " s"),
                        gib(r.peakAllocated), gib(r.peakReserved), percent(r.ncclShare),
                        published ? "published" : std::string(store::runSourceId(r.source)), store::formatUtc(r.startedAt)});
    }
    printTable(out, rows);
    return kExitOk;
}

std::int64_t runIdArgument(const Options& o)
{
    if (o.positional.size() != 1)
        throw UsageError(o.action + " needs exactly one run ID");
    const std::string& text = o.positional.front();
    std::int64_t id = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc() || end != text.data() + text.size() || id < 1)
        throw UsageError("run ID must be a positive whole number, got '" + text + "'");
    return id;
}

nlohmann::json detailJson(const store::RunDetail& d)
{
    nlohmann::json j;
    j["run"] = store::toJson(d.summary);
    j["config"] = d.config;
    j["versions"] = {{"runner", d.versions.runner},   {"libtorch", d.versions.libtorch}, {"cuda", d.versions.cuda},
                     {"nccl", d.versions.nccl},       {"driver", d.versions.driver},     {"compiler", d.versions.compiler}};
    j["backend"] = backendId(d.summary.backend);
    if (d.summary.backend == RunBackend::Torch)
        j["framework"] = {{"python", d.versions.python}, {"torch", d.versions.torch},
                          {"transformers", d.versions.transformers}, {"model_impl", d.versions.modelImpl}};
    j["allocator"] = {{"conf", d.allocator.conf}, {"expandable_segments", d.allocator.expandableSegments}};
    j["ranks"] = nlohmann::json::array();
    for (const auto& r : d.ranks)
        j["ranks"].push_back({{"rank", r.rank}, {"host", r.host}, {"local_rank", r.localRank}, {"device", r.deviceName}});
    j["rank_summaries"] = nlohmann::json::array();
    for (const auto& s : d.rankSummaries)
        j["rank_summaries"].push_back(protocol::toJson(protocol::Event(s)));
    j["errors"] = nlohmann::json::array();
    for (const auto& e : d.errors)
        j["errors"].push_back(protocol::toJson(protocol::Event(e)));
    j["diagnoses"] = nlohmann::json::array();
    for (const auto& g : d.diagnoses)
        j["diagnoses"].push_back({{"code", g.code},
                                  {"title", g.title},
                                  {"detail", g.detail},
                                  {"first_failure_rank", g.firstFailureRank ? nlohmann::json(*g.firstFailureRank) : nlohmann::json()},
                                  {"document", g.document}});
    return j;
}

std::string orDash(const std::string& s) { return s.empty() ? "-" : s; }

void printDetail(std::ostream& out, const store::RunDetail& d)
{
    const auto& r = d.summary;
    out << "Run " << r.id << ": " << store::runStatusId(r.status) << " (" << store::runSourceId(r.source)
        << (r.importSource.empty() ? "" : ", from " + r.importSource) << ")\n";
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
          std::to_string(r.worldSize) + " on " + std::to_string(r.nodeCount) + " node(s): " + orDash(nodes) },
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
    };
    if (!r.note.empty())
        rows.push_back({"  note", r.note});
    printTable(out, rows);

    out << "\nHeadline\n";
    const auto predicted = [](std::optional<double> v, int digits, const std::string& unit) {
        return v ? " (predicted " + fixed(v, digits, unit) + ")" : std::string();
    };
    printTable(out, {
        {"  throughput", fixed(r.tokensPerS, 0, " tokens/s") + predicted(r.predicted.tokensPerS, 0, " tokens/s")},
        {"  median step", fixed(r.medianStepS, 3, " s") + predicted(r.predicted.stepS, 3, " s")},
        {"  p10 / p90 step", fixed(r.p10StepS, 3, " s") + " / " + fixed(r.p90StepS, 3, " s")},
        {"  peak allocated", gib(r.peakAllocated)
                                 + (r.predicted.peakBytes ? " (predicted " + gib(r.predicted.peakBytes) + ")" : "")},
        {"  peak reserved", gib(r.peakReserved)},
        {"  alloc retries", r.allocRetries ? std::to_string(*r.allocRetries) : "-"},
        // Communication kernels overlap compute, so their share of the step is not time spent waiting.
        {"  NCCL share", percent(r.ncclShare) + " of step time in comm kernels (overlaps compute)"},
        {"  exposed comm", percent(r.exposedCommShare) + " of step time waiting for communication"},
    });

    if (!d.rankSummaries.empty()) {
        out << "\nPer-rank summaries\n";
        std::vector<std::vector<std::string>> table{
            {"  RANK", "HOST", "MEDIAN STEP", "TOKENS/S", "PEAK ALLOC", "PEAK RESV", "RETRIES", "NCCL"}};
        for (const auto& s : d.rankSummaries) {
            std::string host = "-";
            for (const auto& p : d.ranks)
                if (p.rank == s.rank)
                    host = p.host;
            table.push_back({"  " + std::to_string(s.rank), host, fixed(s.medianStepS, 3, " s"),
                             fixed(s.tokensPerS, 0, ""), gib(s.memory.peakAllocated), gib(s.memory.peakReserved),
                             std::to_string(s.memory.allocRetries), percent(s.ncclShare)});
        }
        printTable(out, table);
    }
    if (!d.errors.empty()) {
        out << "\nErrors (first failure first)\n";
        for (const auto& e : d.errors) {
            out << "  rank " << e.rank << (e.step ? ", step " + std::to_string(*e.step) : "") << ": "
                << protocol::errorKindId(e.kind) << ": " << e.message;
            if (e.reservedUnallocated > 0)
                out << " [reserved but unallocated: " << gib(e.reservedUnallocated) << "]";
            out << "\n";
        }
    }
    if (!d.diagnoses.empty()) {
        out << "\nDiagnosis\n";
        for (const auto& g : d.diagnoses) {
            out << "  " << g.title << " [" << g.code << "]"
                << (g.firstFailureRank ? " (first failure on rank " + std::to_string(*g.firstFailureRank) + ")" : "")
                << "\n";
            if (!g.detail.empty())
                out << "    " << g.detail << "\n";
        }
    }
}

int show(const Options& o, std::ostream& out, std::ostream& err)
{
    allowOnly(o, {"--db", "--format"});
    const std::int64_t id = runIdArgument(o);
    const std::string format = value(o, "--format").value_or("text");
    if (format != "text" && format != "json")
        throw UsageError("--format: show prints text or json, got '" + format + "'");
    const auto db = openStore(o, err);
    const auto detail = store::runDetail(db, id);
    if (!detail) {
        err << "shardwise-cli runs show: no run with ID " << id << " in " << db.path().string() << "\n";
        return kExitFailed;
    }
    if (format == "json")
        out << detailJson(*detail).dump(2) << "\n";
    else
        printDetail(out, *detail);
    return kExitOk;
}

int exportRuns(const Options& o, std::ostream& out, std::ostream& err)
{
    allowOnly(o, {"--db", "--model", "--strategy", "--gpu", "--node", "--status", "--source", "--backend", "--since",
                  "--until", "--format", "--out"});
    if (!o.positional.empty())
        throw UsageError("export takes no arguments, got '" + o.positional.front() + "'");
    const auto format = value(o, "--format");
    if (!format)
        throw UsageError("--format: export needs --format csv or --format json");
    if (*format != "csv" && *format != "json")
        throw UsageError("--format: export writes csv or json, got '" + *format + "'");
    const auto filter = filterFrom(o);
    const auto db = openStore(o, err);
    const auto runs = store::listRuns(db, filter);
    std::ostringstream text;
    const auto path = value(o, "--out");
    std::ostream* target = path ? static_cast<std::ostream*>(&text) : &out;
    if (*format == "csv")
        store::exportRunsCsv(runs, *target);
    else
        store::exportRunsJson(runs, *target);
    target->flush();
    if (path) {
        if (const std::string why = replaceFileContents(*path, text.str()); !why.empty())
            throw UsageError("--out: " + why);
    } else if (!*target) {
        err << "shardwise-cli runs export: writing failed\n";
        return kExitFailed;
    }
    if (path)
        err << "exported " << runs.size() << " run(s) to " << *path << "\n";
    return kExitOk;
}

int importRuns(const Options& o, std::ostream& out, std::ostream& err)
{
    allowOnly(o, {"--db", "--format", "--source"});
    if (o.positional.size() != 1)
        throw UsageError("import needs exactly one FILE");
    const std::string path = o.positional.front();
    std::string format = value(o, "--format").value_or("");
    if (format.empty()) {
        const auto dot = path.rfind('.');
        format = dot == std::string::npos ? "" : path.substr(dot + 1);
        if (format != "csv" && format != "json")
            throw UsageError("cannot tell the format of '" + path + "' from its name; pass --format csv or --format json");
    }
    if (format != "csv" && format != "json")
        throw UsageError("--format: import reads csv or json, got '" + format + "'");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw UsageError("cannot read '" + path + "'");
    const std::string source = value(o, "--source").value_or(std::filesystem::path(path).filename().string());
    auto db = openStore(o, err);
    try {
        const auto result = format == "csv" ? store::importRunsCsv(db, in, source) : store::importRunsJson(db, in, source);
        out << "imported " << result.runIds.size() << " run(s) from " << path;
        if (!result.runIds.empty()) // rows are stored last first, so the file's order is not the id order
            out << " as IDs " << *std::min_element(result.runIds.begin(), result.runIds.end()) << "-"
                << *std::max_element(result.runIds.begin(), result.runIds.end());
        out << "\n";
    } catch (const store::ImportError& e) {
        err << "shardwise-cli runs import: " << path << ": " << e.what() << "; nothing was imported\n";
        return kExitUsage;
    }
    return kExitOk;
}

std::string usage()
{
    std::string fields;
    for (const auto& f : store::exchangeFields())
        fields += (fields.empty() ? "" : ", ") + f;
    return std::string(kUsage) + strategyIdList() + kUsageTail + fields + ".\nRequired on import: model, strategy, "
           + "world_size, status, and gpu_id or gpu_name.\n";
}

int runsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    if (args.empty()) {
        err << usage();
        return kExitUsage;
    }
    if (args.front() == "--help" || args.front() == "-h" || args.front() == "help") {
        out << usage();
        return kExitOk;
    }
    try {
        const Options o = parse(args);
        if (o.action == "list")
            return list(o, out, err);
        if (o.action == "show")
            return show(o, out, err);
        if (o.action == "export")
            return exportRuns(o, out, err);
        if (o.action == "import")
            return importRuns(o, out, err);
        if (o.action == "import-published") {
            allowOnly(o, {"--db", "--replace"});
            if (o.positional.size() > 1)
                throw UsageError("import-published takes at most one DIR, got " + std::to_string(o.positional.size()));
            return importPublishedRuns(o.positional.empty() ? std::nullopt : std::optional<std::string>(o.positional.front()),
                                       o.values, out, err);
        }
        if (o.action == "import-examples") {
            allowOnly(o, { "--db" });
            if (o.positional.size() > 1)
                throw UsageError("import-examples takes at most one DIR, got " + std::to_string(o.positional.size()));
            return importExampleRuns(o.positional.empty() ? std::nullopt
                                                          : std::optional<std::string>(o.positional.front()),
                                     o.values, out, err);
        }
        if (o.action == "attach") {
            allowOnly(o, {"--db", "--known-hosts", "--user-known-hosts", "--detach-on-interrupt"});
            return attachStoredRun(runIdArgument(o), o.values, out, err);
        }
        if (o.action == "abandon") {
            allowOnly(o, {"--db", "--reason", "--known-hosts", "--user-known-hosts"});
            return abandonStoredRun(runIdArgument(o), o.values, out, err);
        }
        throw UsageError(
            "unknown action '" + o.action
            + "'; expected list, show, export, import, import-published, import-examples, attach or abandon");
    } catch (const UsageError& e) {
        err << "shardwise-cli runs: " << e.what() << "\n\n" << usage();
        return kExitUsage;
    } catch (const store::StoreError& e) {
        err << "shardwise-cli runs: " << e.what() << "\n";
        return kExitFailed;
    }
}

const CommandRegistration registration("runs", "list, show, export, import, re-attach and abandon recorded runs",
                                       runsCommand);

} // namespace

} // namespace shardwise::cli
