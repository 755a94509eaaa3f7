// The English template of every message id the core emits (shardwise/spec/message.hpp). The desktop
// app keeps a translated template for each id (app/gui/shell/core_message_table.cpp); its tests fail
// when an id here has none there.
#include "shardwise/spec/message.hpp"

#include <array>

namespace shardwise {

namespace {

constexpr MessageTemplate t(std::string_view id, std::string_view english)
{
    return MessageTemplate { id, english, {}, 0 };
}

constexpr std::array kCatalog = {
    // core/plan: the recommendation's reasons (docs/formulas.md, "Decision order").
    t("plan.peak_exceeds_usable",
      "predicted peak %1 (%2 allocated + %3 CUDA context and NCCL) exceeds the usable %4 (the GPU's %5 "
      "less %6 headroom)"),
    t("plan.peak_within_usable",
      "predicted peak %1 (%2 allocated + %3 CUDA context and NCCL) within the usable %4 (the GPU's %5 "
      "less %6 headroom)"),
    t("plan.does_not_fit_device", "%1 does not fit: %2 by %3."),
    t("plan.does_not_fit_host", "%1 does not fit in host memory: it needs %2 per node, %3 over the %4 usable."),
    t("plan.fits", "%1 fits: %2, %3 to spare; predicted %4, step %5, MFU %6."),
    t("plan.fits_with_host",
      "%1 fits: %2, %3 to spare; predicted %4, step %5, MFU %6. Host memory: %7 per node of %8 usable."),
    t("plan.framework_assumed",
      "Planned for %1 %2: precision %3, activation checkpointing %4%5; the figures are what the framework "
      "allocates and how fast it runs at its defaults (docs/formulas.md, \"Framework targets\")."),
    t("plan.checkpointing_off", "off"),
    t("plan.compiled_layers", ", torch.compile on each decoder layer"),
    t("plan.fits_natively_not_in_framework",
      "%1 would fit with Shardwise's runner (predicted peak %2) but not in %3 at its defaults (%4)."),
    t("plan.deepspeed_fp32_master",
      "DeepSpeed %1 keeps fp32 master weights, fp32 Adam moments and an fp32 gradient partition in %2 "
      "whatever bf16.enabled says: pure bf16 is planned there as bf16 with an fp32 master."),
    t("plan.deepspeed_bf16_master_release",
      "DeepSpeed %1 and later keep them in bf16 with bf16.bf16_master_weights_and_grads and "
      "bf16_optimizer_states (stages 1-3 without offload): plan for such a release to count that."),
    t("plan.deepspeed_zero3_against_fsdp",
      "ZeRO-3's speed against PyTorch FSDP's full shard is uncertain: the plan predicts it at %1 "
      "fsdp2_reshard's tokens/s here, while published runs of one setup both ways range from %2 "
      "(Granite 7B on 4 x A100, Hugging Face blog, 2024) to %3 (Falcon-7B on 8 x A100 40GB, DeepSpeed "
      "issue 3901), both against FSDP1; DeepSpeed issue 5047 finds ZeRO-3 slower from one all-gather per "
      "small module, without figures."),
    t("plan.step1_decided", "Step 1 decided: %1 is the lightest sharding that fits in GPU memory with headroom."),
    t("plan.one_gpu",
      "With one GPU there is nothing to shard across: every strategy holds the whole state, and sharding "
      "only adds copies."),
    t("plan.step2_decided_framework", "Step 2 decided: no light sharding fits, so %1, %2's full shard, is chosen."),
    t("plan.step2_decided",
      "Step 2 decided: no light sharding fits, so full sharding is chosen by the interconnect (%1)."),
    t("plan.nvlink_fsdp2_faster",
      "On NVLink the FSDP2-style full shard (fsdp2_reshard) was faster than ZeRO-3 in the reference benchmark."),
    t("plan.pcie_zero3_faster",
      "On PCIe the ZeRO-3 style was faster in the reference benchmark, but only with the allocator's "
      "expandable segments; measure both full shards on this hardware."),
    t("plan.rule_choice_does_not_fit", "%1, the rule's choice, does not fit (short by %2), so %3 is recommended."),
    t("plan.expandable_segments_on",
      "Expandable segments are on, as the ZeRO-3 style needed on PCIe in the reference."),
    t("plan.expandable_segments_needed",
      "Run it with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (--expandable-segments): in the "
      "reference the ZeRO-3 style completed on PCIe only with it."),
    t("plan.network_bounds_full_shards",
      "The rule reads the link inside a node; across the %1 nodes the network (%2 per node) bounds both "
      "full shards' collectives."),
    t("plan.step3_decided",
      "Step 3 decided: nothing fits without CPU offload, so %1, the lightest offload that fits, is the last resort."),
    t("plan.offload_against",
      "Against %1, offload is predicted to cut the GPU peak by %2 and throughput by %3; in the reference "
      "benchmark CPU offload cut peak memory by roughly 40-65 % and throughput by roughly 3-9x."),
    t("plan.nothing_fits", "No strategy fits on %1 x %2 with micro-batch %3 and sequence %4."),
    t("plan.closest", "Closest: %1"),
    t("plan.no_remedy",
      "Neither more GPUs, shorter sequences, a smaller micro-batch nor activation checkpointing makes any "
      "strategy fit within the searched ranges; a GPU with more memory is needed."),
    t("plan.validate",
      "Validate with a short run of the same model, precision, micro-batch, sequence length and GPU count "
      "before a long run."),
    t("plan.remedy_checkpointing",
      "With activation checkpointing %1 would fit, at about a third more compute per step."),
    t("plan.remedy_more_gpus", "With %1 GPUs (%2 nodes of %3) %4 would fit."),
    t("plan.remedy_more_gpus_checkpointing",
      "With %1 GPUs (%2 nodes of %3) and activation checkpointing %4 would fit."),
    t("plan.remedy_shorter_sequence", "With sequences of %1 tokens %2 would fit."),
    t("plan.remedy_shorter_sequence_checkpointing",
      "With sequences of %1 tokens and activation checkpointing %2 would fit."),
    t("plan.remedy_smaller_micro_batch",
      "With micro-batch %1 %2 would fit (raise gradient accumulation to keep the global batch)."),
    t("plan.remedy_smaller_micro_batch_checkpointing",
      "With micro-batch %1 and activation checkpointing %2 would fit (raise gradient accumulation to keep "
      "the global batch)."),
    t("plan.faster_beyond_error",
      "%1 is predicted %2 faster than %3 (%4 against %5), beyond the predictions' %6 error: %7. %8"),
    t("plan.kept_lightest",
      "The decision order keeps the lightest that fits, as heavier sharding brought no evidence of a "
      "speed-up in the reference benchmark; measure both."),
    t("plan.kept_decision_order", "The recommendation stays the decision order's; measure both."),
    t("plan.also_fastest", "%1 is also predicted the fastest that fits; next is %2 at %3 against %4."),
    t("plan.fastest_within_error",
      "The fastest other strategy that fits, %1, is predicted at %2 against %3 for %4 (%5 faster), within "
      "the predictions' %6 error; heavier sharding brought no evidence of a speed-up in the reference "
      "benchmark."),
    t("plan.cause_shards_optimizer", "it shards the optimizer step across the %1 GPUs, %2 per step against %3"),
    t("plan.cause_optimizer", "its optimizer step takes %1 against %2"),
    t("plan.cause_communication", "less of its communication is left exposed, %1 per step against %2"),
    t("plan.cause_overhead", "its per-parameter step overhead (flat-buffer copies, casts) is %1 against %2"),
    t("plan.cause_compute", "its forward and backward take %1 per step against %2"),
    t("plan.cause_offload_copies", "its exposed host copies take %1 per step against %2"),
    t("plan.cause_cpu_optimizer", "its CPU optimizer step adds %1 to a step against %2"),
    // core/diagnose: the explanation of a diagnosis and its next steps (docs/diagnosis.md).
    t("list.semicolon", "%1; %2"),
    t("diagnose.when", " at %1"),
    t("diagnose.when_inherited", " at %1 (time of the nearest logged line)"),
    t("diagnose.when_offset", " at %1 (%2's clock, offset %3; %4 on the reference clock)"),
    t("diagnose.when_offset_inherited",
      " at %1 (%2's clock, offset %3; %4 on the reference clock) (time of the nearest logged line)"),
    t("diagnose.the_node", "the node"),
    t("diagnose.the_program", "the program"),
    t("diagnose.rank", "rank %1"),
    t("diagnose.rank_on", "rank %1 on %2"),
    t("diagnose.the_launcher", "the launcher"),
    t("diagnose.the_launcher_on", "the launcher on %1"),
    t("diagnose.clean_exit_zero", "Every rank with a known exit code exited 0."),
    t("diagnose.clean_unconfirmed",
      "No exit codes or run summaries were given, so completion itself is not confirmed."),
    t("diagnose.first_failure", "The first failure: %1 — %2%3."),
    t("diagnose.oom_host", "Host memory ran out, not GPU memory: CPU offload and data loading live there."),
    t("diagnose.oom_tried", "It tried to allocate %1."),
    t("diagnose.oom_tried_free", "It tried to allocate %1 with %2 free."),
    t("diagnose.oom_tried_of_total", "It tried to allocate %1 of %2."),
    t("diagnose.oom_tried_free_of_total", "It tried to allocate %1 with %2 free of %3."),
    t("diagnose.oom_fragmented",
      "%1 was reserved by PyTorch but unallocated — more than the failed request, so fragmentation of the caching "
      "allocator is likely."),
    t("diagnose.oom_not_fragmented",
      "%1 was reserved by PyTorch but unallocated, less than the request: this is not fragmentation, the model state "
      "does not fit."),
    t("diagnose.oom_expandable_already_on",
      "Expandable segments were already on, so the allocator flag will not help."),
    t("diagnose.lost_last_line", "Its last line (%1:%2) was: \"%3\"."),
    t("diagnose.launcher_rejected", "%1 stopped at start-up because its argument parser rejected \"%2\"."),
    t("diagnose.rendezvous_never_met", "The ranks never met, so no training step ran."),
    t("diagnose.symptoms_only", "No primary failure was found: only symptoms (%1 on ranks %2)."),
    t("diagnose.symptoms_follow",
      "These follow a failure or a hang elsewhere; the cause left no error in these records."),
    t("diagnose.seq_on_ranks", "SeqNum %1 on ranks %2"),
    t("diagnose.out_of_step",
      "The ranks timed out in different collectives (%1): they are out of step, e.g. a data-dependent branch skipped a "
      "collective on some ranks."),
    t("diagnose.silent_ranks", "Ranks %1 reported neither the hang nor an error of their own: look at them first."),
    t("diagnose.kind_on_ranks", "%1 on ranks %2"),
    t("diagnose.first_of_failures", "It is the first of %1 failures across the run."),
    t("diagnose.first_of_failures_symptoms",
      "It is the first of %1 failures across the run; the symptoms that followed (%2) are consequences of it, not "
      "causes."),
    t("diagnose.action_check_host_memory",
      "Check host memory on %1: offloaded optimizer state and parameters live there; use fewer ranks per node or nodes "
      "with more RAM."),
    t("diagnose.action_rerun_expandable",
      "Rerun once with %1 as a diagnostic: if it then fits, fragmentation was the problem and memory is still tight; "
      "if it still runs out of memory, the flag is not the fix."),
    t("diagnose.alloc_conf_either",
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PYTORCH_ALLOC_CONF in newer PyTorch)"),
    t("diagnose.action_shard_deeper", "Shard deeper: %1 → %2 (%3)"),
    t("diagnose.action_offload",
      "If the deepest sharding still does not fit, offload to the CPU: %1 (cut peak GPU memory by roughly 40–65% and "
      "throughput by roughly 3–9x in the reference benchmark)."),
    t("diagnose.action_already_offloads",
      "%1 already offloads to the CPU: use more GPUs, a smaller micro-batch or a shorter sequence length."),
    t("diagnose.action_shard_deeper_any",
      "Shard deeper: the next ZeRO stage (zero1 → zero2 → zero3) or FSDP2 with reshard_after_forward=True "
      "(fsdp2_reshard)."),
    t("diagnose.action_offload_any",
      "If the deepest sharding still does not fit, offload to the CPU (zero2_offload, zero3_offload or "
      "fsdp2_reshard_offload), at a large cost in throughput."),
    t("diagnose.action_inspect_stopped_rank",
      "%1 stopped emitting events while its peers waited for it in a collective: it was stopped (SIGSTOP, Ctrl-Z, a "
      "debugger), stuck (in I/O, data loading, a deadlock) or its node froze; the peers' timeouts are the consequence, "
      "not a network fault. While it hangs, `ps -o stat= -p <pid>` (T = stopped, D = waiting on I/O) and `py-spy dump "
      "--pid <pid>` / `gdb -p <pid>` show where it is."),
    t("diagnose.action_dispatcher_lost",
      "The dispatcher lost %1: check whether it is up (reboot, preemption, network partition) before rerunning; its "
      "kernel log and the cloud's preemption and maintenance events say why."),
    t("diagnose.action_host_oom_killer",
      "The kernel's OOM killer ended it: host memory on %1 ran out. CPU offload, pinned buffers and data-loader "
      "workers use host memory: reduce them or use a node with more RAM."),
    t("diagnose.action_sigkill",
      "SIGKILL (exit code 137) is what the kernel's OOM killer, a preemption or maintenance event, or an operator's "
      "kill -9 look like: on %1 look at `journalctl -k` / `dmesg -T` for \"Out of memory: Killed process\", and at the "
      "cloud's preemption and maintenance events."),
    t("diagnose.action_remove_use_env",
      "torchrun always passes the local rank in the LOCAL_RANK environment variable and has no --use_env option: "
      "remove --use_env / --use-env from the command line."),
    t("diagnose.action_local_rank",
      "The launcher appended %1. Either accept it in the script (argparse: parser.add_argument(\"--local-rank\", "
      "\"--local_rank\", type=int, default=int(os.environ.get(\"LOCAL_RANK\", 0)))), or stop the launcher from passing "
      "it: torchrun never passes it and sets LOCAL_RANK instead; python -m torch.distributed.launch stops with "
      "--use-env (--use_env before PyTorch 2.0); DeepSpeed's launcher stops with --no_local_rank."),
    t("diagnose.action_fix_arguments", "Remove \"%1\" from the command line or add it to %2's argument parser."),
    t("diagnose.action_check_rendezvous",
      "Check that MASTER_ADDR:MASTER_PORT is reachable from every node (firewall, the address of the right interface), "
      "that every node was started, and that all use the same port and world size."),
    t("diagnose.action_nccl_debug",
      "Rerun with NCCL_DEBUG=INFO to see the failing call. Common causes: the wrong network interface (set "
      "NCCL_SOCKET_IFNAME), a firewall between the nodes, too little /dev/shm in a container (test with "
      "NCCL_SHM_DISABLE=1), InfiniBand set-up (test with NCCL_IB_DISABLE=1), different NCCL versions on the nodes."),
    t("diagnose.action_inspect_silent_ranks",
      "Look at ranks %1 first: they never reported the hang, so they are the likely culprits (stuck in another "
      "collective, in data loading or I/O, or gone without a trace); check their nodes for killed processes."),
    t("diagnose.action_collect_evidence",
      "Rerun with NCCL_DEBUG=INFO, TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and TORCH_NCCL_DUMP_ON_TIMEOUT=1 (PyTorch's NCCL "
      "flight recorder) and TORCH_NCCL_DESYNC_DEBUG=1; while it hangs, `py-spy dump --pid <pid>` on every rank shows "
      "where each one waits."),
    t("diagnose.action_fix_config", "Fix the run configuration and rerun: %1"),
    t("diagnose.action_read_log", "Read %1's error in full."),
    t("diagnose.action_read_log_at", "Read %1's error in full (%2)."),
    MessageTemplate { "diagnose.clean", "No failure was recognised in %1 records.",
                      "No failure was recognised in %1 record.", 1 },
    MessageTemplate { "diagnose.clean_summaries", "%1 ranks reported a run summary.", "%1 rank reported a run summary.",
                      1 },
    t("diagnose.note_no_times",
      "No failure carries a time; the root cause is chosen by kind (a failure that needs no other failure to happen "
      "comes first), not by order."),
    t("diagnose.note_symptom_came_first",
      "The %1 on %2 happened %3 before the first primary failure (%4), more than the clock uncertainty of %5, so that "
      "failure cannot have caused it."),
    t("diagnose.note_give_clock_offsets",
      "Other primary failures lie within the clock uncertainty of the root cause; give the nodes' clock offsets "
      "(meta.json \"nodes\": {\"<node>\": {\"clock_offset_s\": ...}}) to order them for certain."),
    t("diagnose.note_independent_preferred",
      "The earliest-looking primary failure (%1, %2) is of a kind that a failure elsewhere often provokes, and another "
      "primary failure lies within the clock uncertainty; the failure that needs no other failure to happen was "
      "preferred."),
    MessageTemplate { "diagnose.note_untimed_primaries",
                      "%1 primary failures carry no time and could not be ordered against the root cause.",
                      "%1 primary failure carries no time and could not be ordered against the root cause.", 1 },
    // core/calibrate: where a calibration came from (StoredCalibration::source).
    t("calibrate.source_presets", "presets"),
    t("calibrate.source_probe", "probe of node %1"),
    MessageTemplate { "calibrate.source_runs", "%1 runs", "%1 run", 1 },
    t("calibrate.source_probe_and_runs", "%1 + %2"),
};

} // namespace

std::span<const MessageTemplate> messageCatalog()
{
    return kCatalog;
}

} // namespace shardwise
