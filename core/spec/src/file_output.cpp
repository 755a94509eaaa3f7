#include "shardwise/spec/file_output.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shardwise {

namespace fs = std::filesystem;

namespace {

std::string errnoText(int err)
{
    return std::strerror(err);
}

// Writes all of `bytes` to `fd`; 0 on success, else the errno of the failed write.
int writeAll(int fd, std::string_view bytes)
{
    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        written += static_cast<std::size_t>(n);
    }
    return 0;
}

// The descriptor a name stands for without opening anything: "-" and /dev/stdout are 1,
// /dev/stderr 2, /dev/fd/N N; -1 for any other name.
int standardStream(const std::string& name)
{
    if (name == "-" || name == "/dev/stdout" || name == "/proc/self/fd/1")
        return STDOUT_FILENO;
    if (name == "/dev/stderr" || name == "/proc/self/fd/2")
        return STDERR_FILENO;
    for (const std::string_view prefix : { std::string_view("/dev/fd/"), std::string_view("/proc/self/fd/") }) {
        if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0) {
            const std::string digits = name.substr(prefix.size());
            if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
                return -1;
            return std::atoi(digits.c_str());
        }
    }
    return -1;
}

bool writableInPlace(mode_t mode)
{
    return S_ISCHR(mode) || S_ISFIFO(mode);
}

FileWriteResult inPlace(const std::string& path, std::string_view bytes, bool followLink)
{
    // No O_CREAT: the device or FIFO is there, or nothing is written. O_NOFOLLOW unless the link was
    // expected (it resolved to a device or FIFO a moment ago); the open file is checked again below.
    const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | (followLink ? 0 : O_NOFOLLOW));
    if (fd < 0)
        return { "cannot open '" + path + "': " + errnoText(errno), FileWrite::InPlace };
    struct stat st { };
    if (::fstat(fd, &st) != 0 || !writableInPlace(st.st_mode)) {
        ::close(fd);
        return { "'" + path + "' changed while it was opened; nothing was written", FileWrite::InPlace };
    }
    const int err = writeAll(fd, bytes);
    const int closed = ::close(fd) == 0 ? 0 : errno;
    if (err != 0 || closed != 0)
        return { "cannot write '" + path + "': " + errnoText(err != 0 ? err : closed), FileWrite::InPlace };
    return { {}, FileWrite::InPlace };
}

// An existing regular file that this process cannot hand back to its owner: rewritten in place
// (truncated, then written), never through a link.
FileWriteResult rewriteInPlace(const std::string& path, std::string_view bytes)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return { "cannot open '" + path + "': " + errnoText(errno), FileWrite::InPlace };
    const int err = writeAll(fd, bytes);
    const int synced = err == 0 && ::fsync(fd) != 0 ? errno : 0;
    const int closed = ::close(fd) == 0 ? 0 : errno;
    const int first = err != 0 ? err : synced != 0 ? synced : closed;
    if (first != 0)
        return { "cannot write '" + path + "': " + errnoText(first), FileWrite::InPlace };
    return { {}, FileWrite::InPlace };
}

std::string fileKind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISBLK(mode))
        return "a block device";
    return "not a regular file";
}

} // namespace

