#include "shardwise/dispatch/ssh_config.hpp"

#include "shardwise/dispatch/known_hosts.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <set>

#include <glob.h>
#include <pwd.h>
#include <unistd.h>

namespace shardwise::dispatch {

namespace {

// Every keyword OpenSSH 9's ssh_config(5) knows (lower case), plus Debian's GSSAPI additions and
// macOS's UseKeychain, which shared configuration files often carry. Shardwise accepts and ignores
// those it does not use; anything else is a typo or a newer option, refused as ssh refuses it.
const std::set<std::string>& knownKeywords()
{
    static const std::set<std::string> words = {
        "addkeystoagent", "addressfamily", "batchmode", "bindaddress", "bindinterface", "canonicaldomains",
        "canonicalizefallbacklocal", "canonicalizehostname", "canonicalizemaxdots", "canonicalizepermittedcnames",
        "casignaturealgorithms", "certificatefile", "challengeresponseauthentication", "channeltimeout", "checkhostip",
        "cipher", "ciphers", "clearallforwardings", "compression", "connectionattempts", "connecttimeout",
        "controlmaster", "controlpath", "controlpersist", "dynamicforward", "enableescapecommandline",
        "enablesshkeysign", "escapechar", "exitonforwardfailure", "fingerprinthash", "forkafterauthentication",
        "forwardagent", "forwardx11", "forwardx11timeout", "forwardx11trusted", "gatewayports", "globalknownhostsfile",
        "gssapiauthentication", "gssapiclientidentity", "gssapidelegatecredentials", "gssapikeyexchange",
        "gssapikexalgorithms", "gssapirenewalforcesrekey", "gssapiserveridentity", "gssapitrustdns", "hashknownhosts",
        "host", "hostbasedacceptedalgorithms", "hostbasedauthentication", "hostbasedkeytypes", "hostkeyalgorithms",
        "hostkeyalias", "hostname", "identitiesonly", "identityagent", "identityfile", "ignoreunknown", "include",
        "ipqos", "kbdinteractiveauthentication", "kbdinteractivedevices", "kexalgorithms", "knownhostscommand",
        "localcommand", "localforward", "loglevel", "logverbose", "macs", "match", "nohostauthenticationforlocalhost",
        "numberofpasswordprompts", "obscurekeystroketiming", "passwordauthentication", "permitlocalcommand",
        "permitremoteopen", "pkcs11provider", "port", "preferredauthentications", "protocol", "proxycommand",
        "proxyjump", "proxyusefdpass", "pubkeyacceptedalgorithms", "pubkeyacceptedkeytypes", "pubkeyauthentication",
        "rekeylimit", "remotecommand", "remoteforward", "requesttty", "requiredrsasize", "revokedhostkeys",
        "securitykeyprovider", "sendenv", "serveralivecountmax", "serveraliveinterval", "sessiontype", "setenv",
        "smartcarddevice", "stdinnull", "streamlocalbindmask", "streamlocalbindunlink", "stricthostkeychecking",
        "syslogfacility", "tag", "tcpkeepalive", "tunnel", "tunneldevice", "updatehostkeys", "usekeychain", "user",
        "userknownhostsfile", "verifyhostkeydns", "visualhostkey", "xauthlocation",
        // Newer than OpenSSH 9.2, so a configuration written for a newer ssh still reads.
        "pubkeyauthoptions", "refuseconnection", "warnweakcrypto",
        // Deprecated or removed keywords OpenSSH still accepts with a warning.
        "afstokenpassing", "compressionlevel", "dsaauthentication", "fallbacktorsh", "globalknownhostsfile2",
        "kerberosauthentication", "kerberostgtpassing", "rhostsrsaauthentication", "rsaauthentication",
        "skeyauthentication", "tisauthentication", "useprivilegedport", "useroaming", "usersh", "userknownhostsfile2"
    };
    return words;
}

std::string lowered(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::filesystem::path homeDir()
{
    if (const char* h = std::getenv("HOME"); h && *h)
        return h;
    if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir)
        return pw->pw_dir;
    return "/";
}

std::string localUser()
{
    if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_name)
        return pw->pw_name;
    return {};
}

std::string expandTilde(const std::string& path)
{
    if (path.empty() || path[0] != '~')
        return path;
    const auto slash = path.find('/');
    const std::string who = path.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
    std::string home;
    if (who.empty()) {
        home = homeDir().string();
    } else if (const passwd* pw = ::getpwnam(who.c_str()); pw && pw->pw_dir) {
        home = pw->pw_dir;
    } else {
        return path; // ssh refuses an unknown ~user too; the file simply will not be found
    }
    return slash == std::string::npos ? home : home + path.substr(slash);
}

// Splits a line into words the way ssh's argv_split does: whitespace separates, "double" and
// 'single' quotes group, a backslash escapes the next character, an unquoted # ends the line.
// `keywordEnd` marks that the keyword may end in '=' ("Port=22", "Port = 22").
std::vector<std::string> splitWords(const std::string& line, const std::string& where)
{
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    char quote = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quote) {
            if (c == quote) {
                quote = 0;
            } else if (c == '\\' && i + 1 < line.size() && (line[i + 1] == quote || line[i + 1] == '\\')) {
                word += line[++i];
            } else {
                word += c;
            }
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            if (inWord)
                words.push_back(std::move(word));
            word.clear();
            inWord = false;
            continue;
        }
        if (c == '#' && !inWord)
            break;
        if (c == '"' || c == '\'') {
            quote = c;
            inWord = true;
            continue;
        }
        if (c == '\\' && i + 1 < line.size()) {
            word += line[++i];
            inWord = true;
            continue;
        }
        word += c;
        inWord = true;
    }
    if (quote)
        throw SshConfigError(where + ": unterminated quoted argument");
    if (inWord)
        words.push_back(std::move(word));
    // "Keyword=value" and "Keyword = value": the first '=' after the keyword separates, as in ssh.
    if (!words.empty()) {
        if (const auto eq = words[0].find('='); eq != std::string::npos) {
            std::string rest = words[0].substr(eq + 1);
            words[0].resize(eq);
            if (!rest.empty())
                words.insert(words.begin() + 1, rest);
        } else if (words.size() > 1 && words[1].rfind('=', 0) == 0) {
            words[1].erase(0, 1);
            if (words[1].empty())
                words.erase(words.begin() + 1);
        }
    }
    return words;
}

