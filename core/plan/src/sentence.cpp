#include "internal.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace shardwise::detail {

std::string formatSentenceWithLibc(const char* format, va_list args)
{
    char buffer[512];
    va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(buffer, sizeof buffer, format, args);
    if (n < 0) {
        va_end(again);
        return {};
    }
    if (static_cast<std::size_t>(n) < sizeof buffer) {
        va_end(again);
        return std::string(buffer, static_cast<std::size_t>(n));
    }
    std::string long_(static_cast<std::size_t>(n) + 1, '\0');
    std::vsnprintf(long_.data(), long_.size(), format, again);
    va_end(again);
    long_.resize(static_cast<std::size_t>(n));
    return long_;
}

std::string formatSentence(const char* format, va_list args)
{
    // The sentences are short; one that is not (or a conversion outside the handled set, or a value
    // printf spells differently from to_chars such as infinities) is left to the C library, which
    // needs the arguments from the start.
    va_list fromStart;
    va_copy(fromStart, args);
    char buffer[512];
    char* out = buffer;
    char* const end = buffer + sizeof buffer;
    bool handled = true;
    for (const char* f = format; *f && handled; ++f) {
        if (out + 64 > end) { // room for any one conversion below
            handled = false;
            break;
        }
        if (*f != '%') {
            *out++ = *f;
            continue;
        }
        ++f;
        if (*f == '%') {
            *out++ = '%';
        } else if (*f == 'd') {
            out = std::to_chars(out, end, va_arg(args, int)).ptr;
        } else if (*f == 's') {
            const char* s = va_arg(args, const char*);
            const std::size_t n = std::strlen(s);
            if (n > static_cast<std::size_t>(end - out) - 64) {
                handled = false;
                break;
            }
            out = std::copy_n(s, n, out);
        } else if (f[0] == '.' && f[1] >= '0' && f[1] <= '9' && f[2] == 'f') {
            const double x = va_arg(args, double);
            if (!std::isfinite(x) || std::fabs(x) >= 1e40) {
                handled = false;
                break;
            }
            const auto r = std::to_chars(out, end, x, std::chars_format::fixed, f[1] - '0');
            if (r.ec != std::errc{}) {
                handled = false;
                break;
            }
            out = r.ptr;
            f += 2;
        } else {
            handled = false;
        }
    }
    std::string result = handled ? std::string(buffer, out) : formatSentenceWithLibc(format, fromStart);
    va_end(fromStart);
    return result;
}

std::string sentenceWith(SentenceFormatter f, const char* format, ...)
{
    va_list args;
    va_start(args, format);
    std::string s = f(format, args);
    va_end(args);
    return s;
}

const std::array<Strategy, kStrategyCount>& byLightness()
{
    static const std::array<Strategy, kStrategyCount> order = [] {
        std::array<StrategyTraits, kStrategyCount> t = allStrategies();
        std::sort(t.begin(), t.end(), [](const StrategyTraits& a, const StrategyTraits& b) {
            return a.sortOrder < b.sortOrder;
        });
        std::array<Strategy, kStrategyCount> out{};
        for (std::size_t i = 0; i < kStrategyCount; ++i)
            out[i] = t[i].strategy;
        return out;
    }();
    return order;
}

std::size_t tableIndex(Strategy s)
{
    // The enum's values are not the table's positions by contract, so the table is inverted once.
    static const std::array<std::size_t, kStrategyCount> index = [] {
        std::array<std::size_t, kStrategyCount> out{};
        const auto& t = allStrategies();
        for (std::size_t i = 0; i < kStrategyCount; ++i)
            out[static_cast<std::size_t>(t[i].strategy)] = i;
        return out;
    }();
    return index[static_cast<std::size_t>(s)];
}

std::optional<Strategy> lightestFitting(const std::array<Estimate, kStrategyCount>& estimates)
{
    for (Strategy s : byLightness())
        if (estimates[tableIndex(s)].fits())
            return s;
    return std::nullopt;
}

} // namespace shardwise::detail
