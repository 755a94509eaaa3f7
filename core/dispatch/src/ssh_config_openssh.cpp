// ssh_config resolution by OpenSSH itself: `ssh -G HOST` (ssh(1)) prints the configuration that
// applies to HOST, one "keyword value" line each, after Match, Include, CanonicalizeHostname and the
// %-tokens of HostName have been evaluated. Only where no ssh program is found does Shardwise fall
// back to its own reader (ssh_config.cpp), which does not evaluate Match blocks.

#include "shardwise/dispatch/ssh_config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace shardwise::dispatch {

namespace {

constexpr std::chrono::seconds kSshTimeout { 10 };
constexpr std::size_t kMaxStdout = 1 << 20; // `ssh -G` prints about 8 KiB
constexpr std::size_t kMaxStderr = 64 << 10;
constexpr std::size_t kMaxHostLength = 1024; // NI_MAXHOST less its NUL, as ssh's own limit

// A host name no defaults lookup can collide with (RFC 2606 reserves .invalid).
constexpr const char* kDefaultsHost = "shardwise-defaults.invalid";

class Fd {
public:
    explicit Fd(int fd = -1)
        : m_fd(fd)
    {
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }
    int get() const { return m_fd; }
    void reset()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }

private:
    int m_fd;
};

struct Captured {
    int exitStatus = -1; // -1: killed by a signal, or not known
    std::string out;
    std::string err;
};

std::string commandText(const std::vector<std::string>& argv)
{
    std::string text;
    for (const auto& a : argv)
        text += (text.empty() ? "" : " ") + a;
    return text;
}

// Runs argv[0] with argv (no shell) in its own process group, stdin /dev/null, inheriting no
// descriptor beyond stdout and stderr, for at most kSshTimeout and the output bounds above; the group
// is killed when either is exceeded.
Captured runCaptured(const std::vector<std::string>& argv)
{
    const std::string what = commandText(argv);
    auto fail = [&](const std::string& why) { return SshConfigError("cannot run `" + what + "`: " + why); };
    int outFds[2];
    int errFds[2];
    if (::pipe2(outFds, O_CLOEXEC) != 0)
        throw fail(std::strerror(errno));
    Fd outRead(outFds[0]), outWrite(outFds[1]);
    if (::pipe2(errFds, O_CLOEXEC) != 0)
        throw fail(std::strerror(errno));
    Fd errRead(errFds[0]), errWrite(errFds[1]);

    std::vector<std::string> args = argv;
    std::vector<char*> argp;
    for (auto& a : args)
        argp.push_back(a.data());
    argp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawnattr_init(&attributes);
    ::posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_adddup2(&actions, outWrite.get(), STDOUT_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions, errWrite.get(), STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    // Descriptors the embedding application opened without O_CLOEXEC stay out of ssh.
    ::posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
#endif
    sigset_t none;
    sigemptyset(&none);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int sig : { SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2 })
        sigaddset(&defaults, sig);
    ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    ::posix_spawnattr_setpgroup(&attributes, 0);
    ::posix_spawnattr_setsigmask(&attributes, &none);
    ::posix_spawnattr_setsigdefault(&attributes, &defaults);
    pid_t pid = -1;
    const int spawned = ::posix_spawn(&pid, argp[0], &actions, &attributes, argp.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attributes);
    if (spawned != 0)
        throw fail(std::strerror(spawned));
    outWrite.reset();
    errWrite.reset();

    Captured result;
    const auto deadline = std::chrono::steady_clock::now() + kSshTimeout;
    std::string problem;
    bool outOpen = true, errOpen = true;
    while ((outOpen || errOpen) && problem.empty()) {
        const auto left
            = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            problem = "it did not finish within " + std::to_string(kSshTimeout.count()) + " s";
            break;
        }
        pollfd fds[2] = { { outOpen ? outRead.get() : -1, POLLIN, 0 }, { errOpen ? errRead.get() : -1, POLLIN, 0 } };
        const int ready = ::poll(fds, 2, static_cast<int>(left.count()));
        if (ready < 0 && errno != EINTR) {
            problem = std::strerror(errno);
            break;
        }
        for (int i = 0; i < 2 && ready > 0; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0)
                continue;
            char buffer[8192];
            const ssize_t got = ::read(fds[i].fd, buffer, sizeof buffer);
            if (got < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (got <= 0) {
                (i == 0 ? outOpen : errOpen) = false;
                continue;
            }
            std::string& into = i == 0 ? result.out : result.err;
            into.append(buffer, static_cast<std::size_t>(got));
            if (into.size() > (i == 0 ? kMaxStdout : kMaxStderr))
                problem = std::string("it printed more than ") + (i == 0 ? "1 MiB" : "64 KiB") + " on "
                    + (i == 0 ? "stdout" : "stderr");
        }
    }
    if (!problem.empty())
        ::kill(-pid, SIGKILL);
    int status = 0;
    pid_t waited;
    do {
        waited = ::waitpid(pid, &status, 0);
    } while (waited < 0 && errno == EINTR);
    if (!problem.empty())
        throw fail(problem);
    if (waited == pid && WIFEXITED(status))
        result.exitStatus = WEXITSTATUS(status);
    else if (waited < 0 && errno == ECHILD) // SIGCHLD ignored by the application: the status is gone
        result.exitStatus = result.out.empty() ? -1 : 0;
    return result;
}

