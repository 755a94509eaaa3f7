#include "file_output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shardwise::cli {

std::string replaceFileContents(const std::string& path, const std::string& text)
{
    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string temp = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
    const int fd = ::mkstemp(temp.data());
    if (fd < 0)
        return "cannot create a file in '" + dir.string() + "': " + std::strerror(errno);
    const auto fail = [&](const std::string& why) {
        ::close(fd);
        ::unlink(temp.c_str());
        return why;
    };
    std::size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail("cannot write '" + path + "': " + std::strerror(errno) + "; the previous file is kept");
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0)
        return fail("cannot write '" + path + "': " + std::strerror(errno) + "; the previous file is kept");
    // mkstemp makes the file private (0600); an export gets the permissions any new file would.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    if (::close(fd) != 0) {
        ::unlink(temp.c_str());
        return "cannot write '" + path + "': " + std::strerror(errno) + "; the previous file is kept";
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(temp.c_str());
        return "cannot replace '" + path + "': " + why;
    }
    return {};
}

} // namespace shardwise::cli
