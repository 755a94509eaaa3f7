#include "shardwise/spec/strategy.hpp"

#include <algorithm>

namespace shardwise {

namespace {
using enum Strategy;
using F = StrategyFamily;
using R = GradReduction;

// The single table of strategy facts (docs/formulas.md; DeepSpeed ZeRO paper, Rajbhandari et al. 2020;
// PyTorch FSDP2 fully_shard documentation). Columns: optimizer / gradients / parameters sharded,
// reshard after forward, optimizer offloaded, parameters offloaded.
constexpr std::array<StrategyTraits, kStrategyCount> kTable { {
    { Zero0, "zero0", "ZeRO-0 (DDP)", F::DeepSpeedZero, false, false, false, false, false, false, R::AllReduce, 0,
      "No sharding: every rank holds full parameters, gradients and optimizer state; gradients are all-reduced." },
    { Zero1, "zero1", "ZeRO-1", F::DeepSpeedZero, true, false, false, false, false, false, R::BucketAllReduce, 1,
      "Optimizer state sharded across ranks; parameters all-gathered after the step." },
    { Zero2, "zero2", "ZeRO-2", F::DeepSpeedZero, true, true, false, false, false, false, R::BucketAllReduce, 2,
      "Optimizer state and gradients sharded; each rank keeps only its reduced gradient slice." },
    { Zero3, "zero3", "ZeRO-3", F::DeepSpeedZero, true, true, true, true, false, false, R::ReduceScatter, 4,
      "Optimizer state, gradients and parameters sharded; parameters gathered per layer for forward and again "
      "for backward." },
    // ZeRO-Offload (Ren et al., USENIX ATC 2021): stage 2 with offload_optimizer {device: cpu}.
    { Zero2Offload, "zero2_offload", "ZeRO-2 + CPU offload", F::DeepSpeedZero, true, true, false, false, true, false,
      R::BucketAllReduce, 6,
      "ZeRO-2 with optimizer state and the optimizer step on the CPU; full parameters stay on every GPU." },
    { Zero3Offload, "zero3_offload", "ZeRO-3 + CPU offload", F::DeepSpeedZero, true, true, true, true, true, false,
      R::ReduceScatter, 7, "ZeRO-3 with optimizer state and the optimizer step on the CPU." },
    { Fsdp2NoReshard, "fsdp2_noreshard", "FSDP2 no-reshard", F::Fsdp2, true, true, true, false, false, false,
      R::ReduceScatter, 3,
      "FSDP2 reshard_after_forward=False: parameters gathered in forward stay gathered through backward." },
    { Fsdp2Reshard, "fsdp2_reshard", "FSDP2 reshard", F::Fsdp2, true, true, true, true, false, false, R::ReduceScatter,
      5,
      "FSDP2 reshard_after_forward=True: parameters freed after each unit's forward, re-gathered for its backward." },
    { Fsdp2ReshardOffload, "fsdp2_reshard_offload", "FSDP2 reshard + offload", F::Fsdp2, true, true, true, true, true,
      true, R::ReduceScatter, 8,
      "FSDP2 reshard with sharded parameters, gradients and optimizer state in CPU memory; optimizer step on the "
      "CPU." },
} };
} // namespace

const std::array<StrategyTraits, kStrategyCount>& allStrategies()
{
    return kTable;
}

const StrategyTraits& traits(Strategy s)
{
    for (const auto& t : kTable)
        if (t.strategy == s)
            return t;
    return kTable.front(); // unreachable for valid enum values
}

std::string_view strategyId(Strategy s)
{
    return traits(s).id;
}

std::optional<Strategy> strategyFromId(std::string_view id)
{
    for (const auto& t : kTable)
        if (t.id == id)
            return t.strategy;
    return std::nullopt;
}

std::string strategyIdList()
{
    std::string out;
    for (const auto& t : kTable) {
        if (!out.empty())
            out += ", ";
        out += t.id;
    }
    return out;
}

} // namespace shardwise
