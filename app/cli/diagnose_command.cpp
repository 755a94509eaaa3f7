// shardwise-cli diagnose: the first failure across a run's ranks, from its logs, events and meta.json.
#include "command.hpp"
#include "options.hpp"

#include "shardwise/diagnose/diagnosis.hpp"
#include "shardwise/diagnose/run_folder.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <ostream>

namespace shardwise::cli {

namespace {

namespace dg = shardwise::diagnose;

CommandSpec diagnoseSpec()
{
    return { "diagnose",
             "name the first failure across a run's ranks and what to do next",
             "DIR | FILE... [--format table|json] [--skew-window SECONDS]",
             "Reads a run's logs and names the first failure across its ranks and nodes (the root cause), the "
             "symptoms that followed it, and what to do next.",
             { { "DIR|FILE",
                 "a run folder (rank<N>.log per rank, *.jsonl runner events, other *.log launcher logs, and "
                 "optionally meta.json: exit codes, signals, lost ranks, node names, clock offsets; see "
                 "docs/diagnosis.md), or the same files given one by one",
                 Complete::File } },
             true,
             { { "--format",
                 "F",
                 "output format: table or json (default table); json is what the run store keeps",
                 { "table", "json" } },
               { "--skew-window", "S",
                 "how far apart (seconds) node clocks may be when meta.json gives no offset (default 600)" } },
             "Exit status: 0 when the diagnosis ran (whatever it found), 2 for bad usage or unreadable input." };
}

std::string timeColumn(const dg::Failure& f)
{
    if (f.loggedTime.empty())
        return "-";
    return f.loggedTime + (f.timeSource == dg::TimeSource::Inherited ? " ~" : "");
}

void printTable(const dg::Diagnosis& d, std::ostream& out)
{
    out << "verdict: " << dg::verdictId(d.verdict) << "\n\n" << d.explanation << "\n";
    if (!d.failures.empty()) {
        out << "\nfailures (earliest first; '~' = time of the nearest logged line):\n";
        for (const auto& f : d.failures) {
            const std::string role = f.isRootCause ? "ROOT CAUSE" : (f.isSymptom ? "symptom" : "failure");
            out << "  " << role << "  " << dg::failureKindId(f.kind) << "  rank "
                << (f.rank == dg::kNoRank ? std::string("-") : std::to_string(f.rank)) << "  node "
                << (f.node.empty() ? std::string("-") : f.node) << "  " << timeColumn(f) << "\n"
                << "      " << f.message << "\n";
            for (const auto& e : f.evidence)
                out << "      " << e.source << (e.line ? ":" + std::to_string(e.line) : std::string()) << ": " << e.text
                    << "\n";
            if (!f.lastLines.empty()) {
                out << "      last lines:\n";
                for (const auto& e : f.lastLines)
                    out << "        " << e.source << ":" << e.line << ": " << e.text << "\n";
            }
        }
    }
    if (!d.actions.empty()) {
        out << "\nnext steps:\n";
        int n = 1;
        for (const auto& a : d.actions)
            out << "  " << n++ << ". [" << dg::actionKindId(a.kind) << "] " << a.text << "\n";
    }
    for (const auto& note : d.notes)
        out << "\nnote: " << note << "\n";
}

int runDiagnose(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    std::string format = "table";
    dg::DiagnoseOptions options;
    std::vector<std::filesystem::path> inputs;
    ParsedArgs parsed;
    try {
        parsed = parseArgs(diagnoseSpec(), args);
    } catch (const UsageError& e) {
        err << "shardwise-cli diagnose: " << e.what() << "\n";
        return kExitUsage;
    }
    if (parsed.help) {
        out << usageText(diagnoseSpec());
        return kExitOk;
    }
    format = parsed.value("--format").value_or("table");
    if (const auto v = parsed.value("--skew-window")) {
        double s = 0;
        const auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), s);
        // from_chars accepts "nan" and "inf": neither is a window.
        if (ec != std::errc() || ptr != v->data() + v->size() || !std::isfinite(s) || s < 0) {
            err << "shardwise-cli diagnose: --skew-window must be a finite number of seconds >= 0, not '" << *v
                << "'\n";
            return kExitUsage;
        }
        options.unknownSkewS = s;
    }
    for (const std::string& a : parsed.operands)
        inputs.emplace_back(a);
    if (inputs.empty()) {
        err << "shardwise-cli diagnose: give a run folder or its log files\n\n" << usageText(diagnoseSpec());
        return kExitUsage;
    }
    std::vector<dg::RankRecord> records;
    try {
        std::error_code ec;
        records = inputs.size() == 1 && std::filesystem::is_directory(inputs.front(), ec)
            ? dg::loadRunFolder(inputs.front())
            : dg::loadRunFiles(inputs);
    } catch (const dg::DiagnoseInputError& e) {
        err << "shardwise-cli diagnose: " << e.what() << "\n";
        return kExitUsage;
    }
    const dg::Diagnosis d = dg::diagnose(records, options);
    if (format == "json")
        out << dg::toJson(d).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else
        printTable(d, out);
    return kExitOk;
}

std::vector<CommandSpec> diagnoseSpecs()
{
    return { diagnoseSpec() };
}

const CommandRegistration kRegistration("diagnose", "name the first failure across a run's ranks and what to do next",
                                        runDiagnose, diagnoseSpecs);

} // namespace

} // namespace shardwise::cli
