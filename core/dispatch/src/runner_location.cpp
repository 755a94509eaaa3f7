#include "shardwise/dispatch/local_launch.hpp"

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

namespace shardwise::dispatch {

int findFreePort()
{
    detail::OwnedFd sock(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!sock.valid())
        throw LaunchError(std::string("cannot open a socket to find a free port: ") + std::strerror(errno));
    sockaddr_in addr{};
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

std::optional<std::filesystem::path> locateRunner()
{
    constexpr const char* kRunnerName = "shardwise-runner";
    if (const char* fromEnv = std::getenv("SHARDWISE_RUNNER"); fromEnv && *fromEnv)
        return std::filesystem::path(fromEnv);

    std::vector<std::filesystem::path> candidates;
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const auto dir = exe.parent_path();
        candidates.push_back(dir / kRunnerName);
        candidates.push_back(dir.parent_path() / "bin" / kRunnerName);
    }
    // Test executables and tools living elsewhere in the build tree find the freshly built runner.
    if (std::string_view(SHARDWISE_BUILD_BIN_DIR).size() > 0)
        candidates.push_back(std::filesystem::path(SHARDWISE_BUILD_BIN_DIR) / kRunnerName);

    for (const auto& c : candidates)
        if (isExecutableFile(c))
            return c;
    return std::nullopt;
}

} // namespace shardwise::dispatch
