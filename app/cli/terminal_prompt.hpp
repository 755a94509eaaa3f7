#pragma once
// Asking the person at the terminal for an SSH key's passphrase, shared by the subcommands that
// open SSH sessions (nodes, run).

#include <filesystem>
#include <optional>
#include <string>

namespace shardwise::cli {

// Reads a passphrase from the controlling terminal with echo off; nullopt without a terminal.
std::optional<std::string> askPassphraseOnTerminal(const std::filesystem::path& keyFile);

} // namespace shardwise::cli
