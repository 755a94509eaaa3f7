#include "ssh_session_state.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace shardwise::dispatch {

namespace {

void initLibssh2Once()
{
    static std::once_flag once;
    std::call_once(once, [] {
        if (libssh2_init(0) != 0)
            throw SshError(SshFailure::Protocol, "libssh2_init failed");
    });
}

// libssh2 calls this for every socket read; it returns -errno on failure as libssh2's own does.
ssize_t countingRecv(libssh2_socket_t fd, void* buffer, size_t length, int flags, void** abstract)
{
    const ssize_t n = ::recv(fd, buffer, length, flags);
    if (n < 0)
        return -errno;
    if (n > 0)
        static_cast<SshSession::State*>(*abstract)->lastReceived = Clock::now();
    return n;
}

std::string hostKeyTypeName(int type)
{
    switch (type) {
    case LIBSSH2_HOSTKEY_TYPE_RSA: return "ssh-rsa";
    case LIBSSH2_HOSTKEY_TYPE_DSS: return "ssh-dss";
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_256: return "ecdsa-sha2-nistp256";
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_384: return "ecdsa-sha2-nistp384";
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_521: return "ecdsa-sha2-nistp521";
    case LIBSSH2_HOSTKEY_TYPE_ED25519: return "ssh-ed25519";
    default: return {};
    }
}

int knownHostKeyMask(int type)
{
    switch (type) {
    case LIBSSH2_HOSTKEY_TYPE_RSA: return LIBSSH2_KNOWNHOST_KEY_SSHRSA;
    case LIBSSH2_HOSTKEY_TYPE_DSS: return LIBSSH2_KNOWNHOST_KEY_SSHDSS;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_256: return LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_384: return LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_521: return LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
    case LIBSSH2_HOSTKEY_TYPE_ED25519: return LIBSSH2_KNOWNHOST_KEY_ED25519;
    default: return LIBSSH2_KNOWNHOST_KEY_UNKNOWN;
    }
}

Clock::time_point deadlineAfter(std::chrono::milliseconds d)
{
    return d.count() > 0 ? Clock::now() + d : Clock::time_point::max();
}

int connectSocket(const SshEndpoint& ep, Clock::time_point deadline, const std::atomic<bool>* cancel)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(ep.port);
    if (const int rc = ::getaddrinfo(ep.host.c_str(), port.c_str(), &hints, &found); rc != 0)
        throw SshError(SshFailure::Resolve, "cannot resolve host '" + ep.host + "': " + ::gai_strerror(rc));
    std::string lastProblem = "no address";
    SshFailure lastFailure = SshFailure::Connect;
    for (addrinfo* a = found; a; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0)
            continue;
        int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            rc = -1;
            while (true) {
                if (cancel && cancel->load()) {
                    ::close(fd);
                    ::freeaddrinfo(found);
                    throw SshError(SshFailure::Cancelled, "connect to " + ep.host + " cancelled");
                }
                const auto now = Clock::now();
                if (now >= deadline) {
                    lastProblem = "timed out";
                    lastFailure = SshFailure::Timeout;
                    break;
                }
                const auto slice = std::min<long long>(
                    200, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1);
                pollfd p{fd, POLLOUT, 0};
                if (::poll(&p, 1, static_cast<int>(slice)) > 0) {
                    int err = 0;
                    socklen_t len = sizeof err;
                    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
                    if (err == 0)
                        rc = 0;
                    else
                        lastProblem = std::strerror(err);
                    break;
                }
            }
        } else if (rc != 0) {
            lastProblem = std::strerror(errno);
        }
        if (rc == 0) {
            ::freeaddrinfo(found);
            return fd;
        }
        ::close(fd);
    }
    ::freeaddrinfo(found);
    throw SshError(lastFailure, "cannot connect to " + ep.host + ":" + port + ": " + lastProblem);
}

