#pragma once
// Line classifiers for the logs a distributed PyTorch-style run leaves behind: PyTorch's CUDA OOM
// message (old and new wording), the ProcessGroupNCCL watchdog (old and new prefixes), NCCL errors,
// torchrun's ChildFailedError summary, argparse launcher errors, SSH connection loss and the kernel's
// OOM killer. Each finding names its kind, whether it is a symptom of a failure elsewhere, the line,
// and the facts it could read from the text.

#include "shardwise/diagnose/diagnosis.hpp"
#include "shardwise/diagnose/log_time.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise::diagnose {

struct LogFinding {
    FailureKind kind = FailureKind::Internal;
    bool isSymptom = false;
    std::size_t line = 0;               // 1-based
    std::vector<std::size_t> moreLines; // further lines of the same finding (a summary block)
    int rank = kNoRank;                 // when the text names the rank ("[Rank 1]", "rank : 3")
    std::string node;                   // when the text names the host
    std::string message;
    nlohmann::json facts = nlohmann::json::object();
    std::optional<LoggedTime> time; // on the line itself
};

// Classifies one line on its own. Multi-line structures (torchrun's failure summary) need
// classifyLog. Lines longer than kMaxClassifiedLineLength are classified on their prefix.
std::optional<LogFinding> classifyLine(std::string_view line, int yearWhenMissing = 1970);

std::vector<LogFinding> classifyLog(const std::vector<std::string>& lines, int yearWhenMissing = 1970);

inline constexpr std::size_t kMaxClassifiedLineLength = 8192;

// "2.00 GiB", "512 MiB", "17179869184 bytes" as PyTorch's format_size writes them; nullopt if not a size.
std::optional<std::int64_t> parseByteSize(std::string_view number, std::string_view unit);

} // namespace shardwise::diagnose
