#pragma once
// While each unit's device AdamW runs on its own stream beside the backward (step_schedule.hpp,
// deviceStepPerUnit), the backward's GEMMs are asked to leave some SMs to it. cuBLAS's Hopper GEMMs
// are persistent kernels sized to the whole GPU, so a memory-bound AdamW launched beside them waits for
// free SMs and mostly runs after them instead of beside them; with an SM count target below the
// device's (cublasSetSmCountTarget, and CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET through LibTorch's SM
// carve-out for cuBLASLt GEMMs), the GEMMs leave that many SMs free and the AdamW streams through them.

#include <string>

namespace shardwise::runner {

// The SMs the backward's GEMMs leave to the device step beside them: SHARDWISE_BACKWARD_GEMM_CARVEOUT=N,
// 0 turns it off; the default is kDefaultBackwardGemmCarveout.
inline constexpr int kDefaultBackwardGemmCarveout = 0;
int backwardGemmCarveout();

// The start event's part of versions.offload_staging, after "device step per unit", for a run whose
// backward GEMMs leave `sms` SMs: "backward GEMMs leave N SMs" (docs/protocol.md).
std::string backwardGemmCarveoutPart(int sms);

// Sets the carve-out for the GEMMs that run from now on (0 clears it): the engine sets it before a
// backward whose units step beside it and clears it after. CUDA builds; elsewhere a no-op.
void setBackwardGemmCarveout(int sms);

// Applies the current carve-out to the calling thread's cuBLAS handle. The autograd engine runs a
// CUDA backward on a thread of its own with a handle of its own, so the backward's GEMM callers
// (linear.cpp) call this first; it costs one comparison when nothing changed.
void applyGemmSmTarget();

} // namespace shardwise::runner
