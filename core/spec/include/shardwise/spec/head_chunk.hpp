#pragma once
// How the native runner's head + loss splits a micro-batch's tokens (runner/src/head_loss.cpp), shared
// with the planner's memory estimate (core/estimate, logitsBytes) so both count the same chunk.
//
// The tokens go through in equal chunks of at most kHeadChunkFp32Bytes of fp32 logits: 2,048 tokens of
// Qwen2.5's 151,936-entry vocabulary take two chunks of 1,024 rows. Fewer, larger chunks feed the head's
// GEMMs more rows (each chunk also re-reads the head's weight); equal chunks leave no short last one.
// On an H100, Qwen2.5-3B zero0 at seq 2048 ran 2.5 % faster with two chunks of 1,024 rows than with the
// earlier five of at most 441 (256 MiB), for 0.16 GiB more peak (bench/results/runner-speed-6cb90e3.md).

#include <algorithm>
#include <cstdint>

namespace shardwise {

inline constexpr std::int64_t kHeadChunkFp32Bytes = 640LL << 20;

// Rows per chunk for `tokens` rows of logits over `vocab` entries (at least 1).
inline std::int64_t headChunkRows(std::int64_t tokens, std::int64_t vocab)
{
    const std::int64_t most = std::max<std::int64_t>(1, kHeadChunkFp32Bytes / (4 * std::max<std::int64_t>(1, vocab)));
    const std::int64_t rows = std::max<std::int64_t>(1, tokens);
    const std::int64_t chunks = (rows + most - 1) / most;
    return (rows + chunks - 1) / chunks;
}

} // namespace shardwise
