#pragma once
// AdamW on host memory for the offload strategies, on tensors: host_adamw.hpp does the work (one pass,
// vectorised, over every core the process may use). Storage may be fp32 or bf16 (the pure-bf16 policy
// keeps parameters and moments in bf16, as torch.optim.AdamW does on bf16 parameters); the arithmetic
// is fp32 either way, in the order of torch.optim.AdamW's single-tensor path (adamw.cpp), so an fp32
// run matches adamwStep to rounding.

#include "adamw.hpp"

#include <ATen/ATen.h>

namespace shardwise::runner {

// param, expAvg and expAvgSq: contiguous CPU tensors of one dtype (fp32 or bf16), same numel;
// grad: contiguous CPU fp32 or bf16 of the same numel. `step` counts from 1.
void cpuAdamWStep(const at::Tensor& param, const at::Tensor& grad, const at::Tensor& expAvg, const at::Tensor& expAvgSq,
                  std::int64_t step, const AdamWSettings& s);

} // namespace shardwise::runner
