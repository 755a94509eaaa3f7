#pragma once
// Which step schedules the environment asks for, read where the engine picks its schedule and where
// the start event reports it (versions.offload_staging), so the two cannot disagree.

#include <cstdlib>
#include <string_view>

namespace shardwise::runner {

// The offload strategies step each unit on the host as its gradient arrives (host_step_pipeline.hpp),
// unless SHARDWISE_HOST_STEP_OVERLAP=0 asks for the whole host step after the backward.
inline bool hostStepPerUnit()
{
    const char* value = std::getenv("SHARDWISE_HOST_STEP_OVERLAP");
    return !(value && std::string_view(value) == "0");
}

// Each unit's device AdamW on a stream of its own as its gradient is reduced (side_stream.hpp): the
// default for eager steps, whose final parameters are byte-identical to one fused step after the
// backward (bench/offload/measure.sh device-equal). SHARDWISE_DEVICE_STEP_OVERLAP=0 turns it off; a
// step captured as a CUDA graph keeps the single step after the backward unless
// SHARDWISE_DEVICE_STEP_OVERLAP=1 asks for it, until the equality is measured for captured steps.
inline bool deviceStepPerUnit(bool capturedStep)
{
    const char* value = std::getenv("SHARDWISE_DEVICE_STEP_OVERLAP");
    if (value && std::string_view(value) == "0")
        return false;
    if (value && std::string_view(value) == "1")
        return true;
    return !capturedStep;
}

// How many thread blocks each unit's device AdamW may occupy when it runs beside the backward: 0 lets it
// take the whole GPU, as it does after the backward; SHARDWISE_DEVICE_STEP_BLOCKS=N caps it at N, so
// that the backward's kernels keep the other SMs.
inline int deviceStepBlocks()
{
    const char* value = std::getenv("SHARDWISE_DEVICE_STEP_BLOCKS");
    const int n = value ? std::atoi(value) : 0;
    return n > 0 ? n : 0;
}

} // namespace shardwise::runner
