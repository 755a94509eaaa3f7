#include "shardwise/dispatch/local_launch.hpp"

#include "line_splitter.hpp"
#include "rank_process.hpp"
#include "shardwise/spec/file_output.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shardwise::dispatch {

namespace {

using Clock = std::chrono::steady_clock;
using detail::ExitStatus;
using detail::LineSplitter;
using detail::LogFile;
using detail::OwnedFd;

constexpr std::size_t kTailBytes = 8 * 1024;
// A protocol line carries at most a summary with one loss per step; 4 MiB leaves room for long runs.
constexpr std::size_t kMaxStdoutLine = 4 * 1024 * 1024;
constexpr std::size_t kMaxStderrLine = 64 * 1024;
constexpr std::size_t kReadChunk = 64 * 1024;
// Reads per descriptor per poll round, so one flooding rank cannot starve the others.
constexpr int kReadsPerRound = 16;
// After a rank is reaped, how long its pipes may stay open (held by a stray child) before the
// launcher stops waiting for EOF.
constexpr auto kDrainAfterExit = std::chrono::seconds(2);
constexpr auto kPollInterval = std::chrono::milliseconds(100);
// "No deadline": plain time points rather than optionals keep GCC's -Wmaybe-uninitialized quiet.
constexpr Clock::time_point kNever = Clock::time_point::max();

struct Stream {
    OwnedFd fd;
    LineSplitter lines;
    explicit Stream(std::size_t maxLine)
        : lines(maxLine)
    {
    }
};

struct LiveRank {
    int rank = 0;
    pid_t pid = -1;
    Stream out { kMaxStdoutLine };
    Stream err { kMaxStderrLine };
    LogFile log;
    bool reaped = false;
    Clock::time_point drainUntil = kNever;
    Clock::time_point terminatedAt = kNever; // SIGTERM sent
    bool killed = false;                     // SIGKILL sent
    RankOutcome outcome;

    bool finished() const { return reaped && !out.fd.valid() && !err.fd.valid(); }
};

void appendTail(std::string& tail, std::string_view line)
{
    tail.append(line);
    tail.push_back('\n');
    if (tail.size() > 2 * kTailBytes)
        tail.erase(0, tail.size() - kTailBytes);
}

void trimTail(std::string& tail)
{
    if (tail.size() > kTailBytes)
        tail.erase(0, tail.size() - kTailBytes);
}

std::filesystem::path prepareLogDir(const std::filesystem::path& requested)
{
    if (!requested.empty()) {
        // Every existing component must be a directory; the folder itself is never a symbolic link
        // (docs/store.md, "Where exports go").
        if (const std::string why = createDirectoryNoFollow(requested); !why.empty())
            throw LaunchError("cannot use log directory '" + requested.string() + "': " + why);
        return requested;
    }
    std::string pattern = (std::filesystem::temp_directory_path() / "shardwise-run-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
        throw LaunchError("cannot create a temporary log directory under "
                          + std::filesystem::temp_directory_path().string());
    return pattern;
}

// The ranks' rendezvous store on this machine (the torch backend's FileStore, docs/ssh.md "What the
// rendezvous exposes"): a fresh empty file readable by this user only, in the run folder. A leftover of
// an earlier run in the same folder, or a link planted in its place, is removed first.
std::filesystem::path createRendezvousFile(const std::filesystem::path& logDir)
{
    const std::filesystem::path file = logDir / kRendezvousFileName;
    if (::unlink(file.c_str()) != 0 && errno != ENOENT)
        throw LaunchError("cannot remove the earlier rendezvous file '" + file.string() + "': " + std::strerror(errno));
    const OwnedFd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd.valid() || ::fchmod(fd.get(), 0600) != 0)
        throw LaunchError("cannot create the rendezvous file '" + file.string() + "': " + std::strerror(errno));
    return file;
}

class Launch {
public:
    Launch(const LocalLaunch& launch, const LaunchCallbacks& callbacks, const std::atomic<bool>* cancel)
        : m_launch(launch)
        , m_callbacks(callbacks)
        , m_cancel(cancel)
    {
    }

    ~Launch()
    {
        // Reached with ranks alive only when something threw (a callback, a spawn): leave no orphan
        // training processes holding GPUs and no zombies.
        for (auto& r : m_ranks) {
            if (!r.reaped && r.pid > 0) {
                detail::signalGroup(r.pid, SIGKILL);
                detail::reap(r.pid);
            }
        }
        // The store is the ranks' only while they run.
        if (!m_rendezvousFile.empty())
            ::unlink(m_rendezvousFile.c_str());
    }

    Launch(const Launch&) = delete;
    Launch& operator=(const Launch&) = delete;

