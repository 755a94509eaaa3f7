#include "ssh_auth.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>

namespace shardwise::dispatch {

namespace {

// An OpenSSH-format key is encrypted when its cipher name is not "none"; a PEM key says so in a
// header line (PROTOCOL.key in OpenSSH's sources describes the "openssh-key-v1" layout).
bool keyFileIsEncrypted(const std::filesystem::path& keyFile)
{
    std::ifstream in(keyFile);
    if (!in)
        throw SshError(SshFailure::AuthFailed, "cannot read key file " + keyFile.string());
    std::string line, body;
    bool openssh = false;
    while (std::getline(in, line)) {
        if (line.find("ENCRYPTED") != std::string::npos)
            return true;
        if (line.find("BEGIN OPENSSH PRIVATE KEY") != std::string::npos) {
            openssh = true;
            continue;
        }
        if (line.rfind("-----", 0) == 0)
            continue;
        if (openssh)
            body += line;
    }
    if (!openssh)
        return false;
    std::string raw;
    try {
        raw = base64Decode(body);
    } catch (const std::invalid_argument&) {
        return false;
    }
    constexpr std::string_view magic("openssh-key-v1\0", 15);
    if (raw.size() < magic.size() + 4 || raw.compare(0, magic.size(), magic) != 0)
        return false;
    const auto* p = reinterpret_cast<const unsigned char*>(raw.data()) + magic.size();
    const std::size_t len = (std::size_t(p[0]) << 24) | (std::size_t(p[1]) << 16) | (std::size_t(p[2]) << 8) | p[3];
    if (raw.size() < magic.size() + 4 + len)
        return false;
    return raw.compare(magic.size() + 4, len, "none") != 0;
}

void wipe(std::string& secret)
{
    volatile char* p = secret.data();
    for (std::size_t i = 0; i < secret.size(); ++i)
        p[i] = 0;
    secret.clear();
}

// The public key blobs of the IdentityFiles' .pub files, for IdentitiesOnly.
std::vector<std::string> identityBlobs(const std::vector<std::filesystem::path>& files)
{
    std::vector<std::string> blobs;
    for (const auto& f : files) {
        std::ifstream in(f.string() + ".pub");
        std::string type, key;
        if (in >> type >> key) {
            try {
                blobs.push_back(base64Decode(key));
            } catch (const std::invalid_argument&) {
            }
        }
    }
    return blobs;
}

void authenticateWithAgent(SshSession::State& st, const AuthPlan& plan, Clock::time_point deadline,
                           const std::atomic<bool>* cancel)
{
    LIBSSH2_AGENT* agent = libssh2_agent_init(st.session);
    if (!agent)
        throw SshError(SshFailure::AuthFailed, "cannot initialise the SSH agent client");
    struct AgentGuard {
        LIBSSH2_AGENT* a;
        ~AgentGuard()
        {
            libssh2_agent_disconnect(a);
            libssh2_agent_free(a);
        }
    } guard { agent };
    const std::string socketPath = plan.agentSocket.string();
    if (!socketPath.empty())
        libssh2_agent_set_identity_path(agent, socketPath.c_str());
    else if (!std::getenv("SSH_AUTH_SOCK"))
        throw SshError(SshFailure::AuthFailed, "agent authentication asked for, but SSH_AUTH_SOCK is not set");
    if (libssh2_agent_connect(agent) != 0)
        throw SshError(SshFailure::AuthFailed, "cannot connect to the SSH agent: " + st.lastError());
    if (libssh2_agent_list_identities(agent) != 0)
        throw SshError(SshFailure::AuthFailed, "cannot list the SSH agent's keys: " + st.lastError());
    libssh2_agent_publickey* identity = nullptr;
    libssh2_agent_publickey* previous = nullptr;
    int offered = 0;
    int skipped = 0;
    const std::vector<std::string> allowed
        = plan.identitiesOnly ? identityBlobs(plan.identityFiles) : std::vector<std::string> {};
    // The agent exchange runs blocking, bounded by the remaining connect time: it is a few round
    // trips, and this avoids relying on libssh2 restarting an agent signature after EAGAIN.
    long timeoutMs = 0; // 0 = none for libssh2
    if (deadline != Clock::time_point::max())
        timeoutMs = std::max<long>(
            1,
            static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count()));
    libssh2_session_set_timeout(st.session, timeoutMs);
    libssh2_session_set_blocking(st.session, 1);
    struct NonBlockingAgain {
        LIBSSH2_SESSION* s;
        ~NonBlockingAgain()
        {
            libssh2_session_set_blocking(s, 0);
            libssh2_session_set_timeout(s, 0);
        }
    } restore { st.session };
    while (libssh2_agent_get_identity(agent, &identity, previous) == 0) {
        previous = identity;
        if (plan.identitiesOnly
            && std::find(allowed.begin(), allowed.end(),
                         std::string(reinterpret_cast<const char*>(identity->blob), identity->blob_len))
                == allowed.end()) {
            ++skipped;
            continue;
        }
        ++offered;
        if (cancel && cancel->load())
            throw SshError(SshFailure::Cancelled, "authentication cancelled");
        const int rc = libssh2_agent_userauth(agent, st.endpoint.user.c_str(), identity);
        if (rc == 0)
            return;
        if (rc != LIBSSH2_ERROR_AUTHENTICATION_FAILED && rc != LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED
            && rc != LIBSSH2_ERROR_AGENT_PROTOCOL)
            st.fail(rc, "agent authentication");
    }
    if (offered == 0 && skipped > 0)
        throw SshError(SshFailure::AuthFailed,
                       "IdentitiesOnly: none of the SSH agent's " + std::to_string(skipped)
                           + " key(s) matches an IdentityFile");
    throw SshError(SshFailure::AuthFailed,
                   offered == 0 ? "the SSH agent holds no keys"
                                : "the server rejected all " + std::to_string(offered)
                           + " key(s) offered by the SSH agent for user " + st.endpoint.user);
}

void authenticateWithKeyFile(SshSession::State& st, const std::filesystem::path& keyFile, const PassphrasePrompt& ask,
                             Clock::time_point deadline, const std::atomic<bool>* cancel)
{
    if (keyFile.empty())
        throw SshError(SshFailure::AuthFailed, "key file authentication asked for, but no key file given");
    std::string passphrase;
    if (keyFileIsEncrypted(keyFile)) {
        std::optional<std::string> answer = ask ? ask(keyFile) : std::nullopt;
        if (!answer)
            throw SshError(SshFailure::AuthFailed,
                           "key file " + keyFile.string() + " is encrypted and no passphrase was given");
        passphrase = std::move(*answer);
        wipe(*answer);
    }
    const std::string keyPath = keyFile.string();
    int rc;
    while ((rc = libssh2_userauth_publickey_fromfile_ex(st.session, st.endpoint.user.c_str(),
                                                        static_cast<unsigned>(st.endpoint.user.size()), nullptr,
                                                        keyPath.c_str(), passphrase.c_str()))
           == LIBSSH2_ERROR_EAGAIN)
        st.waitSocket(deadline, Clock::now(), cancel);
    wipe(passphrase);
    if (rc == 0)
        return;
    if (rc == LIBSSH2_ERROR_FILE)
        throw SshError(SshFailure::AuthFailed,
                       "cannot use key file " + keyPath
                           + " (wrong passphrase or unsupported format): " + st.lastError());
    if (rc == LIBSSH2_ERROR_AUTHENTICATION_FAILED || rc == LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED)
        throw SshError(SshFailure::AuthFailed, "the server rejected key " + keyPath + " for user " + st.endpoint.user);
    st.fail(rc, "key file authentication");
}

} // namespace

