#pragma once
// Reading what a run left on disk into RankRecords:
//   rank<N>.log         rank N's log (stderr), one file per rank
//   *.jsonl             the runner's protocol events (any ranks; rank<N>.jsonl by convention)
//   other *.log         a node's launcher log (torchrun agent, dispatcher); its node from meta.json
//   meta.json           optional: exit codes, signals, lost ranks, node names, clock offsets
// meta.json:
//   {"nodes": {"node-a": {"clock_offset_s": 0.0}},
//    "ranks": [{"rank": 0, "node": "node-a", "exit_code": 1, "signal": 9, "lost": true,
//               "lost_reason": "SSH connection lost", "lost_time": "2024-05-14T10:04:00Z"}],
//    "logs":  {"agent-node-a.log": {"node": "node-a"}}}

#include "shardwise/diagnose/diagnosis.hpp"

#include <filesystem>
#include <stdexcept>
#include <vector>

namespace shardwise::diagnose {

// Bad input: the message names the file, and the line or field, that is wrong.
class DiagnoseInputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::vector<RankRecord> loadRunFolder(const std::filesystem::path& dir);

// The same from explicit files (meta.json may be one of them).
std::vector<RankRecord> loadRunFiles(const std::vector<std::filesystem::path>& files);

} // namespace shardwise::diagnose