    LaunchResult run()
    {
        if (m_launch.ranks < 1)
            throw LaunchError("ranks must be at least 1, got " + std::to_string(m_launch.ranks));
        if (m_launch.runner.empty())
            throw LaunchError("no runner executable given");

        LaunchResult result;
        result.masterPort = m_launch.masterPort > 0 ? m_launch.masterPort : findFreePort();
        result.logDir = prepareLogDir(m_launch.logDir);
        m_rendezvousFile = createRendezvousFile(result.logDir);
        const auto started = Clock::now();

        m_ranks = std::vector<LiveRank>(static_cast<std::size_t>(m_launch.ranks));
        for (int i = 0; i < m_launch.ranks; ++i) {
            // A cancel (Ctrl-C, SIGTERM) while spawning stops here: no further rank starts, and the
            // loop below ends the ones already started like any cancelled run.
            if (m_cancel && m_cancel->load()) {
                m_ranks.erase(m_ranks.begin() + i, m_ranks.end());
                result.cancelled = true;
                terminateLive(Clock::now(), false);
                break;
            }
            start(m_ranks[static_cast<std::size_t>(i)], i, result);
        }

        const Clock::time_point deadline = m_launch.timeout.count() > 0 ? started + m_launch.timeout : kNever;
        Clock::time_point peerDeadline = kNever;

        while (!std::all_of(m_ranks.begin(), m_ranks.end(), [](const LiveRank& r) { return r.finished(); })) {
            pollOnce(result);
            const auto now = Clock::now();
            reapExited(now, peerDeadline);
            closeDrainedPipes(now, result);

            if (m_cancel && m_cancel->load() && !result.cancelled) {
                result.cancelled = true;
                terminateLive(now, false);
            }
            if (now >= deadline && !result.timedOut) {
                result.timedOut = true;
                terminateLive(now, true);
            }
            if (now >= peerDeadline) {
                peerDeadline = kNever;
                terminateLive(now, false);
            }
            escalate(now);
        }

        for (auto& r : m_ranks) {
            trimTail(r.outcome.logTail);
            result.ranks.push_back(std::move(r.outcome));
        }
        result.wallSeconds = std::chrono::duration<double>(Clock::now() - started).count();
        return result;
    }

private:
    void start(LiveRank& r, int rank, const LaunchResult& result)
    {
        r.rank = rank;
        r.outcome.rank = rank;
        r.outcome.logFile = result.logDir / ("rank" + std::to_string(rank) + ".log");
        r.log = LogFile(r.outcome.logFile);

        // NCCL's settings are the caller's (a node setting, or the user's environment): none forced here.
        std::map<std::string, std::string> env = m_launch.env;
        // The rank's identity is the launcher's to decide.
        env["RANK"] = std::to_string(rank);
        env["LOCAL_RANK"] = std::to_string(rank);
        env["WORLD_SIZE"] = std::to_string(m_launch.ranks);
        env["LOCAL_WORLD_SIZE"] = std::to_string(m_launch.ranks);
        env["MASTER_ADDR"] = m_launch.masterAddr;
        env["MASTER_PORT"] = std::to_string(result.masterPort);
        env["SHARDWISE_LAUNCHER"] = "shardwise";
        env[kRendezvousFileEnv] = m_rendezvousFile.string();

        detail::SpawnedRank spawned
            = detail::spawnRank(m_launch.runner, m_launch.args, detail::composeEnvironment(env));
        r.pid = spawned.pid;
        r.out.fd = std::move(spawned.stdoutRead);
        r.err.fd = std::move(spawned.stderrRead);
    }

    void pollOnce(LaunchResult& result)
    {
        std::vector<pollfd> fds;
        std::vector<std::pair<LiveRank*, Stream*>> owners;
        for (auto& r : m_ranks) {
            for (Stream* s : { &r.out, &r.err }) {
                if (s->fd.valid()) {
                    fds.push_back(pollfd { s->fd.get(), POLLIN, 0 });
                    owners.emplace_back(&r, s);
                }
            }
        }
        const int timeoutMs = static_cast<int>(kPollInterval.count());
        if (fds.empty()) {
            // Only unreaped ranks with closed pipes remain (they closed stdout/stderr themselves).
            ::poll(nullptr, 0, timeoutMs);
            return;
        }
        const int n = ::poll(fds.data(), fds.size(), timeoutMs);
        if (n <= 0)
            return;
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if (fds[i].revents == 0)
                continue;
            auto [rank, stream] = owners[i];
            readAvailable(*rank, *stream, result);
        }
    }

