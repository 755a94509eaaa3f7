// Caps on what `plan --from` and the Plan page's Open config… read, applied before any parser runs
// (shardwise/frameworks/import_limits.hpp). The nesting scans are deliberately simple lexers: they know
// strings and comments, count brackets (and a TOML key's dots, a YAML block's indentation levels), and
// leave every other judgement to the parser that runs after them.
#include "shardwise/frameworks/import_limits.hpp"

#include "shardwise/spec/json.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

namespace shardwise::frameworks {

namespace {

bool endsWith(std::string_view s, std::string_view suffix)
{
    if (s.size() < suffix.size())
        return false;
    for (std::size_t i = 0; i < suffix.size(); ++i) {
        char c = s[s.size() - suffix.size() + i];
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c - 'A' + 'a');
        if (c != suffix[i])
            return false;
    }
    return true;
}

[[noreturn]] void tooDeep(const std::string& name, std::size_t line)
{
    throw SpecError("file",
                    name + " nests deeper than " + std::to_string(kMaxNestingDepth) + " levels (line "
                        + std::to_string(line) + "); Shardwise reads configs nested at most that deep");
}

// JSON with DeepSpeed's hjson comments (// and /* */): brackets outside strings and comments.
void scanJson(std::string_view t, const std::string& name)
{
    int depth = 0;
    std::size_t line = 1;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        if (c == '\n')
            ++line;
        else if (c == '"') {
            for (++i; i < t.size() && t[i] != '"'; ++i) {
                if (t[i] == '\\')
                    ++i;
                else if (t[i] == '\n')
                    ++line;
            }
        } else if (c == '/' && i + 1 < t.size() && t[i + 1] == '/') {
            while (i < t.size() && t[i] != '\n')
                ++i;
            --i;
        } else if (c == '/' && i + 1 < t.size() && t[i + 1] == '*') {
            for (i += 2; i + 1 < t.size() && !(t[i] == '*' && t[i + 1] == '/'); ++i)
                if (t[i] == '\n')
                    ++line;
            ++i;
        } else if (c == '{' || c == '[') {
            if (++depth > kMaxNestingDepth)
                tooDeep(name, line);
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
}

// TOML: a key's dotted parts (in a [table.header], before '=' and inside inline tables) under its
// table's header parts, plus the arrays and inline tables a value opens.
void scanToml(std::string_view t, const std::string& name)
{
    std::vector<int> saved; // per open '[' / '{': the key parts it sits under
    std::vector<char> open;
    int enclosing = 0;   // the header's parts, then the parts of the keys whose values are open
    int parts = 0;       // the dotted parts of the key being read (or of the header)
    bool inKey = true;   // reading a key: at a line's start, or after '{' or ',' in an inline table
    bool header = false; // reading a [table] / [[array]] header
    bool lineStart = true;
    std::size_t line = 1;
    const auto check = [&] {
        if (enclosing + static_cast<int>(open.size()) + parts > kMaxNestingDepth)
            tooDeep(name, line);
    };
    const auto skipString = [&](std::size_t& i) {
        const char q = t[i];
        const std::string three(3, q);
        if (t.substr(i, 3) == three) { // multi-line string
            for (i += 3; i < t.size() && t.substr(i, 3) != three; ++i) {
                if (q == '"' && t[i] == '\\')
                    ++i;
                else if (t[i] == '\n')
                    ++line;
            }
            i += 2;
            return;
        }
        for (++i; i < t.size() && t[i] != q && t[i] != '\n'; ++i)
            if (q == '"' && t[i] == '\\')
                ++i;
    };
    for (std::size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        if (c == '\n') {
            ++line;
            lineStart = true;
            if (open.empty()) {
                inKey = true;
                parts = 0;
            }
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r')
            continue;
        const bool first = lineStart;
        lineStart = false;
        if (c == '#') {
            while (i + 1 < t.size() && t[i + 1] != '\n')
                ++i;
            continue;
        }
        if (first && open.empty() && c == '[') { // a new table: its header's parts replace the last one's
            header = true;
            inKey = false;
            enclosing = 0;
            parts = 1;
            continue;
        }
        if (c == '"' || c == '\'') {
            if ((inKey || header) && parts == 0)
                parts = 1;
            skipString(i);
            check();
        } else if (header) {
            if (c == '.') {
                ++parts;
                check();
            } else if (c == ']') {
                header = false;
                enclosing = parts;
                parts = 0;
            }
        } else if (inKey) {
            if (parts == 0)
                parts = 1;
            if (c == '.') {
                ++parts;
                check();
            } else if (c == '=') {
                inKey = false;
            } else if (c == '}' && !open.empty()) { // an empty inline table
                open.pop_back();
                enclosing -= saved.back();
                saved.pop_back();
                inKey = false;
                parts = 0;
            }
        } else if (c == '[' || c == '{') {
            saved.push_back(parts);
            enclosing += parts;
            open.push_back(c);
            parts = 0;
            inKey = c == '{';
            check();
        } else if (c == ']' || c == '}') {
            if (!open.empty()) {
                open.pop_back();
                enclosing -= saved.back();
                saved.pop_back();
            }
            parts = 0;
        } else if (c == ',' && !open.empty() && open.back() == '{') {
            inKey = true;
            parts = 0;
        }
    }
}

// YAML: the flow collections ([ and {) a line opens, plus the block levels: each deeper indentation and
// each compact "- " (or "? ") indicator is a level. A block scalar's (| or >) lines are skipped.
void scanYaml(std::string_view t, const std::string& name)
{
    std::vector<std::size_t> indents;
    int flow = 0;
    std::size_t line = 0;
    std::size_t blockScalarIndent = std::string_view::npos; // lines indented deeper belong to a | or > scalar
    std::size_t at = 0;
    while (at < t.size()) {
        std::size_t end = t.find('\n', at);
        if (end == std::string_view::npos)
            end = t.size();
        const std::string_view l = t.substr(at, end - at);
        at = end + 1;
        ++line;
        std::size_t col = l.find_first_not_of(' ');
        if (col == std::string_view::npos || l[col] == '#' || l[col] == '\r')
            continue;
        if (blockScalarIndent != std::string_view::npos) {
            if (col > blockScalarIndent)
                continue;
            blockScalarIndent = std::string_view::npos;
        }
        if (flow == 0) {
            while (!indents.empty() && indents.back() >= col)
                indents.pop_back();
            indents.push_back(col);
            // "- - - x": every compact indicator opens one more level.
            std::size_t p = col;
            while (p < l.size() && (l[p] == '-' || l[p] == '?') && (p + 1 == l.size() || l[p + 1] == ' ')) {
                p = l.find_first_not_of(' ', p + 1);
                if (p == std::string_view::npos)
                    break;
                indents.push_back(p);
            }
            if (indents.size() > static_cast<std::size_t>(kMaxNestingDepth))
                tooDeep(name, line);
        }
        char quote = 0;
        char last = 0;
        for (std::size_t i = col; i < l.size(); ++i) {
            const char c = l[i];
            if (quote) {
                if (c == quote)
                    quote = 0;
                continue;
            }
            if (c == '#' && (i == 0 || l[i - 1] == ' '))
                break;
            if ((c == '"' || c == '\'')
                && (i == col || l[i - 1] == ' ' || l[i - 1] == '[' || l[i - 1] == '{' || l[i - 1] == ','
                    || l[i - 1] == ':' || l[i - 1] == '-')) {
                quote = c;
                continue;
            }
            if (c == '[' || c == '{') {
                if (++flow + static_cast<int>(indents.size()) > kMaxNestingDepth)
                    tooDeep(name, line);
            } else if ((c == ']' || c == '}') && flow > 0) {
                --flow;
            }
            if (c != ' ' && c != '\r')
                last = c;
        }
        if (flow == 0 && (last == '|' || last == '>'))
            blockScalarIndent = col;
        else if (flow == 0) {
            // "key: |-" or "key: >2": a block scalar with chomping or indentation indicators.
            const std::size_t bar = l.find_last_of("|>");
            if (bar != std::string_view::npos && bar > 0 && l[bar - 1] == ' '
                && l.find_first_not_of("+-0123456789 \r", bar + 1) == std::string_view::npos)
                blockScalarIndent = col;
        }
    }
}

// Whether nothing but blanks (and, where the format has them, comments) is in `text`.
bool blank(std::string_view text, ConfigFormat format)
{
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view l = text.substr(at, end - at);
        at = end + 1;
        const std::size_t c = l.find_first_not_of(" \t\r\f\v");
        if (c == std::string_view::npos)
            continue;
        if (format != ConfigFormat::DsConfig && l[c] == '#')
            continue;
        if (format == ConfigFormat::Accelerate && l.substr(c, 3) == "---")
            continue;
        return false;
    }
    return true;
}

} // namespace

std::string clipForMessage(std::string_view s, std::size_t max)
{
    std::string out;
    std::size_t n = std::min(s.size(), max);
    // Never cut a UTF-8 character in two: back off over its continuation bytes.
    while (n < s.size() && n > 0 && (static_cast<unsigned char>(s[n]) & 0xc0) == 0x80)
        --n;
    out.reserve(n + 24);
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        out += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
    }
    if (s.size() > max)
        out += "\xe2\x80\xa6 (" + std::to_string(s.size()) + " bytes)";
    return out;
}

