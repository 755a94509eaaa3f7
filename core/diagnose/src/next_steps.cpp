// The plain-sentence verdict and the suggested next steps. The advice follows the decision order
// (docs/formulas.md): the allocator flag is a diagnostic for fragmentation, not a cure; deeper
// sharding and then CPU offload are the cures for a model that does not fit.
#include "diagnosis_internal.hpp"

#include "shardwise/diagnose/log_time.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace shardwise::diagnose::detail {

namespace {

std::string rankList(const std::set<int>& ranks)
{
    std::string out;
    for (int r : ranks)
        out += (out.empty() ? "" : ", ") + std::to_string(r);
    return out;
}

std::string when(const Failure& f, const RunFacts& run)
{
    if (f.loggedTime.empty())
        return "";
    std::string s = " at " + f.loggedTime;
    if (auto it = run.nodeOffsets.find(f.node);
        it != run.nodeOffsets.end() && it->second != 0 && f.timeSource != TimeSource::Meta && f.time) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%+.0f s", it->second);
        s += " (" + f.node + "'s clock, offset " + buf + "; " + formatUtc(*f.time) + " on the reference clock)";
    }
    if (f.timeSource == TimeSource::Inherited)
        s += " (time of the nearest logged line)";
    return s;
}

std::optional<Strategy> deeperThan(Strategy s)
{
    switch (s) {
    case Strategy::Zero0: return Strategy::Zero1;
    case Strategy::Zero1: return Strategy::Zero2;
    case Strategy::Zero2: return Strategy::Zero3;
    case Strategy::Zero2Offload: return Strategy::Zero3Offload; // offload kept, parameters sharded too
    case Strategy::Fsdp2NoReshard: return Strategy::Fsdp2Reshard;
    default: return std::nullopt;
    }
}

std::optional<Strategy> offloadFor(Strategy s)
{
    if (traits(s).offloadsOptimizer)
        return std::nullopt;
    return traits(s).family == StrategyFamily::Fsdp2 ? Strategy::Fsdp2ReshardOffload : Strategy::Zero3Offload;
}

std::int64_t fact(const Failure& f, const char* key)
{
    return f.facts.contains(key) && f.facts[key].is_number_integer() ? f.facts[key].get<std::int64_t>() : -1;
}

void explainOutOfMemory(Failure& f, Diagnosis& d, const RunFacts& run, std::string& text)
{
    if (f.facts.value("device", std::string()) == "cpu") {
        text += " Host memory ran out, not GPU memory: CPU offload and data loading live there.";
        d.actions.push_back({ActionKind::CheckNode, std::nullopt, f.node, {},
                             "Check host memory on " + (f.node.empty() ? std::string("the node") : f.node)
                                 + ": offloaded optimizer state and parameters live there; use fewer ranks per node or "
                                   "nodes with more RAM."});
        return;
    }
    const std::int64_t tried = fact(f, "tried_to_allocate_bytes");
    const std::int64_t freeBytes = fact(f, "free_bytes");
    const std::int64_t total = fact(f, "total_capacity_bytes");
    const std::int64_t fragment = fact(f, "reserved_unallocated_bytes");
    if (tried >= 0) {
        text += " It tried to allocate " + bytesText(tried);
        if (freeBytes >= 0)
            text += " with " + bytesText(freeBytes) + " free";
        if (total > 0)
            text += " of " + bytesText(total);
        text += ".";
    }
    // PyTorch's own hint: when reserved-but-unallocated memory could have served the request, the cache
    // is fragmented and expandable segments let the allocator grow segments instead of splitting them.
    const bool fragmented = fragment > 0 && (tried < 0 || fragment >= tried);
    f.facts["fragmentation_suspected"] = fragmented;
    const bool alreadyExpandable = run.expandableSegments;
    if (fragment > 0)
        text += " " + bytesText(fragment) + " was reserved by PyTorch but unallocated"
            + (fragmented ? std::string(" — more than the failed request, so fragmentation of the caching allocator is likely.")
                          : std::string(", less than the request: this is not fragmentation, the model state does not fit."));
    if (fragmented && alreadyExpandable)
        text += " Expandable segments were already on, so the allocator flag will not help.";
    if (fragmented && !alreadyExpandable) {
        const std::string var = f.facts.value("alloc_conf_variable", std::string());
        const std::string setting = var.empty()
            ? "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PYTORCH_ALLOC_CONF in newer PyTorch)"
            : var + "=expandable_segments:True";
        d.actions.push_back({ActionKind::RerunWithExpandableSegments, std::nullopt, "", {f.rank},
                             "Rerun once with " + setting
                                 + " as a diagnostic: if it then fits, fragmentation was the problem and memory is "
                                   "still tight; if it still runs out of memory, the flag is not the fix."});
    }
    if (run.strategy) {
        if (auto deeper = deeperThan(*run.strategy))
            d.actions.push_back({ActionKind::DeeperSharding, deeper, "", {},
                                 "Shard deeper: " + std::string(strategyId(*run.strategy)) + " → "
                                     + std::string(strategyId(*deeper)) + " (" + std::string(traits(*deeper).summary) + ")"});
        if (auto off = offloadFor(*run.strategy))
            d.actions.push_back({ActionKind::Offload, off, "", {},
                                 "If the deepest sharding still does not fit, offload to the CPU: "
                                     + std::string(strategyId(*off))
                                     + " (cut peak GPU memory by roughly 40–65% and throughput by roughly 3–9x in the "
                                       "reference benchmark)."});
        else
            d.actions.push_back({ActionKind::Offload, std::nullopt, "", {},
                                 std::string(strategyId(*run.strategy))
                                     + " already offloads to the CPU: use more GPUs, a smaller micro-batch or a shorter "
                                       "sequence length."});
    } else {
        d.actions.push_back({ActionKind::DeeperSharding, std::nullopt, "", {},
                             "Shard deeper: the next ZeRO stage (zero1 → zero2 → zero3) or FSDP2 with "
                             "reshard_after_forward=True (fsdp2_reshard)."});
        d.actions.push_back({ActionKind::Offload, std::nullopt, "", {},
                             "If the deepest sharding still does not fit, offload to the CPU (zero2_offload, zero3_offload "
                             "or fsdp2_reshard_offload), at a large cost in throughput."});
    }
}

