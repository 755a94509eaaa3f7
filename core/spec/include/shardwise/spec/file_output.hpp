#pragma once
// The one way Shardwise writes a file the user names (the CLI's --out / --output, the desktop app's
// exports, a run's config.json); docs/store.md, "Where exports go", states the rules.
//
// - A regular file (or a new one) is replaced whole or not at all: the bytes go to a temporary file
//   beside it (same directory, so the rename cannot cross file systems), are flushed to disk and
//   renamed over it. An existing file keeps its permission bits and, where this process may set them,
//   its owner and group; where it may not, the file is rewritten in place (not atomically) rather than
//   handed to a new owner.
// - A character device (/dev/null, a terminal), a FIFO, "-", /dev/stdout, /dev/stderr and
//   /dev/fd/N are written in place: opened without O_CREAT, never renamed over or replaced.
// - A symbolic link as the last component is followed only where it resolves to a character
//   device or a FIFO (/dev/stdout pointing to a terminal or a pipe); any other symbolic link is
//   refused with an error naming it and its target, so a link planted where an export will go
//   cannot redirect the write. Links in the directories above are resolved as usual.
// - Directories, sockets and block devices are refused.

#include <filesystem>
#include <string>
#include <string_view>

namespace shardwise {

// How writeFileSafely wrote the bytes.
enum class FileWrite {
    Replaced, // a regular file, written aside and renamed over the target (or created)
    InPlace,  // a character device, a FIFO, stdout or stderr, or a file whose owner could not be kept
};

struct FileWriteResult {
    std::string error; // empty on success, else why nothing (or, in place, not everything) was written
    FileWrite how = FileWrite::Replaced;
    bool ok() const { return error.empty(); }
};

// Writes `bytes` to `path` by the rules above. On failure the previous regular file is kept.
FileWriteResult writeFileSafely(const std::filesystem::path& path, std::string_view bytes);

// Creates `dir` and any missing parents for files Shardwise writes into it (a run's log folder):
// every component that exists must be a directory, and the last one must not be a symbolic link.
// Returns an empty string on success, else why not.
std::string createDirectoryNoFollow(const std::filesystem::path& dir);

// Opens (creating or truncating) `file` for writing without following a symbolic link as its last
// component (O_NOFOLLOW); returns the descriptor (O_CLOEXEC) or -1 with errno set (ELOOP for a link).
int openForWritingNoFollow(const std::filesystem::path& file, int mode = 0644);

} // namespace shardwise
