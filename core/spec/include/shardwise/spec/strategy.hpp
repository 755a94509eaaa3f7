#pragma once
// The nine training-state sharding strategies and the one table of their properties.
// Every other part of Shardwise (planner, runner, store, charts) reads strategy facts from here.

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace shardwise {

enum class Strategy {
    Zero0,
    Zero1,
    Zero2,
    Zero3,
    Zero2Offload,
    Zero3Offload,
    Fsdp2NoReshard,
    Fsdp2Reshard,
    Fsdp2ReshardOffload,
};

enum class StrategyFamily { DeepSpeedZero, Fsdp2 };

// How gradients leave a rank after backward.
enum class GradReduction {
    AllReduce,       // every rank keeps the full, averaged gradient (zero0)
    BucketAllReduce, // DeepSpeed stage 1/2: large all-reduce buckets, each rank keeps its slice
    ReduceScatter,   // each rank receives only its shard
};

struct StrategyTraits {
    Strategy strategy;
    std::string_view id;    // stable identifier used in JSON, CLI, store and protocol
    std::string_view label; // short human label
    StrategyFamily family;
    bool shardsOptimizer;     // Adam moments + fp32 master (if any) split across ranks
    bool shardsGradients;     // persistent gradient storage split across ranks
    bool shardsParameters;    // parameters split across ranks between uses
    bool reshardAfterForward; // gathered parameters freed after each unit's forward
    bool offloadsOptimizer;   // optimizer state and step on the CPU
    bool offloadsParameters;  // parameter shards kept in host memory
    GradReduction reduction;
    int sortOrder;            // "lightness": lower means less sharding, used by the decision order
    std::string_view summary; // one sentence, shown as tooltip / help text
};

inline constexpr std::size_t kStrategyCount = 9;

const std::array<StrategyTraits, kStrategyCount>& allStrategies();
const StrategyTraits& traits(Strategy s);
std::string_view strategyId(Strategy s);
std::optional<Strategy> strategyFromId(std::string_view id);
// Comma-separated list of every id, for error messages and usage text.
std::string strategyIdList();

} // namespace shardwise