void explainLost(const Failure& f, Diagnosis& d, std::string& text)
{
    const std::string node = f.node.empty() ? std::string("the node") : f.node;
    if (!f.lastLines.empty())
        text += " Its last line (" + f.lastLines.back().source + ":" + std::to_string(f.lastLines.back().line)
            + ") was: \"" + f.lastLines.back().text + "\".";
    std::string advice;
    if (f.facts.value("stopped_responding", false)) {
        d.actions.push_back(
            { ActionKind::InspectSilentRanks,
              std::nullopt,
              f.node,
              { f.rank },
              rankLabel(f)
                  + " stopped emitting events while its peers waited for it in a collective: "
                    "it was stopped (SIGSTOP, Ctrl-Z, a debugger), stuck (in I/O, data loading, a "
                    "deadlock) or its node froze; the peers' timeouts are the consequence, not a network "
                    "fault. While it hangs, `ps -o stat= -p <pid>` (T = stopped, D = waiting on I/O) and "
                    "`py-spy dump --pid <pid>` / `gdb -p <pid>` show where it is." });
        return;
    }
    if (f.facts.value("ssh", false) || f.facts.value("dispatcher_lost", false))
        advice = "The dispatcher lost " + node
            + ": check whether it is up (reboot, preemption, network partition) before rerunning; its kernel log "
              "and the cloud's preemption and maintenance events say why.";
    else if (f.facts.value("host_oom_killer", false))
        advice = "The kernel's OOM killer ended it: host memory on " + node
            + " ran out. CPU offload, pinned buffers and data-loader workers use host memory: reduce them or use a "
              "node with more RAM.";
    else
        advice = "SIGKILL (exit code 137) is what the kernel's OOM killer, a preemption or maintenance event, or an "
                 "operator's kill -9 look like: on " + node
            + " look at `journalctl -k` / `dmesg -T` for \"Out of memory: Killed process\", and at the cloud's "
              "preemption and maintenance events.";
    d.actions.push_back({ActionKind::CheckNode, std::nullopt, f.node, {f.rank}, advice});
}

