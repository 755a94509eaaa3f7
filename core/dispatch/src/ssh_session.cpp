#include "ssh_auth.hpp"
#include "ssh_jump.hpp"
#include "ssh_kex_diagnosis.hpp"
#include "ssh_route.hpp"
#include "ssh_session_state.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

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
    if (n > 0) {
        auto* st = static_cast<SshSession::State*>(*abstract);
        st->lastReceived = Clock::now();
        if (st->capturingKexinit && st->receivedBeforeKex.size() < 65536)
            st->receivedBeforeKex.append(static_cast<const char*>(buffer), static_cast<std::size_t>(n));
    }
    return n;
}

std::string hostKeyTypeName(int type)
{
    switch (type) {
    case LIBSSH2_HOSTKEY_TYPE_RSA:
        return "ssh-rsa";
    case LIBSSH2_HOSTKEY_TYPE_DSS:
        return "ssh-dss";
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_256:
        return "ecdsa-sha2-nistp256";
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_384:
        return "ecdsa-sha2-nistp384";
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_521:
        return "ecdsa-sha2-nistp521";
    case LIBSSH2_HOSTKEY_TYPE_ED25519:
        return "ssh-ed25519";
    default:
        return {};
    }
}

Clock::time_point deadlineAfter(std::chrono::milliseconds d)
{
    return d.count() > 0 ? Clock::now() + d : Clock::time_point::max();
}

int connectSocket(const SshEndpoint& ep, Clock::time_point deadline, const std::atomic<bool>* cancel)
{
    addrinfo hints {};
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
                pollfd p { fd, POLLOUT, 0 };
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
        throw SshError(SshFailure::Disconnected,
                       what + ": connection to " + where + " dropped (" + lastError() + ")"
                           + (tunnel && !tunnel->problem().empty() ? "; " + tunnel->problem() : std::string()));
    case LIBSSH2_ERROR_TIMEOUT:
        broken = true;
        throw SshError(SshFailure::Timeout, what + ": " + where + " timed out");
    default:
        broken = true;
        throw SshError(SshFailure::Protocol,
                       what + " on " + where + ": " + lastError() + " (libssh2 " + std::to_string(code) + ")");
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
            throw SshError(SshFailure::PeerStalled,
                           endpoint.host + ":" + std::to_string(endpoint.port)
                               + " stopped answering: nothing received for " + std::to_string(ms)
                               + " ms despite keepalives (limit " + std::to_string(timeouts.peerSilenceLimit().count())
                               + " ms)");
        }
    }
    const auto now = Clock::now();
    if (now >= deadline)
        throw SshError(SshFailure::Timeout, "timed out waiting for " + endpoint.host);
    // Short slices so cancel, the deadline and keepalives are looked at several times a second.
    long long slice = 200;
    if (deadline != Clock::time_point::max())
        slice = std::min<long long>(slice,
                                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1);
    const int dir = libssh2_session_block_directions(session);
    pollfd p { socket, 0, 0 };
    if (dir & LIBSSH2_SESSION_BLOCK_INBOUND)
        p.events |= POLLIN;
    if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
        p.events |= POLLOUT;
    if (p.events == 0)
        p.events = POLLIN;
    ::poll(&p, 1, static_cast<int>(slice));
}

