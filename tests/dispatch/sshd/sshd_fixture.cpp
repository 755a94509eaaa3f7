#include "sshd_fixture.hpp"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QThread>

#include <arpa/inet.h>
#include <csignal>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>

namespace shardwise::testing {

namespace {

const QString kSshd = QStringLiteral("/usr/sbin/sshd");

// A port free on every address: the kernel picks a wildcard port no other socket holds on any
// address, so concurrent fixtures listening on 127.0.0.2 / 127.0.0.3 are not handed the same one.
int freeLoopbackPort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a {};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0
        && ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    ::close(fd);
    return port;
}

bool canConnect(const QString& address, int port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a {};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, address.toLatin1().constData(), &a.sin_addr);
    const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd);
    return ok;
}

QString readAll(const QString& file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

} // namespace

QString runTool(const QString& program, const QStringList& args, const QStringList& extraEnv)
{
    QProcess p;
    if (!extraEnv.isEmpty()) {
        QStringList env = QProcess::systemEnvironment();
        env << extraEnv;
        p.setEnvironment(env);
    }
    p.start(program, args);
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return QStringLiteral("ERROR: %1 %2 failed: %3 %4")
            .arg(program, args.join(QLatin1Char(' ')), QString::fromUtf8(p.readAllStandardError()), p.errorString());
    return QString::fromUtf8(p.readAllStandardOutput());
}

QString SshdFixture::unavailableReason()
{
    if (!QFileInfo::exists(kSshd))
        return QStringLiteral(
            "/usr/sbin/sshd is not installed (Debian: openssh-server); the SSH tests need a real sshd");
    return {};
}

SshdFixture::SshdFixture(QStringList listenAddresses)
    : m_addresses(std::move(listenAddresses))
{
}

SshdFixture::~SshdFixture()
{
    stop();
}

std::string SshdFixture::userName() const
{
    const passwd* pw = ::getpwuid(::geteuid());
    return pw ? pw->pw_name : "root";
}

