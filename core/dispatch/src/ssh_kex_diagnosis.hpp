#pragma once
// Internal: why a key exchange failed, in terms the user can act on. libssh2 only says "unable to
// exchange encryption keys"; the server's KEXINIT (sent in the clear right after its banner, RFC
// 4253 section 7.1) says which host key algorithms it offers, so an RSA-only server can be named as
// such: libssh2 1.10 signs and verifies RSA host keys only as ssh-rsa (SHA-1), which OpenSSH 8.8+
// servers no longer offer.

#include <string>
#include <vector>

namespace shardwise::dispatch {

// The server's host key algorithms from the raw bytes it sent first (banner, then its KEXINIT);
// empty when those bytes do not hold a complete KEXINIT.
std::vector<std::string> serverHostKeyAlgorithms(const std::string& receivedBeforeKex);

bool isRsaAlgorithm(const std::string& algorithm);

// The RSA limitation in one sentence, for every message that needs it.
std::string rsaLimitation();

// A sentence explaining a failed handshake with `name` when the host key algorithms are the
// reason; empty when they are not (or are not known).
std::string explainHostKeyAlgorithmMismatch(const std::string& name, const std::vector<std::string>& serverAlgorithms,
                                            const std::vector<std::string>& clientAlgorithms);

std::string joinWords(const std::vector<std::string>& words, const char* separator = ", ");

} // namespace shardwise::dispatch
