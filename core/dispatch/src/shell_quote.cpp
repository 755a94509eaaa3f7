#include "shardwise/dispatch/shell_quote.hpp"

namespace shardwise::dispatch {

namespace {
// Characters that are literal in every position for sh, dash, bash and zsh (POSIX XCU 2.2).
// '=' is left out: as a command's first word NAME=value would read as an assignment.
bool isPlain(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
        || c == '.' || c == '/' || c == ',' || c == ':' || c == '+' || c == '@' || c == '%';
}
} // namespace

std::string shellQuote(std::string_view argument)
{
    bool plain = !argument.empty();
    for (char c : argument)
        plain = plain && isPlain(c);
    if (plain)
        return std::string(argument);
    std::string quoted;
    quoted.reserve(argument.size() + 2);
    quoted += '\'';
    for (char c : argument) {
        if (c == '\'')
            quoted += "'\\''";
        else
            quoted += c;
    }
    quoted += '\'';
    return quoted;
}

std::string shellCommand(const std::vector<std::string>& argv)
{
    std::string line;
    for (const auto& a : argv) {
        if (!line.empty())
            line += ' ';
        line += shellQuote(a);
    }
    return line;
}

} // namespace shardwise::dispatch
