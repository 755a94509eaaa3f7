#include "shardwise/diagnose/log_time.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace shardwise::diagnose {

namespace {

constexpr std::size_t kScanLimit = 200;

bool digitsAt(std::string_view s, std::size_t pos, std::size_t count)
{
    if (pos + count > s.size())
        return false;
    for (std::size_t i = 0; i < count; ++i)
        if (!std::isdigit(static_cast<unsigned char>(s[pos + i])))
            return false;
    return true;
}

int numberAt(std::string_view s, std::size_t pos, std::size_t count)
{
    int v = 0;
    for (std::size_t i = 0; i < count; ++i)
        v = v * 10 + (s[pos + i] - '0');
    return v;
}

bool validClock(int month, int day, int hour, int minute, int second)
{
    return month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 60;
}

// Fraction after '.' or ',' at pos; advances pos past it.
double fractionAt(std::string_view s, std::size_t& pos)
{
    if (pos >= s.size() || (s[pos] != '.' && s[pos] != ','))
        return 0;
    double scale = 0.1;
    double frac = 0;
    std::size_t p = pos + 1;
    while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) {
        frac += (s[p] - '0') * scale;
        scale /= 10;
        ++p;
    }
    if (p == pos + 1)
        return 0;
    pos = p;
    return frac;
}

double unixSeconds(int year, int month, int day, int hour, int minute, int second)
{
    return static_cast<double>(daysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day))) * 86400.0
        + hour * 3600.0 + minute * 60.0 + second;
}

// YYYY-MM-DD[ T_]HH:MM:SS[.frac][Z|+HH:MM|+HHMM]
std::optional<LoggedTime> isoAt(std::string_view s, std::size_t i)
{
    if (!digitsAt(s, i, 4) || s.size() < i + 19 || s[i + 4] != '-' || !digitsAt(s, i + 5, 2) || s[i + 7] != '-'
        || !digitsAt(s, i + 8, 2) || (s[i + 10] != ' ' && s[i + 10] != 'T' && s[i + 10] != '_')
        || !digitsAt(s, i + 11, 2) || s[i + 13] != ':' || !digitsAt(s, i + 14, 2) || s[i + 16] != ':'
        || !digitsAt(s, i + 17, 2))
        return std::nullopt;
    if (i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1])))
        return std::nullopt;
    const int year = numberAt(s, i, 4), month = numberAt(s, i + 5, 2), day = numberAt(s, i + 8, 2);
    const int hour = numberAt(s, i + 11, 2), minute = numberAt(s, i + 14, 2), second = numberAt(s, i + 17, 2);
    if (!validClock(month, day, hour, minute, second))
        return std::nullopt;
    std::size_t end = i + 19;
    double t = unixSeconds(year, month, day, hour, minute, second) + fractionAt(s, end);
    if (end < s.size() && s[end] == 'Z') {
        ++end;
    } else if (end < s.size() && (s[end] == '+' || s[end] == '-') && digitsAt(s, end + 1, 2)) {
        const int sign = s[end] == '+' ? 1 : -1;
        std::size_t p = end + 3;
        int zoneMinutes = numberAt(s, end + 1, 2) * 60;
        if (p < s.size() && s[p] == ':')
            ++p;
        if (digitsAt(s, p, 2)) {
            zoneMinutes += numberAt(s, p, 2);
            p += 2;
        }
        // A local time east of UTC is ahead of it, so UTC = local - zone.
        t -= sign * zoneMinutes * 60.0;
        end = p;
    }
    return LoggedTime { t, std::string(s.substr(i, end - i)) };
}

