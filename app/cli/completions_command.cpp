// shardwise-cli completions bash|zsh and shardwise-cli man: the completion scripts and the man page,
// made from the option table every subcommand parses with (options.hpp). The build writes them into
// the build tree and installs them; `completions words node` is what the scripts call to complete
// a node's name from the store.
#include "command.hpp"
#include "options.hpp"

#include "shardwise/store/database.hpp"
#include "shardwise/store/location.hpp"
#include "shardwise/store/nodes.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

namespace shardwise::cli {

namespace {

CommandSpec completionsSpec()
{
    return { "completions",
             "print the bash or zsh completion script",
             "bash|zsh | table | words node [--db PATH]",
             "Prints a completion script for shardwise-cli, made from the option table every command parses with: "
             "bash (source it, or install it as share/bash-completion/completions/shardwise-cli) or zsh (install "
             "it as _shardwise-cli in a folder of $fpath). `completions table` prints the option table as JSON (every "
             "command with its options). `completions words node` prints the names of the "
             "store's nodes, one a line, which the scripts offer where a node's name goes.",
             { { "SHELL", "bash or zsh (or table, or words)" },
               { "KIND", "with words: node", Complete::Nothing, true } },
             false,
             { { "--db",
                 "PATH",
                 "the store whose nodes `words node` lists (default: $SHARDWISE_DB, else the user's data folder)",
                 {},
                 Complete::File } },
             "Exit status: 0 printed, 2 bad usage." };
}

CommandSpec manSpec()
{
    return { "man",
             "print the man page (troff)",
             "",
             "Prints the shardwise-cli(1) man page, every command with every option, made from the same table "
             "as --help and the completion scripts. Read it with `shardwise-cli man | man -l -`.",
             {},
             false,
             {},
             "Exit status: 0 printed, 2 bad usage." };
}

int completions(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const CommandSpec spec = completionsSpec();
    try {
        const ParsedArgs a = parseArgs(spec, args);
        if (a.help) {
            out << usageText(spec);
            return kExitOk;
        }
        const std::string shell = a.operands.empty() ? std::string() : a.operands.front();
        if (shell == "words") {
            if (a.operands.size() != 2 || a.operands[1] != "node")
                throw UsageError("words: expected `words node`");
            const store::Database db = store::Database::open(store::resolveDatabasePath(a.value("--db").value_or("")));
            for (const store::Node& n : store::listNodes(db))
                out << n.name << "\n";
            return kExitOk;
        }
        if (shell == "table" && a.operands.size() == 1) {
            nlohmann::json table = nlohmann::json::array();
            for (const CommandSpec& command : allCommandSpecs()) {
                nlohmann::json options = nlohmann::json::array();
                for (const Option& o : command.options)
                    options.push_back({ { "name", o.name },
                                        { "value", o.valueName },
                                        { "choices", o.choices },
                                        { "repeatable", o.repeatable } });
                table.push_back({ { "command", command.name }, { "options", options } });
            }
            out << table.dump(2) << "\n";
            return kExitOk;
        }
        if (a.operands.size() != 1 || (shell != "bash" && shell != "zsh"))
            throw UsageError("SHELL: expected bash or zsh (or table, or words node)");
        out << (shell == "bash" ? bashCompletion() : zshCompletion());
        return kExitOk;
    } catch (const UsageError& e) {
        err << "shardwise-cli completions: " << e.what() << "\n";
        return kExitUsage;
    }
}

int man(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)
{
    const CommandSpec spec = manSpec();
    try {
        const ParsedArgs a = parseArgs(spec, args);
        out << (a.help ? usageText(spec) : manPage(SHARDWISE_VERSION));
        return kExitOk;
    } catch (const UsageError& e) {
        err << "shardwise-cli man: " << e.what() << "\n";
        return kExitUsage;
    }
}

std::vector<CommandSpec> completionsSpecs()
{
    return { completionsSpec() };
}
std::vector<CommandSpec> manSpecs()
{
    return { manSpec() };
}

const CommandRegistration completionsRegistration("completions", "print the bash or zsh completion script", completions,
                                                  completionsSpecs);
const CommandRegistration manRegistration("man", "print the man page (troff)", man, manSpecs);

} // namespace

} // namespace shardwise::cli
