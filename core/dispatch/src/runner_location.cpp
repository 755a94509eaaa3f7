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

#ifndef SHARDWISE_BUILD_BIN_DIR
#define SHARDWISE_BUILD_BIN_DIR ""
#endif
#ifndef SHARDWISE_BUILD_DIR
#define SHARDWISE_BUILD_DIR ""
#endif

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

// Whether `path` lies in the folder `dir` (both resolved first); false when either cannot be resolved.
bool isWithin(const std::filesystem::path& path, const std::filesystem::path& dir)
{
    std::error_code ec;
    const auto p = std::filesystem::weakly_canonical(path, ec);
    if (ec)
        return false;
    const auto d = std::filesystem::weakly_canonical(dir, ec);
    if (ec || d.empty())
        return false;
    const auto rel = p.lexically_relative(d);
    return !rel.empty() && *rel.begin() != "..";
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
    // Test executables and tools living elsewhere in the build tree find the freshly built runner. A
    // program outside that tree (an installed shardwise-cli or app) never does: it would run a runner
    // of another build than its own, on the machine it was built on only.
    if (!ec && std::string_view(SHARDWISE_BUILD_BIN_DIR).size() > 0 && isWithin(exe, SHARDWISE_BUILD_DIR))
        candidates.push_back(std::filesystem::path(SHARDWISE_BUILD_BIN_DIR) / program);

    for (const auto& c : candidates)
        if (isExecutableFile(c))
            return c;
    return std::nullopt;
}

} // namespace shardwise::dispatch
