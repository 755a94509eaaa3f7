#include "ssh_kex_diagnosis.hpp"

#include <algorithm>
#include <cstdint>

namespace shardwise::dispatch {

namespace {

std::uint32_t readUint32(const std::string& bytes, std::size_t at)
{
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data()) + at;
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3];
}

} // namespace

std::string joinWords(const std::vector<std::string>& words, const char* separator)
{
    std::string out;
    for (const auto& w : words)
        out += (out.empty() ? "" : separator) + w;
    return out;
}

std::vector<std::string> serverHostKeyAlgorithms(const std::string& received)
{
    // The banner is the line starting "SSH-"; a server may send other lines before it.
    std::size_t at = 0;
    while (true) {
        const auto end = received.find('\n', at);
        if (end == std::string::npos)
            return {};
        const bool banner = received.compare(at, 4, "SSH-") == 0;
        at = end + 1;
        if (banner)
            break;
    }
    // uint32 packet_length, byte padding_length, payload: byte SSH_MSG_KEXINIT (20), 16 cookie bytes,
    // then name-lists: kex_algorithms, server_host_key_algorithms, ...
    if (received.size() < at + 5 + 1 + 16 + 4)
        return {};
    const std::uint32_t packetLength = readUint32(received, at);
    if (packetLength > 35000 || received.size() < at + 4 + packetLength || received[at + 5] != 20)
        return {};
    std::size_t p = at + 6 + 16;
    const std::size_t packetEnd = at + 4 + packetLength;
    std::string hostKeyList;
    for (int list = 0; list < 2; ++list) {
        if (p + 4 > packetEnd)
            return {};
        const std::uint32_t length = readUint32(received, p);
        p += 4;
        if (p + length > packetEnd)
            return {};
        if (list == 1)
            hostKeyList = received.substr(p, length);
        p += length;
    }
    std::vector<std::string> algorithms;
    std::size_t start = 0;
    while (start <= hostKeyList.size()) {
        const auto comma = hostKeyList.find(',', start);
        const std::string name
            = hostKeyList.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!name.empty())
            algorithms.push_back(name);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return algorithms;
}

bool isRsaAlgorithm(const std::string& algorithm)
{
    return algorithm.rfind("rsa-sha2-", 0) == 0 || algorithm.rfind("ssh-rsa", 0) == 0;
}

std::string rsaLimitation()
{
    return "libssh2 1.10 (the version Debian 12 ships) verifies RSA host keys only with SHA-1 signatures (ssh-rsa), "
           "which OpenSSH 8.8 and later servers refuse to make";
}

std::string explainHostKeyAlgorithmMismatch(const std::string& name, const std::vector<std::string>& server,
                                            const std::vector<std::string>& client)
{
    if (server.empty())
        return {};
    const bool shared = std::any_of(server.begin(), server.end(), [&](const std::string& a) {
        return std::find(client.begin(), client.end(), a) != client.end();
    });
    if (shared)
        return {};
    if (std::all_of(server.begin(), server.end(), isRsaAlgorithm))
        return name + " has only an RSA host key (it offers " + joinWords(server) + "): " + rsaLimitation()
            + ". Give the node an ed25519 or ECDSA host key (ssh-keygen -A on the node, then restart sshd).";
    return name + " offers host key algorithms " + joinWords(server)
        + ", none of which libssh2 can verify (it supports " + joinWords(client) + ").";
}

} // namespace shardwise::dispatch