int parseNumber(const std::string& text, int low, int high, const std::string& where, const std::string& what)
{
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < low || value > high)
        throw SshConfigError(where + ": " + what + " '" + text + "' is not a number in " + std::to_string(low) + ".."
                             + std::to_string(high));
    return value;
}

// ssh's convtime: a number of seconds, or a sum of numbers with s, m, h, d, w suffixes ("1m30s").
int parseSeconds(const std::string& text, const std::string& where, const std::string& what)
{
    long long total = 0, current = 0;
    bool digits = false;
    for (char c : text) {
        if (std::isdigit(static_cast<unsigned char>(c))) {
            current = current * 10 + (c - '0');
            digits = true;
            if (current > 100000000)
                break;
            continue;
        }
        static constexpr std::array<std::pair<char, int>, 5> units {
            { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 604800 } }
        };
        const auto unit
            = std::find_if(units.begin(), units.end(), [&](const auto& u) { return u.first == std::tolower(c); });
        if (!digits || unit == units.end())
            throw SshConfigError(where + ": " + what + " '" + text + "' is not a time (seconds, or e.g. 1m30s)");
        total += current * unit->second;
        current = 0;
        digits = false;
    }
    total += current;
    if (text.empty() || total > 100000000)
        throw SshConfigError(where + ": " + what + " '" + text + "' is not a time (seconds, or e.g. 1m30s)");
    return static_cast<int>(total);
}

bool parseYesNo(const std::string& text, const std::string& where, const std::string& what)
{
    const std::string v = lowered(text);
    if (v == "yes" || v == "true")
        return true;
    if (v == "no" || v == "false")
        return false;
    throw SshConfigError(where + ": " + what + " must be yes or no, not '" + text + "'");
}

struct Evaluation {
    SshHostConfig result;
    std::filesystem::path base; // relative Include paths start here
    std::vector<std::string> ignoreUnknown;
    bool ignoreUnknownSet = false;
    int neverMatchDepth = -1; // >= 0 while reading a file included from a block that did not apply
};

void readFile(const std::filesystem::path& file, Evaluation& ev, bool active, int depth, bool mustExist);

void includeFiles(const std::vector<std::string>& args, Evaluation& ev, bool active, int depth,
                  const std::string& where)
{
    if (depth >= 16)
        throw SshConfigError(where + ": Include nested more than 16 deep");
    for (std::size_t i = 1; i < args.size(); ++i) {
        std::string pattern = expandTilde(args[i]);
        if (pattern.empty() || pattern[0] != '/')
            pattern = (ev.base / pattern).string();
        glob_t found {};
        const int rc = ::glob(pattern.c_str(), 0, nullptr, &found);
        if (rc != 0 && rc != GLOB_NOMATCH) {
            ::globfree(&found);
            throw SshConfigError(where + ": Include " + args[i] + ": cannot list the files it names");
        }
        std::vector<std::string> files(found.gl_pathv, found.gl_pathv + found.gl_pathc);
        ::globfree(&found);
        for (const auto& f : files)
            readFile(f, ev, active, depth + 1, true);
    }
}