namespace {

// libssh2's host key algorithm names, minus certificates (a certificate cannot be checked against
// known_hosts here: see verifyHostKey) and minus those it lists but cannot negotiate.
std::vector<std::string> usableHostKeyAlgorithms(LIBSSH2_SESSION* session)
{
    const char** names = nullptr;
    const int count = libssh2_session_supported_algs(session, LIBSSH2_METHOD_HOSTKEY, &names);
    std::vector<std::string> algorithms;
    for (int i = 0; i < count; ++i)
        if (std::string_view(names[i]).find("-cert-") == std::string_view::npos)
            algorithms.emplace_back(names[i]);
    if (names)
        libssh2_free(session, names);
    return algorithms;
}

// The host key algorithms to ask for: the types known_hosts records for this host first, so a server
// holding several keys presents one we can verify (libssh2 would otherwise take ECDSA before ed25519),
// then every other one, so a server holding none of them still shows its key and is refused as
// CHANGED rather than failing key exchange with nothing to show.
std::string hostKeyPreference(const KnownHostRecords& records, const std::vector<std::string>& usable)
{
    std::vector<std::string> order;
    for (const auto& type : records.recordedTypes())
        if (std::find(usable.begin(), usable.end(), type) != usable.end())
            order.push_back(type);
    for (const auto& a : usable)
        if (std::find(order.begin(), order.end(), a) == order.end())
            order.push_back(a);
    return joinWords(order, ",");
}

std::string describeHop(const SshHop& hop)
{
    const std::string name = knownHostsName(hop.endpoint.host, hop.endpoint.port);
    if (hop.alias == hop.endpoint.host)
        return name;
    return name + " (" + hop.alias + " in the ssh configuration)";
}

// Key exchange with one hop: over TCP for the first, through `carrier`'s forward otherwise.
std::unique_ptr<SshSession::State> handshake(const SshHop& hop, std::unique_ptr<SshSession::State> carrier,
                                             const SshOptions& options, Clock::time_point deadline,
                                             const std::atomic<bool>* cancel)
{
    const SshEndpoint& ep = hop.endpoint;
    if (ep.host.empty())
        throw SshError(SshFailure::Resolve, "SSH node: host is empty");
    if (ep.port <= 0 || ep.port > 65535)
        throw SshError(SshFailure::Connect, "SSH node: port " + std::to_string(ep.port) + " is not in 1..65535");
    initLibssh2Once();
    auto st = std::make_unique<SshSession::State>();
    st->endpoint = ep;
    st->timeouts = hop.timeouts;
    st->knownHost = lookupKnownHosts(options.knownHosts, knownHostsName(ep.host, ep.port));
    if (carrier) {
        st->tunnel = JumpTunnel::open(std::move(carrier), ep.host, ep.port, deadline, cancel);
        st->socket = st->tunnel->takeSocket();
    } else {
        st->socket = connectSocket(ep, deadline, cancel);
    }
    st->session = libssh2_session_init_ex(nullptr, nullptr, nullptr, st.get());
    if (!st->session)
        throw SshError(SshFailure::Protocol, "libssh2_session_init failed");
    libssh2_session_callback_set(st->session, LIBSSH2_CALLBACK_RECV, reinterpret_cast<void*>(&countingRecv));
    libssh2_session_set_blocking(st->session, 0);
    const std::vector<std::string> usable = usableHostKeyAlgorithms(st->session);
    const std::string preference = hostKeyPreference(st->knownHost, usable);
    if (libssh2_session_method_pref(st->session, LIBSSH2_METHOD_HOSTKEY, preference.c_str()) != 0)
        throw SshError(SshFailure::Protocol, "libssh2 refused the host key algorithm list " + preference);
    int rc;
    while ((rc = libssh2_session_handshake(st->session, st->socket)) == LIBSSH2_ERROR_EAGAIN)
        st->waitSocket(deadline, Clock::now(), cancel);
    st->capturingKexinit = false;
    if (rc != 0) {
        const std::string why
            = explainHostKeyAlgorithmMismatch(describeHop(hop), serverHostKeyAlgorithms(st->receivedBeforeKex), usable);
        if (!why.empty())
            throw SshError(SshFailure::Protocol, "key exchange with " + describeHop(hop) + " failed: " + why);
        st->fail(rc, "SSH handshake");
    }
    const std::vector<std::string> offered = serverHostKeyAlgorithms(st->receivedBeforeKex);
    st->receivedBeforeKex.clear();
    st->receivedBeforeKex.shrink_to_fit();
    std::size_t keyLength = 0;
    int keyType = 0;
    const char* key = libssh2_session_hostkey(st->session, &keyLength, &keyType);
    if (!key)
        throw SshError(SshFailure::Protocol, "the server presented no host key");
    const std::string_view blob(key, keyLength);
    st->hostKey.type = hostKeyTypeName(keyType);
    st->hostKey.base64 = base64Encode(blob);
    st->hostKey.fingerprint = sha256Fingerprint(blob);
    st->hostKey.host = ep.host;
    st->hostKey.port = ep.port;
    st->serverOffersRsa = std::any_of(offered.begin(), offered.end(), isRsaAlgorithm);
    return st;
}

std::string listWhere(const std::vector<KnownHostEntry>& entries)
{
    std::vector<std::string> places;
    for (const auto& e : entries)
        places.push_back(e.where());
    return joinWords(places);
}

// Decides before anything is sent that names a user or a key. known_hosts is read by Shardwise
// (known_hosts.hpp): libssh2 1.10 reports a key of a type not recorded as "not found", which let a
// server that switched key types pass as a new host.
void verifyHostKey(SshSession::State& st, const SshHop& hop)
{
    std::size_t keyLength = 0;
    int keyType = 0;
    const char* key = libssh2_session_hostkey(st.session, &keyLength, &keyType);
    const KnownHostRecords& records = st.knownHost;
    const std::string name = describeHop(hop);
    const std::string role = hop.isNode ? "" : "jump host ";
    st.hostKey.jumpHost = !hop.isNode;
    const auto& hk = st.hostKey;
    switch (judgeHostKey(records, std::string_view(key, keyLength))) {
    case HostKeyVerdict::Trusted:
        return;
    case HostKeyVerdict::Revoked: {
        std::vector<KnownHostEntry> revoked;
        for (const auto& r : records.revoked)
            if (r.keyBlob == std::string_view(key, keyLength))
                revoked.push_back(r);
        throw SshError(SshFailure::HostKeyRevoked,
                       "REVOKED HOST KEY for " + role + name + ": it presents " + hk.type + " " + hk.fingerprint
                           + ", which is marked @revoked in " + listWhere(revoked) + "; refusing to connect.",
                       hk);
    }
    case HostKeyVerdict::Changed: {
        std::string message = "HOST KEY CHANGED for " + role + name + ": it now presents " + hk.type + " "
            + hk.fingerprint + ", but known_hosts records only " + joinWords(records.recordedTypes()) + " for it ("
            + listWhere(records.keys)
            + ") and none of those keys. This can be a reinstalled host or an "
              "attacker; refusing to connect, and this key cannot be accepted from here. Verify the new key "
              "on the host itself, then replace the old entry in known_hosts.";
        const auto types = records.recordedTypes();
        if (st.serverOffersRsa && std::all_of(types.begin(), types.end(), isRsaAlgorithm))
            message += " Note: the host may still hold the recorded RSA key, but " + rsaLimitation()
                + "; record one of its other keys (after verifying it) to connect.";
        throw SshError(SshFailure::HostKeyChanged, message, hk);
    }
    case HostKeyVerdict::Unknown: {
        std::string message = "unknown " + role + "host " + name + ": its " + hk.type + " key has fingerprint "
            + hk.fingerprint + "; not connecting until this key is accepted";
        if (!records.authorities.empty())
            message += ". known_hosts trusts a certificate authority for this host (" + listWhere(records.authorities)
                + "), but host certificates cannot be verified with libssh2 1.10, so that line vouches for nothing "
                  "here; accept the host's own key instead";
        throw SshError(SshFailure::HostKeyUnknown, message, hk);
    }
    }
}

AuthPlan authPlanFor(const SshHop& hop, const SshCredentials& credentials)
{
    AuthPlan plan;
    plan.identityFiles = hop.identityFiles;
    plan.identitiesOnly = hop.identitiesOnly;
    plan.askPassphrase = credentials.askPassphrase;
    if (credentials.method == SshAuthMethod::Agent)
        plan.agentSocket = credentials.agentSocket;
    if (hop.isNode) {
        if (credentials.method == SshAuthMethod::KeyFile)
            plan.keyFile = credentials.keyFile;
        plan.useAgent = credentials.method == SshAuthMethod::Agent;
        plan.agentRequired = plan.useAgent;
    } else {
        // Jump hosts: as ssh's jump does, the agent and the hop's own IdentityFiles; the node's key
        // file is the node's alone.
        plan.useAgent = true;
    }
    return plan;
}

void enableKeepalive(SshSession::State& st)
{
    // libssh2 counts keepalive intervals in whole seconds.
    const auto seconds = std::max<long long>(
        1,
        std::chrono::duration_cast<std::chrono::seconds>(st.timeouts.keepaliveInterval + std::chrono::milliseconds(999))
            .count());
    libssh2_keepalive_config(st.session, 1, static_cast<unsigned>(seconds));
    st.keepaliveOn = true;
}

// Logs in to every jump host of `route` in turn, each through the previous one's forward; returns
// the last one's session (null without jump hosts), ready to carry the node's connection.
std::unique_ptr<SshSession::State> openJumpHosts(const std::vector<SshHop>& route, const SshCredentials& credentials,
                                                 const SshOptions& options, Clock::time_point deadline,
                                                 const std::atomic<bool>* cancel)
{
    std::unique_ptr<SshSession::State> carrier;
    for (std::size_t i = 0; i + 1 < route.size(); ++i) {
        auto st = handshake(route[i], std::move(carrier), options, deadline, cancel);
        verifyHostKey(*st, route[i]);
        authenticate(*st, authPlanFor(route[i], credentials), deadline, cancel);
        enableKeepalive(*st);
        carrier = std::move(st);
    }
    return carrier;
}

} // namespace

