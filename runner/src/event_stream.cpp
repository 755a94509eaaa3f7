#include "event_stream.hpp"

#include <chrono>
#include <cstdio>

namespace shardwise::runner {

double unixNow()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void emit(const protocol::Event& event)
{
    const auto line = protocol::serialize(event) + "\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
}

void logLine(int rank, const std::string& message)
{
    std::fprintf(stderr, "[rank %d] %s\n", rank, message.c_str());
    std::fflush(stderr);
}

void emitError(int rank, protocol::ErrorKind kind, const std::string& message, std::optional<int> step,
               std::optional<protocol::MemorySample> memory)
{
    protocol::ErrorEvent e;
    e.rank = rank;
    e.kind = kind;
    e.message = message;
    e.step = step;
    if (memory) {
        e.reservedUnallocated = memory->reserved - memory->allocated;
        e.memory = std::move(memory);
    }
    e.time = unixNow();
    emit(e);
    logLine(rank, std::string(protocol::errorKindId(kind)) + " error: " + message);
}

} // namespace shardwise::runner
