// Every core message id with its template for tr() (context "CoreMessage"). The English templates
// are the core's own (core/spec/src/message_catalog.cpp); a template whose count chooses the wording
// is translated with Qt's plural forms (%n). test_gui_core_messages fails when the core has an id
// this table lacks.
#include "shell/core_message_table.hpp"

#include <QtGlobal>

namespace shardwise::gui {

namespace {

const CoreMessageTemplate kTemplates[] = {
    { "plan.peak_exceeds_usable",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "predicted peak %1 (%2 allocated + %3 CUDA context and NCCL) exceeds the usable %4 (the GPU's "
                        "%5 less %6 headroom)"),
      false },
    { "plan.peak_within_usable",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "predicted peak %1 (%2 allocated + %3 CUDA context and NCCL) within the usable %4 (the GPU's "
                        "%5 less %6 headroom)"),
      false },
    { "plan.does_not_fit_device", QT_TRANSLATE_NOOP("CoreMessage", "%1 does not fit: %2 by %3."), false },
    { "plan.does_not_fit_host",
      QT_TRANSLATE_NOOP("CoreMessage", "%1 does not fit in host memory: it needs %2 per node, %3 over the %4 usable."),
      false },
    { "plan.fits", QT_TRANSLATE_NOOP("CoreMessage", "%1 fits: %2, %3 to spare; predicted %4, step %5, MFU %6."),
      false },
    { "plan.fits_with_host",
      QT_TRANSLATE_NOOP(
          "CoreMessage",
          "%1 fits: %2, %3 to spare; predicted %4, step %5, MFU %6. Host memory: %7 per node of %8 usable."),
      false },
    { "plan.framework_assumed",
      QT_TRANSLATE_NOOP(
          "CoreMessage",
          "Planned for %1 %2: precision %3, activation checkpointing %4%5; the figures are what the framework "
          "allocates and how fast it runs at its defaults (docs/formulas.md, \"Framework targets\")."),
      false },
    { "plan.checkpointing_off", QT_TRANSLATE_NOOP("CoreMessage", "off"), false },
    { "plan.compiled_layers", QT_TRANSLATE_NOOP("CoreMessage", ", torch.compile on each decoder layer"), false },
    { "plan.fits_natively_not_in_framework",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "%1 would fit with Shardwise's runner (predicted peak %2) but not in %3 at its defaults (%4)."),
      false },
    { "plan.deepspeed_fp32_master",
      QT_TRANSLATE_NOOP(
          "CoreMessage",
          "DeepSpeed %1 keeps fp32 master weights, fp32 Adam moments and an fp32 gradient partition in %2 "
          "whatever bf16.enabled says: pure bf16 is planned there as bf16 with an fp32 master."),
      false },
    { "plan.deepspeed_bf16_master_release",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "DeepSpeed %1 and later keep them in bf16 with bf16.bf16_master_weights_and_grads and "
                        "bf16_optimizer_states (stages 1-3 without offload): plan for such a release to count that."),
      false },
    { "plan.deepspeed_zero3_against_fsdp",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "ZeRO-3's speed against PyTorch FSDP's full shard is uncertain: the plan predicts it at %1 "
                        "fsdp2_reshard's tokens/s here, while published runs of one setup both ways range from %2 "
                        "(Granite 7B on 4 x A100, Hugging Face blog, 2024) to %3 (Falcon-7B on 8 x A100 40GB, "
                        "DeepSpeed issue 3901), both against FSDP1; DeepSpeed issue 5047 finds ZeRO-3 slower from "
                        "one all-gather per small module, without figures."),
      false },
    { "plan.step1_decided",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "Step 1 decided: %1 is the lightest sharding that fits in GPU memory with headroom."),
      false },
    { "plan.one_gpu",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "With one GPU there is nothing to shard across: every strategy holds the whole state, and "
                        "sharding only adds copies."),
      false },
    { "plan.step2_decided_framework",
      QT_TRANSLATE_NOOP("CoreMessage", "Step 2 decided: no light sharding fits, so %1, %2's full shard, is chosen."),
      false },
    { "plan.step2_decided",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "Step 2 decided: no light sharding fits, so full sharding is chosen by the interconnect (%1)."),
      false },
    { "plan.nvlink_fsdp2_faster",
      QT_TRANSLATE_NOOP(
          "CoreMessage",
          "On NVLink the FSDP2-style full shard (fsdp2_reshard) was faster than ZeRO-3 in the reference benchmark."),
      false },
    { "plan.pcie_zero3_faster",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "On PCIe the ZeRO-3 style was faster in the reference benchmark, but only with the allocator's "
                        "expandable segments; measure both full shards on this hardware."),
      false },
    { "plan.rule_choice_does_not_fit",
      QT_TRANSLATE_NOOP("CoreMessage", "%1, the rule's choice, does not fit (short by %2), so %3 is recommended."),
      false },
    { "plan.expandable_segments_on",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "Expandable segments are on, as the ZeRO-3 style needed on PCIe in the reference."),
      false },
    { "plan.expandable_segments_needed",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "Run it with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (--expandable-segments): in the "
                        "reference the ZeRO-3 style completed on PCIe only with it."),
      false },
    { "plan.network_bounds_full_shards",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "The rule reads the link inside a node; across the %1 nodes the network (%2 per node) bounds "
                        "both full shards' collectives."),
      false },
    { "plan.step3_decided",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "Step 3 decided: nothing fits without CPU offload, so %1, the lightest offload that fits, is "
                        "the last resort."),
      false },
    { "plan.offload_against",
      QT_TRANSLATE_NOOP(
          "CoreMessage",
          "Against %1, offload is predicted to cut the GPU peak by %2 and throughput by %3; in the reference benchmark "
          "CPU offload cut peak memory by roughly 40-65 % and throughput by roughly 3-9x."),
      false },
    { "plan.nothing_fits",
      QT_TRANSLATE_NOOP("CoreMessage", "No strategy fits on %1 x %2 with micro-batch %3 and sequence %4."), false },
    { "plan.closest", QT_TRANSLATE_NOOP("CoreMessage", "Closest: %1"), false },
    { "plan.no_remedy",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "Neither more GPUs, shorter sequences, a smaller micro-batch nor activation checkpointing "
                        "makes any strategy fit within the searched ranges; a GPU with more memory is needed."),
      false },
    { "plan.validate",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "Validate with a short run of the same model, precision, micro-batch, sequence length and GPU "
                        "count before a long run."),
      false },
    { "plan.remedy_checkpointing",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "With activation checkpointing %1 would fit, at about a third more compute per step."),
      false },
    { "plan.remedy_more_gpus", QT_TRANSLATE_NOOP("CoreMessage", "With %1 GPUs (%2 nodes of %3) %4 would fit."), false },
    { "plan.remedy_more_gpus_checkpointing",
      QT_TRANSLATE_NOOP("CoreMessage", "With %1 GPUs (%2 nodes of %3) and activation checkpointing %4 would fit."),
      false },
    { "plan.remedy_shorter_sequence", QT_TRANSLATE_NOOP("CoreMessage", "With sequences of %1 tokens %2 would fit."),
      false },
    { "plan.remedy_shorter_sequence_checkpointing",
      QT_TRANSLATE_NOOP("CoreMessage", "With sequences of %1 tokens and activation checkpointing %2 would fit."),
      false },
    { "plan.remedy_smaller_micro_batch",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "With micro-batch %1 %2 would fit (raise gradient accumulation to keep the global batch)."),
      false },
    { "plan.remedy_smaller_micro_batch_checkpointing",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "With micro-batch %1 and activation checkpointing %2 would fit (raise gradient accumulation to "
                        "keep the global batch)."),
      false },
    { "plan.faster_beyond_error",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "%1 is predicted %2 faster than %3 (%4 against %5), beyond the predictions' %6 error: %7. %8"),
      false },
    { "plan.kept_lightest",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "The decision order keeps the lightest that fits, as heavier sharding brought no evidence of a "
                        "speed-up in the reference benchmark; measure both."),
      false },
    { "plan.kept_decision_order",
      QT_TRANSLATE_NOOP("CoreMessage", "The recommendation stays the decision order's; measure both."), false },
    { "plan.also_fastest",
      QT_TRANSLATE_NOOP("CoreMessage", "%1 is also predicted the fastest that fits; next is %2 at %3 against %4."),
      false },
    { "plan.fastest_within_error",
      QT_TRANSLATE_NOOP(
          "CoreMessage",
          "The fastest other strategy that fits, %1, is predicted at %2 against %3 for %4 (%5 faster), within the "
          "predictions' %6 error; heavier sharding brought no evidence of a speed-up in the reference benchmark."),
      false },
    { "plan.cause_shards_optimizer",
      QT_TRANSLATE_NOOP("CoreMessage", "it shards the optimizer step across the %1 GPUs, %2 per step against %3"),
      false },
    { "plan.cause_optimizer", QT_TRANSLATE_NOOP("CoreMessage", "its optimizer step takes %1 against %2"), false },
    { "plan.cause_communication",
      QT_TRANSLATE_NOOP("CoreMessage", "less of its communication is left exposed, %1 per step against %2"), false },
    { "plan.cause_overhead",
      QT_TRANSLATE_NOOP("CoreMessage", "its per-parameter step overhead (flat-buffer copies, casts) is %1 against %2"),
      false },
    { "plan.cause_compute", QT_TRANSLATE_NOOP("CoreMessage", "its forward and backward take %1 per step against %2"),
      false },
    { "plan.cause_offload_copies",
      QT_TRANSLATE_NOOP("CoreMessage", "its exposed host copies take %1 per step against %2"), false },
    { "plan.cause_cpu_optimizer",
      QT_TRANSLATE_NOOP("CoreMessage", "its CPU optimizer step adds %1 to a step against %2"), false },
    { "calibrate.source_presets", QT_TRANSLATE_NOOP("CoreMessage", "presets"), false },
    { "calibrate.source_probe", QT_TRANSLATE_NOOP("CoreMessage", "probe of node %1"), false },
    { "calibrate.source_probe_and_runs", QT_TRANSLATE_NOOP("CoreMessage", "%1 + %2"), false },
    { "list.semicolon", QT_TRANSLATE_NOOP("CoreMessage", "%1; %2"), false },
    { "diagnose.when", QT_TRANSLATE_NOOP("CoreMessage", " at %1"), false },
    { "diagnose.when_inherited", QT_TRANSLATE_NOOP("CoreMessage", " at %1 (time of the nearest logged line)"), false },
    { "diagnose.when_offset",
      QT_TRANSLATE_NOOP("CoreMessage", " at %1 (%2's clock, offset %3; %4 on the reference clock)"), false },
    { "diagnose.when_offset_inherited",
      QT_TRANSLATE_NOOP("CoreMessage",
                        " at %1 (%2's clock, offset %3; %4 on the reference clock) (time of the nearest logged line)"),
      false },
    { "diagnose.the_node", QT_TRANSLATE_NOOP("CoreMessage", "the node"), false },
    { "diagnose.the_program", QT_TRANSLATE_NOOP("CoreMessage", "the program"), false },
    { "diagnose.rank", QT_TRANSLATE_NOOP("CoreMessage", "rank %1"), false },
    { "diagnose.rank_on", QT_TRANSLATE_NOOP("CoreMessage", "rank %1 on %2"), false },
    { "diagnose.the_launcher", QT_TRANSLATE_NOOP("CoreMessage", "the launcher"), false },
    { "diagnose.the_launcher_on", QT_TRANSLATE_NOOP("CoreMessage", "the launcher on %1"), false },
    { "diagnose.clean_exit_zero", QT_TRANSLATE_NOOP("CoreMessage", "Every rank with a known exit code exited 0."),
      false },
    { "diagnose.clean_unconfirmed",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "No exit codes or run summaries were given, so completion itself is not confirmed."),
      false },
    { "diagnose.first_failure", QT_TRANSLATE_NOOP("CoreMessage", "The first failure: %1 — %2%3."), false },
    { "diagnose.oom_host",
      QT_TRANSLATE_NOOP("CoreMessage", "Host memory ran out, not GPU memory: CPU offload and data loading live there."),
      false },
    { "diagnose.oom_tried", QT_TRANSLATE_NOOP("CoreMessage", "It tried to allocate %1."), false },
    { "diagnose.oom_tried_free", QT_TRANSLATE_NOOP("CoreMessage", "It tried to allocate %1 with %2 free."), false },
    { "diagnose.oom_tried_of_total", QT_TRANSLATE_NOOP("CoreMessage", "It tried to allocate %1 of %2."), false },
    { "diagnose.oom_tried_free_of_total",
      QT_TRANSLATE_NOOP("CoreMessage", "It tried to allocate %1 with %2 free of %3."), false },
    { "diagnose.oom_fragmented",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "%1 was reserved by PyTorch but unallocated — more than the failed request, so fragmentation "
                        "of the caching allocator is likely."),
      false },
    { "diagnose.oom_not_fragmented",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "%1 was reserved by PyTorch but unallocated, less than the request: this is not fragmentation, "
                        "the model state does not fit."),
      false },
    { "diagnose.oom_expandable_already_on",
      QT_TRANSLATE_NOOP("CoreMessage", "Expandable segments were already on, so the allocator flag will not help."),
      false },
    { "diagnose.lost_last_line", QT_TRANSLATE_NOOP("CoreMessage", "Its last line (%1:%2) was: \"%3\"."), false },
    { "diagnose.launcher_rejected",
      QT_TRANSLATE_NOOP("CoreMessage", "%1 stopped at start-up because its argument parser rejected \"%2\"."), false },
    { "diagnose.rendezvous_never_met",
      QT_TRANSLATE_NOOP("CoreMessage", "The ranks never met, so no training step ran."), false },
    { "diagnose.symptoms_only",
      QT_TRANSLATE_NOOP("CoreMessage", "No primary failure was found: only symptoms (%1 on ranks %2)."), false },
    { "diagnose.symptoms_follow",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "These follow a failure or a hang elsewhere; the cause left no error in these records."),
      false },
    { "diagnose.seq_on_ranks", QT_TRANSLATE_NOOP("CoreMessage", "SeqNum %1 on ranks %2"), false },
    { "diagnose.out_of_step",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "The ranks timed out in different collectives (%1): they are out of step, e.g. a "
                        "data-dependent branch skipped a collective on some ranks."),
      false },
    { "diagnose.silent_ranks",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "Ranks %1 reported neither the hang nor an error of their own: look at them first."),
      false },
    { "diagnose.kind_on_ranks", QT_TRANSLATE_NOOP("CoreMessage", "%1 on ranks %2"), false },
    { "diagnose.first_of_failures", QT_TRANSLATE_NOOP("CoreMessage", "It is the first of %1 failures across the run."),
      false },
    { "diagnose.first_of_failures_symptoms",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "It is the first of %1 failures across the run; the symptoms that followed (%2) are "
                        "consequences of it, not causes."),
      false },
    { "diagnose.action_check_host_memory",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "Check host memory on %1: offloaded optimizer state and parameters live there; use fewer ranks "
                        "per node or nodes with more RAM."),
      false },
    { "diagnose.action_rerun_expandable",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "Rerun once with %1 as a diagnostic: if it then fits, fragmentation was the problem and memory "
                        "is still tight; if it still runs out of memory, the flag is not the fix."),
      false },
    { "diagnose.alloc_conf_either",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PYTORCH_ALLOC_CONF in newer PyTorch)"),
      false },
    { "diagnose.action_shard_deeper", QT_TRANSLATE_NOOP("CoreMessage", "Shard deeper: %1 → %2 (%3)"), false },
    { "diagnose.action_offload",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "If the deepest sharding still does not fit, offload to the CPU: %1 (cut peak GPU memory by "
                        "roughly 40–65% and throughput by roughly 3–9x in the reference benchmark)."),
      false },
    { "diagnose.action_already_offloads",
      QT_TRANSLATE_NOOP(
          "CoreMessage",
          "%1 already offloads to the CPU: use more GPUs, a smaller micro-batch or a shorter sequence length."),
      false },
    { "diagnose.action_shard_deeper_any",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "Shard deeper: the next ZeRO stage (zero1 → zero2 → zero3) or FSDP2 with "
                        "reshard_after_forward=True (fsdp2_reshard)."),
      false },
    { "diagnose.action_offload_any",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "If the deepest sharding still does not fit, offload to the CPU (zero2_offload, zero3_offload "
                        "or fsdp2_reshard_offload), at a large cost in throughput."),
      false },
    { "diagnose.action_inspect_stopped_rank",
      QT_TRANSLATE_NOOP(
          "CoreMessage",
          "%1 stopped emitting events while its peers waited for it in a collective: it was stopped (SIGSTOP, Ctrl-Z, "
          "a debugger), stuck (in I/O, data loading, a deadlock) or its node froze; the peers' timeouts are the "
          "consequence, not a network fault. While it hangs, `ps -o stat= -p <pid>` (T = stopped, D = waiting on I/O) "
          "and `py-spy dump --pid <pid>` / `gdb -p <pid>` show where it is."),
      false },
    { "diagnose.action_dispatcher_lost",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "The dispatcher lost %1: check whether it is up (reboot, preemption, network partition) before "
                        "rerunning; its kernel log and the cloud's preemption and maintenance events say why."),
      false },
    { "diagnose.action_host_oom_killer",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "The kernel's OOM killer ended it: host memory on %1 ran out. CPU offload, pinned buffers and "
                        "data-loader workers use host memory: reduce them or use a node with more RAM."),
      false },
    { "diagnose.action_sigkill",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "SIGKILL (exit code 137) is what the kernel's OOM killer, a preemption or maintenance event, "
                        "or an operator's kill -9 look like: on %1 look at `journalctl -k` / `dmesg -T` for \"Out of "
                        "memory: Killed process\", and at the cloud's preemption and maintenance events."),
      false },
    { "diagnose.action_remove_use_env",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "torchrun always passes the local rank in the LOCAL_RANK environment variable and has no "
                        "--use_env option: remove --use_env / --use-env from the command line."),
      false },
    { "diagnose.action_local_rank",
      QT_TRANSLATE_NOOP(
          "CoreMessage",
          "The launcher appended %1. Either accept it in the script (argparse: parser.add_argument(\"--local-rank\", "
          "\"--local_rank\", type=int, default=int(os.environ.get(\"LOCAL_RANK\", 0)))), or stop the launcher from "
          "passing it: torchrun never passes it and sets LOCAL_RANK instead; python -m torch.distributed.launch stops "
          "with --use-env (--use_env before PyTorch 2.0); DeepSpeed's launcher stops with --no_local_rank."),
      false },
    { "diagnose.action_fix_arguments",
      QT_TRANSLATE_NOOP("CoreMessage", "Remove \"%1\" from the command line or add it to %2's argument parser."),
      false },
    { "diagnose.action_check_rendezvous",
      QT_TRANSLATE_NOOP(
          "CoreMessage",
          "Check that MASTER_ADDR:MASTER_PORT is reachable from every node (firewall, the address of the right "
          "interface), that every node was started, and that all use the same port and world size."),
      false },
    { "diagnose.action_nccl_debug",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "Rerun with NCCL_DEBUG=INFO to see the failing call. Common causes: the wrong network "
                        "interface (set NCCL_SOCKET_IFNAME), a firewall between the nodes, too little /dev/shm in a "
                        "container (test with NCCL_SHM_DISABLE=1), InfiniBand set-up (test with NCCL_IB_DISABLE=1), "
                        "different NCCL versions on the nodes."),
      false },
    { "diagnose.action_inspect_silent_ranks",
      QT_TRANSLATE_NOOP(
          "CoreMessage",
          "Look at ranks %1 first: they never reported the hang, so they are the likely culprits (stuck in another "
          "collective, in data loading or I/O, or gone without a trace); check their nodes for killed processes."),
      false },
    { "diagnose.action_collect_evidence",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "Rerun with NCCL_DEBUG=INFO, TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and "
                        "TORCH_NCCL_DUMP_ON_TIMEOUT=1 (PyTorch's NCCL flight recorder) and TORCH_NCCL_DESYNC_DEBUG=1; "
                        "while it hangs, `py-spy dump --pid <pid>` on every rank shows where each one waits."),
      false },
    { "diagnose.action_fix_config", QT_TRANSLATE_NOOP("CoreMessage", "Fix the run configuration and rerun: %1"),
      false },
    { "diagnose.action_read_log", QT_TRANSLATE_NOOP("CoreMessage", "Read %1's error in full."), false },
    { "diagnose.action_read_log_at", QT_TRANSLATE_NOOP("CoreMessage", "Read %1's error in full (%2)."), false },
    { "diagnose.clean", QT_TRANSLATE_N_NOOP("CoreMessage", "No failure was recognised in %n record(s)."), true },
    { "diagnose.clean_summaries", QT_TRANSLATE_N_NOOP("CoreMessage", "%n rank(s) reported a run summary."), true },
    { "diagnose.note_no_times",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "No failure carries a time; the root cause is chosen by kind (a failure that needs no other "
                        "failure to happen comes first), not by order."),
      false },
    { "diagnose.note_symptom_came_first",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "The %1 on %2 happened %3 before the first primary failure (%4), more than the clock "
                        "uncertainty of %5, so that failure cannot have caused it."),
      false },
    { "diagnose.note_give_clock_offsets",
      QT_TRANSLATE_NOOP(
          "CoreMessage",
          "Other primary failures lie within the clock uncertainty of the root cause; give the nodes' clock offsets "
          "(meta.json \"nodes\": {\"<node>\": {\"clock_offset_s\": ...}}) to order them for certain."),
      false },
    { "diagnose.note_independent_preferred",
      QT_TRANSLATE_NOOP("CoreMessage",
                        "The earliest-looking primary failure (%1, %2) is of a kind that a failure elsewhere often "
                        "provokes, and another primary failure lies within the clock uncertainty; the failure that "
                        "needs no other failure to happen was preferred."),
      false },
    { "diagnose.note_untimed_primaries",
      QT_TRANSLATE_N_NOOP("CoreMessage",
                          "%n primary failure(s) carry no time and could not be ordered against the root cause."),
      true },
    { "calibrate.source_runs", QT_TRANSLATE_N_NOOP("CoreMessage", "%n run(s)"), true },
};

} // namespace

std::span<const CoreMessageTemplate> coreMessageTemplates()
{
    return kTemplates;
}

} // namespace shardwise::gui
