// shardwise-cli nodes add|remove|list|test|prepare|probe: the actions live in nodes_manage.cpp (add,
// remove, list), nodes_test.cpp, nodes_prepare.cpp and nodes_probe.cpp; each declares its options in
// a table (options.hpp), which gives `nodes --help` its list.
#include "command.hpp"
#include "nodes_manage.hpp"
#include "nodes_probe.hpp"

#include <ostream>

namespace shardwise::cli {

namespace {

std::vector<CommandSpec> nodesSpecs()
{
    return {
        nodesAddSpec(), nodesRemoveSpec(), nodesListSpec(), nodesTestSpec(), nodesPrepareSpec(), nodesProbeSpec()
    };
}

int nodesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        (args.empty() ? err : out) << groupUsage("nodes");
        return args.empty() ? kExitUsage : kExitOk;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "add")
        return nodesAdd(rest, out, err);
    if (args[0] == "remove")
        return nodesRemove(rest, out, err);
    if (args[0] == "list")
        return nodesList(rest, out, err);
    if (args[0] == "prepare")
        return nodesPrepare(rest, out, err);
    if (args[0] == "test")
        return nodesTest(rest, out, err);
    if (args[0] == "probe")
        return nodesProbe(rest, out, err);
    err << "shardwise-cli nodes: unknown action '" << args[0] << "'\n\n" << groupUsage("nodes");
    return kExitUsage;
}

const CommandRegistration registration {
    "nodes",
    "manage nodes: `nodes add|remove|list`, `nodes test` shows reachability, runner "
    "and GPUs, `nodes prepare` builds the runner, `nodes probe` measures",
    nodesCommand, nodesSpecs
};

} // namespace

} // namespace shardwise::cli
