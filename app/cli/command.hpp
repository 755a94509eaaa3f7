#pragma once
// shardwise-cli subcommands register themselves here; main() dispatches on the first argument.
// Each subcommand lives in its own <name>_command.cpp and defines one CommandRegistration.
//
// Exit codes shared by every subcommand: 0 success, 1 the work itself failed (e.g. a run failed),
// 2 bad usage or bad input (the message names the flag or field).

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace shardwise::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

using CommandFunction = std::function<int(const std::vector<std::string>& args, std::ostream& out, std::ostream& err)>;

struct CommandSpec;
// The option tables of a subcommand (options.hpp): one, or one per action ("runs list", "runs show").
using CommandSpecsFunction = std::vector<CommandSpec> (*)();

struct Command {
    std::string name;
    std::string summary; // one line for `shardwise-cli help`
    CommandFunction run;
    CommandSpecsFunction specs = nullptr;
};

struct CommandRegistration {
    CommandRegistration(std::string name, std::string summary, CommandFunction run,
                        CommandSpecsFunction specs = nullptr);
};

const std::vector<Command>& commands();

} // namespace shardwise::cli
