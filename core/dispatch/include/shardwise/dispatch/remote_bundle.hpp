#pragma once
// The runner's sources as one deterministic ustar archive (sorted paths, fixed owner, mode and
// time), so identical sources always give the same SHA-256: that hash names the upload, verifies it
// on the node and keys the node's build cache.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise::dispatch {

struct RemoteBundle {
    std::string tarball;            // ustar bytes
    std::string sha256;             // lowercase hex of tarball
    std::vector<std::string> files; // archive paths, sorted
};

// Archives `entries` (files or folders, relative to `root`; folders recursively, skipping names that
// start with '.', __pycache__ folders and .pyc files). Throws std::runtime_error naming a missing entry or a path too
// long for ustar.
RemoteBundle makeRemoteBundle(const std::filesystem::path& root, const std::vector<std::string>& entries);

// Exactly what `cmake -DSHARDWISE_BUILD_APP=OFF -DSHARDWISE_BUILD_TESTS=OFF` needs to build
// shardwise-runner: the top CMake files, core/spec, core/protocol, runner/ (the PyTorch harness in
// runner/torch included) and the presets.
RemoteBundle makeRunnerBundle(const std::filesystem::path& sourceRoot);
const std::vector<std::string>& runnerBundleEntries();

std::string sha256Hex(std::string_view bytes);

} // namespace shardwise::dispatch
