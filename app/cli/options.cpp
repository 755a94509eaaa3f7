// The option table's parser and --help text (options.hpp). Completion scripts and the man page are
// in options_generate.cpp.
#include "options.hpp"

#include "command.hpp"

#include "shardwise/spec/strategy.hpp"
#include "shardwise/spec/suggest.hpp"

#include <algorithm>
#include <sstream>

namespace shardwise::cli {

namespace {

constexpr std::size_t kHelpColumn = 29; // "  --flag VALUE" padded to here, then the help
constexpr std::size_t kWidth = 100;

std::vector<std::string> optionNames(const CommandSpec& spec)
{
    std::vector<std::string> names { "--help" };
    for (const Option& o : spec.options)
        names.push_back(o.name);
    return names;
}

const Option* findOption(const CommandSpec& spec, const std::string& name)
{
    for (const Option& o : spec.options)
        if (o.name == name)
            return &o;
    return nullptr;
}

std::string orList(const std::vector<std::string>& words)
{
    std::string text;
    for (std::size_t i = 0; i < words.size(); ++i)
        text += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
    return text;
}

std::string countWord(std::size_t n)
{
    static const char* const kWords[] = { "no", "one", "two", "three", "four" };
    return n < 5 ? kWords[n] : std::to_string(n);
}

// Appends `text` wrapped to kWidth, every line indented by `indent` spaces except the first, which
// continues at `column` (where the caller already is).
void wrap(std::string& out, const std::string& text, std::size_t indent, std::size_t column)
{
    std::istringstream words(text);
    std::string word;
    bool first = true;
    while (words >> word) {
        if (!first && column + 1 + word.size() > kWidth) {
            out += "\n" + std::string(indent, ' ');
            column = indent;
            first = true;
        }
        if (!first) {
            out += ' ';
            ++column;
        }
        out += word;
        column += word.size();
        first = false;
    }
    out += '\n';
}

// Paragraphs separated by blank lines; a paragraph whose lines start with spaces is kept as written.
void paragraphs(std::string& out, const std::string& text)
{
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find("\n\n", start);
        if (end == std::string::npos)
            end = text.size();
        const std::string para = text.substr(start, end - start);
        if (!para.empty() && para.front() == ' ')
            out += para + "\n";
        else if (!para.empty())
            wrap(out, para, 0, 0);
        start = end + 2;
        if (start < text.size())
            out += '\n';
    }
}

void helpRow(std::string& out, const std::string& left, const std::string& help)
{
    out += "  " + left;
    std::size_t column = 2 + left.size();
    if (column + 1 > kHelpColumn) {
        out += "\n" + std::string(kHelpColumn, ' ');
    } else {
        out += std::string(kHelpColumn - column, ' ');
    }
    wrap(out, help, kHelpColumn, kHelpColumn);
}

} // namespace

bool ParsedArgs::has(const std::string& name) const
{
    return std::any_of(options.begin(), options.end(), [&](const ParsedOption& o) { return o.name == name; });
}

std::optional<std::string> ParsedArgs::value(const std::string& name) const
{
    for (auto it = options.rbegin(); it != options.rend(); ++it)
        if (it->name == name)
            return it->value;
    return std::nullopt;
}

std::vector<std::string> ParsedArgs::values(const std::string& name) const
{
    std::vector<std::string> all;
    for (const ParsedOption& o : options)
        if (o.name == name)
            all.push_back(o.value);
    return all;
}

std::string unknownOptionMessage(const std::string& command, const std::string& flag)
{
    std::string suggestion;
    for (const CommandSpec& spec : allCommandSpecs())
        if (spec.name == command)
            suggestion = didYouMean(flag, optionNames(spec));
    return flag + ": unknown option" + suggestion + " (see shardwise-cli " + command + " --help)";
}

std::string strategyDidYouMean(const std::string& word, bool withAll)
{
    std::vector<std::string> ids;
    for (const StrategyTraits& t : allStrategies())
        ids.emplace_back(strategyId(t.strategy));
    if (withAll)
        ids.emplace_back("all");
    return didYouMean(word, ids);
}