std::unique_ptr<SshSession> SshSession::open(const SshEndpoint& endpoint, const SshCredentials& credentials,
                                             const SshOptions& options, const std::atomic<bool>* cancel)
{
    const auto route = resolveSshRoute(endpoint, options);
    const auto deadline = deadlineAfter(options.timeouts.connect);
    auto carrier = openJumpHosts(route, credentials, options, deadline, cancel);
    auto st = handshake(route.back(), std::move(carrier), options, deadline, cancel);
    verifyHostKey(*st, route.back()); // before anything that names a user or a key
    authenticate(*st, authPlanFor(route.back(), credentials), deadline, cancel);
    enableKeepalive(*st);
    return std::unique_ptr<SshSession>(new SshSession(std::move(st)));
}

HostKey SshSession::presentedHostKey(const SshEndpoint& endpoint, const SshOptions& options)
{
    const auto route = resolveSshRoute(endpoint, options);
    const auto deadline = deadlineAfter(options.timeouts.connect);
    auto carrier = openJumpHosts(route, SshCredentials {}, options, deadline, nullptr);
    return handshake(route.back(), std::move(carrier), options, deadline, nullptr)->hostKey;
}

SshSession::SshSession(std::unique_ptr<State> state)
    : m_state(std::move(state))
{
}
SshSession::~SshSession() = default;

const SshEndpoint& SshSession::endpoint() const
{
    return m_state->endpoint;
}
const HostKey& SshSession::hostKey() const
{
    return m_state->hostKey;
}
bool SshSession::usable() const
{
    return !m_state->broken;
}

} // namespace shardwise::dispatch
