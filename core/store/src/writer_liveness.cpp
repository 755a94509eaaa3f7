#include "writer_liveness.hpp"

#include <sqlite3.h>

#include <cerrno>
#include <fstream>
#include <signal.h>
#include <sstream>
#include <unistd.h>

namespace shardwise::store::detail {

namespace {

// Boot time in unix seconds (the "btime" line of /proc/stat).
std::optional<double> bootTime()
{
    std::ifstream in("/proc/stat");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("btime ", 0) == 0)
            return std::stod(line.substr(6));
    return std::nullopt;
}

struct ProcessFacts {
    char state = '?';
    std::optional<double> startedAt; // unix seconds
};

// /proc/<pid>/stat: "pid (comm) state ... starttime" with starttime the 22nd field, in clock ticks
// after boot. comm may hold spaces and parentheses, so fields are counted after the last ')'.
std::optional<ProcessFacts> processFacts(long long pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(in, text))
        return std::nullopt;
    const auto close = text.rfind(')');
    if (close == std::string::npos)
        return std::nullopt;
    std::istringstream fields(text.substr(close + 1));
    ProcessFacts facts;
    fields >> facts.state;
    std::string field;
    for (int i = 4; i < 22 && fields >> field; ++i) { }
    unsigned long long ticks = 0;
    const long hz = ::sysconf(_SC_CLK_TCK);
    if (fields >> ticks && hz > 0)
        if (const auto boot = bootTime())
            facts.startedAt = *boot + static_cast<double>(ticks) / static_cast<double>(hz);
    return facts;
}

void writerGoneFunction(sqlite3_context* context, int, sqlite3_value** args)
{
    const auto* host = reinterpret_cast<const char*>(sqlite3_value_text(args[0]));
    std::optional<long long> pid;
    if (sqlite3_value_type(args[1]) == SQLITE_INTEGER)
        pid = sqlite3_value_int64(args[1]);
    const double startedAt = sqlite3_value_double(args[2]);
    sqlite3_result_int(context, writerGone(host ? host : "", pid, startedAt) ? 1 : 0);
}

} // namespace

std::string currentHostName()
{
    char buffer[256] = {};
    if (gethostname(buffer, sizeof buffer - 1) != 0)
        return {};
    return buffer;
}

bool writerGone(const std::string& writerHost, std::optional<long long> writerPid, double runStartedAt)
{
    if (!writerPid || *writerPid <= 0 || writerHost.empty() || writerHost != currentHostName())
        return false;
    if (*writerPid == ::getpid())
        return false;
    if (::kill(static_cast<pid_t>(*writerPid), 0) != 0 && errno == ESRCH)
        return true;
    const auto facts = processFacts(*writerPid);
    if (!facts)
        return false;
    // A killed writer whose parent has not reaped it yet is a zombie: gone all the same.
    if (facts->state == 'Z' || facts->state == 'X')
        return true;
    // Started after the run (beyond the clock-tick rounding): the pid was reused by another process.
    return facts->startedAt && *facts->startedAt > runStartedAt + 1.0;
}

void registerWriterLiveness(sqlite3* db)
{
    sqlite3_create_function_v2(db, "shardwise_writer_gone", 3, SQLITE_UTF8, nullptr, writerGoneFunction, nullptr,
                               nullptr, nullptr);
}

} // namespace shardwise::store::detail
