#pragma once
// A sentence the core tells the user (a plan's reasons, a calibration's source) as a stable id with
// typed arguments instead of finished English, so every face can word it in the user's language:
// the CLI and the exports print renderEnglish(msg); the desktop app maps each id to a translated
// template and formats the numbers in the user's locale.
//
// Templates use Qt's placeholder syntax, %1 .. %99, in both faces. An argument carries its unit:
// the English rendering of gib(75.43, 1) is "75.4 GiB", so a template never spells a unit after a
// placeholder that has one.

#include <nlohmann/json_fwd.hpp>

#include <concepts>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise {

struct Message;

enum class MessageArgKind {
    Name,            // verbatim: a strategy id, a GPU or node name, an environment variable
    Integer,         // a count: GPUs, nodes, tokens, runs
    Number,          // a plain figure without unit
    GiB,             // memory in GiB (2^30 bytes): "75.4 GiB"
    TokensPerS,      // "12345 tokens/s"
    Percent,         // already in percent (13.2, not 0.132): "13 %"
    Seconds,         // "0.512 s"
    Milliseconds,    // "12.5 ms"
    Ratio,           // a factor: "3.4x"
    GBps,            // bandwidth in GB/s: "25.0 GB/s"
    Bytes,           // a byte count, in the largest binary unit it reaches: "2.00 GiB", "512 B"
    StrategySummary, // a strategy's one-sentence summary (text: the strategy id), as its traits say it
    Nested,          // a whole message of its own (a clause), rendered in place
};

struct MessageArg {
    MessageArgKind kind = MessageArgKind::Name;
    double value = 0;            // Integer .. GBps
    int decimals = 0;            // digits after the point for Number .. GBps
    std::string text;            // Name
    std::vector<Message> nested; // Nested: exactly one

    static MessageArg name(std::string text);
    static MessageArg integer(long long n);
    static MessageArg number(double x, int decimals);
    static MessageArg gib(double gib, int decimals);
    static MessageArg tokensPerS(double x, int decimals);
    static MessageArg percent(double percent, int decimals);
    static MessageArg seconds(double s, int decimals);
    static MessageArg milliseconds(double ms, int decimals);
    static MessageArg ratio(double x, int decimals);
    static MessageArg gbps(double x, int decimals);
    static MessageArg bytes(long long bytes);
    static MessageArg strategySummary(std::string strategyId);
    static MessageArg message(Message m);

    bool operator==(const MessageArg&) const;
};

struct Message {
    std::string id; // "plan.step1_decided"; messageCatalog() lists every id the core emits
    std::vector<MessageArg> args;

    bool operator==(const Message&) const;
};

// The English wording of one id. A template with a count (countArg > 0) has a singular form for a
// count of exactly 1 (englishOne); the desktop app translates it with Qt's plural forms.
struct MessageTemplate {
    std::string_view id;
    std::string_view english;
    std::string_view englishOne; // empty: no singular form
    int countArg = 0;            // 1-based index of the count that chooses the form; 0: none
};

// "1 run", "3 runs": a count and its English noun, plural with an "s" for any count but 1 (the
// command line's wording; the desktop app uses Qt's plural forms).
std::string countOf(long long n, std::string_view noun);
// The same for any integer count (a container's size()).
template <std::integral N> std::string countOf(N n, std::string_view noun)
{
    return countOf(static_cast<long long>(n), noun);
}

std::span<const MessageTemplate> messageCatalog();
const MessageTemplate* findMessageTemplate(std::string_view id);

// The highest placeholder number in a template ("%3 and %1" -> 3); 0 when it has none.
int placeholderCount(std::string_view templ);

// The English sentence: the id's template with every placeholder replaced by its argument. Numbers
// are written as printf's "%.Nf" writes them (no thousands separators). An id the catalog does not
// know renders as "<id>(arg, ...)", so nothing is silently lost.
std::string renderEnglish(const Message& m);
std::string renderEnglish(const MessageArg& a);
std::vector<std::string> renderEnglish(const std::vector<Message>& ms);

// renderEnglish with another writer of the numbers (value, digits after the point): e.g. the C
// library's "%.*f", against which the planner's tests check the default one.
using NumberWriter = std::string (*)(double value, int decimals);
std::string renderEnglishWith(const Message& m, NumberWriter write);

// A list as one argument: "a; b; c" as nested "list.semicolon" messages ("%1; %2"). Empty for none.
MessageArg semicolonList(std::vector<Message> items);

// {"id": ID, "args": [{"kind": K, "value": X, "decimals": N, "text": S, "message": {...}}, ...]}, where
// a Name has text, a Nested has message and the others value (and decimals when not 0).
nlohmann::json toJson(const Message& m);
// Reads toJson's shape back; throws SpecError naming the field at `path`.
Message messageFromJson(const nlohmann::json& j, const std::string& path = "message");

} // namespace shardwise