QString SshdFixture::writeConfig() const
{
    QFile cfg(path(QStringLiteral("sshd_config")));
    if (!cfg.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return QStringLiteral("cannot write sshd_config");
    QString text;
    text += QStringLiteral("Port %1\n").arg(m_port);
    for (const auto& a : m_addresses)
        text += QStringLiteral("ListenAddress %1\n").arg(a);
    for (const auto& type : m_hostKeyTypes)
        text += QStringLiteral("HostKey %1\n").arg(hostKeyFile(type));
    text += QStringLiteral("PidFile %1\n").arg(path(QStringLiteral("sshd.pid")));
    text += QStringLiteral("AuthorizedKeysFile %1\n").arg(path(QStringLiteral("authorized_keys")));
    text
        += QStringLiteral("StrictModes no\nUsePAM no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n"
                          "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nLogLevel DEBUG3\nMaxStartups 50\n"
                          "ClientAliveInterval 0\nPrintMotd no\n");
    cfg.write(text.toUtf8());
    return {};
}

QString SshdFixture::start()
{
    if (!m_dir.isValid())
        return QStringLiteral("cannot create a temporary directory");
    if (!QFileInfo::exists(path(QStringLiteral("host_key")))) {
        for (const auto& key : { QStringLiteral("host_key"), QStringLiteral("user_key") }) {
            const QString out
                = runTool(QStringLiteral("ssh-keygen"),
                          { QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"),
                            QString(), QStringLiteral("-C"), key, QStringLiteral("-f"), path(key) });
            if (out.startsWith(QStringLiteral("ERROR:")))
                return out;
        }
        authorize(path(QStringLiteral("user_key.pub")));
        QFile(path(QStringLiteral("user_known_hosts"))).open(QIODevice::WriteOnly);
    }
    // sshd's privilege separation directory; absent in minimal containers.
    if (!QFileInfo::exists(QStringLiteral("/run/sshd")) && !QDir().mkpath(QStringLiteral("/run/sshd")))
        return QStringLiteral("/run/sshd is missing and cannot be created (run the SSH tests as root)");
    // A port picked here may still be taken by another process before sshd binds it; sshd then
    // skips that address and the connection would reach the other process's sshd. Each address
    // must be reported as listening by this sshd's own log; a bind failure picks another port.
    const bool portChosenHere = m_port == 0;
    QString error;
    for (int attempt = 0; attempt < (portChosenHere ? 5 : 1); ++attempt) {
        if (portChosenHere)
            m_port = freeLoopbackPort();
        error = startOnce();
        if (error != QLatin1String("bind failed"))
            return error;
        stop();
    }
    return QStringLiteral("sshd could not bind port %1 on every address: ").arg(m_port) + log().right(2000);
}

QString SshdFixture::startOnce()
{
    if (const QString e = writeConfig(); !e.isEmpty())
        return e;
    QFile::remove(path(QStringLiteral("sshd.log")));
    m_sshd = std::make_unique<QProcess>();
    m_sshd->setProcessChannelMode(QProcess::ForwardedChannels);
    // sshd re-executes itself for each connection and therefore needs its absolute path.
    m_sshd->start(kSshd,
                  { QStringLiteral("-D"), QStringLiteral("-f"), path(QStringLiteral("sshd_config")),
                    QStringLiteral("-E"), path(QStringLiteral("sshd.log")) });
    if (!m_sshd->waitForStarted(5000))
        return QStringLiteral("sshd did not start: ") + m_sshd->errorString();
    const auto until = QDateTime::currentMSecsSinceEpoch() + 10000;
    while (QDateTime::currentMSecsSinceEpoch() < until) {
        const QString text = log();
        bool all = true;
        for (const auto& a : m_addresses) {
            if (text.contains(QStringLiteral("Bind to port %1 on %2 failed").arg(m_port).arg(a)))
                return QStringLiteral("bind failed");
            all = all && text.contains(QStringLiteral("Server listening on %1 port %2.").arg(a).arg(m_port))
                && canConnect(a, m_port);
        }
        if (all)
            return {};
        if (m_sshd->state() == QProcess::NotRunning)
            return text.contains(QStringLiteral("Cannot bind any address"))
                ? QStringLiteral("bind failed")
                : QStringLiteral("sshd exited at start: ") + text.right(2000);
        QThread::msleep(50);
    }
    return QStringLiteral("sshd did not listen within 10 s: ") + log().right(2000);
}

void SshdFixture::stop()
{
    if (!m_sshd)
        return;
    // SIGTERM, not SIGKILL: shells started for a session get to run their exit traps (a killed
    // login shell can leave lock files of its start-up scripts behind).
    for (int pid : sessionProcesses()) {
        ::kill(pid, SIGCONT);
        ::kill(pid, SIGTERM);
    }
    m_sshd->terminate();
    if (!m_sshd->waitForFinished(3000)) {
        m_sshd->kill();
        m_sshd->waitForFinished(3000);
    }
    m_sshd.reset();
}

QString SshdFixture::hostKeyFile(const QString& type) const
{
    // The ed25519 key keeps its original name, which the tests of a replaced key rely on.
    return type == QLatin1String("ed25519") ? path(QStringLiteral("host_key"))
                                            : path(QStringLiteral("host_key_") + type);
}

QString SshdFixture::restartWithHostKeys(const QStringList& types)
{
    stop();
    for (const auto& type : types) {
        if (QFileInfo::exists(hostKeyFile(type)))
            continue;
        const QString out = runTool(QStringLiteral("ssh-keygen"),
                                    { QStringLiteral("-q"), QStringLiteral("-t"), type, QStringLiteral("-N"), QString(),
                                      QStringLiteral("-f"), hostKeyFile(type) });
        if (out.startsWith(QStringLiteral("ERROR:")))
            return out;
    }
    m_hostKeyTypes = types;
    return start();
}

QString SshdFixture::replaceHostKey()
{
    stop();
    QFile::remove(path(QStringLiteral("host_key")));
    QFile::remove(path(QStringLiteral("host_key.pub")));
    const QString out
        = runTool(QStringLiteral("ssh-keygen"),
                  { QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"),
                    QString(), QStringLiteral("-f"), path(QStringLiteral("host_key")) });
    if (out.startsWith(QStringLiteral("ERROR:")))
        return out;
    return start();
}

dispatch::SshEndpoint SshdFixture::endpoint(const QString& host) const
{
    return { host.toStdString(), m_port, userName() };
}

dispatch::SshCredentials SshdFixture::keyCredentials() const
{
    dispatch::SshCredentials c;
    c.method = dispatch::SshAuthMethod::KeyFile;
    c.keyFile = path(QStringLiteral("user_key")).toStdString();
    return c;
}

std::vector<std::unique_ptr<dispatch::SshSession>> SshdFixture::connectEach() const
{
    std::vector<std::unique_ptr<dispatch::SshSession>> sessions;
    for (const QString& host : m_addresses)
        sessions.push_back(dispatch::SshSession::open(endpoint(host), keyCredentials(), options()));
    return sessions;
}

dispatch::SshOptions SshdFixture::options() const
{
    dispatch::SshOptions o;
    o.knownHosts.user = path(QStringLiteral("user_known_hosts")).toStdString();
    o.knownHosts.app = path(QStringLiteral("app/known_hosts")).toStdString();
    o.timeouts.connect = std::chrono::seconds(10);
    o.sshConfig = path(QStringLiteral("ssh_config")).toStdString();
    return o;
}

void SshdFixture::trustHostKey(const QString& type) const
{
    const QStringList parts = readAll(hostKeyFile(type) + QStringLiteral(".pub")).split(QLatin1Char(' '));
    const auto opts = options();
    for (const auto& a : m_addresses) {
        dispatch::HostKey key;
        key.type = parts.value(0).toStdString();
        key.base64 = parts.value(1).trimmed().toStdString();
        dispatch::acceptHostKey(a.toStdString(), m_port, key, opts.knownHosts.app);
    }
}

QString SshdFixture::knownHostsLine(const QString& type, const QString& host) const
{
    const QStringList parts = readAll(hostKeyFile(type) + QStringLiteral(".pub")).split(QLatin1Char(' '));
    return QStringLiteral("[%1]:%2 %3 %4").arg(host).arg(m_port).arg(parts.value(0), parts.value(1).trimmed());
}

QString SshdFixture::hostKeyFingerprint(const QString& type) const
{
    // "256 SHA256:xxxx comment (ED25519)"
    const QString out = runTool(QStringLiteral("ssh-keygen"),
                                { QStringLiteral("-l"), QStringLiteral("-E"), QStringLiteral("sha256"),
                                  QStringLiteral("-f"), hostKeyFile(type) + QStringLiteral(".pub") });
    return out.split(QLatin1Char(' ')).value(1);
}

void SshdFixture::authorize(const QString& publicKeyFile) const
{
    QFile keys(path(QStringLiteral("authorized_keys")));
    keys.open(QIODevice::Append);
    keys.write(readAll(publicKeyFile).toUtf8());
}

QString SshdFixture::log() const
{
    return readAll(path(QStringLiteral("sshd.log")));
}

bool SshdFixture::waitForLog(const QString& needle, int timeoutMs) const
{
    const auto until = QDateTime::currentMSecsSinceEpoch() + timeoutMs;
    while (QDateTime::currentMSecsSinceEpoch() < until) {
        if (log().contains(needle))
            return true;
        QThread::msleep(50);
    }
    return log().contains(needle);
}

std::vector<int> SshdFixture::sessionProcesses() const
{
    if (!m_sshd)
        return {};
    const int root = static_cast<int>(m_sshd->processId());
    std::map<int, int> parentOf;
    for (const auto& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool isPid = false;
        const int pid = entry.toInt(&isPid);
        if (!isPid)
            continue;
        // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after ')'.
        const QString stat = readAll(QStringLiteral("/proc/%1/stat").arg(pid));
        const auto close = stat.lastIndexOf(QLatin1Char(')'));
        if (close < 0)
            continue;
        parentOf[pid] = stat.mid(close + 2).split(QLatin1Char(' ')).value(1).toInt();
    }
    std::vector<int> result;
    for (const auto& [pid, parent] : parentOf) {
        for (int p = parent; p > 1; p = parentOf.count(p) ? parentOf[p] : 0) {
            if (p == root) {
                result.push_back(pid);
                break;
            }
        }
    }
    return result;
}

std::vector<int> rankPidsIn(const std::string& runDir)
{
    std::vector<int> pids;
    const QDir dir(QString::fromStdString(runDir));
    for (const QString& name : dir.entryList({ QStringLiteral("rank*.pid") }, QDir::Files, QDir::Name))
        pids.push_back(readAll(dir.filePath(name)).trimmed().toInt());
    return pids;
}

bool processRuns(int pid)
{
    if (pid <= 0 || ::kill(pid, 0) != 0)
        return false;
    // /proc/<pid>/stat: "pid (comm) state ..."; comm may hold spaces, so read after the last ')'.
    const QString stat = readAll(QStringLiteral("/proc/%1/stat").arg(pid));
    const qsizetype close = stat.lastIndexOf(QLatin1Char(')'));
    return close < 0 || close + 2 >= stat.size() || stat.at(close + 2) != QLatin1Char('Z');
}

SshAgentFixture::SshAgentFixture(const QString& socketPath)
    : m_socket(socketPath)
{
}

SshAgentFixture::~SshAgentFixture()
{
    if (m_agent.state() != QProcess::NotRunning) {
        m_agent.terminate();
        if (!m_agent.waitForFinished(3000))
            m_agent.kill();
        m_agent.waitForFinished(3000);
    }
}

QString SshAgentFixture::start()
{
    m_agent.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    m_agent.start(QStringLiteral("ssh-agent"), { QStringLiteral("-D"), QStringLiteral("-a"), m_socket });
    if (!m_agent.waitForStarted(5000))
        return QStringLiteral("ssh-agent did not start: ") + m_agent.errorString();
    const auto until = QDateTime::currentMSecsSinceEpoch() + 5000;
    while (!QFileInfo::exists(m_socket) && QDateTime::currentMSecsSinceEpoch() < until)
        QThread::msleep(20);
    return QFileInfo::exists(m_socket) ? QString() : QStringLiteral("ssh-agent created no socket");
}

QString SshAgentFixture::add(const QString& keyFile)
{
    const QString out = runTool(QStringLiteral("ssh-add"), { QStringLiteral("-q"), keyFile },
                                { QStringLiteral("SSH_AUTH_SOCK=") + m_socket });
    return out.startsWith(QStringLiteral("ERROR:")) ? out : QString();
}

} // namespace shardwise::testing
