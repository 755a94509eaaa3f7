#include "rank_process.hpp"

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/spec/file_output.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace shardwise::dispatch::detail {

OwnedFd& OwnedFd::operator=(OwnedFd&& other) noexcept
{
    if (this != &other) {
        reset();
        m_fd = other.release();
    }
    return *this;
}

void OwnedFd::reset()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
}

namespace {

std::string errnoText(int err)
{
    return std::strerror(err);
}

struct Pipe {
    OwnedFd read;
    OwnedFd write;
};

Pipe makePipe(const char* what)
{
    int fds[2];
    // O_CLOEXEC from the start: a rank spawned concurrently by another thread must never inherit
    // another rank's pipe ends, or EOF on that pipe would never arrive.
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw LaunchError(std::string("cannot create the ") + what + " pipe: " + errnoText(errno));
    Pipe p { OwnedFd(fds[0]), OwnedFd(fds[1]) };
    // Only the launcher's end is non-blocking; the rank writes blocking as any program expects.
    const int flags = ::fcntl(p.read.get(), F_GETFL);
    ::fcntl(p.read.get(), F_SETFL, flags | O_NONBLOCK);
    return p;
}

class SpawnActions {
public:
    SpawnActions() { ::posix_spawn_file_actions_init(&m_actions); }
    ~SpawnActions() { ::posix_spawn_file_actions_destroy(&m_actions); }
    SpawnActions(const SpawnActions&) = delete;
    SpawnActions& operator=(const SpawnActions&) = delete;
    posix_spawn_file_actions_t* get() { return &m_actions; }

private:
    posix_spawn_file_actions_t m_actions;
};

class SpawnAttributes {
public:
    SpawnAttributes() { ::posix_spawnattr_init(&m_attr); }
    ~SpawnAttributes() { ::posix_spawnattr_destroy(&m_attr); }
    SpawnAttributes(const SpawnAttributes&) = delete;
    SpawnAttributes& operator=(const SpawnAttributes&) = delete;
    posix_spawnattr_t* get() { return &m_attr; }

private:
    posix_spawnattr_t m_attr;
};

} // namespace

std::vector<std::string> composeEnvironment(const std::map<std::string, std::string>& overrides)
{
    std::map<std::string, std::string> merged;
    for (char** e = environ; e && *e; ++e) {
        const std::string entry = *e;
        const auto eq = entry.find('=');
        if (eq == std::string::npos || eq == 0)
            continue;
        merged.emplace(entry.substr(0, eq), entry.substr(eq + 1));
    }
    for (const auto& [key, value] : overrides)
        merged[key] = value;
    std::vector<std::string> out;
    out.reserve(merged.size());
    for (const auto& [key, value] : merged)
        out.push_back(key + "=" + value);
    return out;
}

SpawnedRank spawnRank(const std::filesystem::path& program, const std::vector<std::string>& args,
                      const std::vector<std::string>& environment)
{
    if (::access(program.c_str(), X_OK) != 0)
        throw LaunchError("cannot execute runner '" + program.string() + "': " + errnoText(errno));

    Pipe out = makePipe("stdout");
    Pipe err = makePipe("stderr");

    SpawnActions actions;
    ::posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_adddup2(actions.get(), out.write.get(), STDOUT_FILENO);
    ::posix_spawn_file_actions_adddup2(actions.get(), err.write.get(), STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    // Descriptors the embedding application opened without O_CLOEXEC (a GUI's sockets, a test
    // harness's pipes) stay out of the ranks.
    ::posix_spawn_file_actions_addclosefrom_np(actions.get(), 3);
#endif

    SpawnAttributes attr;
    sigset_t none;
    sigemptyset(&none);
    sigset_t all;
    sigfillset(&all);
    // A new process group per rank lets cancel reach everything the rank started. Dispositions are
    // reset because ignored signals (SIGPIPE, SIGINT in a CLI) survive exec otherwise.
    ::posix_spawnattr_setflags(attr.get(), POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    ::posix_spawnattr_setpgroup(attr.get(), 0);
    ::posix_spawnattr_setsigmask(attr.get(), &none);
    ::posix_spawnattr_setsigdefault(attr.get(), &all);

    std::vector<std::string> argvStrings;
    argvStrings.push_back(program.string());
    argvStrings.insert(argvStrings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argvStrings)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> envStrings = environment;
    // The rank ends with this process even when it is killed outright (SIGKILL runs no clean-up):
    // the runner asks the kernel for SIGTERM when its parent goes (docs/runner.md).
    envStrings.push_back("SHARDWISE_LAUNCHER_PID=" + std::to_string(::getpid()));
    std::vector<char*> envp;
    for (auto& e : envStrings)
        envp.push_back(e.data());
    envp.push_back(nullptr);

    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, program.c_str(), actions.get(), attr.get(), argv.data(), envp.data());
    if (rc != 0)
        throw LaunchError("cannot start runner '" + program.string() + "': " + errnoText(rc));

    SpawnedRank rank;
    rank.pid = pid;
    rank.stdoutRead = std::move(out.read);
    rank.stderrRead = std::move(err.read);
    // The write ends close here, so EOF arrives once the rank (and its children) close theirs.
    return rank;
}

void signalGroup(pid_t pid, int sig)
{
    if (pid > 0)
        ::kill(-pid, sig);
}

namespace {
ExitStatus decode(int status)
{
    ExitStatus s;
    if (WIFEXITED(status)) {
        s.exitCode = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        s.exitCode = -1;
        s.signal = WTERMSIG(status);
    }
    return s;
}
} // namespace

bool tryReap(pid_t pid, ExitStatus& status)
{
    int raw = 0;
    pid_t r;
    do {
        r = ::waitpid(pid, &raw, WNOHANG);
    } while (r < 0 && errno == EINTR);
    if (r == pid) {
        status = decode(raw);
        return true;
    }
    if (r < 0 && errno == ECHILD) {
        // Someone else reaped it (a SIGCHLD handler set to SIG_IGN in the host program): the
        // status is lost, which must not read as success.
        status = ExitStatus { -1, 0 };
        return true;
    }
    return false;
}

ExitStatus reap(pid_t pid)
{
    int raw = 0;
    pid_t r;
    do {
        r = ::waitpid(pid, &raw, 0);
    } while (r < 0 && errno == EINTR);
    return r == pid ? decode(raw) : ExitStatus {};
}

LogFile::LogFile(const std::filesystem::path& path)
    : m_fd(openForWritingNoFollow(path))
{
    if (!m_fd.valid())
        throw LaunchError("cannot write rank log '" + path.string()
                          + "': " + (errno == ELOOP ? std::string("it is a symbolic link") : errnoText(errno)));
}

void LogFile::writeLine(std::string_view line)
{
    if (!m_fd.valid())
        return;
    std::string buffer(line);
    buffer.push_back('\n');
    std::size_t done = 0;
    while (done < buffer.size()) {
        const ssize_t n = ::write(m_fd.get(), buffer.data() + done, buffer.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            // A full disk must not stop the run; the in-memory tail still has the lines.
            m_fd.reset();
            return;
        }
        done += static_cast<std::size_t>(n);
    }
}

} // namespace shardwise::dispatch::detail
    // A symbolic link planted where a rank log goes is refused (ELOOP), never followed.
