#include "rank_process.hpp"

#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/spec/file_output.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

[[noreturn]] void failExec(int report, int err)
{
    [[maybe_unused]] const ssize_t n = ::write(report, &err, sizeof err);
    ::_exit(127);
}

// In the child between fork and exec: only async-signal-safe calls. Reports errno through `report`
// (close-on-exec, so a successful exec closes it with nothing written) and never returns.
[[noreturn]] void execRank(const char* program, char* const* argv, char* const* envp, int outFd, int errFd, int report,
                           pid_t launcher, int maxFd)
{
    // A new process group per rank lets cancel reach everything the rank started.
    if (::setpgid(0, 0) != 0)
        failExec(report, errno);
    // The kernel sends SIGTERM when the launcher goes, even when it is killed outright: to this
    // process, whatever it execs (the runner, or a --runner wrapper such as /usr/bin/time that does
    // not exec it; the runner asks the same of its own parent, runner/src/main.cpp). A launcher gone
    // before the request is seen here.
    if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0)
        failExec(report, errno);
    if (::getppid() != launcher)
        ::_exit(128 + SIGTERM);
    // Dispositions are reset because ignored signals (SIGPIPE, SIGINT in a CLI) survive exec otherwise.
    struct sigaction dfl { };
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig)
        ::sigaction(sig, &dfl, nullptr); // SIGKILL, SIGSTOP and the C library's own fail harmlessly
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int in = ::open("/dev/null", O_RDONLY);
    if (in < 0 || ::dup2(in, STDIN_FILENO) < 0 || ::dup2(outFd, STDOUT_FILENO) < 0 || ::dup2(errFd, STDERR_FILENO) < 0)
        failExec(report, errno);
        // Descriptors the embedding application opened without O_CLOEXEC (a GUI's sockets, a test
        // harness's pipes) stay out of the ranks; `report` closes on exec.
#ifdef SYS_close_range
    const auto closeRange = [](int first, unsigned last) {
        return ::syscall(SYS_close_range, static_cast<unsigned>(first), last, 0U) == 0;
    };
    if ((report <= 3 || closeRange(3, static_cast<unsigned>(report) - 1U)) && closeRange(report + 1, ~0U)) {
        ::execve(program, argv, envp);
        failExec(report, errno);
    }
#endif
    for (int fd = 3; fd < maxFd; ++fd)
        if (fd != report)
            ::close(fd);
    ::execve(program, argv, envp);
    failExec(report, errno);
}

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

    std::vector<std::string> argvStrings;
    argvStrings.push_back(program.string());
    argvStrings.insert(argvStrings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argvStrings)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> envStrings = environment;
    // The rank ends with this process even when it is killed outright (SIGKILL runs no clean-up): the
    // child asks the kernel for SIGTERM when this process goes (execRank), and the runner checks that
    // its launcher is still among its ancestors (docs/runner.md).
    envStrings.push_back("SHARDWISE_LAUNCHER_PID=" + std::to_string(::getpid()));
    std::vector<char*> envp;
    for (auto& e : envStrings)
        envp.push_back(e.data());
    envp.push_back(nullptr);

    // The child reports a failed exec through this pipe; it closes on a successful exec.
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0)
        throw LaunchError("cannot start runner '" + program.string() + "': " + errnoText(errno));
    OwnedFd reportRead(report[0]);
    OwnedFd reportWrite(report[1]);
    const std::string programText = program.string();
    const pid_t launcher = ::getpid();
    const long openMax = ::sysconf(_SC_OPEN_MAX);
    const int maxFd = openMax > 0 && openMax < 65536 ? static_cast<int>(openMax) : 65536;
    const pid_t pid = ::fork();
    if (pid < 0)
        throw LaunchError("cannot start runner '" + program.string() + "': " + errnoText(errno));
    if (pid == 0)
        execRank(programText.c_str(), argv.data(), envp.data(), out.write.get(), err.write.get(), reportWrite.get(),
                 launcher, maxFd);
    reportWrite.reset();
    int childErr = 0;
    ssize_t got;
    do {
        got = ::read(reportRead.get(), &childErr, sizeof childErr);
    } while (got < 0 && errno == EINTR);
    if (got == static_cast<ssize_t>(sizeof childErr)) {
        reap(pid);
        throw LaunchError("cannot start runner '" + program.string() + "': " + errnoText(childErr));
    }

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
    // A symbolic link planted where a rank log goes is refused (ELOOP), never followed.
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
