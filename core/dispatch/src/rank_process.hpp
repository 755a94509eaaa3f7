#pragma once
// One local rank as a POSIX process: spawned in its own process group with stdout and stderr on
// non-blocking close-on-exec pipes, signalled as a group, reaped without blocking.

#include <filesystem>
#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

namespace shardwise::dispatch::detail {

// A file descriptor that is closed exactly once.
class OwnedFd {
public:
    OwnedFd() = default;
    explicit OwnedFd(int fd)
        : m_fd(fd)
    {
    }
    OwnedFd(const OwnedFd&) = delete;
    OwnedFd& operator=(const OwnedFd&) = delete;
    OwnedFd(OwnedFd&& other) noexcept
        : m_fd(other.release())
    {
    }
    OwnedFd& operator=(OwnedFd&& other) noexcept;
    ~OwnedFd() { reset(); }

    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    int release()
    {
        const int fd = m_fd;
        m_fd = -1;
        return fd;
    }
    void reset();

private:
    int m_fd = -1;
};

struct SpawnedRank {
    pid_t pid = -1; // also the process group id
    OwnedFd stdoutRead;
    OwnedFd stderrRead;
};

// The launcher's own environment with `overrides` applied on top, as "KEY=VALUE" strings.
std::vector<std::string> composeEnvironment(const std::map<std::string, std::string>& overrides);

// Starts `program args...` with `environment`, stdin on /dev/null, in a new process group, signal
// dispositions and mask reset to defaults, and no descriptors beyond 0-2 inherited.
// Throws LaunchError naming the program and the reason.
SpawnedRank spawnRank(const std::filesystem::path& program, const std::vector<std::string>& args,
                      const std::vector<std::string>& environment);

// Sends `sig` to the whole process group led by `pid` (the rank and anything it started).
void signalGroup(pid_t pid, int sig);

struct ExitStatus {
    int exitCode = -1; // -1 when terminated by a signal
    int signal = 0;
};

// Non-blocking reap; true once `pid` has exited, with its status in `status`.
bool tryReap(pid_t pid, ExitStatus& status);
// Blocking reap, for cleanup paths.
ExitStatus reap(pid_t pid);

// A private log file written with plain write(2), opened close-on-exec so it never leaks into ranks.
class LogFile {
public:
    LogFile() = default;
    explicit LogFile(const std::filesystem::path& path); // throws LaunchError
    void writeLine(std::string_view line);

private:
    OwnedFd m_fd;
};

} // namespace shardwise::dispatch::detail
