#pragma once
// Shortening text for display without cutting a UTF-8 sequence in half (a cut sequence would make
// the diagnosis invalid JSON).

#include <string>
#include <string_view>

namespace shardwise::diagnose::detail {

inline std::string utf8Prefix(std::string_view s, std::size_t maxBytes)
{
    if (s.size() <= maxBytes)
        return std::string(s);
    std::size_t n = maxBytes;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0u) == 0x80u)
        --n;
    return std::string(s.substr(0, n));
}

} // namespace shardwise::diagnose::detail
