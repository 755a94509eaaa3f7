#include "shardwise/spec/message.hpp"

#include "shardwise/spec/json.hpp"
#include "shardwise/spec/strategy.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace shardwise {

namespace {

MessageArg numeric(MessageArgKind kind, double value, int decimals)
{
    MessageArg a;
    a.kind = kind;
    a.value = value;
    a.decimals = std::clamp(decimals, 0, 9);
    return a;
}

// printf's "%.Nf": std::to_chars with a precision is specified to produce the same characters
// (C++20 [charconv.to.chars]); infinities and NaN go to the C library, which spells them "inf"/"nan".
std::string fixed(double x, int decimals)
{
    char buffer[64];
    if (std::isfinite(x) && std::fabs(x) < 1e40) {
        const auto r = std::to_chars(buffer, buffer + sizeof buffer, x, std::chars_format::fixed, decimals);
        if (r.ec == std::errc {})
            return std::string(buffer, r.ptr);
    }
    const int n = std::snprintf(buffer, sizeof buffer, "%.*f", decimals, x);
    return n > 0 && static_cast<std::size_t>(n) < sizeof buffer ? std::string(buffer, static_cast<std::size_t>(n))
                                                                : "?";
}

} // namespace

MessageArg MessageArg::name(std::string text)
{
    MessageArg a;
    a.kind = MessageArgKind::Name;
    a.text = std::move(text);
    return a;
}
MessageArg MessageArg::integer(long long n)
{
    return numeric(MessageArgKind::Integer, static_cast<double>(n), 0);
}
MessageArg MessageArg::number(double x, int decimals)
{
    return numeric(MessageArgKind::Number, x, decimals);
}
MessageArg MessageArg::gib(double gib, int decimals)
{
    return numeric(MessageArgKind::GiB, gib, decimals);
}
MessageArg MessageArg::tokensPerS(double x, int decimals)
{
    return numeric(MessageArgKind::TokensPerS, x, decimals);
}
MessageArg MessageArg::percent(double percent, int decimals)
{
    return numeric(MessageArgKind::Percent, percent, decimals);
}
MessageArg MessageArg::seconds(double s, int decimals)
{
    return numeric(MessageArgKind::Seconds, s, decimals);
}
MessageArg MessageArg::milliseconds(double ms, int decimals)
{
    return numeric(MessageArgKind::Milliseconds, ms, decimals);
}
MessageArg MessageArg::ratio(double x, int decimals)
{
    return numeric(MessageArgKind::Ratio, x, decimals);
}
MessageArg MessageArg::gbps(double x, int decimals)
{
    return numeric(MessageArgKind::GBps, x, decimals);
}
MessageArg MessageArg::bytes(long long bytes)
{
    return numeric(MessageArgKind::Bytes, static_cast<double>(bytes), 2);
}
MessageArg MessageArg::strategySummary(std::string strategyId)
{
    MessageArg a = name(std::move(strategyId));
    a.kind = MessageArgKind::StrategySummary;
    return a;
}
MessageArg MessageArg::message(Message m)
{
    MessageArg a;
    a.kind = MessageArgKind::Nested;
    a.nested.push_back(std::move(m));
    return a;
}

bool MessageArg::operator==(const MessageArg& o) const
{
    return kind == o.kind && value == o.value && decimals == o.decimals && text == o.text && nested == o.nested;
}

bool Message::operator==(const Message& o) const
{
    return id == o.id && args == o.args;
}

const MessageTemplate* findMessageTemplate(std::string_view id)
{
    for (const MessageTemplate& t : messageCatalog())
        if (t.id == id)
            return &t;
    return nullptr;
}

int placeholderCount(std::string_view templ)
{
    int highest = 0;
    for (std::size_t i = 0; i + 1 < templ.size(); ++i) {
        if (templ[i] != '%' || templ[i + 1] < '1' || templ[i + 1] > '9')
            continue;
        int n = templ[i + 1] - '0';
        if (i + 2 < templ.size() && templ[i + 2] >= '0' && templ[i + 2] <= '9')
            n = n * 10 + (templ[i + 2] - '0');
        highest = std::max(highest, n);
    }
    return highest;
}

