#pragma once
// The store's schema as an ordered list of migrations, keyed by PRAGMA user_version: migration N
// takes a database from version N-1 to N and runs in one transaction together with the version bump.
// The list is the only description of the schema; an old database is brought up to date by running
// the migrations it lacks, and a database of any earlier version can be recreated by stopping early.

#include <string_view>
#include <vector>

namespace shardwise::store {

struct Migration {
    int version; // user_version after this migration
    std::string_view description;
    std::string_view sql;
};

const std::vector<Migration>& migrations();

// The schema version this build writes.
int currentSchemaVersion();

// The first version whose runs rows keep the runner behaviour (kernels, activations, offload staging).
inline constexpr int kRunnerBehaviourSchema = 6;
// The first version whose runs rows keep the backend (native / torch) and the framework versions the
// PyTorch harness reports (python, torch, transformers, model implementation).
inline constexpr int kRunBackendSchema = 7;
// The first schema whose runs record the plan's inter-node bandwidth (runs.inter_node_gbps).
inline constexpr int kInterNodeSchema = 9;
// The first schema whose runs record the world a rehearsal of one rank stands for (runs.rehearsed_world).
inline constexpr int kRehearsalSchema = 10;
// The first schema with named saved plans (saved_plans.hpp).
inline constexpr int kSavedPlansSchema = 11;
// The first version that keeps a node's NCCL environment and the one each node of a run used.
inline constexpr int kNodeNcclEnvSchema = 8;

} // namespace shardwise::store
