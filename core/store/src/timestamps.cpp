#include "shardwise/store/timestamps.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace shardwise::store {

std::string formatUtc(double unixSeconds, bool milliseconds)
{
    auto whole = static_cast<std::time_t>(std::floor(unixSeconds));
    auto millis = static_cast<int>(std::lround((unixSeconds - std::floor(unixSeconds)) * 1000.0));
    if (millis == 1000) {
        ++whole;
        millis = 0;
    }
    std::tm tm {};
    gmtime_r(&whole, &tm);
    char buffer[40];
    const std::size_t n = std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &tm);
    std::string text(buffer, n);
    if (milliseconds) {
        std::snprintf(buffer, sizeof buffer, ".%03d", millis);
        text += buffer;
    }
    return text + "Z";
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

bool isLeapYear(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

} // namespace

std::optional<double> parseUtc(std::string_view text)
{
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    double fraction = 0;
    if (!readNumber(text, 0, 4, year) || text.size() < 10 || text[4] != '-' || !readNumber(text, 5, 2, month)
        || text[7] != '-' || !readNumber(text, 8, 2, day))
        return std::nullopt;
    if (text.size() > 10) {
        std::string_view rest = text.substr(10);
        if (rest.back() == 'Z')
            rest.remove_suffix(1);
        if (rest.size() > 10 && rest[9] == '.') {
            const std::string_view digits = rest.substr(10);
            if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string_view::npos)
                return std::nullopt;
            for (std::size_t i = 0; i < digits.size(); ++i)
                fraction += (digits[i] - '0') * std::pow(10.0, -static_cast<double>(i + 1));
            rest = rest.substr(0, 9);
        }
        if (rest.size() != 9 || (rest[0] != 'T' && rest[0] != ' ') || rest[3] != ':' || rest[6] != ':'
            || !readNumber(rest, 1, 2, hour) || !readNumber(rest, 4, 2, minute) || !readNumber(rest, 7, 2, second))
            return std::nullopt;
    }
    static constexpr int kDaysInMonth[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (month < 1 || month > 12 || day < 1)
        return std::nullopt;
    const int monthDays = kDaysInMonth[month - 1] + (month == 2 && isLeapYear(year) ? 1 : 0);
    if (day > monthDays || hour > 23 || minute > 59 || second > 60)
        return std::nullopt;
    std::tm tm {};
    tm.tm_year = year - 1900;
    tm.tm_mon = month - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = minute;
    tm.tm_sec = second;
    return static_cast<double>(timegm(&tm)) + fraction;
}

} // namespace shardwise::store
