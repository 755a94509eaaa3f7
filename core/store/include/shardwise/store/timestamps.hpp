#pragma once
// Stored times are Unix seconds (UTC); exchanged and shown times are ISO 8601 in UTC.

#include <optional>
#include <string>
#include <string_view>

namespace shardwise::store {

// "2026-12-02T13:49:03Z", or "2026-12-02T13:49:03.250Z" with milliseconds (exports, so runs keep
// their order when they go out and come back).
std::string formatUtc(double unixSeconds, bool milliseconds = false);

// Accepts "YYYY-MM-DD" (midnight UTC), "YYYY-MM-DDTHH:MM:SS" with optional fractional seconds, and
// the same with a trailing "Z"; a space may replace the "T". nullopt for anything else, including
// impossible dates.
std::optional<double> parseUtc(std::string_view text);

} // namespace shardwise::store
