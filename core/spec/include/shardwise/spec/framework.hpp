#pragma once
// The training framework a plan is made for, and the backend a measured run uses.
// A plan's figures describe what the chosen framework allocates and how fast it runs at its
// defaults (docs/formulas.md, "Framework targets"); `native` is Shardwise's own runner.

#include "shardwise/spec/strategy.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace shardwise {

enum class Framework {
    Native,     // shardwise-runner: one flat buffer per unit, the schedules of docs/runner.md
    DeepSpeed,  // DeepSpeed ZeRO stages 0-3, offload_optimizer / offload_param
    Fsdp2,      // PyTorch fully_shard (FSDP2), as Transformers / Accelerate apply it; DDP for zero0
    Torchtitan, // torchtitan's FSDP2 training loop (llama3 configs)
};

inline constexpr std::size_t kFrameworkCount = 4;

struct FrameworkTraits {
    Framework framework;
    std::string_view id;             // "native" | "deepspeed" | "fsdp2" | "torchtitan"
    std::string_view label;          // "Shardwise runner", "DeepSpeed", ...
    std::string_view defaultVersion; // the release whose defaults the planner models when none is given
};

const std::array<FrameworkTraits, kFrameworkCount>& allFrameworks();
const FrameworkTraits& traits(Framework f);
std::string_view frameworkId(Framework f);
std::optional<Framework> frameworkFromId(std::string_view id);
std::string frameworkIdList(); // "native, deepspeed, fsdp2, torchtitan"

// Whether the framework can express the strategy at all: DeepSpeed the ZeRO stages (zero0 is plain
// data parallelism), FSDP2 and torchtitan DDP (zero0) and the three fully_shard setups; native all.
bool frameworkSupports(Framework f, Strategy s);

// Which framework a plan targets, and the release whose defaults apply.
struct FrameworkTarget {
    Framework framework = Framework::Native;
    std::string version;   // empty: traits(framework).defaultVersion
    bool compiled = false; // torch.compile on each decoder layer (fsdp2, torchtitan)

    std::string effectiveVersion() const;
};

// Why the planner cannot model `t`'s version, or nothing: the version must read MAJOR.MINOR[.PATCH]
// and be a release whose defaults the model describes (FSDP2's fully_shard exists from PyTorch 2.4;
// DeepSpeed's BF16_Optimizer and bf16 ZeRO-3 from 0.10; torchtitan's FSDP2 configs from 0.1).
std::optional<std::string> frameworkVersionProblem(const FrameworkTarget& t);

// What executes a measured run: Shardwise's LibTorch runner, or the PyTorch harness
// (runner/torch, FSDP2 / DDP on a Transformers or plain-PyTorch decoder) that the fsdp2 target
// predicts.
enum class RunBackend { Native, Torch };
std::string_view backendId(RunBackend b); // "native" | "torch"
std::optional<RunBackend> backendFromId(std::string_view id);

} // namespace shardwise