void applyLine(const std::vector<std::string>& words, Evaluation& ev, bool& active, int depth, const std::string& where)
{
    const std::string keyword = lowered(words[0]);
    const std::size_t argc = words.size() - 1;
    auto needArgs = [&](std::size_t count) {
        if (argc < count)
            throw SshConfigError(where + ": " + words[0] + " needs an argument");
    };
    // The keywords Shardwise uses take exactly one argument; ssh calls more "garbage at end of line".
    auto onlyOne = [&] {
        if (argc > 1)
            throw SshConfigError(where + ": " + words[0] + " takes one argument, got " + std::to_string(argc));
    };
    auto& r = ev.result;
    if (keyword == "host") {
        needArgs(1);
        bool matched = false;
        for (std::size_t i = 1; i <= argc; ++i) {
            const std::string& p = words[i];
            const bool negated = p[0] == '!';
            if (wildcardMatch(negated ? std::string_view(p).substr(1) : std::string_view(p), r.alias)) {
                if (negated) {
                    matched = false;
                    break;
                }
                matched = true;
            }
        }
        // Inside a file included from a block that did not apply, nothing applies, as in ssh.
        active = matched && ev.neverMatchDepth < 0;
        return;
    }
    if (keyword == "match") {
        needArgs(1);
        active = false; // not evaluated: see the header
        return;
    }
    if (keyword == "include") {
        needArgs(1);
        includeFiles(words, ev, active, depth, where);
        return;
    }
    if (!knownKeywords().count(keyword)) {
        for (const auto& pattern : ev.ignoreUnknown)
            if (hostMatchesPatternList(keyword, pattern))
                return;
        throw SshConfigError(where + ": Bad configuration option: " + words[0]);
    }
    needArgs(1);
    const std::string& value = words[1];
    static const std::set<std::string> singleArgument
        = { "hostname",           "user", "port", "identityfile", "identitiesonly", "proxyjump", "serveraliveinterval",
            "serveralivecountmax" };
    if (singleArgument.count(keyword))
        onlyOne();
    if (keyword == "proxycommand") {
        // Shardwise cannot run a proxy program under libssh2; connecting directly instead would
        // silently take another path than the user's ssh, so a ProxyCommand that applies is refused.
        if (active && !r.proxyJump && r.proxyCommandWhere.empty() && lowered(value) != "none")
            r.proxyCommandWhere = where;
        return;
    }
    if (keyword == "hostname") {
        std::string expanded;
        for (std::size_t i = 0; i < value.size(); ++i) {
            if (value[i] != '%') {
                expanded += value[i];
            } else if (i + 1 < value.size() && value[i + 1] == 'h') {
                expanded += r.alias;
                ++i;
            } else if (i + 1 < value.size() && value[i + 1] == '%') {
                expanded += '%';
                ++i;
            } else {
                throw SshConfigError(where + ": HostName " + value + ": only %h and %% are expanded there");
            }
        }
        if (active && r.hostName.empty())
            r.hostName = expanded;
    } else if (keyword == "user") {
        if (active && !r.user)
            r.user = value;
    } else if (keyword == "port") {
        const int port = parseNumber(value, 1, 65535, where, "Port");
        if (active && !r.port)
            r.port = port;
    } else if (keyword == "identityfile") {
        if (active) {
            r.identityFiles.push_back(value);
            r.identityFileWhere.push_back(where);
        }
    } else if (keyword == "identitiesonly") {
        const bool only = parseYesNo(value, where, "IdentitiesOnly");
        if (active && !r.identitiesOnly)
            r.identitiesOnly = only;
    } else if (keyword == "proxyjump") {
        auto hops = parseProxyJump(value, where);
        // ProxyJump and ProxyCommand exclude each other; the first one obtained wins, as in ssh.
        if (active && !r.proxyJump && r.proxyCommandWhere.empty())
            r.proxyJump = std::move(hops);
    } else if (keyword == "serveraliveinterval") {
        const int seconds = parseSeconds(value, where, "ServerAliveInterval");
        if (active && !r.serverAliveInterval)
            r.serverAliveInterval = seconds;
    } else if (keyword == "serveralivecountmax") {
        const int count = parseNumber(value, 0, 1000000, where, "ServerAliveCountMax");
        if (active && !r.serverAliveCountMax)
            r.serverAliveCountMax = count;
    } else if (keyword == "ignoreunknown") {
        if (active && !ev.ignoreUnknownSet) {
            ev.ignoreUnknownSet = true;
            ev.ignoreUnknown.assign(words.begin() + 1, words.end());
        }
    }
}

