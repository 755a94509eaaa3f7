#include "shardwise/dispatch/known_hosts.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace shardwise::dispatch {

namespace {

char lower(char c)
{
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// "|1|<base64 salt>|<base64 HMAC-SHA1(salt, name)>", OpenSSH's HashKnownHosts format.
bool hashedNameMatches(const std::string& field, const std::string& name)
{
    const auto bar = field.find('|', 3);
    if (field.rfind("|1|", 0) != 0 || bar == std::string::npos)
        return false;
    std::string salt, expected;
    try {
        salt = base64Decode(std::string_view(field).substr(3, bar - 3));
        expected = base64Decode(std::string_view(field).substr(bar + 1));
    } catch (const std::invalid_argument&) {
        return false;
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (!HMAC(EVP_sha1(), salt.data(), static_cast<int>(salt.size()),
              reinterpret_cast<const unsigned char*>(name.data()), name.size(), digest, &length))
        return false;
    return expected.size() == length
        && std::equal(expected.begin(), expected.end(), digest, digest + length,
                      [](char a, unsigned char b) { return static_cast<unsigned char>(a) == b; });
}

} // namespace

bool wildcardMatch(std::string_view pattern, std::string_view text)
{
    // Iterative glob with backtracking to the last '*': linear enough for host names.
    std::size_t p = 0, t = 0, starP = std::string_view::npos, starT = 0;
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || lower(pattern[p]) == lower(text[t]))) {
            ++p;
            ++t;
        } else if (p < pattern.size() && pattern[p] == '*') {
            starP = p++;
            starT = t;
        } else if (starP != std::string_view::npos) {
            p = starP + 1;
            t = ++starT;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*')
        ++p;
    return p == pattern.size();
}

bool hostMatchesPatternList(const std::string& host, const std::string& patternList)
{
    bool matched = false;
    std::stringstream in(patternList);
    std::string pattern;
    while (std::getline(in, pattern, ',')) {
        if (pattern.empty())
            continue;
        const bool negated = pattern[0] == '!';
        if (wildcardMatch(negated ? std::string_view(pattern).substr(1) : std::string_view(pattern), host)) {
            if (negated)
                return false;
            matched = true;
        }
    }
    return matched;
}

bool KnownHostEntry::matches(const std::string& name) const
{
    if (hosts.rfind("|1|", 0) == 0)
        return hashedNameMatches(hosts, name);
    return hostMatchesPatternList(name, hosts);
}

std::string KnownHostEntry::where() const
{
    return file.string() + ":" + std::to_string(line);
}

std::vector<KnownHostEntry> readKnownHostsFile(const std::filesystem::path& file)
{
    std::vector<KnownHostEntry> entries;
    std::ifstream in(file);
    std::string text;
    int number = 0;
    while (std::getline(in, text)) {
        ++number;
        std::istringstream words(text);
        KnownHostEntry e;
        e.file = file;
        e.line = number;
        std::string first;
        if (!(words >> first) || first[0] == '#')
            continue;
        if (first[0] == '@') {
            if (first == "@revoked")
                e.marker = KnownHostEntry::Marker::Revoked;
            else if (first == "@cert-authority")
                e.marker = KnownHostEntry::Marker::CertAuthority;
            else
                continue; // a marker OpenSSH does not know either
            if (!(words >> first))
                continue;
        }
        e.hosts = first;
        std::string key;
        if (!(words >> e.keyType >> key))
            continue;
        try {
            e.keyBlob = base64Decode(key);
        } catch (const std::invalid_argument&) {
            continue;
        }
        if (e.keyBlob.empty())
            continue;
        entries.push_back(std::move(e));
    }
    return entries;
}

std::vector<std::string> KnownHostRecords::recordedTypes() const
{
    std::vector<std::string> types;
    for (const auto& k : keys)
        if (std::find(types.begin(), types.end(), k.keyType) == types.end())
            types.push_back(k.keyType);
    return types;
}

KnownHostRecords lookupKnownHosts(const KnownHostsFiles& files, const std::string& name)
{
    KnownHostRecords records;
    records.name = name;
    for (const auto& file : { files.user, files.app }) {
        if (file.empty())
            continue;
        for (auto& e : readKnownHostsFile(file)) {
            if (!e.matches(name))
                continue;
            switch (e.marker) {
            case KnownHostEntry::Marker::None:
                records.keys.push_back(std::move(e));
                break;
            case KnownHostEntry::Marker::Revoked:
                records.revoked.push_back(std::move(e));
                break;
            case KnownHostEntry::Marker::CertAuthority:
                records.authorities.push_back(std::move(e));
                break;
            }
        }
    }
    return records;
}

HostKeyVerdict judgeHostKey(const KnownHostRecords& records, std::string_view presentedBlob)
{
    for (const auto& r : records.revoked)
        if (r.keyBlob == presentedBlob)
            return HostKeyVerdict::Revoked;
    if (records.keys.empty())
        return HostKeyVerdict::Unknown;
    for (const auto& k : records.keys)
        if (k.keyBlob == presentedBlob)
            return HostKeyVerdict::Trusted;
    return HostKeyVerdict::Changed;
}

} // namespace shardwise::dispatch
