#pragma once
// Internal: public key authentication of one hop, trying the ways SshCredentials describes in order
// (an explicit key file, the agent, the ssh configuration's IdentityFiles) until one is accepted.

#include "ssh_session_state.hpp"

#include <filesystem>
#include <optional>
#include <vector>

namespace shardwise::dispatch {

struct AuthPlan {
    std::optional<std::filesystem::path> keyFile; // the node's own key file, tried first
    bool useAgent = false;
    std::filesystem::path agentSocket;                // empty: $SSH_AUTH_SOCK
    bool agentRequired = false;                       // the node asked for the agent: its absence is worth naming
    std::vector<std::filesystem::path> identityFiles; // IdentityFile lines; those that do not exist are skipped
    bool identitiesOnly = false;                      // agent keys only when they match an IdentityFile's .pub
    PassphrasePrompt askPassphrase;
};

// Throws SshError AuthFailed naming every way tried and why it failed, or the transport error.
void authenticate(SshSession::State& st, const AuthPlan& plan, Clock::time_point deadline,
                  const std::atomic<bool>* cancel);

} // namespace shardwise::dispatch