std::string lowered(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// A value ssh would read as an option or as another destination ("user@host", "ssh://...") rather
// than as this one host name, or one that is not a name at all.
void checkHost(const std::string& host)
{
    auto refuse = [&](const std::string& why) {
        throw SshConfigError("ssh host '" + host + "' " + why + "; it is not looked up in the ssh configuration");
    };
    if (host.empty())
        throw SshConfigError("an empty ssh host name is not looked up in the ssh configuration");
    if (host.size() > kMaxHostLength)
        refuse("is longer than " + std::to_string(kMaxHostLength) + " characters");
    if (host[0] == '-')
        refuse("starts with '-'");
    if (lowered(host.substr(0, 6)) == "ssh://")
        refuse("is a URI, not a host name");
    for (unsigned char c : host) {
        if (c <= ' ' || c == 0x7f)
            refuse("holds whitespace or a control character");
        if (c == '@')
            refuse("holds '@' (give the user separately)");
    }
}

void checkUser(const std::string& user)
{
    if (user.empty() || user[0] == '-')
        throw SshConfigError("ssh user '" + user + "' is empty or starts with '-'");
    for (unsigned char c : user)
        if (c < ' ' || c == 0x7f)
            throw SshConfigError("ssh user name holds a control character");
}

std::filesystem::path passwdHome()
{
    if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir)
        return pw->pw_dir;
    return {};
}

// "FILE line N: why" (OpenSSH's readconf) as "FILE:N: why", the form every other message about a
// configuration line takes; the closing "FILE: terminating, N bad configuration options" is left out.
std::string sshMessage(const std::string& err)
{
    std::string out;
    std::size_t start = 0;
    while (start < err.size()) {
        auto end = err.find('\n', start);
        if (end == std::string::npos)
            end = err.size();
        std::string line = err.substr(start, end - start);
        start = end + 1;
        while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
            line.pop_back();
        if (line.empty() || line.find(": terminating, ") != std::string::npos)
            continue;
        if (const auto at = line.find(" line "); at != std::string::npos) {
            const auto digits = at + 6;
            auto stop = digits;
            while (stop < line.size() && std::isdigit(static_cast<unsigned char>(line[stop])))
                ++stop;
            if (stop > digits && line.compare(stop, 2, ": ") == 0) {
                std::string file = line.substr(0, at);
                if (!file.empty() && file.back() == ':')
                    file.pop_back();
                line = file + ":" + line.substr(digits, stop - digits) + line.substr(stop);
            }
        }
        out += (out.empty() ? "" : "; ") + line;
    }
    return out;
}

struct Printed {
    std::multimap<std::string, std::string> values; // keyword (lower case) -> value, in order

    std::optional<std::string> first(const std::string& keyword) const
    {
        const auto it = values.find(keyword);
        if (it == values.end())
            return std::nullopt;
        return it->second;
    }
    std::vector<std::string> all(const std::string& keyword) const
    {
        std::vector<std::string> out;
        const auto [from, to] = values.equal_range(keyword);
        for (auto it = from; it != to; ++it)
            out.push_back(it->second);
        return out;
    }
};

Printed parsePrinted(const std::string& text)
{
    Printed p;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        const auto space = line.find(' ');
        if (line.empty())
            continue;
        p.values.emplace(lowered(line.substr(0, space)), space == std::string::npos ? "" : line.substr(space + 1));
    }
    return p;
}

Printed runSshG(const std::filesystem::path& ssh, const std::vector<std::string>& args, const std::string& host)
{
    std::vector<std::string> argv { ssh.string() };
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), { "--", host });
    const Captured run = runCaptured(argv);
    if (run.exitStatus != 0) {
        const std::string said = sshMessage(run.err);
        throw SshConfigError(said.empty() ? "`" + commandText(argv) + "` failed (exit status "
                                     + std::to_string(run.exitStatus) + ")"
                                          : said);
    }
    Printed printed = parsePrinted(run.out);
    if (!printed.first("hostname"))
        throw SshConfigError("`" + commandText(argv) + "` printed no hostname line");
    return printed;
}

int number(const std::optional<std::string>& text, int fallback)
{
    if (!text)
        return fallback;
    int value = 0;
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    return ec == std::errc() && end == text->data() + text->size() ? value : fallback;
}

