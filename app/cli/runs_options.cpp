// The option tables of `shardwise-cli runs` and its actions (options.hpp).
#include "runs_show.hpp"

#include "shardwise/store/exchange.hpp"
#include "shardwise/store/runs.hpp"

namespace shardwise::cli {

namespace {

const Option kDb { "--db",
                   "PATH",
                   "the run store (default: $SHARDWISE_DB, else $XDG_DATA_HOME/shardwise/shardwise.sqlite or "
                   "~/.local/share/shardwise/shardwise.sqlite)",
                   {},
                   Complete::File };
const Option kKnownHosts = appKnownHostsOption();
const Option kUserKnownHosts = userKnownHostsOption();
const Operand kRunId { "ID", "the run's ID (see `shardwise-cli runs list`)" };

std::vector<Option> filterOptions()
{
    const std::string s = "Filters:";
    return {
        { "--model", "ID", "model id, exactly (case ignored)", {}, Complete::Model, false, s },
        { "--strategy", "ID", "one of " + strategyIdList(), {}, Complete::Strategy, false, s },
        { "--gpu", "NAME", "GPU preset id, or part of the device name (\"H200\")", {}, Complete::Gpu, false, s },
        { "--node", "NAME", "a node the run used", {}, Complete::Node, false, s },
        { "--status",
          "S",
          "one of " + store::runStatusIdList()
              + "; interrupted: a 'running' run whose recorder stopped reporting; detached: a remote run nothing "
                "follows (its ranks may still run; `runs attach ID` takes it up again)",
          {},
          Complete::Nothing,
          false,
          s },
        { "--source", "S", "measured or imported", { "measured", "imported" }, Complete::Nothing, false, s },
        { "--backend",
          "B",
          "what ran it: native (shardwise-runner) or torch (the PyTorch harness)",
          { "native", "torch" },
          Complete::Nothing,
          false,
          s },
        { "--since",
          "DATE",
          "started at or after a UTC date (2026-01-31 or 2026-01-31T14:05:00Z)",
          {},
          Complete::Nothing,
          false,
          s },
        { "--until", "DATE", "started before a UTC date", {}, Complete::Nothing, false, s },
    };
}

std::string fieldsEpilog()
{
    std::string fields;
    for (const auto& f : store::exchangeFields())
        fields += (fields.empty() ? "" : ", ") + f;
    return "CSV and JSON carry the same fields: " + fields
        + ". Required on import: model, strategy, world_size, status, and gpu_id or gpu_name.";
}

} // namespace

std::vector<CommandSpec> runsSpecs()
{
    CommandSpec list { "runs list",
                       "runs, newest first, as a table or JSON",
                       "[filters] [--format table|json] [--db PATH]",
                       "Lists the store's runs, newest first.",
                       {},
                       false,
                       filterOptions(),
                       "" };
    list.options.push_back({ "--format", "F", "table or json (default table)", { "table", "json" } });
    list.options.push_back(kDb);
    CommandSpec show {
        "runs show",
        "one run: configuration, software, per-rank summaries, errors and diagnoses",
        "ID [--logs] [--format text|json] [--db PATH]",
        "One run: configuration, software, per-rank summaries, errors (first failure first) and diagnoses. "
        "Text from the run (notes, messages, logs) is printed with control characters as \\xNN.",
        { kRunId },
        false,
        { { "--logs", "", "also every log line the store keeps for the run, rank by rank" },
          { "--format", "F", "text or json (default text)", { "text", "json" } },
          kDb },
        ""
    };
    CommandSpec exportSpec { "runs export",
                             "runs as CSV or JSON, to --out FILE or stdout",
                             "--format csv|json [filters] [--out FILE] [--db PATH]",
                             "Writes the runs the filters select as CSV or JSON.",
                             {},
                             false,
                             filterOptions(),
                             fieldsEpilog() };
    exportSpec.options.push_back({ "--format", "F", "csv or json (required)", { "csv", "json" } });
    exportSpec.options.push_back({ "--out", "FILE", "write to FILE instead of stdout", {}, Complete::File });
    exportSpec.options.push_back(kDb);
    CommandSpec import {
        "runs import",
        "runs measured elsewhere (e.g. a published table), CSV or JSON",
        "FILE [--format csv|json] [--source TEXT] [--db PATH]",
        "Stores runs measured elsewhere (e.g. a published table), CSV or JSON: every row is stored as "
        "imported, with its source; a bad row stores nothing.",
        { { "FILE", "the CSV or JSON file", Complete::File } },
        false,
        { { "--format", "F", "csv or json (default: by the file's extension)", { "csv", "json" } },
          { "--source", "TEXT",
            "where the runs come from, for rows without their own import_source (default: the file name)" },
          kDb },
        fieldsEpilog()
    };
    CommandSpec published { "runs import-published",
                            "the published framework results shipped in bench/published",
                            "[DIR] [--replace] [--db PATH]",
                            "Stores each source's measured configurations of DIR/*.json (default: the shipped "
                            "bench/published) as runs of origin 'published', with its citation; cells already stored "
                            "are kept.",
                            { { "DIR", "the folder of published sources", Complete::Directory, true } },
                            false,
                            { { "--replace", "", "store cells already stored again, in place of the earlier import" },
                              kDb },
                            "" };
    CommandSpec examples { "runs import-examples",
                           "the example runs shipped with Shardwise",
                           "[DIR] [--db PATH]",
                           "Replays the example runs shipped with Shardwise (the project's own H200 measurements; DIR "
                           "holds examples.json) as read-only runs of origin 'example' with the planner's prediction "
                           "for each; runs already stored are kept.",
                           { { "DIR", "the folder holding examples.json", Complete::Directory, true } },
                           false,
                           { kDb },
                           "" };
    CommandSpec attach { "runs attach",
                         "follow a detached run on SSH nodes again",
                         "ID [--detach-on-interrupt] [--known-hosts FILE] [--user-known-hosts FILE] [--db PATH]",
                         "Follows a detached run on SSH nodes again (one started with `run --node ... "
                         "--detach-on-interrupt`, or left by a closed app): connects its nodes from the store, records "
                         "what the ranks wrote since into the same run, and follows it to its end. Ctrl-C cancels the "
                         "ranks unless --detach-on-interrupt is given (then it detaches again).",
                         { kRunId },
                         false,
                         { { "--detach-on-interrupt", "", "Ctrl-C detaches again instead of cancelling the ranks" },
                           kKnownHosts,
                           kUserKnownHosts,
                           kDb },
                         "Exit status: 0 the run completes, 1 it fails or cannot be reached (it stays detached), 2 the "
                         "run is unknown, not remote, already finished or followed by another program." };
    CommandSpec abandon {
        "runs abandon",
        "give up a detached run for good",
        "ID [--reason TEXT] [--known-hosts FILE] [--user-known-hosts FILE] [--db PATH]",
        "Gives up a detached run for good: on each of its nodes that answers, ranks still running are "
        "stopped (SIGTERM, then SIGKILL); the run ends as 'lost' with a note saying it was abandoned "
        "(and --reason) and which nodes were not reached, and its remote handle is dropped.",
        { kRunId },
        false,
        { { "--reason", "TEXT", "why, kept in the run's note (\"node gpu-b was re-imaged\")" },
          kKnownHosts,
          kUserKnownHosts,
          kDb },
        "Exit status: 0 abandoned, 2 the run is unknown or not detached."
    };
    return { list, show, exportSpec, import, published, examples, attach, abandon };
}

} // namespace shardwise::cli
