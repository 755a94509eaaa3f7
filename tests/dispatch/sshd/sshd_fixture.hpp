#pragma once
// A real OpenSSH sshd for tests: started on loopback at a free unprivileged port with throwaway host
// and user keys (ssh-keygen) in a QTemporaryDir, its own sshd_config (AuthorizedKeysFile in the temp
// dir, StrictModes no, UsePAM no, LogLevel DEBUG3 to a log file). Logs in as the current user.

#include "shardwise/dispatch/ssh_session.hpp"

#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>
#include <string>
#include <vector>

namespace shardwise::testing {

class SshdFixture {
public:
    // Empty when sshd can run here; otherwise why not (for QSKIP).
    static QString unavailableReason();

    explicit SshdFixture(QStringList listenAddresses = { QStringLiteral("127.0.0.1") });
    ~SshdFixture();

    // Starts sshd; returns an error text on failure (empty on success).
    QString start();
    void stop();
    // Generates a new host key and restarts sshd on the same port.
    QString replaceHostKey();
    // Restarts sshd on the same port holding only host keys of these types ("ed25519", "ecdsa",
    // "rsa"), generated once each and kept across restarts.
    QString restartWithHostKeys(const QStringList& types);

    int port() const { return m_port; }
    QString dir() const { return m_dir.path(); }
    QString path(const QString& name) const { return m_dir.filePath(name); }
    std::string userName() const;
    dispatch::SshEndpoint endpoint(const QString& host = QStringLiteral("127.0.0.1")) const;
    dispatch::SshCredentials keyCredentials() const;
    // Known-hosts files in the temp dir (both empty at first) and an ssh client configuration path
    // there (absent unless a test writes it), so the real ~/.ssh is never touched.
    dispatch::SshOptions options() const;
    // One key-authenticated session per listen address, in the order they were given (each address
    // stands for a node). Throws SshError when one cannot be opened.
    std::vector<std::unique_ptr<dispatch::SshSession>> connectEach() const;
    // Records the current host key of that type for every listen address in the app known_hosts file.
    void trustHostKey(const QString& type = QStringLiteral("ed25519")) const;
    // The known_hosts line ("[127.0.0.1]:port ssh-ed25519 AAAA...") of the host key of that type.
    QString knownHostsLine(const QString& type = QStringLiteral("ed25519"),
                           const QString& host = QStringLiteral("127.0.0.1")) const;
    // The fingerprint `ssh-keygen -l` prints for the host key of that type.
    QString hostKeyFingerprint(const QString& type = QStringLiteral("ed25519")) const;
    // Appends an extra public key to authorized_keys.
    void authorize(const QString& publicKeyFile) const;

    QString log() const;
    // Waits until the log contains `needle`; false after the timeout.
    bool waitForLog(const QString& needle, int timeoutMs) const;
    // pids of sshd's per-connection processes (descendants of the listener).
    std::vector<int> sessionProcesses() const;

private:
    QString writeConfig() const;
    QString startOnce();
    QString hostKeyFile(const QString& type) const;
    QTemporaryDir m_dir;
    QStringList m_hostKeyTypes { QStringLiteral("ed25519") };
    QStringList m_addresses;
    int m_port = 0;
    std::unique_ptr<QProcess> m_sshd;
};

// The pids in the rank*.pid files of a remote run directory (on a loopback "node", this machine).
std::vector<int> rankPidsIn(const std::string& runDir);
// True while `pid` exists and is not a zombie (a stopped rank can linger as a zombie of its detached
// parent for a moment).
bool processRuns(int pid);

// Runs a program to completion; returns its stdout, or an error text prefixed with "ERROR:".
QString runTool(const QString& program, const QStringList& args, const QStringList& extraEnv = {});

// A started ssh-agent holding the given keys, killed on destruction.
class SshAgentFixture {
public:
    explicit SshAgentFixture(const QString& socketPath);
    ~SshAgentFixture();
    QString start();
    QString add(const QString& keyFile);
    QString socketPath() const { return m_socket; }

private:
    QString m_socket;
    QProcess m_agent;
};

} // namespace shardwise::testing
