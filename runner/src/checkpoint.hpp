#pragma once
// Sharded checkpoints (--checkpoint-every N --checkpoint-dir D): after every N steps each rank writes
// its own state to D/step-<N>/rank-<R>.state (written to a temporary name, flushed, renamed); once every
// rank has written, rank 0 writes D/step-<N>/COMPLETE. Only a folder with COMPLETE is ever loaded, so
// a checkpoint cut short by a kill or a full disk is skipped, never half-read. --resume starts from
// the newest complete one.

#include "communicator.hpp"
#include "sharding_engine.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace shardwise::runner {

class Checkpoints {
public:
    Checkpoints(std::filesystem::path dir, int rank, int world, std::string strategy, Communicator& comm,
                at::Device device);

    // Steps of the newest checkpoint whose completion marker exists; nullopt when there is none.
    std::optional<int> newestComplete() const;
    // Collective. Returns the seconds this rank spent, the barrier before the marker included.
    double save(int steps, ShardingEngine& engine);
    // Collective. Throws ConfigError naming the file when it does not belong to this run or is damaged.
    void load(int steps, ShardingEngine& engine);

    std::filesystem::path folder(int steps) const;

private:
    void barrier();

    std::filesystem::path m_dir;
    int m_rank;
    int m_world;
    std::string m_strategy;
    Communicator& m_comm;
    at::Device m_device;
};

} // namespace shardwise::runner