// Feeds each line to libssh2 on its own, so one line libssh2 cannot parse (a certificate authority,
// a security-key type it does not know) does not hide the lines after it.
void readKnownHosts(LIBSSH2_KNOWNHOSTS* hosts, const std::filesystem::path& file)
{
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#' || line[0] == '@')
            continue;
        libssh2_knownhost_readline(hosts, line.c_str(), line.size(), LIBSSH2_KNOWNHOST_FILE_OPENSSH);
    }
}

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

} // namespace

SshSession::State::~State()
{
    if (session) {
        // Best effort goodbye without waiting: the socket is closed right after.
        libssh2_session_disconnect(session, "shardwise closing");
        libssh2_session_free(session);
    }
    if (socket >= 0)
        ::close(socket);
}

std::string SshSession::State::lastError() const
{
    char* msg = nullptr;
    int len = 0;
    libssh2_session_last_error(session, &msg, &len, 0);
    return msg ? std::string(msg, static_cast<std::size_t>(len)) : std::string("unknown libssh2 error");
}

void SshSession::State::fail(int code, const std::string& what)
{
    const std::string where = endpoint.user + "@" + endpoint.host + ":" + std::to_string(endpoint.port);
    switch (code) {
    case LIBSSH2_ERROR_SOCKET_DISCONNECT:
    case LIBSSH2_ERROR_SOCKET_RECV:
    case LIBSSH2_ERROR_SOCKET_SEND:
    case LIBSSH2_ERROR_BANNER_RECV:
    case LIBSSH2_ERROR_BANNER_SEND:
        broken = true;
        throw SshError(SshFailure::Disconnected, what + ": connection to " + where + " dropped (" + lastError() + ")");
    case LIBSSH2_ERROR_TIMEOUT:
        broken = true;
        throw SshError(SshFailure::Timeout, what + ": " + where + " timed out");
    default:
        broken = true;
        throw SshError(SshFailure::Protocol, what + " on " + where + ": " + lastError() + " (libssh2 " + std::to_string(code) + ")");
    }
}

void SshSession::State::waitSocket(Clock::time_point deadline, Clock::time_point since, const std::atomic<bool>* cancel)
{
    if (cancel && cancel->load())
        throw SshError(SshFailure::Cancelled, "cancelled");
    if (keepaliveOn) {
        int nextInSeconds = 0;
        const int rc = libssh2_keepalive_send(session, &nextInSeconds);
        if (rc != 0 && rc != LIBSSH2_ERROR_EAGAIN)
            fail(rc, "sending a keepalive");
        const auto silentSince = std::max(lastReceived, since);
        if (Clock::now() - silentSince > timeouts.peerSilenceLimit()) {
            broken = true;
            const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - silentSince).count();
            throw SshError(SshFailure::PeerStalled, endpoint.host + ":" + std::to_string(endpoint.port)
                               + " stopped answering: nothing received for " + std::to_string(ms)
                               + " ms despite keepalives (limit "
                               + std::to_string(timeouts.peerSilenceLimit().count()) + " ms)");
        }
    }
    const auto now = Clock::now();
    if (now >= deadline)
        throw SshError(SshFailure::Timeout, "timed out waiting for " + endpoint.host);
    // Short slices so cancel, the deadline and keepalives are looked at several times a second.
    long long slice = 200;
    if (deadline != Clock::time_point::max())
        slice = std::min<long long>(slice, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1);
    const int dir = libssh2_session_block_directions(session);
    pollfd p{socket, 0, 0};
    if (dir & LIBSSH2_SESSION_BLOCK_INBOUND)
        p.events |= POLLIN;
    if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
        p.events |= POLLOUT;
    if (p.events == 0)
        p.events = POLLIN;
    ::poll(&p, 1, static_cast<int>(slice));
}