void explainLauncher(const Failure& f, Diagnosis& d, std::string& text)
{
    const std::string program = f.facts.value("program", std::string("the program"));
    const std::string args = f.facts.value("arguments", std::string());
    text += " " + program + " stopped at start-up because its argument parser rejected \"" + args + "\".";
    std::string fix;
    if (f.facts.value("rejected_use_env", false))
        fix = "torchrun always passes the local rank in the LOCAL_RANK environment variable and has no --use_env "
              "option: remove --use_env / --use-env from the command line.";
    else if (f.facts.value("injected_local_rank", false))
        fix = "The launcher appended " + args
            + ". Either accept it in the script (argparse: parser.add_argument(\"--local-rank\", \"--local_rank\", "
              "type=int, default=int(os.environ.get(\"LOCAL_RANK\", 0)))), or stop the launcher from passing it: "
              "torchrun never passes it and sets LOCAL_RANK instead; python -m torch.distributed.launch stops with "
              "--use-env (--use_env before PyTorch 2.0); DeepSpeed's launcher stops with --no_local_rank.";
    else
        fix = "Remove \"" + args + "\" from the command line or add it to " + program + "'s argument parser.";
    d.actions.push_back({ActionKind::FixLauncherArgs, std::nullopt, f.node, {f.rank}, fix});
}

void explainCommunication(const Failure& f, Diagnosis& d, std::string& text)
{
    std::string advice;
    if (f.facts.value("phase", std::string()) == "rendezvous") {
        text += " The ranks never met, so no training step ran.";
        advice = "Check that MASTER_ADDR:MASTER_PORT is reachable from every node (firewall, the address of the "
                 "right interface), that every node was started, and that all use the same port and world size.";
    } else {
        advice = "Rerun with NCCL_DEBUG=INFO to see the failing call. Common causes: the wrong network interface "
                 "(set NCCL_SOCKET_IFNAME), a firewall between the nodes, too little /dev/shm in a container (test "
                 "with NCCL_SHM_DISABLE=1), InfiniBand set-up (test with NCCL_IB_DISABLE=1), different NCCL versions "
                 "on the nodes.";
    }
    d.actions.push_back({ActionKind::CheckNetwork, std::nullopt, f.node, {f.rank}, advice});
}

void explainSymptomsOnly(Diagnosis& d, const RunFacts& run, std::string& text)
{
    std::set<int> reporting;
    std::map<std::int64_t, std::set<int>> bySeq;
    for (const auto& f : d.failures) {
        // A rank that saw the hang or the vanished peer reported it; one that was only terminated did not.
        if (f.kind == FailureKind::WatchdogTimeout || f.kind == FailureKind::Communication)
            reporting.insert(f.rank);
        if (f.kind == FailureKind::WatchdogTimeout && f.facts.contains("seq_num"))
            bySeq[f.facts["seq_num"].get<std::int64_t>()].insert(f.rank);
    }
    std::set<int> silent;
    for (int r : run.ranks)
        if (!reporting.contains(r))
            silent.insert(r);
    text = "No primary failure was found: only symptoms (";
    std::string kinds;
    for (const auto& f : d.failures)
        if (kinds.find(std::string(failureKindId(f.kind))) == std::string::npos)
            kinds += (kinds.empty() ? "" : ", ") + std::string(failureKindId(f.kind));
    std::set<int> failing;
    for (const auto& f : d.failures)
        failing.insert(f.rank);
    text += kinds + " on ranks " + rankList(failing) + ").";
    text += " These follow a failure or a hang elsewhere; the cause left no error in these records.";
    if (bySeq.size() > 1) {
        text += " The ranks timed out in different collectives (";
        std::string parts;
        for (const auto& [seq, ranks] : bySeq)
            parts += (parts.empty() ? "" : "; ") + std::string("SeqNum ") + std::to_string(seq) + " on ranks " + rankList(ranks);
        text += parts + "): they are out of step, e.g. a data-dependent branch skipped a collective on some ranks.";
    }
    if (!silent.empty()) {
        text += " Ranks " + rankList(silent) + " reported neither the hang nor an error of their own: look at them first.";
        d.actions.push_back({ActionKind::InspectSilentRanks, std::nullopt, "", {silent.begin(), silent.end()},
                             "Look at ranks " + rankList(silent)
                                 + " first: they never reported the hang, so they are the likely culprits (stuck in "
                                   "another collective, in data loading or I/O, or gone without a trace); check their "
                                   "nodes for killed processes."});
    }
    d.actions.push_back({ActionKind::CollectMoreEvidence, std::nullopt, "", {},
                         "Rerun with NCCL_DEBUG=INFO, TORCH_NCCL_TRACE_BUFFER_SIZE=2000 and TORCH_NCCL_DUMP_ON_TIMEOUT=1 "
                         "(PyTorch's NCCL flight recorder) and TORCH_NCCL_DESYNC_DEBUG=1; while it hangs, "
                         "`py-spy dump --pid <pid>` on every rank shows where each one waits."});
}

} // namespace

