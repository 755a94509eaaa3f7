#include "shardwise/spec/quote.hpp"

#include "shardwise/spec/json.hpp"

#include <cstdio>

namespace shardwise {

namespace {

// Characters that are literal in every position for sh, dash, bash and zsh (POSIX XCU 2.2).
// '=' is left out: as a command's first word NAME=value would read as an assignment.
bool shellPlain(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
        || c == '.' || c == '/' || c == ',' || c == ':' || c == '+' || c == '@' || c == '%';
}

bool isControl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

std::string hex(const char* format, unsigned value)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, format, value);
    return buf;
}

// The double-quoted syntax YAML, TOML and Python share; they differ only in how a control character
// is written (controlEscape, a printf format of its code).
std::string doubleQuoted(std::string_view value, const char* controlEscape)
{
    std::string out = "\"";
    for (const char ch : value) {
        const auto c = static_cast<unsigned char>(ch);
        switch (ch) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        default:
            if (isControl(c))
                out += hex(controlEscape, c);
            else
                out += ch;
        }
    }
    return out + "\"";
}

} // namespace

std::string shellQuote(std::string_view value)
{
    bool plain = !value.empty();
    for (const char c : value)
        plain = plain && shellPlain(c);
    if (plain)
        return std::string(value);
    std::string quoted;
    quoted.reserve(value.size() + 2);
    quoted += '\'';
    for (const char c : value) {
        if (c == '\'')
            quoted += "'\\''";
        else
            quoted += c;
    }
    quoted += '\'';
    return quoted;
}

std::string yamlQuote(std::string_view value)
{
    return doubleQuoted(value, "\\u%04X");
}

std::string tomlQuote(std::string_view value)
{
    return doubleQuoted(value, "\\u%04X");
}

std::string pythonQuote(std::string_view value)
{
    return doubleQuoted(value, "\\x%02x");
}

std::string commentText(std::string_view value)
{
    std::string out(value);
    for (char& c : out)
        if (isControl(static_cast<unsigned char>(c)))
            c = ' ';
    return out;
}

std::string csvField(std::string_view value)
{
    if (value.find_first_of(",\"\r\n") == std::string_view::npos)
        return std::string(value);
    std::string out = "\"";
    for (const char c : value) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + '"';
}

bool csvStartsLikeFormula(std::string_view text)
{
    return !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos;
}

std::string csvText(std::string_view value)
{
    return csvStartsLikeFormula(value) ? csvField("'" + std::string(value)) : csvField(value);
}

std::string csvWithoutFormulaGuard(std::string text)
{
    if (text.size() >= 2 && text.front() == '\'' && csvStartsLikeFormula(std::string_view(text).substr(1)))
        text.erase(text.begin());
    return text;
}

std::string modelIdProblem(std::string_view id)
{
    const auto shown = [&] {
        std::string s;
        for (const char ch : id.substr(0, 80)) {
            const auto c = static_cast<unsigned char>(ch);
            s += isControl(c) ? hex("\\x%02x", c) : std::string(1, ch);
        }
        return "'" + s + (id.size() > 80 ? "...'" : "'");
    };
    if (id.empty())
        return "a model id must not be empty";
    if (id.size() > kMaxModelIdLength)
        return "model id " + shown() + " is " + std::to_string(id.size()) + " characters long; at most "
            + std::to_string(kMaxModelIdLength) + " are allowed";
    const auto alnum
        = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
    if (!alnum(id.front()))
        return "model id " + shown() + " must begin with a letter or a digit";
    for (const char c : id)
        if (!alnum(c) && c != '.' && c != '_' && c != '/' && c != '+' && c != '-')
            return "model id " + shown() + " holds '"
                + (isControl(static_cast<unsigned char>(c)) ? hex("\\x%02x", static_cast<unsigned char>(c))
                                                            : std::string(1, c))
                + "'; a model id may hold only ASCII letters, digits and . _ / + -";
    return {};
}

void checkModelId(std::string_view id, const std::string& field)
{
    if (const std::string why = modelIdProblem(id); !why.empty())
        throw SpecError(field, why);
}

} // namespace shardwise
