// shardwise-cli runs list|show|export|import|import-published|import-examples|attach|abandon: the run
// store from the command line. The store's file is --db PATH, else $SHARDWISE_DB, else the user's
// data directory (core/store decides, so the GUI opens the same file). Each action's options are
// one table (options.hpp); the list's table and a run's detail are printed by runs_show.cpp.
#include "command.hpp"
#include "options.hpp"
#include "runs_attach.hpp"
#include "runs_import_published.hpp"
#include "runs_show.hpp"
#include "shardwise/spec/file_output.hpp"

#include "shardwise/spec/message.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/exchange.hpp"
#include "shardwise/store/location.hpp"
#include "shardwise/store/runs.hpp"
#include "shardwise/store/timestamps.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>

namespace shardwise::cli {

namespace {

struct Options {
    std::string action;
    std::vector<std::string> positional;
    ParsedArgs parsed;
    std::map<std::string, std::string> values; // each flag's last value; a switch maps to ""
};

std::optional<std::string> value(const Options& o, const std::string& flag)
{
    return o.parsed.value(flag);
}

// The action is the first operand, so that `runs --db PATH list` works as `runs list --db PATH`.
Options parse(const std::vector<std::string>& args)
{
    const std::vector<CommandSpec> specs = runsSpecs();
    CommandSpec any { "runs", "", "", "", { { "ACTION", "" } }, true, {}, "" };
    for (const CommandSpec& s : specs)
        for (const Option& o : s.options)
            if (std::none_of(any.options.begin(), any.options.end(), [&](const Option& x) { return x.name == o.name; }))
                any.options.push_back({ o.name, o.valueName });
    Options o;
    const ParsedArgs all = parseArgs(any, args);
    o.action = all.operands.empty() ? std::string() : all.operands.front();
    const auto spec
        = std::find_if(specs.begin(), specs.end(), [&](const CommandSpec& s) { return s.name == "runs " + o.action; });
    if (spec == specs.end())
        throw UsageError(
            "unknown action '" + o.action
            + "'; expected list, show, export, import, import-published, import-examples, attach or abandon");
    std::vector<std::string> rest = args;
    rest.erase(std::find(rest.begin(), rest.end(), o.action));
    o.parsed = parseArgs(*spec, rest);
    o.positional = o.parsed.operands;
    for (const ParsedOption& p : o.parsed.options)
        o.values[p.name] = p.value;
    return o;
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
            throw UsageError("--strategy: unknown strategy '" + *s + "'" + strategyDidYouMean(*s)
                             + "; known: " + strategyIdList());
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
    for (const auto& [flag, target] :
         { std::pair { "--since", &f.startedFrom }, std::pair { "--until", &f.startedUntil } }) {
        if (const auto s = value(o, flag)) {
            *target = store::parseUtc(*s);
            if (!*target)
                throw UsageError(std::string(flag)
                                 + ": expected a UTC date such as 2026-01-31 or 2026-01-31T14:05:00Z, got '" + *s
                                 + "'");
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

int list(const Options& o, std::ostream& out, std::ostream& err)
{
    const std::string format = value(o, "--format").value_or("table");
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
    printRunTable(out, runs);
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

int show(const Options& o, std::ostream& out, std::ostream& err)
{
    const std::int64_t id = runIdArgument(o);
    const std::string format = value(o, "--format").value_or("text");
    const auto db = openStore(o, err);
    const auto detail = store::runDetail(db, id);
    if (!detail) {
        err << "shardwise-cli runs show: no run with ID " << id << " in " << db.path().string()
            << " (shardwise-cli runs list shows the stored runs)\n";
        return kExitUsage;
    }
    const bool logs = o.values.count("--logs") != 0;
    if (format == "json") {
        nlohmann::json j = runDetailJson(*detail);
        if (logs) {
            j["logs"] = nlohmann::json::array();
            for (const auto& l : store::rankLogs(db, id))
                j["logs"].push_back({ { "rank", l.rank },
                                      { "stream", l.stream },
                                      { "level", l.level },
                                      { "text", l.text },
                                      { "time", l.time } });
        }
        out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
        printRunDetail(out, *detail);
        if (logs)
            printRunLogs(out, store::rankLogs(db, id));
    }
    return kExitOk;
}

int exportRuns(const Options& o, std::ostream& out, std::ostream& err)
{
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
        if (const std::string why = writeFileSafely(*path, text.str()).error; !why.empty())
            throw UsageError("--out: " + why);
    } else if (!*target) {
        err << "shardwise-cli runs export: writing failed\n";
        return kExitFailed;
    }
    if (path)
        err << "exported " << countOf(runs.size(), "run") << " to " << *path << "\n";
    return kExitOk;
}

int importRuns(const Options& o, std::ostream& out, std::ostream& err)
{
    if (o.positional.size() != 1)
        throw UsageError("import needs exactly one FILE");
    const std::string path = o.positional.front();
    std::string format = value(o, "--format").value_or("");
    if (format.empty()) {
        const auto dot = path.rfind('.');
        format = dot == std::string::npos ? "" : path.substr(dot + 1);
        if (format != "csv" && format != "json")
            throw UsageError("cannot tell the format of '" + path
                             + "' from its name; pass --format csv or --format json");
    }
    if (format != "csv" && format != "json")
        throw UsageError("--format: import reads csv or json, got '" + format + "'");
    // /dev/zero, a FIFO or a folder would be read without end (or not at all): only a regular file is.
    std::error_code statError;
    if (const auto st = std::filesystem::status(path, statError);
        !statError && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
        throw UsageError("'" + path
                         + "' is not a regular file (a device, a FIFO or a folder); runs import reads a file that "
                           "runs export wrote");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw UsageError("cannot read '" + path + "'");
    const std::string source = value(o, "--source").value_or(std::filesystem::path(path).filename().string());
    auto db = openStore(o, err);
    try {
        const auto result
            = format == "csv" ? store::importRunsCsv(db, in, source) : store::importRunsJson(db, in, source);
        out << "imported " << countOf(result.runIds.size(), "run") << " from " << path;
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

std::optional<std::string> optionalDir(const Options& o)
{
    return o.positional.empty() ? std::nullopt : std::optional<std::string>(o.positional.front());
}

int runsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    if (args.empty()) {
        err << groupUsage("runs");
        return kExitUsage;
    }
    if (args.front() == "--help" || args.front() == "-h" || args.front() == "help") {
        out << groupUsage("runs");
        return kExitOk;
    }
    try {
        const Options o = parse(args);
        if (o.parsed.help) {
            for (const CommandSpec& s : runsSpecs())
                if (s.name == "runs " + o.action)
                    out << usageText(s);
            return kExitOk;
        }
        if (o.action == "list")
            return list(o, out, err);
        if (o.action == "show")
            return show(o, out, err);
        if (o.action == "export")
            return exportRuns(o, out, err);
        if (o.action == "import")
            return importRuns(o, out, err);
        if (o.action == "import-published")
            return importPublishedRuns(optionalDir(o), o.values, out, err);
        if (o.action == "import-examples")
            return importExampleRuns(optionalDir(o), o.values, out, err);
        if (o.action == "attach")
            return attachStoredRun(runIdArgument(o), o.values, out, err);
        return abandonStoredRun(runIdArgument(o), o.values, out, err);
    } catch (const UsageError& e) {
        err << "shardwise-cli runs: " << e.what() << "\n";
        return kExitUsage;
    } catch (const store::StoreError& e) {
        err << "shardwise-cli runs: " << e.what() << "\n";
        return kExitFailed;
    }
}

const CommandRegistration registration("runs", "list, show, export, import, re-attach and abandon recorded runs",
                                       runsCommand, runsSpecs);

} // namespace

} // namespace shardwise::cli