std::string rankLabel(const Failure& f)
{
    std::string s = f.rank == kNoRank ? std::string("the launcher") : "rank " + std::to_string(f.rank);
    if (!f.node.empty())
        s += " on " + f.node;
    return s;
}

std::string bytesText(std::int64_t bytes)
{
    char buf[48];
    const double b = static_cast<double>(bytes);
    if (b >= 1024.0 * 1024 * 1024)
        std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1024.0 * 1024 * 1024));
    else if (b >= 1024.0 * 1024)
        std::snprintf(buf, sizeof buf, "%.2f MiB", b / (1024.0 * 1024));
    else if (b >= 1024.0)
        std::snprintf(buf, sizeof buf, "%.2f KiB", b / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
    return buf;
}

void explainAndSuggest(Diagnosis& d, const RunFacts& run)
{
    std::string text;
    if (d.verdict == Verdict::Clean) {
        text = "No failure was recognised in " + std::to_string(run.recordCount) + " record(s).";
        const bool allZero = !run.exitCodes.empty()
            && std::all_of(run.exitCodes.begin(), run.exitCodes.end(), [](const auto& p) { return p.second == 0; });
        if (allZero)
            text += " Every rank with a known exit code exited 0.";
        if (!run.completedRanks.empty())
            text += " " + std::to_string(run.completedRanks.size()) + " rank(s) reported a run summary.";
        if (run.exitCodes.empty() && run.completedRanks.empty())
            text += " No exit codes or run summaries were given, so completion itself is not confirmed.";
        d.explanation = text;
        return;
    }
    if (d.verdict == Verdict::SymptomsOnly) {
        explainSymptomsOnly(d, run, text);
        d.explanation = text;
        return;
    }
    Failure& root = d.failures[*d.rootCause];
    text = "The first failure: " + rankLabel(root) + " — " + root.message + when(root, run) + ".";
    switch (root.kind) {
    case FailureKind::OutOfMemory: explainOutOfMemory(root, d, run, text); break;
    case FailureKind::LostRank: explainLost(root, d, text); break;
    case FailureKind::LauncherArguments: explainLauncher(root, d, text); break;
    case FailureKind::Communication: explainCommunication(root, d, text); break;
    case FailureKind::Config:
        d.actions.push_back({ActionKind::FixConfig, std::nullopt, "", {root.rank},
                             "Fix the run configuration and rerun: " + root.message});
        break;
    case FailureKind::Internal:
    case FailureKind::WatchdogTimeout: {
        const auto& ev = root.evidence.empty() ? EvidenceLine{} : root.evidence.front();
        d.actions.push_back({ActionKind::ReadLog, std::nullopt, root.node, {root.rank},
                             "Read " + rankLabel(root) + "'s error in full" + (ev.source.empty() ? std::string() : " (" + ev.source + (ev.line ? ":" + std::to_string(ev.line) : std::string()) + ")") + "."});
        break;
    }
    }
    std::map<std::string, std::set<int>> symptoms;
    std::size_t others = 0;
    for (std::size_t i = 0; i < d.failures.size(); ++i) {
        if (i == *d.rootCause)
            continue;
        ++others;
        if (d.failures[i].isSymptom)
            symptoms[std::string(failureKindId(d.failures[i].kind))].insert(d.failures[i].rank);
    }
    if (others > 0) {
        text += " It is the first of " + std::to_string(others + 1) + " failures across the run";
        if (!symptoms.empty()) {
            std::string parts;
            for (const auto& [kind, ranks] : symptoms)
                parts += (parts.empty() ? "" : "; ") + kind + " on ranks " + rankList(ranks);
            text += "; the symptoms that followed (" + parts + ") are consequences of it, not causes";
        }
        text += ".";
    }
    d.explanation = text;
}

} // namespace shardwise::diagnose::detail
