#include "shardwise/dispatch/remote_bundle.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <sys/stat.h>

namespace shardwise::dispatch {

namespace {

// A fixed timestamp keeps archives of identical sources byte-identical (2023-11-14T22:13:20Z).
constexpr long long kArchiveTime = 1700000000;

void writeOctal(char* field, std::size_t width, unsigned long long value)
{
    // width-1 octal digits, zero padded, then NUL (POSIX.1-1988 ustar numeric fields).
    std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1), value);
}

void appendEntry(std::string& archive, const std::string& name, const std::string& content, bool executable)
{
    char header[512];
    std::memset(header, 0, sizeof header);
    std::string prefix, base = name;
    if (name.size() > 100) {
        // Split at a '/' so that prefix <= 155 and name <= 100 bytes.
        const auto cut = name.rfind('/', 155);
        if (cut == std::string::npos || name.size() - cut - 1 > 100 || cut == 0)
            throw std::runtime_error("path too long for a ustar archive: " + name);
        prefix = name.substr(0, cut);
        base = name.substr(cut + 1);
    }
    std::memcpy(header, base.data(), base.size());
    writeOctal(header + 100, 8, executable ? 0755 : 0644);
    writeOctal(header + 108, 8, 0);
    writeOctal(header + 116, 8, 0);
    writeOctal(header + 124, 12, content.size());
    writeOctal(header + 136, 12, kArchiveTime);
    header[156] = '0';
    std::memcpy(header + 257, "ustar", 6);
    std::memcpy(header + 263, "00", 2);
    std::memcpy(header + 265, "root", 4);
    std::memcpy(header + 297, "root", 4);
    std::memcpy(header + 345, prefix.data(), prefix.size());
    // The checksum is computed with its own field taken as eight spaces.
    std::memset(header + 148, ' ', 8);
    unsigned sum = 0;
    for (unsigned char c : std::string_view(header, sizeof header))
        sum += c;
    std::snprintf(header + 148, 8, "%06o", sum);
    header[155] = ' ';
    archive.append(header, sizeof header);
    archive.append(content);
    archive.append((512 - content.size() % 512) % 512, '\0');
}

std::string readFile(const std::filesystem::path& file)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read " + file.string());
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Hidden names, and Python's bytecode caches: running the PyTorch harness (runner/torch) from a
// checkout leaves __pycache__ folders that differ per interpreter and would change the hash.
bool hidden(const std::filesystem::path& relative)
{
    for (const auto& part : relative)
        if (!part.empty() && (part.string()[0] == '.' || part == "__pycache__"))
            return true;
    return relative.extension() == ".pyc";
}

} // namespace

std::string sha256Hex(std::string_view bytes)
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("SHA-256 failed (OpenSSL)");
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (unsigned i = 0; i < length; ++i) {
        hex += kHex[digest[i] >> 4];
        hex += kHex[digest[i] & 15];
    }
    return hex;
}

RemoteBundle makeRemoteBundle(const std::filesystem::path& root, const std::vector<std::string>& entries)
{
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (const auto& entry : entries) {
        const fs::path full = root / entry;
        if (fs::is_regular_file(full)) {
            files.push_back(fs::path(entry).generic_string());
        } else if (fs::is_directory(full)) {
            for (const auto& f : fs::recursive_directory_iterator(full)) {
                const fs::path rel = fs::relative(f.path(), root);
                if (f.is_regular_file() && !hidden(rel))
                    files.push_back(rel.generic_string());
            }
        } else {
            throw std::runtime_error("bundle entry missing: " + full.string());
        }
    }
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    RemoteBundle bundle;
    for (const auto& f : files) {
        const fs::path full = root / f;
        const bool executable = (fs::status(full).permissions() & fs::perms::owner_exec) != fs::perms::none;
        appendEntry(bundle.tarball, f, readFile(full), executable);
    }
    bundle.tarball.append(1024, '\0');
    bundle.sha256 = sha256Hex(bundle.tarball);
    bundle.files = std::move(files);
    return bundle;
}

const std::vector<std::string>& runnerBundleEntries()
{
    // The top CMakeLists.txt always enters app/ and bench/; their CMakeLists only add targets whose
    // folders exist, so the bare files suffice. core/CMakeLists.txt likewise skips absent parts.
    static const std::vector<std::string> entries { "CMakeLists.txt",    "CMakePresets.json",  "core/CMakeLists.txt",
                                                    "core/spec",         "core/protocol",      "runner",
                                                    "resources/presets", "app/CMakeLists.txt", "bench/CMakeLists.txt" };
    return entries;
}

RemoteBundle makeRunnerBundle(const std::filesystem::path& sourceRoot)
{
    return makeRemoteBundle(sourceRoot, runnerBundleEntries());
}

} // namespace shardwise::dispatch