namespace {

std::unique_ptr<SshSession::State> handshake(const SshEndpoint& ep, const SshOptions& options, Clock::time_point deadline,
                                             const std::atomic<bool>* cancel)
{
    if (ep.host.empty())
        throw SshError(SshFailure::Resolve, "SSH node: host is empty");
    if (ep.port <= 0 || ep.port > 65535)
        throw SshError(SshFailure::Connect, "SSH node: port " + std::to_string(ep.port) + " is not in 1..65535");
    initLibssh2Once();
    auto st = std::make_unique<SshSession::State>();
    st->endpoint = ep;
    st->timeouts = options.timeouts;
    st->socket = connectSocket(ep, deadline, cancel);
    st->session = libssh2_session_init_ex(nullptr, nullptr, nullptr, st.get());
    if (!st->session)
        throw SshError(SshFailure::Protocol, "libssh2_session_init failed");
    libssh2_session_callback_set(st->session, LIBSSH2_CALLBACK_RECV, reinterpret_cast<void*>(&countingRecv));
    libssh2_session_set_blocking(st->session, 0);
    int rc;
    while ((rc = libssh2_session_handshake(st->session, st->socket)) == LIBSSH2_ERROR_EAGAIN)
        st->waitSocket(deadline, Clock::now(), cancel);
    if (rc != 0)
        st->fail(rc, "SSH handshake");
    std::size_t keyLength = 0;
    int keyType = 0;
    const char* key = libssh2_session_hostkey(st->session, &keyLength, &keyType);
    if (!key)
        throw SshError(SshFailure::Protocol, "the server presented no host key");
    const std::string_view blob(key, keyLength);
    st->hostKey = {hostKeyTypeName(keyType), base64Encode(blob), sha256Fingerprint(blob)};
    return st;
}

void verifyHostKey(SshSession::State& st, const KnownHostsFiles& files)
{
    std::size_t keyLength = 0;
    int keyType = 0;
    const char* key = libssh2_session_hostkey(st.session, &keyLength, &keyType);
    LIBSSH2_KNOWNHOSTS* hosts = libssh2_knownhost_init(st.session);
    if (!hosts)
        throw SshError(SshFailure::Protocol, "libssh2_knownhost_init failed");
    for (const auto& f : {files.user, files.app})
        if (!f.empty())
            readKnownHosts(hosts, f);
    // The name is passed pre-formatted with port -1 so "[host]:port" entries match exactly as in
    // OpenSSH, and a plain "host" entry (port 22) never vouches for another port.
    const std::string name = knownHostsName(st.endpoint.host, st.endpoint.port);
    const int check = libssh2_knownhost_checkp(hosts, name.c_str(), -1, key, keyLength,
                                               LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW
                                                   | knownHostKeyMask(keyType),
                                               nullptr);
    libssh2_knownhost_free(hosts);
    const auto& hk = st.hostKey;
    switch (check) {
    case LIBSSH2_KNOWNHOST_CHECK_MATCH:
        return;
    case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
        throw SshError(SshFailure::HostKeyChanged,
                       "HOST KEY CHANGED for " + name + ": it now presents " + hk.type + " " + hk.fingerprint
                           + ", which differs from the recorded key. This can be a reinstalled host or an attacker; "
                             "refusing to connect. Remove the old entry from known_hosts only after verifying the new key.",
                       hk);
    case LIBSSH2_KNOWNHOST_CHECK_NOTFOUND:
        throw SshError(SshFailure::HostKeyUnknown,
                       "unknown host " + name + ": its " + hk.type + " key has fingerprint " + hk.fingerprint
                           + "; not connecting until this key is accepted",
                       hk);
    default:
        throw SshError(SshFailure::Protocol, "checking the host key of " + name + " failed");
    }
}

void authenticateWithAgent(SshSession::State& st, const SshCredentials& cred, Clock::time_point deadline,
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
    } guard{agent};
    const std::string socketPath = cred.agentSocket.string();
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
    // The agent exchange runs blocking, bounded by the remaining connect time: it is a few round
    // trips, and this avoids relying on libssh2 restarting an agent signature after EAGAIN.
    long timeoutMs = 0; // 0 = none for libssh2
    if (deadline != Clock::time_point::max())
        timeoutMs = std::max<long>(1, static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          deadline - Clock::now()).count()));
    libssh2_session_set_timeout(st.session, timeoutMs);
    libssh2_session_set_blocking(st.session, 1);
    struct NonBlockingAgain {
        LIBSSH2_SESSION* s;
        ~NonBlockingAgain()
        {
            libssh2_session_set_blocking(s, 0);
            libssh2_session_set_timeout(s, 0);
        }
    } restore{st.session};
    while (libssh2_agent_get_identity(agent, &identity, previous) == 0) {
        ++offered;
        if (cancel && cancel->load())
            throw SshError(SshFailure::Cancelled, "authentication cancelled");
        const int rc = libssh2_agent_userauth(agent, st.endpoint.user.c_str(), identity);
        if (rc == 0)
            return;
        if (rc != LIBSSH2_ERROR_AUTHENTICATION_FAILED && rc != LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED
            && rc != LIBSSH2_ERROR_AGENT_PROTOCOL)
            st.fail(rc, "agent authentication");
        previous = identity;
    }
    throw SshError(SshFailure::AuthFailed, offered == 0 ? "the SSH agent holds no keys"
                                                        : "the server rejected all " + std::to_string(offered)
                                                              + " key(s) offered by the SSH agent for user "
                                                              + st.endpoint.user);
}

