#pragma once
// Files the CLI writes (--out, --output) are replaced whole or not at all: the text goes to a
// temporary file beside the target, is flushed to disk and renamed over it, so a full disk or an
// interrupted write never leaves the previous file truncated.

#include <string>

namespace shardwise::cli {

// Returns an empty string on success, else why the file was not written (the previous one is kept).
std::string replaceFileContents(const std::string& path, const std::string& text);

} // namespace shardwise::cli