ParsedArgs parseArgs(const CommandSpec& spec, const std::vector<std::string>& args)
{
    ParsedArgs parsed;
    const std::string see = " (see shardwise-cli " + spec.name + " --help)";
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "--help" || arg == "-h") {
            parsed.help = true;
            continue;
        }
        if (arg.size() < 2 || arg.front() != '-') {
            const std::size_t room = spec.operands.size();
            if (parsed.operands.size() >= room && !(spec.operandsRepeat && room > 0)) {
                if (room == 0)
                    throw UsageError("unexpected argument '" + arg + "'; " + spec.name + " takes options only" + see);
                throw UsageError("unexpected argument '" + arg + "'; " + spec.name + " takes at most " + countWord(room)
                                 + " " + spec.operands.back().name + see);
            }
            parsed.operands.push_back(arg);
            continue;
        }
        std::string name = arg;
        std::optional<std::string> inlineValue;
        if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            name = arg.substr(0, eq);
            inlineValue = arg.substr(eq + 1);
        }
        const Option* option = findOption(spec, name);
        if (!option)
            throw UsageError(name + ": unknown option" + didYouMean(name, optionNames(spec)) + see);
        if (option->valueName.empty()) {
            if (inlineValue)
                throw UsageError(name + ": takes no value, got '" + *inlineValue + "'");
            parsed.options.push_back({ name, {} });
            continue;
        }
        std::string value;
        if (inlineValue) {
            value = *inlineValue;
        } else {
            if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0)
                throw UsageError(name + ": missing value (" + option->valueName + ")");
            value = args[++i];
        }
        if (!option->choices.empty()
            && std::find(option->choices.begin(), option->choices.end(), value) == option->choices.end())
            throw UsageError(name + ": expected " + orList(option->choices) + ", got '" + value + "'"
                             + didYouMean(value, option->choices));
        parsed.options.push_back({ name, value });
    }
    return parsed;
}

std::string usageText(const CommandSpec& spec)
{
    std::string out = "usage: shardwise-cli " + spec.name + " ";
    wrap(out, spec.synopsis, 22 + spec.name.size(), out.size());
    if (!spec.description.empty()) {
        out += '\n';
        paragraphs(out, spec.description);
    }
    if (!spec.operands.empty() || !spec.options.empty())
        out += '\n';
    for (const Operand& operand : spec.operands)
        helpRow(out, operand.name, operand.help);
    std::string section;
    for (const Option& o : spec.options) {
        const std::string heading = !o.section.empty() ? o.section : section.empty() ? "" : "Options:";
        if (heading != section) {
            section = heading;
            if (out.size() < 2 || out.compare(out.size() - 2, 2, "\n\n") != 0)
                out += '\n';
            out += section + "\n";
        }
        std::string left = o.name;
        if (!o.valueName.empty())
            left += " " + o.valueName;
        std::string help = o.help;
        if (o.repeatable)
            help += " (repeatable)";
        helpRow(out, left, help);
    }
    helpRow(out, "--help", "this text");
    if (!spec.epilog.empty()) {
        out += '\n';
        paragraphs(out, spec.epilog);
    }
    return out;
}

std::string groupUsage(const std::string& group)
{
    std::string out = "usage: shardwise-cli " + group + " <action> [options]\n\nActions:\n";
    for (const CommandSpec& s : allCommandSpecs())
        if (s.name.rfind(group + " ", 0) == 0)
            helpRow(out, s.name.substr(group.size() + 1), s.summary);
    out += "\n`shardwise-cli " + group + " <action> --help` describes an action's options.\n";
    return out;
}

std::vector<CommandSpec> allCommandSpecs()
{
    std::vector<CommandSpec> all;
    for (const Command& c : commands())
        if (c.specs)
            for (CommandSpec& s : c.specs())
                all.push_back(std::move(s));
    std::sort(all.begin(), all.end(), [](const CommandSpec& a, const CommandSpec& b) { return a.name < b.name; });
    return all;
}

Option appKnownHostsOption(const std::string& section)
{
    return { "--known-hosts",
             "FILE",
             "the app's own known_hosts (default: $XDG_CONFIG_HOME/shardwise/known_hosts)",
             {},
             Complete::File,
             false,
             section };
}

Option userKnownHostsOption(const std::string& section)
{
    return { "--user-known-hosts",
             "FILE",
             "the user's known_hosts, read only (default: ~/.ssh/known_hosts)",
             {},
             Complete::File,
             false,
             section };
}

} // namespace shardwise::cli
