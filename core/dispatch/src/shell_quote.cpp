#include "shardwise/dispatch/shell_quote.hpp"

namespace shardwise::dispatch {

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
