#include "shardwise/dispatch/ssh_host_key.hpp"

#include <openssl/evp.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <sys/stat.h>

namespace shardwise::dispatch {

namespace {
constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::filesystem::path homeDir()
{
    if (const char* h = std::getenv("HOME"); h && *h)
        return h;
    return "/";
}
} // namespace

KnownHostsFiles KnownHostsFiles::standard()
{
    KnownHostsFiles f;
    f.user = homeDir() / ".ssh" / "known_hosts";
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    const std::filesystem::path config = (xdg && *xdg) ? std::filesystem::path(xdg) : homeDir() / ".config";
    f.app = config / "shardwise" / "known_hosts";
    return f;
}

std::string base64Encode(std::string_view bytes, bool pad)
{
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16)
            | (static_cast<unsigned char>(bytes[i + 1]) << 8) | static_cast<unsigned char>(bytes[i + 2]);
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += kAlphabet[v & 63];
    }
    const std::size_t rest = bytes.size() - i;
    if (rest > 0) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        if (rest == 2)
            v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        if (rest == 2)
            out += kAlphabet[(v >> 6) & 63];
        if (pad)
            out.append(rest == 1 ? 2 : 1, '=');
    }
    return out;
}

std::string base64Decode(std::string_view text)
{
    std::string out;
    unsigned acc = 0;
    int bits = 0;
    for (char c : text) {
        if (c == '=' || c == '\n' || c == '\r')
            continue;
        const auto pos = kAlphabet.find(c);
        if (pos == std::string_view::npos)
            throw std::invalid_argument(std::string("base64: unexpected character '") + c + "'");
        acc = (acc << 6) | static_cast<unsigned>(pos);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xff);
        }
    }
    return out;
}

std::string sha256Fingerprint(std::string_view keyBlob)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(keyBlob.data(), keyBlob.size(), digest, &length, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("SHA-256 of the host key failed (OpenSSL)");
    // OpenSSH prints the digest in base64 without padding (sshkey_fingerprint, SSH_FP_BASE64).
    return "SHA256:" + base64Encode(std::string_view(reinterpret_cast<const char*>(digest), length), false);
}

std::string knownHostsName(const std::string& host, int port)
{
    if (port == 22)
        return host;
    return "[" + host + "]:" + std::to_string(port);
}

void acceptHostKey(const std::string& host, int port, const HostKey& key, const std::filesystem::path& appKnownHosts)
{
    if (host.empty() || key.type.empty() || key.base64.empty())
        throw std::invalid_argument("acceptHostKey: host, key type and key are required");
    if (host.find_first_of(" \t\n,") != std::string::npos)
        throw std::invalid_argument("acceptHostKey: host name '" + host + "' contains a separator");
    if (!appKnownHosts.parent_path().empty()) {
        std::filesystem::create_directories(appKnownHosts.parent_path());
        ::chmod(appKnownHosts.parent_path().c_str(), 0700);
    }
    std::ofstream out(appKnownHosts, std::ios::app | std::ios::binary);
    if (!out)
        throw std::runtime_error("cannot write " + appKnownHosts.string());
    out << knownHostsName(host, port) << ' ' << key.type << ' ' << key.base64 << '\n';
    out.close();
    if (!out)
        throw std::runtime_error("cannot write " + appKnownHosts.string());
    ::chmod(appKnownHosts.c_str(), 0600);
}

void acceptHostKey(const HostKey& key, const std::filesystem::path& appKnownHosts)
{
    if (key.host.empty() || key.port <= 0)
        throw std::invalid_argument("acceptHostKey: the key does not say which host presented it");
    acceptHostKey(key.host, key.port, key, appKnownHosts);
}

} // namespace shardwise::dispatch
