#pragma once
// Protocol events on stdout (one flushed line each, serialized by core/protocol so the runner and the
// parser cannot drift) and the human-readable log on stderr.

#include "shardwise/protocol/events.hpp"

#include <string>

namespace shardwise::runner {

double unixNow();
void emit(const protocol::Event& event);
void logLine(int rank, const std::string& message);
void emitError(int rank, protocol::ErrorKind kind, const std::string& message, std::optional<int> step = {},
               std::optional<protocol::MemorySample> memory = {});

} // namespace shardwise::runner