    void readAvailable(LiveRank& r, Stream& s, LaunchResult& result)
    {
        char buffer[kReadChunk];
        for (int i = 0; i < kReadsPerRound; ++i) {
            const ssize_t n = ::read(s.fd.get(), buffer, sizeof buffer);
            if (n > 0) {
                feed(r, s, std::string_view(buffer, static_cast<std::size_t>(n)), result);
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                return;
            closeStream(r, s, result); // EOF or a read error: either way nothing more will come
            return;
        }
    }

    void feed(LiveRank& r, Stream& s, std::string_view bytes, LaunchResult& result)
    {
        if (&s == &r.out)
            s.lines.feed(bytes, [&](std::string_view line) { stdoutLine(r, line, result); });
        else
            s.lines.feed(bytes, [&](std::string_view line) { stderrLine(r, line); });
    }

    void closeStream(LiveRank& r, Stream& s, LaunchResult& result)
    {
        if (&s == &r.out)
            s.lines.finish([&](std::string_view line) { stdoutLine(r, line, result); });
        else
            s.lines.finish([&](std::string_view line) { stderrLine(r, line); });
        s.fd.reset();
    }

    void stdoutLine(LiveRank& r, std::string_view line, LaunchResult& result)
    {
        std::optional<protocol::Event> event;
        try {
            event = protocol::tryParseEvent(line);
        } catch (const protocol::ProtocolError& e) {
            r.outcome.protocolErrors.push_back(std::string(e.what()) + " in line: " + std::string(line.substr(0, 512)));
            logLine(r, "stdout (malformed event): " + std::string(line));
            return;
        }
        if (!event) {
            ++r.outcome.foreignLines;
            logLine(r, "stdout: " + std::string(line));
            return;
        }
        if (protocol::eventRank(*event) != r.rank)
            r.outcome.protocolErrors.push_back("event '" + std::string(protocol::eventName(*event)) + "' claims rank "
                                               + std::to_string(protocol::eventRank(*event)) + " but arrived on rank "
                                               + std::to_string(r.rank) + "'s stdout");
        r.outcome.events.push_back(*event);
        result.merged.push_back(*event);
        if (m_callbacks.onEvent)
            m_callbacks.onEvent(*event);
    }

    void stderrLine(LiveRank& r, std::string_view line) { logLine(r, std::string(line)); }

    void logLine(LiveRank& r, const std::string& line)
    {
        r.log.writeLine(line);
        appendTail(r.outcome.logTail, line);
        if (m_callbacks.onLog)
            m_callbacks.onLog(r.rank, line);
    }

    void reapExited(Clock::time_point now, Clock::time_point& peerDeadline)
    {
        for (auto& r : m_ranks) {
            if (r.reaped)
                continue;
            ExitStatus status;
            if (!detail::tryReap(r.pid, status))
                continue;
            r.reaped = true;
            // Whatever the rank left in its group (a helper process holding the pipes or a GPU) goes
            // with it; a group id is not reused while members remain, so this reaches only them.
            detail::signalGroup(r.pid, SIGKILL);
            r.outcome.exitCode = status.exitCode;
            r.outcome.signal = status.signal;
            r.drainUntil = now + kDrainAfterExit;
            const bool failed = status.exitCode != 0 || status.signal != 0;
            if (failed && !m_peerFailureSeen && !r.outcome.killedByLauncher) {
                m_peerFailureSeen = true;
                peerDeadline = now + m_launch.peerGrace;
            }
        }
    }

    void closeDrainedPipes(Clock::time_point now, LaunchResult& result)
    {
        for (auto& r : m_ranks) {
            if (!r.reaped || now < r.drainUntil)
                continue;
            for (Stream* s : { &r.out, &r.err })
                if (s->fd.valid())
                    closeStream(r, *s, result);
        }
    }

    void terminateLive(Clock::time_point now, bool timedOut)
    {
        for (auto& r : m_ranks) {
            if (r.reaped || r.terminatedAt != kNever)
                continue;
            r.outcome.killedByLauncher = true;
            r.outcome.timedOut = r.outcome.timedOut || timedOut;
            r.terminatedAt = now;
            detail::signalGroup(r.pid, SIGTERM);
        }
    }

    void escalate(Clock::time_point now)
    {
        for (auto& r : m_ranks) {
            if (r.reaped || r.killed || r.terminatedAt == kNever || now < r.terminatedAt + m_launch.terminateGrace)
                continue;
            r.killed = true;
            detail::signalGroup(r.pid, SIGKILL);
        }
    }

    const LocalLaunch& m_launch;
    const LaunchCallbacks& m_callbacks;
    const std::atomic<bool>* m_cancel;
    std::vector<LiveRank> m_ranks;
    std::filesystem::path m_rendezvousFile;
    bool m_peerFailureSeen = false;
};

bool hasErrorEvent(const std::vector<protocol::Event>& events)
{
    return std::any_of(events.begin(), events.end(),
                       [](const protocol::Event& e) { return std::holds_alternative<protocol::ErrorEvent>(e); });
}

} // namespace

bool RankOutcome::succeeded() const
{
    return exitCode == 0 && signal == 0 && !killedByLauncher && !timedOut && !hasErrorEvent(events);
}

bool LaunchResult::success() const
{
    return !cancelled && !timedOut && !ranks.empty()
        && std::all_of(ranks.begin(), ranks.end(), [](const RankOutcome& r) { return r.succeeded(); });
}

LaunchResult launchLocal(const LocalLaunch& launch, const LaunchCallbacks& callbacks, const std::atomic<bool>* cancel)
{
    Launch run(launch, callbacks, cancel);
    return run.run();
}

} // namespace shardwise::dispatch