ConfigFormat configFormatFor(std::string_view text, std::string_view fileName)
{
    if (endsWith(fileName, ".json"))
        return ConfigFormat::DsConfig;
    if (endsWith(fileName, ".toml"))
        return ConfigFormat::Torchtitan;
    if (endsWith(fileName, ".yaml") || endsWith(fileName, ".yml"))
        return ConfigFormat::Accelerate;
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && text[first] == '{')
        return ConfigFormat::DsConfig;
    // A torchtitan job config's first line that is neither blank nor a comment is a [section] header
    // (no Accelerate YAML starts so: its top level is a mapping).
    for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view line = text.substr(at, end - at);
        at = end + 1;
        const std::size_t c = line.find_first_not_of(" \t\r");
        if (c == std::string_view::npos || line[c] == '#')
            continue;
        return line[c] == '[' ? ConfigFormat::Torchtitan : ConfigFormat::Accelerate;
    }
    return ConfigFormat::Accelerate;
}

void checkConfigText(std::string_view text, ConfigFormat format, const std::string& name)
{
    if (text.size() > kMaxConfigBytes)
        throw SpecError("file",
                        name + " is " + std::to_string(text.size()) + " bytes; Shardwise reads configs of at most "
                            + std::to_string(kMaxConfigBytes) + " bytes");
    if (blank(text, format))
        throw SpecError("file",
                        name + " is empty: it states no settings (a "
                            + std::string(format == ConfigFormat::DsConfig         ? "ds_config.json is a JSON object"
                                              : format == ConfigFormat::Torchtitan ? "torchtitan job config has "
                                                                                     "[sections]"
                                                                                   : "config YAML is a mapping")
                            + ")");
    switch (format) {
    case ConfigFormat::DsConfig:
        scanJson(text, name);
        break;
    case ConfigFormat::Torchtitan:
        scanToml(text, name);
        break;
    case ConfigFormat::Accelerate:
        scanYaml(text, name);
        break;
    }
}