namespace {

std::string render(const Message& m, NumberWriter write);

std::string render(const MessageArg& a, NumberWriter write)
{
    switch (a.kind) {
    case MessageArgKind::Name:
        return a.text;
    case MessageArgKind::Integer:
        return write(a.value, 0);
    case MessageArgKind::Number:
        return write(a.value, a.decimals);
    case MessageArgKind::GiB:
        return write(a.value, a.decimals) + " GiB";
    case MessageArgKind::TokensPerS:
        return write(a.value, a.decimals) + " tokens/s";
    case MessageArgKind::Percent:
        return write(a.value, a.decimals) + " %";
    case MessageArgKind::Seconds:
        return write(a.value, a.decimals) + " s";
    case MessageArgKind::Milliseconds:
        return write(a.value, a.decimals) + " ms";
    case MessageArgKind::Ratio:
        return write(a.value, a.decimals) + "x";
    case MessageArgKind::GBps:
        return write(a.value, a.decimals) + " GB/s";
    case MessageArgKind::Bytes: {
        constexpr double kKiB = 1024.0;
        if (a.value >= kKiB * kKiB * kKiB)
            return write(a.value / (kKiB * kKiB * kKiB), 2) + " GiB";
        if (a.value >= kKiB * kKiB)
            return write(a.value / (kKiB * kKiB), 2) + " MiB";
        if (a.value >= kKiB)
            return write(a.value / kKiB, 2) + " KiB";
        return write(a.value, 0) + " B";
    }
    case MessageArgKind::StrategySummary: {
        const auto s = strategyFromId(a.text);
        return s ? std::string(traits(*s).summary) : a.text;
    }
    case MessageArgKind::Nested:
        return a.nested.empty() ? std::string() : render(a.nested.front(), write);
    }
    return {};
}

std::string render(const Message& m, NumberWriter write)
{
    const MessageTemplate* t = findMessageTemplate(m.id);
    if (!t) {
        std::string out = m.id + "(";
        for (std::size_t i = 0; i < m.args.size(); ++i)
            out += (i ? ", " : "") + render(m.args[i], write);
        return out + ")";
    }
    std::string_view templ = t->english;
    if (t->countArg > 0 && !t->englishOne.empty() && static_cast<std::size_t>(t->countArg) <= m.args.size()
        && m.args[static_cast<std::size_t>(t->countArg - 1)].value == 1.0)
        templ = t->englishOne;
    std::string out;
    out.reserve(templ.size() + 16 * m.args.size());
    for (std::size_t i = 0; i < templ.size(); ++i) {
        if (templ[i] == '%' && i + 1 < templ.size() && templ[i + 1] >= '1' && templ[i + 1] <= '9') {
            std::size_t n = static_cast<std::size_t>(templ[i + 1] - '0');
            std::size_t used = 1;
            if (i + 2 < templ.size() && templ[i + 2] >= '0' && templ[i + 2] <= '9'
                && n * 10 + static_cast<std::size_t>(templ[i + 2] - '0') <= m.args.size()) {
                n = n * 10 + static_cast<std::size_t>(templ[i + 2] - '0');
                used = 2;
            }
            if (n <= m.args.size()) {
                out += render(m.args[n - 1], write);
                i += used;
                continue;
            }
        }
        out += templ[i];
    }
    return out;
}

} // namespace

std::string renderEnglish(const MessageArg& a)
{
    return render(a, fixed);
}
std::string renderEnglish(const Message& m)
{
    return render(m, fixed);
}
std::string renderEnglishWith(const Message& m, NumberWriter write)
{
    return render(m, write);
}

std::vector<std::string> renderEnglish(const std::vector<Message>& ms)
{
    std::vector<std::string> out;
    out.reserve(ms.size());
    for (const Message& m : ms)
        out.push_back(renderEnglish(m));
    return out;
}