void readFile(const std::filesystem::path& file, Evaluation& ev, bool active, int depth, bool mustExist)
{
    std::ifstream in(file);
    if (!in) {
        std::error_code ec;
        if (!mustExist && !std::filesystem::exists(file, ec))
            return;
        throw SshConfigError("cannot read the ssh configuration file " + file.string());
    }
    std::string line;
    int number = 0;
    // A Host line in an included file does not outlast that file, as in ssh.
    bool fileActive = active;
    const bool startsNeverMatch = !active && ev.neverMatchDepth < 0;
    if (startsNeverMatch)
        ev.neverMatchDepth = depth;
    while (std::getline(in, line)) {
        ++number;
        const std::string where = file.string() + ":" + std::to_string(number);
        const auto words = splitWords(line, where);
        if (words.empty())
            continue;
        applyLine(words, ev, fileActive, depth, where);
    }
    if (startsNeverMatch)
        ev.neverMatchDepth = -1;
}

} // namespace

std::filesystem::path standardSshConfigPath()
{
    if (const char* set = std::getenv("SHARDWISE_SSH_CONFIG")) {
        const std::string value = set;
        return value == "none" ? std::filesystem::path() : std::filesystem::path(value);
    }
    return homeDir() / ".ssh" / "config";
}

SshHostConfig lookupSshConfigByParsing(const std::filesystem::path& file, const std::string& host)
{
    Evaluation ev;
    ev.result.alias = host;
    ev.base = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
    if (!file.empty())
        readFile(file, ev, true, 0, false);
    if (ev.result.hostName.empty())
        ev.result.hostName = host;
    return ev.result;
}

std::vector<SshJumpSpec> parseProxyJump(const std::string& value, const std::string& where)
{
    std::vector<SshJumpSpec> hops;
    if (lowered(value) == "none")
        return hops;
    std::size_t start = 0;
    while (start <= value.size()) {
        const auto comma = value.find(',', start);
        std::string item = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        start = comma == std::string::npos ? value.size() + 1 : comma + 1;
        if (item.rfind("ssh://", 0) == 0)
            item.erase(0, 6);
        SshJumpSpec hop;
        if (const auto at = item.rfind('@'); at != std::string::npos) {
            hop.user = item.substr(0, at);
            item.erase(0, at + 1);
            if (hop.user->empty())
                throw SshConfigError(where + ": ProxyJump " + value + ": empty user name before '@'");
        }
        std::string portText;
        if (!item.empty() && item[0] == '[') {
            const auto close = item.find(']');
            if (close == std::string::npos)
                throw SshConfigError(where + ": ProxyJump " + value + ": '[' without ']'");
            hop.host = item.substr(1, close - 1);
            if (close + 1 < item.size()) {
                if (item[close + 1] != ':')
                    throw SshConfigError(where + ": ProxyJump " + value + ": expected ':' after ']'");
                portText = item.substr(close + 2);
            }
        } else if (const auto colon = item.find(':'); colon != std::string::npos) {
            hop.host = item.substr(0, colon);
            portText = item.substr(colon + 1);
        } else {
            hop.host = item;
        }
        if (hop.host.empty())
            throw SshConfigError(where + ": ProxyJump " + value + ": a hop without a host name");
        if (!portText.empty() || (item.find(':') != std::string::npos && item[0] != '['))
            hop.port = parseNumber(portText, 1, 65535, where, "ProxyJump port");
        hops.push_back(std::move(hop));
    }
    return hops;
}

std::string expandIdentityFile(const std::string& path, const std::string& alias, const std::string& hostName, int port,
                               const std::string& remoteUser, const std::string& where)
{
    const std::string tilde = expandTilde(path);
    std::string out;
    for (std::size_t i = 0; i < tilde.size(); ++i) {
        if (tilde[i] != '%') {
            out += tilde[i];
            continue;
        }
        if (i + 1 >= tilde.size())
            throw SshConfigError(where + ": IdentityFile " + path + ": a '%' at the end");
        const char token = tilde[++i];
        switch (token) {
        case '%':
            out += '%';
            break;
        case 'd':
            out += homeDir().string();
            break;
        case 'h':
            out += hostName;
            break;
        case 'n':
            out += alias;
            break;
        case 'p':
            out += std::to_string(port);
            break;
        case 'r':
            out += remoteUser;
            break;
        case 'u':
            out += localUser();
            break;
        case 'i':
            out += std::to_string(::getuid());
            break;
        case 'l':
        case 'L': {
            char name[256] = {};
            ::gethostname(name, sizeof name - 1);
            std::string local = name;
            if (token == 'L')
                local = local.substr(0, local.find('.'));
            out += local;
            break;
        }
        default:
            throw SshConfigError(where + ": IdentityFile " + path + ": token %" + std::string(1, token)
                                 + " is not supported here (supported: %% %d %h %i %l %L %n %p %r %u)");
        }
    }
    return out;
}

} // namespace shardwise::dispatch