void authenticate(SshSession::State& st, const AuthPlan& plan, Clock::time_point deadline,
                  const std::atomic<bool>* cancel)
{
    // Each way that fails for want of a key the server accepts is noted and the next is tried; a
    // transport error or a cancel ends it at once.
    std::vector<std::string> failures;
    auto attempt = [&](const std::function<void()>& how) {
        try {
            how();
            return true;
        } catch (const SshError& e) {
            if (e.failure() != SshFailure::AuthFailed)
                throw;
            failures.emplace_back(e.what());
            return false;
        }
    };
    if (plan.keyFile
        && attempt([&] { authenticateWithKeyFile(st, *plan.keyFile, plan.askPassphrase, deadline, cancel); }))
        return;
    const bool agentKnown = !plan.agentSocket.empty() || std::getenv("SSH_AUTH_SOCK");
    if (plan.useAgent && (agentKnown || plan.agentRequired)
        && attempt([&] { authenticateWithAgent(st, plan, deadline, cancel); }))
        return;
    for (const auto& file : plan.identityFiles) {
        std::error_code ec;
        if ((plan.keyFile && *plan.keyFile == file) || !std::filesystem::exists(file, ec))
            continue;
        if (attempt([&] { authenticateWithKeyFile(st, file, plan.askPassphrase, deadline, cancel); }))
            return;
    }
    if (failures.empty())
        throw SshError(SshFailure::AuthFailed,
                       "no key to log in to " + st.endpoint.user + "@" + st.endpoint.host + ":"
                           + std::to_string(st.endpoint.port)
                           + " with: no SSH agent (SSH_AUTH_SOCK is not set) and no IdentityFile that exists");
    std::string all;
    for (const auto& f : failures)
        all += (all.empty() ? "" : "; ") + f;
    throw SshError(SshFailure::AuthFailed, all);
}

} // namespace shardwise::dispatch