std::string readConfigFile(const std::string& path)
{
    struct stat st { };
    if (::stat(path.c_str(), &st) != 0)
        throw SpecError("file", "cannot read '" + clipForMessage(path, 400) + "': " + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        throw SpecError("file",
                        "'" + clipForMessage(path, 400) + "' is not a regular file ("
                            + (S_ISDIR(st.st_mode)        ? "a directory"
                                   : S_ISCHR(st.st_mode)  ? "a character device"
                                   : S_ISBLK(st.st_mode)  ? "a block device"
                                   : S_ISFIFO(st.st_mode) ? "a pipe"
                                                          : "a special file")
                            + "); Shardwise reads a config from a file");
    if (static_cast<std::uint64_t>(st.st_size) > kMaxConfigBytes)
        throw SpecError("file",
                        "'" + clipForMessage(path, 400) + "' is " + std::to_string(st.st_size)
                            + " bytes; Shardwise reads configs of at most " + std::to_string(kMaxConfigBytes)
                            + " bytes");
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw SpecError("file", "cannot read '" + clipForMessage(path, 400) + "'");
    // The file may have grown since stat: read one byte past the cap, never more.
    std::string text(kMaxConfigBytes + 1, '\0');
    f.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(f.gcount()));
    if (f.bad())
        throw SpecError("file", "cannot read '" + clipForMessage(path, 400) + "'");
    if (text.size() > kMaxConfigBytes)
        throw SpecError("file",
                        "'" + clipForMessage(path, 400) + "' is larger than " + std::to_string(kMaxConfigBytes)
                            + " bytes; Shardwise reads configs of at most that size");
    return text;
}

} // namespace shardwise::frameworks
