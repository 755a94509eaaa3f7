#pragma once
// Every coefficient of the estimate that is a guess or a fit to one reference measurement, by name.
// Defaults come from the sources cited per field (docs/formulas.md lists them with their derivation);
// measured runs calibrate them later by passing a different Calibration in as data.

#include "shardwise/spec/strategy.hpp"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace shardwise {

struct Calibration {
    // --- Fit verdict ---
    // Fraction of device memory kept free on top of the predicted peak. Allocator growth between
    // steps and kernels' workspaces (cuBLAS, attention) are not in the model.
    double headroomFraction = 0.05;
    // Fraction of host RAM the training state may use; the rest is for the OS, page cache, loaders.
    double hostUsableFraction = 0.80;

    // --- Device memory outside the model state ---
    // Caching-allocator fragmentation as a fraction of the peak allocated bytes: reserved-but-
    // unallocated memory observed on eager PyTorch training runs is typically 5-15 %; with
    // expandable_segments:True segments grow in place and the waste mostly disappears.
    double fragmentationFraction = 0.10;
    double fragmentationFractionExpandable = 0.03;
    // CUDA context, cuBLAS handles and kernel images: outside the caching allocator (about 0.5 GiB
    // per process on Hopper with CUDA 12).
    double cudaContextGiB = 0.6;
    // NCCL's own buffers (NCCL_BUFFSIZE 4 MiB per channel per peer and proxy FIFOs), only when
    // world > 1; outside the caching allocator.
    double ncclBuffersGiB = 0.5;
    // Bytes per logit element live at the loss: bf16 logits (2) + fp32 upcast (4) + fp32
    // log-softmax saved by cross entropy (4) + fp32 gradient of the logits (4), Hugging Face style.
    double logitsBytesPerElement = 14.0;
    // Multiplier on the activation bytes counted tensor by tensor (docs/formulas.md): what a
    // framework keeps beyond that count (autograd's saved copies, attention workspaces) is fitted
    // from measured peaks; 1 means the count as written.
    double activationBytesScale = 1.0;

    // --- Compute ---
    // Achieved fraction of the GPU's dense bf16 peak for the whole forward+backward. Fitted to the
    // reference DDP run (Qwen2.5-3B, one H200, micro-batch 1, sequence 2048, eager PyTorch:
    // 11,455 tokens/s, i.e. 23.5 % MFU including the optimizer step).
    double matmulEfficiency = 0.26;
    // CPU time eager execution spends issuing one decoder layer's forward and backward kernels per
    // micro-step. Small models at short sequences are launch-bound (Qwen2.5-0.5B reached about half
    // the MFU of Qwen2.5-3B on the same H200), which one matmul efficiency cannot express. 0 means
    // never launch-bound; measured runs fit it.
    double layerLaunchS = 0.0;
    // Fraction of the shorter of kernel time and launch time that hides under the longer: 1 when the
    // CPU runs ahead of the GPU perfectly (step = the longer of the two), 0 when they serialise.
    double launchOverlap = 1.0;
    // Achieved fraction of HBM bandwidth for the (multi-kernel, foreach) AdamW step.
    double optimizerHbmEfficiency = 0.50;

    // --- Communication ---
    // Achieved NCCL bus bandwidth as a fraction of the link's per-direction bandwidth
    // (nccl-tests reports busbw of roughly 75-85 % of NVLink and 70-80 % of PCIe peak).
    double nvlinkBusEfficiency = 0.80;
    double pcieBusEfficiency = 0.70;
    double interNodeBusEfficiency = 0.80;
    // Fraction of each schedule's collective time that hides under compute.
    double allReduceOverlap = 0.85;       // zero0: DDP-style bucketed all-reduce during backward
    double bucketAllReduceOverlap = 0.50; // zero1/zero2 when knobs.overlapComm (DeepSpeed overlap_comm)
    double zero3GatherOverlap = 0.60;     // zero3: per-module fetch with a 5e7-element prefetch bucket
    double fsdp2GatherOverlap = 0.85;     // fsdp2: one flat all-gather per unit on its own stream, prefetched
    // Fixed cost per per-unit collective (copy-in/out, casts, stream syncs, Python-free but still eager):
    // fitted to the reference world-1 runs, where there is no wire traffic at all: FSDP2 no-reshard
    // (2 collectives per unit, 37 units) took 65 ms and reshard (3 per unit) 125 ms longer per step
    // than DDP.
    double unitCollectiveOverheadS = 1.0e-3;

    // Per strategy, seconds per model parameter per optimizer step that the schedule's own
    // bookkeeping costs beyond what the terms above model: bucket and flat-buffer copies, casts,
    // per-tensor launches of the sharded optimizer. At world 1 ZeRO-1/2 move no bytes over a link,
    // yet measured 10-16 % slower than zero0 on Qwen2.5-0.5B; 0 until measured runs fit it.
    double zero0StepSPerParam = 0.0;
    double zero1StepSPerParam = 0.0;
    double zero2StepSPerParam = 0.0;
    double zero3StepSPerParam = 0.0;
    double zero3OffloadStepSPerParam = 0.0;
    double fsdp2NoReshardStepSPerParam = 0.0;
    double fsdp2ReshardStepSPerParam = 0.0;
    double fsdp2ReshardOffloadStepSPerParam = 0.0;

    // --- Offload ---
    // Achieved fraction of the PCIe per-direction bandwidth for pinned host<->device copies.
    double pcieCopyEfficiency = 0.80;
    // Fraction of offload copies hidden under compute (FSDP2 CPUOffloadPolicy and ZeRO-Offload copy
    // mostly on the critical path in eager mode).
    double offloadCopyOverlap = 0.0;
    // CPU AdamW throughput of one host, parameters per second, shared by the ranks on that host.
    // Fitted to the reference FSDP2 reshard+CPUOffloadPolicy run (644 tokens/s, Qwen2.5-3B).
    double cpuAdamParamsPerS = 1.25e9;
};

// The per-strategy member above for `s`.
double Calibration::*stepSPerParamMember(Strategy s);

nlohmann::json toJson(const Calibration& c);
// Missing fields keep their defaults; unknown fields and out-of-range values throw SpecError.
Calibration calibrationFromJson(const nlohmann::json& j, const std::string& path = "calibration");

} // namespace shardwise
