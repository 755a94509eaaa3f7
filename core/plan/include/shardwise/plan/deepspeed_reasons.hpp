#pragma once
// What a DeepSpeed plan's reasons say beyond the decision order: that DeepSpeed keeps an fp32 master
// where pure bf16 is asked for (shardwise/estimate/deepspeed_precision.hpp), and how far published
// measurements put ZeRO-3's speed from PyTorch FSDP's full shard on the same setup.

#include <array>
#include <string_view>

namespace shardwise {

// One setup run with DeepSpeed ZeRO-3 and with PyTorch FSDP full sharding, as published
// (bench/published/<source>.json, cells <zero3Cell> and <fsdpCell>): ZeRO-3's tokens/s over FSDP's,
// from tokens/s per GPU where published, else from the step times (fsdp / zero3).
struct PublishedZero3Ratio {
    std::string_view source; // the bench/published file's id
    std::string_view zero3Cell;
    std::string_view fsdpCell;
    double ratio;
};

// The two published same-setup comparisons with figures, lowest ratio first. Both ran FSDP1
// (FlatParameter, through Accelerate) on A100s in one node, at releases the sources do not name:
//  - hf-blog-deepspeed-to-fsdp-and-back, Table 3: IBM Granite 7B on 4 x A100, DeepSpeed ZeRO-3
//    3094.5 against FSDP (aligned mode) 3158.7 tokens/s per GPU, 0.980;
//  - deepspeed-issue-3901: Falcon-7B at 4k context on 8 x A100 40GB, FSDP 2.93 s and Stage-3 2.86 s
//    ("seconds", per step assumed; batch settings only in the attachment), 1.024.
// deepspeedai/DeepSpeed#5047 reports ZeRO-3 slower than FSDP for a 6-layer transformer from one
// all-gather per small module, with profiler images and no figures. Too few, too different and on
// neither FSDP2 nor an H100 to fit the planner's ZeRO-3 coefficients on (docs/formulas.md).
inline constexpr std::array<PublishedZero3Ratio, 2> kPublishedZero3AgainstFsdp { {
    { "hf-blog-deepspeed-to-fsdp-and-back", "deepspeed-zero3", "fsdp-aligned", 3094.5 / 3158.7 },
    { "deepspeed-issue-3901", "zero3", "fsdp", 2.93 / 2.86 },
} };

} // namespace shardwise