FileWriteResult writeFileSafely(const fs::path& target, std::string_view bytes)
{
    const std::string path = target.string();
    if (path.empty())
        return { "no file name given", FileWrite::Replaced };
    if (const int stream = standardStream(path); stream >= 0) {
        const int err = writeAll(stream, bytes);
        if (err != 0)
            return { "cannot write '" + path + "': " + errnoText(err), FileWrite::InPlace };
        return { {}, FileWrite::InPlace };
    }

    struct stat existing { };
    bool exists = false;
    if (::lstat(path.c_str(), &existing) == 0) {
        exists = true;
        if (S_ISLNK(existing.st_mode)) {
            struct stat resolved { };
            std::error_code ec;
            const fs::path linkTarget = fs::read_symlink(target, ec);
            const std::string named = ec ? std::string("?") : linkTarget.string();
            if (::stat(path.c_str(), &resolved) == 0 && writableInPlace(resolved.st_mode))
                return inPlace(path, bytes, true);
            return { "'" + path + "' is a symbolic link (to '" + named
                         + "'); Shardwise writes through a symbolic link only to a character device or a FIFO: "
                           "name the file itself",
                     FileWrite::Replaced };
        }
        if (writableInPlace(existing.st_mode))
            return inPlace(path, bytes, false);
        if (!S_ISREG(existing.st_mode))
            return { "'" + path + "' is " + fileKind(existing.st_mode) + "; nothing was written", FileWrite::Replaced };
    } else if (errno != ENOENT) {
        return { "cannot inspect '" + path + "': " + errnoText(errno), FileWrite::Replaced };
    }

    // A regular file someone else owns keeps its owner: where this process cannot give the new file
    // that owner, the file is rewritten in place instead.
    const bool foreignOwner = exists && (existing.st_uid != ::geteuid() || existing.st_gid != ::getegid());

    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string temp = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
    const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        if (foreignOwner)
            return rewriteInPlace(path, bytes);
        return { "cannot create a file in '" + dir.string() + "': " + errnoText(err), FileWrite::Replaced };
    }
    const auto fail = [&](const std::string& why) {
        ::close(fd);
        ::unlink(temp.c_str());
        return FileWriteResult { why, FileWrite::Replaced };
    };
    if (const int err = writeAll(fd, bytes); err != 0)
        return fail("cannot write '" + path + "': " + errnoText(err) + "; the previous file is kept");
    if (::fsync(fd) != 0)
        return fail("cannot write '" + path + "': " + errnoText(errno) + "; the previous file is kept");
    if (exists) {
        if (foreignOwner && ::fchown(fd, existing.st_uid, existing.st_gid) != 0) {
            ::close(fd);
            ::unlink(temp.c_str());
            return rewriteInPlace(path, bytes);
        }
        // After fchown, which may clear set-user-ID and set-group-ID bits.
        ::fchmod(fd, existing.st_mode & 07777);
    } else {
        // mkstemp makes the file private (0600); a new export gets the permissions any new file would.
        const mode_t mask = ::umask(0);
        ::umask(mask);
        ::fchmod(fd, 0666 & ~mask);
    }
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(temp.c_str());
        return { "cannot write '" + path + "': " + errnoText(err) + "; the previous file is kept",
                 FileWrite::Replaced };
    }
    // rename replaces the name itself: a symbolic link planted since the check above is replaced,
    // never followed.
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(temp.c_str());
        return { "cannot replace '" + path + "': " + errnoText(err), FileWrite::Replaced };
    }
    // The rename itself reaches the disk with the directory.
    const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        ::fsync(dirFd);
        ::close(dirFd);
    }
    return { {}, FileWrite::Replaced };
}

std::string createDirectoryNoFollow(const fs::path& dir)
{
    if (dir.empty())
        return "no directory given";
    std::vector<fs::path> parts;
    for (const fs::path& part : dir.lexically_normal())
        if (!part.empty())
            parts.push_back(part);
    fs::path sofar;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        sofar /= parts[i];
        const bool last = i + 1 == parts.size();
        struct stat st { };
        if (::lstat(sofar.c_str(), &st) == 0) {
            if (S_ISDIR(st.st_mode))
                continue;
            if (S_ISLNK(st.st_mode)) {
                // A link above the last component is followed where root or this user made it (a
                // system's own layout: /var/run -> /run); one another user planted, or a link as the
                // folder itself, is refused.
                struct stat resolved { };
                if (!last && (st.st_uid == 0 || st.st_uid == ::geteuid()) && ::stat(sofar.c_str(), &resolved) == 0
                    && S_ISDIR(resolved.st_mode))
                    continue;
                std::error_code ec;
                const fs::path to = fs::read_symlink(sofar, ec);
                return "'" + sofar.string() + "' is a symbolic link (to '" + (ec ? std::string("?") : to.string())
                    + "')" + (last ? "; the folder must be a real directory" : " made by another user; not followed");
            }
            return "'" + sofar.string() + "' exists and is not a directory";
        }
        if (errno != ENOENT)
            return "cannot inspect '" + sofar.string() + "': " + errnoText(errno);
        if (::mkdir(sofar.c_str(), 0777) != 0 && errno != EEXIST)
            return "cannot create '" + sofar.string() + "': " + errnoText(errno);
        // Made by someone else between lstat and mkdir: checked again.
        if (::lstat(sofar.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
            return "'" + sofar.string() + "' is not a directory";
    }
    return {};
}

int openForWritingNoFollow(const fs::path& file, int mode)
{
    return ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW,
                  static_cast<mode_t>(mode));
}

} // namespace shardwise
