#include "shardwise/dispatch/local_launch.hpp"
#include "shardwise/dispatch/runner_program.hpp"

#include "rank_process.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace shardwise::dispatch {

int findFreePort()
{
    detail::OwnedFd sock(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!sock.valid())
        throw LaunchError(std::string("cannot open a socket to find a free port: ") + std::strerror(errno));
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0; // the kernel picks an unused ephemeral port
    if (::bind(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
        throw LaunchError(std::string("cannot bind 127.0.0.1 to find a free port: ") + std::strerror(errno));
    socklen_t len = sizeof addr;
    if (::getsockname(sock.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0)
        throw LaunchError(std::string("cannot read the bound port: ") + std::strerror(errno));
    return ntohs(addr.sin_port);
}

namespace {
bool isExecutableFile(const std::filesystem::path& p)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}
} // namespace

std::string_view runnerProgram(RunBackend backend)
{
    return backend == RunBackend::Torch ? kTorchRunnerProgram : kNativeRunnerProgram;
}

std::filesystem::path runnerForBackend(RunBackend backend, const std::filesystem::path& runner)
{
    const std::string name = runner.filename().string();
    if (name != kNativeRunnerProgram && name != kTorchRunnerProgram)
        return runner;
    return runner.parent_path() / runnerProgram(backend);
}

std::optional<std::filesystem::path> locateRunner(RunBackend backend)
{
    const std::string program(runnerProgram(backend));
    if (backend == RunBackend::Torch)
        if (const char* fromEnv = std::getenv("SHARDWISE_TORCH_RUNNER"); fromEnv && *fromEnv)
            return std::filesystem::path(fromEnv);
    // A native runner named by $SHARDWISE_RUNNER has the harness beside it.
    if (const char* fromEnv = std::getenv("SHARDWISE_RUNNER"); fromEnv && *fromEnv)
        return runnerForBackend(backend, std::filesystem::path(fromEnv));

    std::vector<std::filesystem::path> candidates;
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const auto dir = exe.parent_path();
        candidates.push_back(dir / program);
        candidates.push_back(dir.parent_path() / "bin" / program);
    }
    // No build tree is ever searched: an installed program would run a runner of another build than its
    // own. Programs elsewhere in a build tree (tests, tools) name theirs through $SHARDWISE_RUNNER.

    for (const auto& c : candidates)
        if (isExecutableFile(c))
            return c;
    return std::nullopt;
}

} // namespace shardwise::dispatch
