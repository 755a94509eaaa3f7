#pragma once
// One option table for every shardwise-cli subcommand: each subcommand declares its options once
// (name, value or switch, value name, help, accepted values or what completes the value, repeatable
// or not) and its operands. The parser, the --help text, the bash and zsh completion scripts and the
// man page are all made from that table, so they cannot disagree.
//
// Parsing rules, the same for every subcommand: "--flag value" and "--flag=value" both work; a
// switch given "=value" is refused; an unknown option or a missing value is a UsageError naming the
// flag (exit 2); a repeatable option keeps every value in order, any other option keeps its last.

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace shardwise::cli {

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What the shell offers for a value or an operand.
enum class Complete { Nothing, File, Directory, Model, Gpu, Strategy, Node };

struct Option {
    Option(std::string name_, std::string valueName_, std::string help_ = {}, std::vector<std::string> choices_ = {},
           Complete complete_ = Complete::Nothing, bool repeatable_ = false, std::string section_ = {})
        : name(std::move(name_))
        , valueName(std::move(valueName_))
        , help(std::move(help_))
        , choices(std::move(choices_))
        , complete(complete_)
        , repeatable(repeatable_)
        , section(std::move(section_))
    {
    }
    std::string name;                 // "--db"
    std::string valueName;            // "PATH"; empty: a switch that takes no value
    std::string help;                 // one paragraph; the help text wraps it
    std::vector<std::string> choices; // the accepted values (checked, listed in help, completed)
    Complete complete = Complete::Nothing;
    bool repeatable = false;
    std::string section; // a heading printed above this option when it differs from the previous one's
};

struct Operand {
    Operand(std::string name_, std::string help_, Complete complete_ = Complete::Nothing, bool optional_ = false)
        : name(std::move(name_))
        , help(std::move(help_))
        , complete(complete_)
        , optional(optional_)
    {
    }
    std::string name; // "NAME", "ID", "DIR"
    std::string help;
    Complete complete = Complete::Nothing;
    bool optional = false;
};

struct CommandSpec {
    CommandSpec(std::string name_, std::string summary_, std::string synopsis_, std::string description_,
                std::vector<Operand> operands_ = {}, bool operandsRepeat_ = false, std::vector<Option> options_ = {},
                std::string epilog_ = {})
        : name(std::move(name_))
        , summary(std::move(summary_))
        , synopsis(std::move(synopsis_))
        , description(std::move(description_))
        , operands(std::move(operands_))
        , operandsRepeat(operandsRepeat_)
        , options(std::move(options_))
        , epilog(std::move(epilog_))
    {
    }
    std::string name;        // "plan", "runs list"
    std::string summary;     // one line
    std::string synopsis;    // after "usage: shardwise-cli <name> "
    std::string description; // paragraphs between the usage line and the options
    std::vector<Operand> operands;
    bool operandsRepeat = false; // the last operand may be given more than once
    std::vector<Option> options;
    std::string epilog; // after the options (exit status, notes)
};

struct ParsedOption {
    std::string name;
    std::string value; // empty for a switch
};

struct ParsedArgs {
    std::vector<ParsedOption> options; // in the order given
    std::vector<std::string> operands;
    bool help = false; // --help or -h was given

    bool has(const std::string& name) const;
    std::optional<std::string> value(const std::string& name) const; // the last one given
    std::vector<std::string> values(const std::string& name) const;  // every one, in order
};

// Throws UsageError: an unknown option, a missing value, a value for a switch, a value outside the
// option's choices, more operands than the spec has.
ParsedArgs parseArgs(const CommandSpec& spec, const std::vector<std::string>& args);

// "FLAG: unknown option; did you mean '--nearest'? (see shardwise-cli COMMAND --help)": the nearest of
// the command's own options (allCommandSpecs()) when one is close enough to be a typo of it.
std::string unknownOptionMessage(const std::string& command, const std::string& flag);

// "; did you mean 'zero3'?" for a mistyped strategy id (with "all" among the names where
// `withAll`), else empty.
std::string strategyDidYouMean(const std::string& word, bool withAll = false);

// The --help text: usage line, description, operands and options (wrapped), epilog.
std::string usageText(const CommandSpec& spec);

// The --help of a subcommand with actions ("runs", "nodes"): its actions and their summaries.
std::string groupUsage(const std::string& group);

// The specs of every registered subcommand, sorted by name (see command.hpp).
std::vector<CommandSpec> allCommandSpecs();

// The two known_hosts options of every command that opens an SSH session (docs/ssh.md): the app's own
// file, which new keys are written to, and the user's, read only. `section` as Option::section.
Option appKnownHostsOption(const std::string& section = {});
Option userKnownHostsOption(const std::string& section = {});

// Generated from allCommandSpecs(): a bash completion script (function _shardwise_cli), a zsh one
// (#compdef shardwise-cli) and the man page (troff, man(7) macros).
std::string bashCompletion();
std::string zshCompletion();
std::string manPage(const std::string& version);

} // namespace shardwise::cli
