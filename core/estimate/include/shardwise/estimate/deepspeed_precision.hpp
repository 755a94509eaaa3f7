#pragma once
// How DeepSpeed holds the optimizer's side of the model state for a requested precision: what it
// really allocates, which is not always what bf16.enabled suggests. Sources (DeepSpeed 0.16, the
// planner's default release, unless named):
//  - ZeRO stages 1 and 2: DeepSpeedZeroOptimizer.__init__ (deepspeed/runtime/zero/stage_1_and_2.py)
//    builds single_partition_of_fp32_groups as .clone().float() of this rank's bit16 partition, and
//    step() converts the reduced gradient partition to that dtype (fp32); the torch Adam built on
//    those fp32 partitions keeps fp32 moments.
//  - ZeRO stage 3: DeepSpeedZeroOptimizer_Stage3._create_fp32_partitions (stage3.py) builds
//    fp32_partitioned_groups_flat as .clone().float(), and _prepare_fp32_grad_for_sub_group converts
//    the gradient partition to fp32.
//  - Both hold whatever bf16.enabled says: DeepSpeedEngine._do_optimizer_sanity_check
//    (runtime/engine.py) hands every ZeRO stage >= 1 to the ZeRO optimizer, with or without bf16, at
//    the default data_types.grad_accum_dtype.
//  - Stage 0: with bf16 on, BF16_Optimizer (runtime/bf16_optimizer.py) keeps an fp32 partition
//    (fp32_groups_flat_partition) and a full fp32 gradient buffer (fp32_groups_gradients_flat); with
//    bf16 off no wrapper is built and the optimizer trains the model in the dtype it was loaded in.
//  - Release 0.18.3 (PR #7700, "Low-precision master params/grads/optimizer states", whose
//    description opens "DeepSpeed optimizer always creates fp32 master params/gradients/optimizer
//    states") adds bf16.bf16_master_weights_and_grads and bf16.bf16_optimizer_states for stages 1-3
//    (ZeROOptimizer._configure_master_weights, runtime/base_optimizer.py). With optimizer offload
//    bf16 optimizer states also need DeepSpeedCPUAdam(fp32_optimizer_states=False), which a
//    ds_config's zero_optimization section cannot ask for, so the offload stages keep fp32 there.
// docs/formulas.md, "Framework targets", has the table.

#include "shardwise/spec/specs.hpp"

#include <string>
#include <vector>

namespace shardwise {

enum class DeepSpeedMaster {
    Fp32,       // fp32 master partition, fp32 gradient partition, fp32 Adam moments (12 + 4 bytes / W)
    Bf16,       // bf16_master_weights_and_grads + bf16_optimizer_states (0.18.3 and later, stages 1-3)
    ModelDtype, // stage 0 with bf16 off: the plain optimizer on the bf16 model, unpartitioned
};

// The first DeepSpeed release with bf16 master weights and optimizer states.
inline constexpr const char* kDeepSpeedBf16MasterRelease = "0.18.3";

// Whether a DeepSpeed release (MAJOR.MINOR[.PATCH], as FrameworkTarget::version) is 0.18.3 or later;
// false for a version that does not read so.
bool deepSpeedHasBf16Master(const std::string& release);

// The DeepSpeed release a plan's DeepSpeed terms describe: the target's own when it is DeepSpeed,
// DeepSpeed's default release otherwise (the other targets estimate the ZeRO stages as DeepSpeed
// runs them).
std::string deepSpeedRelease(const FrameworkTarget& target);

// How DeepSpeed `release` holds the master, gradient partition and moments for strategy `s` (a ZeRO
// stage, zero0 included) when `asked` is requested. bf16-fp32-master is Fp32 everywhere; pure bf16 is
// ModelDtype at stage 0, Bf16 at stages 1-3 from 0.18.3 without offload, and Fp32 otherwise.
DeepSpeedMaster deepSpeedMaster(const std::string& release, Strategy s, PrecisionPolicy asked);

// The precision whose bytes DeepSpeed allocates for `s`: bf16-fp32-master where deepSpeedMaster is
// Fp32, `asked` otherwise. Strategies DeepSpeed does not run (the FSDP2 setups) keep `asked`.
PrecisionPolicy deepSpeedAllocatedPrecision(const std::string& release, Strategy s, PrecisionPolicy asked);

// The ZeRO stages (zero1 .. zero3_offload, in the strategy table's order) for which a request for pure
// bf16 is planned with an fp32 master under `release`: all five before 0.18.3, the two offload
// stages from it.
std::vector<Strategy> deepSpeedFp32MasterStages(const std::string& release);

} // namespace shardwise