// [IWEF]MMDD HH:MM:SS[.frac]; PyTorch's c10 logger drops the month's leading zero ("E514").
std::optional<LoggedTime> glogAt(std::string_view s, std::size_t i, int year)
{
    const char c = s[i];
    if (c != 'I' && c != 'W' && c != 'E' && c != 'F')
        return std::nullopt;
    if (i > 0 && s[i - 1] != '[' && s[i - 1] != ':' && s[i - 1] != ' ')
        return std::nullopt;
    std::size_t digits = 0;
    while (i + 1 + digits < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1 + digits])))
        ++digits;
    if (digits != 3 && digits != 4)
        return std::nullopt;
    const std::size_t p = i + 1 + digits;
    if (p + 9 > s.size() || s[p] != ' ' || !digitsAt(s, p + 1, 2) || s[p + 3] != ':' || !digitsAt(s, p + 4, 2)
        || s[p + 6] != ':' || !digitsAt(s, p + 7, 2))
        return std::nullopt;
    const int month = numberAt(s, i + 1, digits - 2), day = numberAt(s, i + 1 + digits - 2, 2);
    const int hour = numberAt(s, p + 1, 2), minute = numberAt(s, p + 4, 2), second = numberAt(s, p + 7, 2);
    if (!validClock(month, day, hour, minute, second))
        return std::nullopt;
    std::size_t end = p + 9;
    const double t = unixSeconds(year, month, day, hour, minute, second) + fractionAt(s, end);
    return LoggedTime { t, std::string(s.substr(i, end - i)) };
}

std::optional<LoggedTime> syslogAtStart(std::string_view s, int year)
{
    static constexpr std::array<std::string_view, 12> kMonths { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                                "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
    if (s.size() < 15)
        return std::nullopt;
    int month = 0;
    for (std::size_t m = 0; m < kMonths.size(); ++m)
        if (s.substr(0, 3) == kMonths[m])
            month = static_cast<int>(m) + 1;
    if (month == 0 || s[3] != ' ')
        return std::nullopt;
    std::size_t p = 4;
    if (s[p] == ' ')
        ++p;
    std::size_t dayDigits = digitsAt(s, p, 2) ? 2 : (digitsAt(s, p, 1) ? 1 : 0);
    if (dayDigits == 0)
        return std::nullopt;
    const int day = numberAt(s, p, dayDigits);
    p += dayDigits;
    if (p + 9 > s.size() || s[p] != ' ' || !digitsAt(s, p + 1, 2) || s[p + 3] != ':' || !digitsAt(s, p + 4, 2)
        || s[p + 6] != ':' || !digitsAt(s, p + 7, 2))
        return std::nullopt;
    const int hour = numberAt(s, p + 1, 2), minute = numberAt(s, p + 4, 2), second = numberAt(s, p + 7, 2);
    if (!validClock(month, day, hour, minute, second))
        return std::nullopt;
    return LoggedTime { unixSeconds(year, month, day, hour, minute, second), std::string(s.substr(0, p + 9)) };
}

} // namespace

long long daysFromCivil(int year, unsigned month, unsigned day)
{
    // Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms", days_from_civil.
    year -= month <= 2 ? 1 : 0;
    const long long era = (year >= 0 ? year : year - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(year - era * 400);
    const unsigned doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<long long>(doe) - 719468;
}

std::optional<LoggedTime> parseLogTime(std::string_view line, int yearWhenMissing)
{
    const std::string_view s = line.substr(0, kScanLimit);
    if (auto t = syslogAtStart(s, yearWhenMissing))
        return t;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (auto t = isoAt(s, i))
            return t;
        if (auto t = glogAt(s, i, yearWhenMissing))
            return t;
    }
    return std::nullopt;
}

std::optional<int> yearInLine(std::string_view line)
{
    const std::string_view s = line.substr(0, kScanLimit);
    for (std::size_t i = 0; i < s.size(); ++i)
        if (isoAt(s, i))
            return numberAt(s, i, 4);
    return std::nullopt;
}

std::string formatUtc(double unixSeconds)
{
    const auto whole = static_cast<std::time_t>(std::floor(unixSeconds));
    std::tm tm {};
    gmtime_r(&whole, &tm);
    char buf[80];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec);
    return buf;
}

} // namespace shardwise::diagnose
