#pragma once
// The framework config tests' shared pieces: where the golden cases live, and reading one whole.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace shardwise::test {

inline const std::filesystem::path kFrameworkCases
    = std::filesystem::path(SHARDWISE_TEST_DATA_DIR) / "framework_configs";

inline std::string readFile(const std::filesystem::path& p)
{
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

} // namespace shardwise::test
