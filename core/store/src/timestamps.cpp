#include "shardwise/store/timestamps.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace shardwise::store {

std::string formatUtc(double unixSeconds)
{
    const auto t = static_cast<std::time_t>(std::floor(unixSeconds));
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buffer;
}

namespace {

bool readNumber(std::string_view text, std::size_t pos, std::size_t length, int& value)
{
    if (pos + length > text.size())
        return false;
    const char* first = text.data() + pos;
    const auto [end, ec] = std::from_chars(first, first + length, value);
    return ec == std::errc() && end == first + length;
}

bool isLeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

} // namespace

std::optional<double> parseUtc(std::string_view text)
{
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (!readNumber(text, 0, 4, year) || text.size() < 10 || text[4] != '-' || !readNumber(text, 5, 2, month)
        || text[7] != '-' || !readNumber(text, 8, 2, day))
        return std::nullopt;
    if (text.size() > 10) {
        std::string_view rest = text.substr(10);
        if (rest.back() == 'Z')
            rest.remove_suffix(1);
        if (rest.size() != 9 || (rest[0] != 'T' && rest[0] != ' ') || rest[3] != ':' || rest[6] != ':'
            || !readNumber(rest, 1, 2, hour) || !readNumber(rest, 4, 2, minute) || !readNumber(rest, 7, 2, second))
            return std::nullopt;
    }
    static constexpr int kDaysInMonth[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12 || day < 1)
        return std::nullopt;
    const int monthDays = kDaysInMonth[month - 1] + (month == 2 && isLeapYear(year) ? 1 : 0);
    if (day > monthDays || hour > 23 || minute > 59 || second > 60)
        return std::nullopt;
    std::tm tm{};
    tm.tm_year = year - 1900;
    tm.tm_mon = month - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = minute;
    tm.tm_sec = second;
    return static_cast<double>(timegm(&tm));
}

} // namespace shardwise::store
