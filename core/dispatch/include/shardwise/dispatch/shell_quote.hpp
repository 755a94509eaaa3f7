#pragma once
// POSIX shell quoting for every argument that travels to a remote shell. sshd hands the command
// string to the user's login shell (`$SHELL -c`), so each argument must survive one round of shell
// parsing byte for byte: inside single quotes nothing is special except the closing quote itself,
// which is written as '\'' (close, escaped quote, reopen). Newlines, `$(...)`, `;` and non-ASCII
// bytes pass through untouched.

#include "shardwise/spec/quote.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace shardwise::dispatch {

// One argument, quoted unless it consists only of characters no POSIX shell treats specially
// (shardwise/spec/quote.hpp: the one shell quoting every generator uses).
using shardwise::shellQuote;

// A command line whose words are exactly `argv` after the remote shell has parsed it.
std::string shellCommand(const std::vector<std::string>& argv);

} // namespace shardwise::dispatch