void authenticateWithKeyFile(SshSession::State& st, const SshCredentials& cred, Clock::time_point deadline,
                             const std::atomic<bool>* cancel)
{
    if (cred.keyFile.empty())
        throw SshError(SshFailure::AuthFailed, "key file authentication asked for, but no key file given");
    std::string passphrase;
    if (keyFileIsEncrypted(cred.keyFile)) {
        std::optional<std::string> answer = cred.askPassphrase ? cred.askPassphrase(cred.keyFile) : std::nullopt;
        if (!answer)
            throw SshError(SshFailure::AuthFailed, "key file " + cred.keyFile.string() + " is encrypted and no passphrase was given");
        passphrase = std::move(*answer);
        wipe(*answer);
    }
    const std::string keyPath = cred.keyFile.string();
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
        throw SshError(SshFailure::AuthFailed, "cannot use key file " + keyPath + " (wrong passphrase or unsupported format): "
                                                   + st.lastError());
    if (rc == LIBSSH2_ERROR_AUTHENTICATION_FAILED || rc == LIBSSH2_ERROR_PUBLICKEY_UNVERIFIED)
        throw SshError(SshFailure::AuthFailed, "the server rejected key " + keyPath + " for user " + st.endpoint.user);
    st.fail(rc, "key file authentication");
}

} // namespace

std::unique_ptr<SshSession> SshSession::open(const SshEndpoint& endpoint, const SshCredentials& credentials,
                                             const SshOptions& options, const std::atomic<bool>* cancel)
{
    if (endpoint.user.empty())
        throw SshError(SshFailure::AuthFailed, "SSH node " + endpoint.host + ": user is empty");
    const auto deadline = deadlineAfter(options.timeouts.connect);
    auto st = handshake(endpoint, options, deadline, cancel);
    verifyHostKey(*st, options.knownHosts); // before anything that names a user or a key
    if (credentials.method == SshAuthMethod::Agent)
        authenticateWithAgent(*st, credentials, deadline, cancel);
    else
        authenticateWithKeyFile(*st, credentials, deadline, cancel);
    // libssh2 counts keepalive intervals in whole seconds.
    const auto seconds = std::max<long long>(
        1, std::chrono::duration_cast<std::chrono::seconds>(options.timeouts.keepaliveInterval + std::chrono::milliseconds(999)).count());
    libssh2_keepalive_config(st->session, 1, static_cast<unsigned>(seconds));
    st->keepaliveOn = true;
    return std::unique_ptr<SshSession>(new SshSession(std::move(st)));
}

HostKey SshSession::presentedHostKey(const SshEndpoint& endpoint, const SshOptions& options)
{
    auto st = handshake(endpoint, options, deadlineAfter(options.timeouts.connect), nullptr);
    return st->hostKey;
}

SshSession::SshSession(std::unique_ptr<State> state) : m_state(std::move(state)) {}
SshSession::~SshSession() = default;

const SshEndpoint& SshSession::endpoint() const { return m_state->endpoint; }
const HostKey& SshSession::hostKey() const { return m_state->hostKey; }
bool SshSession::usable() const { return !m_state->broken; }

} // namespace shardwise::dispatch
