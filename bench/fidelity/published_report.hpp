#pragma once
// shardwise-bench-fidelity published: the planner against published results (bench/published/*.json).
// Every published cell Shardwise can express is predicted with the presets and compared with the
// figures as published; a leave-one-source-out pass fits one multiplicative speed factor per framework
// target on the other sources' cells and applies it to the held-out source.

#include <filesystem>
#include <string>

namespace fidelity {

struct PublishedOptions {
    std::filesystem::path dir;      // bench/published
    std::filesystem::path markdown; // report
    std::filesystem::path json;
    std::string command; // how the report was made, quoted in it
    std::string commit;  // the checkout's commit (empty: asked of git in the source tree)
};

// Returns the process exit code: 0 when every source file loaded and every cell its file calls
// predictable was built (cells marked not predictable are reported with their reason, not failures);
// 1 when a predictable cell was refused (the report lists it).
int runPublished(const PublishedOptions& options);

} // namespace fidelity
