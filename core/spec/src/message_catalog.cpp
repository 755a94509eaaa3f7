// The English template of every message id the core emits (shardwise/spec/message.hpp). The desktop
// app keeps a translated template for each id (app/gui/shell/core_message_table.cpp); its tests fail
// when an id here has none there.
#include "shardwise/spec/message.hpp"

#include <array>

namespace shardwise {

namespace {

constexpr MessageTemplate t(std::string_view id, std::string_view english) { return MessageTemplate{id, english, {}, 0}; }

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
    t("plan.step1_decided", "Step 1 decided: %1 is the lightest sharding that fits in GPU memory with headroom."),
    t("plan.one_gpu",
                    "With one GPU there is nothing to shard across: every strategy holds the whole state, and sharding "
                    "only adds copies."),
    t("plan.step2_decided_framework", "Step 2 decided: no light sharding fits, so %1, %2's full shard, is chosen."),
    t("plan.step2_decided", "Step 2 decided: no light sharding fits, so full sharding is chosen by the interconnect (%1)."),
    t("plan.nvlink_fsdp2_faster",
                    "On NVLink the FSDP2-style full shard (fsdp2_reshard) was faster than ZeRO-3 in the reference benchmark."),
    t("plan.pcie_zero3_faster",
                    "On PCIe the ZeRO-3 style was faster in the reference benchmark, but only with the allocator's "
                    "expandable segments; measure both full shards on this hardware."),
    t("plan.rule_choice_does_not_fit", "%1, the rule's choice, does not fit (short by %2), so %3 is recommended."),
    t("plan.expandable_segments_on", "Expandable segments are on, as the ZeRO-3 style needed on PCIe in the reference."),
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
    t("plan.remedy_checkpointing", "With activation checkpointing %1 would fit, at about a third more compute per step."),
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
    // core/calibrate: where a calibration came from (StoredCalibration::source).
    t("calibrate.source_presets", "presets"),
    t("calibrate.source_probe", "probe of node %1"),
    MessageTemplate{"calibrate.source_runs", "%1 runs", "%1 run", 1},
    t("calibrate.source_probe_and_runs", "%1 + %2"),
};

} // namespace

std::span<const MessageTemplate> messageCatalog() { return kCatalog; }

} // namespace shardwise
