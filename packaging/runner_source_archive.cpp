// Writes the runner's source archive byte for byte as node preparation uploads it
// (dispatch::makeRunnerBundle), so the published archive, the copy the package installs under
// share/shardwise/runner-src and an upload from a source checkout all carry the same SHA-256, which
// is what keys a node's build cache.
//
//   shardwise-runner-archive <source root> <output.tar> <depfile> <depfile target>
//
// The depfile makes <depfile target> (the build step's output, e.g. the .tar.gz made from the .tar)
// depend on every archived file and every folder they sit in: a folder's time changes when a file
// is added to it, so a new preset or runner source rebuilds the archive too.

#include "shardwise/dispatch/remote_bundle.hpp"

#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>

namespace {

namespace fs = std::filesystem;

// Make and Ninja both read depfiles with backslash-escaped spaces.
std::string depfilePath(const fs::path& path)
{
    std::string escaped;
    for (const char c : path.generic_string()) {
        if (c == ' ' || c == '#')
            escaped.push_back('\\');
        if (c == '$')
            escaped.push_back('$');
        escaped.push_back(c);
    }
    return escaped;
}

void writeFile(const fs::path& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out)
        throw std::runtime_error("cannot write " + path.string());
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 5) {
        std::cerr << "usage: shardwise-runner-archive <source root> <output.tar> <depfile> <depfile target>\n";
        return 2;
    }
    try {
        const fs::path root = fs::absolute(argv[1]);
        const fs::path output = fs::absolute(argv[2]);
        const fs::path depfile = argv[3];
        const fs::path dependent = fs::absolute(argv[4]);
        const shardwise::dispatch::RemoteBundle bundle = shardwise::dispatch::makeRunnerBundle(root);
        writeFile(output, bundle.tarball);

        std::set<fs::path> inputs;
        for (const std::string& file : bundle.files) {
            for (fs::path p = root / file; p != root && p.has_relative_path(); p = p.parent_path())
                inputs.insert(p);
        }
        std::string deps = depfilePath(dependent) + ":";
        for (const fs::path& p : inputs)
            deps += " \\\n  " + depfilePath(p);
        writeFile(depfile, deps + "\n");

        std::cout << bundle.sha256 << "  " << output.filename().string() << " (" << bundle.files.size() << " files)\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "shardwise-runner-archive: " << e.what() << "\n";
        return 1;
    }
}
