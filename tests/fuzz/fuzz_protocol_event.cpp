// libFuzzer target: one line of the runner's JSON Lines protocol. Malformed lines may only ever raise
// ProtocolError; a line that parses must survive serialize -> parseEvent unchanged, since the app
// stores what it re-serialises.
#include "shardwise/protocol/events.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

void parseBoth(std::string_view line)
{
    try {
        (void)shardwise::protocol::parseEvent(line);
    } catch (const shardwise::protocol::ProtocolError&) {
    }
    std::optional<shardwise::protocol::Event> event;
    try {
        event = shardwise::protocol::tryParseEvent(line);
    } catch (const shardwise::protocol::ProtocolError&) {
        return;
    }
    if (!event)
        return;
    const std::string once = shardwise::protocol::serialize(*event);
    try {
        const std::string twice = shardwise::protocol::serialize(shardwise::protocol::parseEvent(once));
        if (twice != once) {
            std::fprintf(stderr, "round trip changed the event:\n  %s\n  %s\n", once.c_str(), twice.c_str());
            std::abort();
        }
    } catch (const shardwise::protocol::ProtocolError& e) {
        std::fprintf(stderr, "a serialised event does not parse back: %s\n  %s\n", e.what(), once.c_str());
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    // Seeds are whole .jsonl files: every line is one input, as the reader sees them.
    std::size_t start = 0;
    while (start <= input.size()) {
        const std::size_t end = std::min(input.find('\n', start), input.size());
        parseBoth(input.substr(start, end - start));
        start = end + 1;
    }
    return 0;
}
