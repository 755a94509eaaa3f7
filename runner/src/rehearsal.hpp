#pragma once
// What a collective leaves behind on rank 0 of a rehearsed world of N ranks that all hold the same
// data (RunConfig::rehearseWorld): nothing crosses a process boundary, every buffer keeps its world-N
// shape, and the only work done is the local writes a real collective would also do on this rank.
// Every rank is taken to hold rank 0's data, so a gather fills the other ranks' slots with rank 0's
// shard (the full buffer then holds finite values, as a real gather's would, and the step computes on
// numbers of the model's scale) and a mean over ranks is the rank's own value. At world 1 each effect
// is exactly what the real collective does, so a rehearsal of world 1 equals a real run.

#include <ATen/ATen.h>

namespace shardwise::runner::rehearsal {

// full (world x shard.numel()) <- shard repeated world times.
inline void allGather(const at::Tensor& shard, const at::Tensor& full, int world)
{
    full.view({ world, shard.numel() }).copy_(shard.reshape({ 1, shard.numel() }).expand({ world, shard.numel() }));
}

// full already holds rank 0's shard at offset 0: the other slots become copies of it.
inline void allGatherInPlace(const at::Tensor& full, int world)
{
    if (world == 1)
        return;
    const auto rows = full.view({ world, full.numel() / world });
    rows.narrow(0, 1, world - 1).copy_(rows.narrow(0, 0, 1).expand({ world - 1, rows.size(1) }));
}

// shard <- rank 0's slice of the mean over ranks that all hold `full`: the slice itself.
inline void reduceScatter(const at::Tensor& full, const at::Tensor& shard)
{
    shard.view({ -1 }).copy_(full.reshape({ -1 }).narrow(0, 0, shard.numel()));
}

// In place (rank 0's slice at offset 0 is already the mean) and all-reduce (the mean of identical
// buffers is the buffer) leave everything as it is.

} // namespace shardwise::runner::rehearsal