// What this ssh prints for a host that no configuration mentions: its built-in defaults, which differ
// between OpenSSH versions (the default identity files above all). Asked once per ssh program.
const Printed& opensshDefaults(const std::filesystem::path& ssh)
{
    static std::mutex mutex;
    static std::map<std::string, Printed> known;
    const std::lock_guard lock(mutex);
    const auto it = known.find(ssh.string());
    if (it != known.end())
        return it->second;
    return known.emplace(ssh.string(), runSshG(ssh, { "-F", "none", "-G" }, kDefaultsHost)).first->second;
}

} // namespace

std::filesystem::path findSshProgram()
{
    std::string path;
    if (const char* set = std::getenv("PATH")) {
        path = set;
    } else {
        const std::size_t size = ::confstr(_CS_PATH, nullptr, 0);
        path.resize(size);
        if (size > 0) {
            ::confstr(_CS_PATH, path.data(), size);
            path.resize(size - 1);
        }
    }
    std::size_t start = 0;
    while (start <= path.size()) {
        auto colon = path.find(':', start);
        if (colon == std::string::npos)
            colon = path.size();
        const std::string dir = path.substr(start, colon - start);
        start = colon + 1;
        if (dir.empty() || dir[0] != '/') // a relative entry would depend on the working folder
            continue;
        const std::filesystem::path candidate = std::filesystem::path(dir) / "ssh";
        struct stat st { };
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return {};
}

SshHostConfig lookupSshConfigWithOpenSsh(const std::filesystem::path& ssh, const std::filesystem::path& file,
                                         const std::string& host, const SshLookupHints& hints)
{
    checkHost(host);
    std::vector<std::string> args;
    std::error_code ec;
    const std::filesystem::path sshDefault = passwdHome() / ".ssh" / "config";
    const bool asSshReadsIt = !file.empty() && !std::getenv("SHARDWISE_SSH_CONFIG")
        && file.lexically_normal() == sshDefault.lexically_normal();
    if (!asSshReadsIt) {
        args.emplace_back("-F");
        args.push_back(file.empty() || !std::filesystem::exists(file, ec) ? std::string("none") : file.string());
    }
    args.emplace_back("-G");
    if (hints.user) {
        checkUser(*hints.user);
        args.insert(args.end(), { "-l", *hints.user });
    }
    if (hints.port) {
        if (*hints.port < 1 || *hints.port > 65535)
            throw SshConfigError("ssh port " + std::to_string(*hints.port) + " is not in 1..65535");
        args.insert(args.end(), { "-p", std::to_string(*hints.port) });
    }
    const Printed printed = runSshG(ssh, args, host);
    const Printed& defaults = opensshDefaults(ssh);

    const std::string where = (file.empty() ? std::string("no ssh configuration file") : file.string())
        + " (as `ssh -G " + host + "` resolves it)";
    SshHostConfig r;
    r.alias = host;
    r.hostName = *printed.first("hostname");
    if (const auto user = printed.first("user"); user && user != defaults.first("user")) {
        r.user = *user;
    } else if (user && !file.empty() && std::filesystem::exists(file, ec)) {
        // ssh's default user is the local login name, so a User line that names it prints the same as no
        // User line at all: the file itself says which (the fallback reader, for this one keyword).
        try {
            if (lookupSshConfigByParsing(file, host).user == *user)
                r.user = *user;
        } catch (const SshConfigError&) {
            // ssh read the file; what the fallback cannot parse leaves the user unconfigured.
        }
    }
    if (const int port = number(printed.first("port"), 22); port != number(defaults.first("port"), 22))
        r.port = port;
    if (auto files = printed.all("identityfile"); files != defaults.all("identityfile")) {
        r.identityFileWhere.assign(files.size(), where);
        r.identityFiles = std::move(files);
    }
    if (const auto only = printed.first("identitiesonly"); only && only != defaults.first("identitiesonly"))
        r.identitiesOnly = lowered(*only) == "yes" || lowered(*only) == "true";
    if (const int interval = number(printed.first("serveraliveinterval"), 0);
        interval != number(defaults.first("serveraliveinterval"), 0))
        r.serverAliveInterval = interval;
    if (const int count = number(printed.first("serveralivecountmax"), 3);
        count != number(defaults.first("serveralivecountmax"), 3))
        r.serverAliveCountMax = count;
    if (const auto jump = printed.first("proxyjump"))
        r.proxyJump = parseProxyJump(*jump, where);
    else if (const auto command = printed.first("proxycommand"); command && lowered(*command) != "none")
        r.proxyCommandWhere = where;
    return r;
}

SshHostConfig lookupSshConfig(const std::filesystem::path& file, const std::string& host, const SshLookupHints& hints)
{
    const std::filesystem::path ssh = findSshProgram();
    if (ssh.empty())
        return lookupSshConfigByParsing(file, host);
    return lookupSshConfigWithOpenSsh(ssh, file, host, hints);
}

} // namespace shardwise::dispatch
