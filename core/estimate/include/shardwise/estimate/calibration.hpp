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
    // Fraction of device memory kept free on top of the predicted allocated peak and the runtime
    // context: what the caching allocator cannot hand back when an allocation would fail (block
    // rounding, split blocks). Cached but unused blocks are not counted: the allocator frees them and
    // retries before it reports out of memory. On the H200 Qwen2.5-14B zero0 and zero1 at sequence
    // 4096 completed with 136.2 GiB allocated + 1.3 GiB context of 139.8 GiB (1.7 % left), and zero2,
    // predicted 0.3 % over, ran out of memory: 1 % keeps both sides of that boundary.
    double headroomFraction = 0.01;
    // Fraction of host RAM the training state may use; the rest is for the OS, page cache, loaders.
    double hostUsableFraction = 0.80;

    // --- Device memory outside the model state ---
    // Caching-allocator cache as a fraction of the peak allocated bytes (reserved - allocated): what
    // nvidia-smi shows beyond the allocated peak. Reported, not part of the fit verdict (see
    // headroomFraction). Typically 5-15 % on eager training runs; with expandable_segments:True
    // segments grow in place and the waste mostly disappears.
    double fragmentationFraction = 0.10;
    double fragmentationFractionExpandable = 0.03;
    // CUDA context, cuBLAS handles and kernel images: outside the caching allocator. The runner
    // (LibTorch 2.11, CUDA 13) measured 1.29-1.36 GiB (device total - free - reserved) on the H200.
    double cudaContextGiB = 1.3;
    // NCCL's own buffers (NCCL_BUFFSIZE 4 MiB per channel per peer and proxy FIFOs), only when
    // world > 1; outside the caching allocator.
    double ncclBuffersGiB = 0.5;
    // Bytes per logit element of the one chunk of logits the runner's head + loss holds at a time
    // (runner/src/head_loss.cpp: as many rows as 256 MiB of fp32 logits would hold). On CUDA the fused
    // cross-entropy kernel keeps only the bf16 logits, turned into their gradient in place (2); the
    // ATen path keeps an fp32 copy too (4 + 2 briefly). The current runner's H200 runs fit 2.27 (the
    // c992a39 runner's, ATen path, 3.3).
    double logitsBytesPerElement = 2.27;
    // The same when the runner's cross-entropy runs as ATen ops (a build without the fused kernels,
    // or SHARDWISE_FUSED_KERNELS=0; the start event's versions.kernels says so): log_softmax and its
    // gradient hold the chunk in fp32 beside the bf16 logits. Fitted to 136 rehearsed ranks of such a
    // runner on one H100 (worlds 8 and 64, Qwen2.5 0.5B / 3B, Llama 3.2-1B / 3.1-8B;
    // bench/results/world-rehearsal-native-3d1a19f.md), where the fused figure left every cell 0.4-1.0
    // GiB under its allocated peak.
    double atenLogitsBytesPerElement = 7.26;
    // Allocated bytes independent of the shapes the model counts: cuBLAS workspaces, rotary tables,
    // flat-buffer padding. Fitted to the current runner's H200 runs (bench/results/fidelity-3ee897c.md).
    double deviceWorkspaceGiB = 0.067;
    // Multiplier on the activation bytes counted tensor by tensor (docs/formulas.md): what a
    // framework keeps beyond that count (autograd's saved copies, attention workspaces) is fitted
    // from measured peaks; 1 means the count as written.
    double activationBytesScale = 1.0056;

    // --- Compute ---
    // Achieved fraction of the GPU's dense bf16 peak for the projection and head GEMMs (6 FLOPs per
    // GEMM parameter per token). Fitted to the current runner's world-1 runs on the H200 (Qwen2.5
    // 0.5B-14B, sequences 1024-8192, the six GPU-resident strategies; bench/results/fidelity-3ee897c.md);
    // the H200's bf16 8192^3 matmul probe reached 0.81 of the data sheet.
    double matmulEfficiency = 0.71;
    // Achieved fraction of the bf16 peak for causal flash attention at head_dim 128 (the time also
    // scales with 128 / head_dim: a tile's softmax work per score does not shrink with the head
    // width, FlashAttention-2, Dao 2023, section 4.1 benchmarks by head dimension). Same fit.
    double attentionEfficiency = 0.64;
    // The same on a Hopper GPU when attention runs FlashAttention-2's kernels (EstimateInput::
    // flashKernel; PyTorch's SDPA flash backend), which use Ampere's mma.sync instructions and none of
    // Hopper's (wgmma, TMA): SDPA reached 329.5 TFLOP/s on an H100 at batch 1, 24 heads, 4608 tokens,
    // head_dim 128, where cuDNN's kernel reached 631.3 (pytorch/pytorch issue #142132, nightly
    // 2.6.0.dev20241204): 329.5 / 989 = 0.333. FlashAttention-3 (Shah et al. 2024, section 1) gives
    // FlashAttention-2 "only 35% utilization" on the H100. attentionEfficiency's 0.64 of the H200 (633
    // TFLOP/s) is cuDNN's rate: LibTorch's SDPA picks cuDNN on Hopper. On an A100 FlashAttention-2 is
    // the architecture's own kernel (50-73 % of peak, Dao 2023) and attentionEfficiency applies.
    double flashAttention2HopperEfficiency = 0.333;
    // Achieved fraction of HBM bandwidth per byte of activations saved for backward: the norms,
    // rotary, SwiGLU, residual adds and their backward read and write the activations several times
    // over. Same fit.
    double elementwiseHbmEfficiency = 0.084;
    // GPU time per decoder layer per micro-step that does not grow with the tokens: the fixed
    // duration of its small kernels (norms, rotary, casts, residual adds). Same fit.
    double layerKernelS = 1.5e-4;
    // CPU time per decoder layer per micro-step to issue its forward and backward kernels. Small
    // models at short sequences are bound by it: Qwen2.5-0.5B at 1024 tokens took 26 ms per step on the
    // H200, of which the GEMMs are 5 ms, and grew only 8 ms from 1024 to 2048 tokens. Same fit; a
    // GPU node's `--probe` measures it directly (layer_issue) and then the fit keeps it.
    double layerLaunchS = 1.12e-3;
    // Fraction of the shorter of GPU kernel time and CPU issue time that hides under the longer: 1
    // when the CPU runs ahead of the GPU perfectly (step = the longer of the two), 0 when they
    // serialise.
    double launchOverlap = 1.0;
    // How the two combine when neither clearly bounds the step: 0 takes the launchOverlap formula
    // above (the longer of the two at overlap 1); p > 0 takes (kernel^p + issue^p)^(1/p), which is the
    // longer of the two when one dominates and up to 2^(1/p) times it when they are equal: the CPU
    // then cannot run ahead, and every stall on either side shows in the step (small models at short
    // sequences on the H200). 0 in the presets; a fit sets it only where runs in that regime show it.
    double launchCombineExponent = 0.0;
    // Achieved fraction of HBM bandwidth for the (multi-kernel, foreach) AdamW step.
    double optimizerHbmEfficiency = 0.50;
    // The same for the AdamW that keeps an fp32 master (bf16-fp32-master): the runner's unfused
    // master step (ATen ops on the fp32 master, moments and the bf16 copy) runs at a lower fraction.
    // Derived from the H200 runs of cbe1bee (Qwen2.5-3B, seq 2048): every strategy's step is 59-63 ms
    // longer with an fp32 master than under pure bf16, for 3.09e9 parameters.
    double masterOptimizerHbmEfficiency = 0.23;
    // The native runner's own device AdamW (runner/src/adamw_kernel.cu; EstimateInput::fusedKernels):
    // one pass per unit over the flat state, the same bytes as above (14 per parameter under pure bf16,
    // 28 with an fp32 master and its bf16 copy). Runners without it take the two fractions above. From
    // the kernel profile of one H100 step (Qwen2.5-3B zero0, pure bf16, seq 2048; docs/formulas.md):
    // 16.74 ms for 43.2 GB, 2.58 TB/s of the data sheet's 3.35 (PyTorch's multi-tensor kernel it
    // replaced took 22.7 ms, 0.57). Measured on the kernel alone; no fit moves it, and a probe caps it at
    // the measured device-copy share as it does the two above.
    double fusedAdamwHbmEfficiency = 0.77;
    // Achieved fraction of HBM bandwidth for the bytes the native runner's ATen compositions of
    // rotary, SwiGLU and the cross-entropy move beyond its fused kernels (EstimateInput::fusedKernels;
    // the bytes are counted in workload.cpp). From one H200 call that ran Qwen2.5-3B zero0 at seq 2048
    // both ways (bench/results/h200.md, "Earlier calls", b5ba3e9): 18,455 tokens/s with
    // SHARDWISE_FUSED_KERNELS=0 against 22,654 fused, 20.6 ms a step for 33.8 GB counted. No fit moves
    // it. Only the GPU's part is modelled: the compositions' extra kernel launches (about 28 a layer)
    // are not in layerLaunchS, so where the host bounds the step the prediction is optimistic.
    double atenCompositionHbmEfficiency = 0.34;

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
    // CPU time per per-unit collective (issuing the gather or reduce, its copies and stream waits),
    // on the CPU side of the step: it costs time only while the CPU, not the GPU, bounds the step.
    // Fitted to the current runner's H200 world-1 runs (0.06 ms).
    double unitCollectiveOverheadS = 6.1e-5;
    // GPU time per per-unit collective beyond its bytes: the compute stream's hand-off to the comm
    // stream and back, and the collective's own kernel launch (at world 1, the copy that stands for
    // it). It shows once the host no longer bounds the step (CUDA graphs). 0 in the presets; a GPU
    // node's `--probe` measures it (unit_collective); no fit moves it.
    double unitCollectiveKernelS = 0.0;

    // Per strategy, seconds per model parameter per optimizer step that the schedule's own
    // bookkeeping costs beyond what the terms above model: flat-buffer gather and reduce copies, casts,
    // staging of offloaded shards. Fitted to the H200 world-1 runs (GPU-resident strategies: the
    // current runner's; offload: the c992a39 runner's): zero3 2.1e-12 s is 10 bytes per parameter at
    // the H200's 4.8 TB/s, about the local copies of two gathers and one reduce (12 bytes: each reads
    // and writes 2). Seconds, not bytes: another GPU inherits the H200's figures until its own runs
    // are fitted.
    double zero0StepSPerParam = 0.0;
    double zero1StepSPerParam = 0.0;
    double zero2StepSPerParam = 8.0e-13;
    double zero3StepSPerParam = 2.1e-12;
    // zero2_offload: fitted to two H200 world-1 runs under pure bf16 (Qwen2.5-0.5B at 1024 tokens,
    // 0.151 s a step; Qwen2.5-3B at 2048, 0.804 s), which zero2's 8e-13 predicted 24-32 % too fast:
    // 5.5e-11 leaves -6.5 % and +0.9 %. Two runs of one machine, not yet a fit over sizes.
    double zero2OffloadStepSPerParam = 5.5e-11;
    double zero3OffloadStepSPerParam = 1.7e-11;
    double fsdp2NoReshardStepSPerParam = 1.3e-12;
    double fsdp2ReshardStepSPerParam = 1.8e-12;
    double fsdp2ReshardOffloadStepSPerParam = 7.6e-12;

    // --- Offload ---
    // Achieved fraction of the PCIe per-direction bandwidth for pinned host<->device copies. Fitted
    // with cpuAdamParamsPerS to the H200 offload runs (Qwen2.5 0.5B-7B): 62 of 64 GB/s; the H200's
    // own probe moved 54.6 GB/s each way in 256 MiB copies (bench/results/h200.md).
    double pcieCopyEfficiency = 0.975;
    // Fraction of the compute time under which the decoder layers' offload copies can hide (they run
    // on their own streams, a unit ahead of or behind the compute; docs/formulas.md). The root unit's
    // copies and zero3_offload's upload after the CPU step are exposed whatever this says. 0: every
    // copy on the critical path.
    double offloadCopyOverlap = 1.0;
    // CPU AdamW throughput of one host, parameters per second, shared by the ranks on that host.
    // Fitted with hostStepOverlap to the H200 host's offload runs with the host step per unit
    // (bench/results/offload-data-b1129cd, Qwen2.5 1.5B-7B: 5.88e9 over all of them, 5.80-5.85e9 in
    // each leave-one-model-out fold); that host's probe measured 5.45e9 on 256 MiB. Hosts differ
    // (the same binary's offload runs moved 15 % between two lent machines): the probe of the user's
    // own node replaces it.
    double cpuAdamParamsPerS = 5.9e9;
    // Fraction of the shorter of the offload step's GPU part (forward, backward, exposed copies and
    // communication) and its host AdamW that hides under the longer, for the native runner, which
    // steps each unit on the host as soon as its gradient has arrived, while the GPU runs the rest of
    // the backward, and lets the next forward start on the units already stepped. 0: the host step
    // after the whole backward (the frameworks' default, and runners before this schedule). Fitted to
    // the same runs: 0.896 over all of them, 0.877-0.90 in each fold.
    double hostStepOverlap = 0.9;
    // Fraction of the device AdamW that hides under the backward when the native runner steps each
    // unit on a stream of its own as soon as its gradient is reduced (zero0, zero3 and the fsdp2
    // strategies without offload or fp32 master weights; docs/formulas.md). The memory-bound AdamW
    // kernels share the GPU with the backward's matmuls, so they hide only partly: 0.11 is the median
    // of eight cells of `bench/offload/measure.sh device-step device-after-backward` in one call on
    // an H100 (0.08-0.15; bench/results/device-step-867e2f7.md).
    double deviceStepOverlap = 0.11;

    // --- Framework targets (EstimateInput::framework other than native; docs/formulas.md, "Framework
    // targets") ---
    // The frameworks run an eager PyTorch decoder (Transformers' Qwen2 / Llama modules, torchtitan's
    // Llama): unfused RMSNorm in fp32, rotary, SiLU and multiply, residual adds; their saved tensors
    // are counted in workload.cpp and scaled by this multiplier. The coefficients marked "torch fit"
    // below are the all-model fit to the torch backend's 27 world-1 runs on the H200 (Qwen2.5 0.5B-7B
    // at seq 2048, both precisions, bench/results/frameworks-5c96a0c.md, which also gives the
    // leave-one-model-out errors); the others are documented estimates.
    // Refitted (with eagerLogitsBytesPerElement and the three eager allocator figures below) to 33
    // rehearsals of one rank of world 1-64 of PyTorch's own fully_shard / DDP with fused AdamW on one
    // H100 (Qwen2.5-0.5B and 3B, Llama-3.2-1B and 3.1-8B; sequence 2048-8192, micro-batch 1-4, both
    // precisions, checkpointing none / full / selective, expandable segments on and off;
    // bench/results/world-rehearsal-torch-h100.md, which gives the leave-one-model-out errors): the
    // allocated peak at the start of backward (bench/rehearsal/fit_framework_memory.py).
    double eagerActivationBytesScale = 0.966; // rehearsal fit
    // Bytes per logit element live at the loss: the head's bf16 logits (2), the fp32 copy the loss
    // takes (4) and the log-softmax the cross-entropy saves (4), 10 as counted; the fit adds the
    // loss's backward (its fp32 gradient). Transformers' ForCausalLMLoss and torchtitan's
    // cross_entropy_loss both upcast.
    double eagerLogitsBytesPerElement = 12.16; // rehearsal fit
    // What the caching allocator reserves beyond the allocated peak when a framework trains
    // (reserved - allocated): a fraction of the allocated peak and a constant, fitted to the same
    // rehearsals' peak reserved bytes. The measured gap was 7-50 % of the allocated peak (median
    // 27 %); expandable_segments:True left it at 19 % in both cells that set it, so one fit covers
    // both settings. It is the breakdown's allocator_cache, counted in the peak and the fit verdict.
    double eagerFragmentationFraction = 0.140; // rehearsal fit
    double eagerFragmentationGiB = 1.18;       // rehearsal fit
    // Fraction of device memory the fit verdict keeps free for a framework target: the worst
    // under-prediction of the peak reserved bytes among the rehearsals, each predicted by the fit of
    // the other models (16.5 %), as 1 - 1 / 1.165. The native runner keeps headroomFraction: its
    // predictions were within 2 % of its reserved bytes at world 1.
    double eagerHeadroomFraction = 0.142;
    // Temporaries of the framework's AdamW step, as a fraction of the updated parameters' bytes:
    // torch.optim.AdamW's foreach step builds one list as large as the parameters (1); the fused
    // step (fused=True: torchtitan's default, and the torch backend's on CUDA) builds none (0).
    double eagerAdamwStepTemporaryFraction = 0.0;
    // Achieved HBM fraction per byte of the eager decoder's saved activations (the unfused elementwise
    // passes), and the GPU time of an eager layer's small kernels per micro-step. Every fitted run had
    // 2048 tokens, so the split between the two (per token against per layer) is not pinned down by
    // them: their sum at 2048 tokens is.
    double eagerElementwiseHbmEfficiency = 0.187; // torch fit
    double eagerLayerKernelS = 2.16e-3;           // torch fit
    // Host time to issue an eager layer's forward and backward from Python (module calls, autograd,
    // dispatcher): the small models' steps are bound by it.
    double eagerLayerLaunchS = 4.36e-3; // torch fit
    // torch.compile on each decoder layer fuses the elementwise chains: the compiled layer's achieved
    // HBM fraction, and the fraction of the eager issue time left. Estimates: no compiled run is fitted.
    double compiledElementwiseHbmEfficiency = 0.30;
    double compiledLaunchFraction = 0.35;
    // Per parameter per optimizer step, what each framework's schedule costs beyond the terms above:
    // DDP's copies into and out of its gradient buckets; FSDP2's copy-in / copy-out around each
    // all-gather and reduce-scatter (and the casts of the sharded fp32 parameters to bf16), without
    // and with resharding after forward; DeepSpeed stage 1/2's flattening and partition copies.
    double ddpStepSPerParam = 7.4e-12;                     // torch fit
    double fsdp2NoReshardFrameworkStepSPerParam = 7.6e-12; // torch fit
    double fsdp2ReshardFrameworkStepSPerParam = 8.6e-12;   // torch fit
    double deepspeedStepSPerParam = 1.0e-11;
    // Host seconds per FSDP2 unit collective (Python hooks, DTensor bookkeeping, stream syncs): what
    // makes fsdp2_reshard of a small model a third slower than fsdp2_noreshard at world 1.
    double fsdp2UnitCollectiveS = 9.4e-4; // torch fit
    // Host seconds per DeepSpeed ZeRO-3 module fetch or release: its pre-/post-forward hooks, the
    // partitioned-parameter coordinator's trace walk and one all-gather launch per module
    // (partitioned_param_coordinator.py). Stage 3 gathers every leaf module whose parameters exceed
    // stage3_param_persistence_threshold, twice per step.
    double deepspeedModuleFetchS = 1.5e-4;
    // Fraction of DeepSpeed ZeRO-3's per-module all-gather time hidden under compute by the
    // stage3_prefetch_bucket_size prefetch.
    double deepspeedGatherOverlap = 0.5;
    // CPU AdamW of the frameworks' offload paths (torch.optim.AdamW on CPU tensors for FSDP2's
    // CPUOffloadPolicy; DeepSpeed's DeepSpeedCPUAdam is vectorised and faster), parameters per second
    // per host on pure bf16 state.
    double torchCpuAdamParamsPerS = 1.04e9; // torch fit
    double deepspeedCpuAdamParamsPerS = 4.0e9;
    // How much longer that CPU step takes on an fp32 master (fp32 parameters, gradients and moments):
    // the torch backend's fsdp2_reshard_offload steps were 1.38-1.54 times longer at bf16-fp32-master
    // for Qwen2.5 0.5B-3B.
    double torchCpuAdamMasterFactor = 1.53; // torch fit
    // DeepSpeed's estimate_zero2/zero3_model_states_mem_needs multiply host memory by
    // additional_buffer_factor (1.5 by default): pinned staging and the CPU optimizer's buffers.
    double deepspeedHostBufferFactor = 1.5;
};

// The per-strategy member above for `s`.
double Calibration::*stepSPerParamMember(Strategy s);

nlohmann::json toJson(const Calibration& c);
// Missing fields keep their defaults; unknown fields and out-of-range values throw SpecError.
Calibration calibrationFromJson(const nlohmann::json& j, const std::string& path = "calibration");

} // namespace shardwise