MessageArg semicolonList(std::vector<Message> items)
{
    if (items.empty())
        return MessageArg::name({});
    Message joined = std::move(items.front());
    for (std::size_t i = 1; i < items.size(); ++i)
        joined = Message { "list.semicolon",
                           { MessageArg::message(std::move(joined)), MessageArg::message(std::move(items[i])) } };
    return MessageArg::message(std::move(joined));
}

namespace {

constexpr std::pair<MessageArgKind, std::string_view> kArgKinds[] = {
    { MessageArgKind::Name, "name" },
    { MessageArgKind::Integer, "integer" },
    { MessageArgKind::Number, "number" },
    { MessageArgKind::GiB, "gib" },
    { MessageArgKind::TokensPerS, "tokens_per_s" },
    { MessageArgKind::Percent, "percent" },
    { MessageArgKind::Seconds, "seconds" },
    { MessageArgKind::Milliseconds, "milliseconds" },
    { MessageArgKind::Ratio, "ratio" },
    { MessageArgKind::GBps, "gbps" },
    { MessageArgKind::Bytes, "bytes" },
    { MessageArgKind::StrategySummary, "strategy_summary" },
    { MessageArgKind::Nested, "message" },
};

} // namespace

nlohmann::json toJson(const Message& m)
{
    nlohmann::json args = nlohmann::json::array();
    for (const MessageArg& a : m.args) {
        std::string_view kind = "name";
        for (const auto& [k, id] : kArgKinds)
            if (k == a.kind)
                kind = id;
        nlohmann::json j { { "kind", kind } };
        if (a.kind == MessageArgKind::Name || a.kind == MessageArgKind::StrategySummary)
            j["text"] = a.text;
        else if (a.kind == MessageArgKind::Nested)
            j["message"] = a.nested.empty() ? nlohmann::json(nullptr) : toJson(a.nested.front());
        else
            j["value"] = a.value;
        if (a.decimals != 0)
            j["decimals"] = a.decimals;
        args.push_back(std::move(j));
    }
    return { { "id", m.id }, { "args", std::move(args) } };
}

Message messageFromJson(const nlohmann::json& j, const std::string& path)
{
    if (!j.is_object())
        throw SpecError(path, "expected an object, got " + j.dump());
    Message m;
    const auto id = j.find("id");
    if (id == j.end() || !id->is_string())
        throw SpecError(path + ".id", "expected a string");
    m.id = id->get<std::string>();
    const auto args = j.find("args");
    if (args == j.end())
        return m;
    if (!args->is_array())
        throw SpecError(path + ".args", "expected an array, got " + args->dump());
    for (std::size_t i = 0; i < args->size(); ++i) {
        const nlohmann::json& a = (*args)[i];
        const std::string at = path + ".args[" + std::to_string(i) + "]";
        if (!a.is_object() || !a.contains("kind") || !a["kind"].is_string())
            throw SpecError(at, "expected an object with a kind, got " + a.dump());
        const std::string kind = a["kind"].get<std::string>();
        MessageArg arg;
        bool known = false;
        for (const auto& [k, name] : kArgKinds)
            if (name == kind) {
                arg.kind = k;
                known = true;
            }
        if (!known)
            throw SpecError(at + ".kind", "unknown argument kind '" + kind + "'");
        if (arg.kind == MessageArgKind::Name || arg.kind == MessageArgKind::StrategySummary) {
            arg.text = a.value("text", std::string());
        } else if (arg.kind == MessageArgKind::Nested) {
            if (!a.contains("message"))
                throw SpecError(at + ".message", "missing");
            arg.nested.push_back(messageFromJson(a["message"], at + ".message"));
        } else {
            if (!a.contains("value") || !a["value"].is_number())
                throw SpecError(at + ".value", "expected a number");
            arg.value = a["value"].get<double>();
        }
        if (a.contains("decimals")) {
            if (!a["decimals"].is_number_integer())
                throw SpecError(at + ".decimals", "expected an integer");
            arg.decimals = std::clamp(a["decimals"].get<int>(), 0, 9);
        }
        m.args.push_back(std::move(arg));
    }
    return m;
}

std::string countOf(long long n, std::string_view noun)
{
    return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

} // namespace shardwise
