#pragma once
// Timestamps as the tools around a training run write them, read into unix seconds (UTC unless the
// text carries a zone). Logs without a year (glog, syslog) take the run's year from elsewhere.

#include <optional>
#include <string>
#include <string_view>

namespace shardwise::diagnose {

struct LoggedTime {
    double seconds = 0; // unix seconds
    std::string text;   // the timestamp as written
};

// Recognises, anywhere in the line's first 200 characters:
//   2024-05-14 10:02:11,512   (Python logging)     2024-05-14T10:02:11.5+02:00 / ...Z (ISO 8601)
//   2024-05-14_10:12:40       (torchrun's failure summary "time : ...")
//   E0514 10:12:33.123456     (glog / c10 logging; "[rank1]:[E514 ..." style without the year)
//   May 14 10:12:40           (syslog / journalctl, at the start of the line)
std::optional<LoggedTime> parseLogTime(std::string_view line, int yearWhenMissing);

// The year of a full date in the line, if it has one (used to date year-less formats).
std::optional<int> yearInLine(std::string_view line);

// Days since 1970-01-01 of a proleptic Gregorian date.
long long daysFromCivil(int year, unsigned month, unsigned day);

// "2024-05-14T10:02:11Z" style text for a unix time, for display.
std::string formatUtc(double unixSeconds);

} // namespace shardwise::diagnose
