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

using A = MessageArg;

Message msg(std::string key, std::vector<A> args = {})
{
    return Message { std::move(key), std::move(args) };
}

std::string rankList(const std::set<int>& ranks)
{
    std::string out;
    for (int r : ranks)
        out += (out.empty() ? "" : ", ") + std::to_string(r);
    return out;
}

// " at 12:03:04", with the node's clock offset and whether the time is a neighbour's; empty without a time.
A when(const Failure& f, const RunFacts& run)
{
    if (f.loggedTime.empty())
        return A::name({});
    const bool inherited = f.timeSource == TimeSource::Inherited;
    if (auto it = run.nodeOffsets.find(f.node);
        it != run.nodeOffsets.end() && it->second != 0 && f.timeSource != TimeSource::Meta && f.time) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%+.0f s", it->second);
        return A::message(msg(inherited ? "diagnose.when_offset_inherited" : "diagnose.when_offset",
                              { A::name(f.loggedTime), A::name(f.node), A::name(buf), A::name(formatUtc(*f.time)) }));
    }
    return A::message(msg(inherited ? "diagnose.when_inherited" : "diagnose.when", { A::name(f.loggedTime) }));
}

A nodeOrTheNode(const std::string& node)
{
    return node.empty() ? A::message(msg("diagnose.the_node")) : A::name(node);
}

std::optional<Strategy> deeperThan(Strategy s)
{
    switch (s) {
    case Strategy::Zero0:
        return Strategy::Zero1;
    case Strategy::Zero1:
        return Strategy::Zero2;
    case Strategy::Zero2:
        return Strategy::Zero3;
    case Strategy::Zero2Offload:
        return Strategy::Zero3Offload; // offload kept, parameters sharded too
    case Strategy::Fsdp2NoReshard:
        return Strategy::Fsdp2Reshard;
    default:
        return std::nullopt;
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

A id(Strategy s)
{
    return A::name(std::string(strategyId(s)));
}

void act(Diagnosis& d, ActionKind kind, std::optional<Strategy> strategy, std::string node, std::vector<int> ranks,
         Message message)
{
    Action a { kind, strategy, std::move(node), std::move(ranks), std::move(message), {} };
    a.text = renderEnglish(a.message);
    d.actions.push_back(std::move(a));
}

void explainOutOfMemory(Failure& f, Diagnosis& d, const RunFacts& run, std::vector<Message>& text)
{
    if (f.facts.value("device", std::string()) == "cpu") {
        text.push_back(msg("diagnose.oom_host"));
        act(d, ActionKind::CheckNode, std::nullopt, f.node, {},
            msg("diagnose.action_check_host_memory", { nodeOrTheNode(f.node) }));
        return;
    }
    const std::int64_t tried = fact(f, "tried_to_allocate_bytes");
    const std::int64_t freeBytes = fact(f, "free_bytes");
    const std::int64_t total = fact(f, "total_capacity_bytes");
    const std::int64_t fragment = fact(f, "reserved_unallocated_bytes");
    if (tried >= 0) {
        if (freeBytes >= 0 && total > 0)
            text.push_back(
                msg("diagnose.oom_tried_free_of_total", { A::bytes(tried), A::bytes(freeBytes), A::bytes(total) }));
        else if (freeBytes >= 0)
            text.push_back(msg("diagnose.oom_tried_free", { A::bytes(tried), A::bytes(freeBytes) }));
        else if (total > 0)
            text.push_back(msg("diagnose.oom_tried_of_total", { A::bytes(tried), A::bytes(total) }));
        else
            text.push_back(msg("diagnose.oom_tried", { A::bytes(tried) }));
    }
    // PyTorch's own hint: when reserved-but-unallocated memory could have served the request, the cache
    // is fragmented and expandable segments let the allocator grow segments instead of splitting them.
    const bool fragmented = fragment > 0 && (tried < 0 || fragment >= tried);
    f.facts["fragmentation_suspected"] = fragmented;
    const bool alreadyExpandable = run.expandableSegments;
    if (fragment > 0)
        text.push_back(
            msg(fragmented ? "diagnose.oom_fragmented" : "diagnose.oom_not_fragmented", { A::bytes(fragment) }));
    if (fragmented && alreadyExpandable)
        text.push_back(msg("diagnose.oom_expandable_already_on"));
    if (fragmented && !alreadyExpandable) {
        const std::string var = f.facts.value("alloc_conf_variable", std::string());
        act(d, ActionKind::RerunWithExpandableSegments, std::nullopt, "", { f.rank },
            msg("diagnose.action_rerun_expandable",
                { var.empty() ? A::message(msg("diagnose.alloc_conf_either"))
                              : A::name(var + "=expandable_segments:True") }));
    }
    if (run.strategy) {
        if (auto deeper = deeperThan(*run.strategy))
            act(d, ActionKind::DeeperSharding, deeper, "", {},
                msg("diagnose.action_shard_deeper",
                    { id(*run.strategy), id(*deeper), A::strategySummary(std::string(strategyId(*deeper))) }));
        if (auto off = offloadFor(*run.strategy))
            act(d, ActionKind::Offload, off, "", {}, msg("diagnose.action_offload", { id(*off) }));
        else
            act(d, ActionKind::Offload, std::nullopt, "", {},
                msg("diagnose.action_already_offloads", { id(*run.strategy) }));
    } else {
        act(d, ActionKind::DeeperSharding, std::nullopt, "", {}, msg("diagnose.action_shard_deeper_any"));
        act(d, ActionKind::Offload, std::nullopt, "", {}, msg("diagnose.action_offload_any"));
    }
}

void explainLost(const Failure& f, Diagnosis& d, std::vector<Message>& text)
{
    if (!f.lastLines.empty())
        text.push_back(msg("diagnose.lost_last_line",
                           { A::name(f.lastLines.back().source), A::name(std::to_string(f.lastLines.back().line)),
                             A::name(f.lastLines.back().text) }));
    if (f.facts.value("stopped_responding", false)) {
        act(d, ActionKind::InspectSilentRanks, std::nullopt, f.node, { f.rank },
            msg("diagnose.action_inspect_stopped_rank", { A::message(rankLabelMessage(f)) }));
        return;
    }
    const char* advice = f.facts.value("ssh", false) || f.facts.value("dispatcher_lost", false)
        ? "diagnose.action_dispatcher_lost"
        : f.facts.value("host_oom_killer", false) ? "diagnose.action_host_oom_killer"
                                                  : "diagnose.action_sigkill";
    act(d, ActionKind::CheckNode, std::nullopt, f.node, { f.rank }, msg(advice, { nodeOrTheNode(f.node) }));
}

void explainLauncher(const Failure& f, Diagnosis& d, std::vector<Message>& text)
{
    const std::string args = f.facts.value("arguments", std::string());
    const A program = f.facts.contains("program") && f.facts["program"].is_string()
        ? A::name(f.facts["program"].get<std::string>())
        : A::message(msg("diagnose.the_program"));
    text.push_back(msg("diagnose.launcher_rejected", { program, A::name(args) }));
    if (f.facts.value("rejected_use_env", false))
        act(d, ActionKind::FixLauncherArgs, std::nullopt, f.node, { f.rank }, msg("diagnose.action_remove_use_env"));
    else if (f.facts.value("injected_local_rank", false))
        act(d, ActionKind::FixLauncherArgs, std::nullopt, f.node, { f.rank },
            msg("diagnose.action_local_rank", { A::name(args) }));
    else
        act(d, ActionKind::FixLauncherArgs, std::nullopt, f.node, { f.rank },
            msg("diagnose.action_fix_arguments", { A::name(args), program }));
}

void explainCommunication(const Failure& f, Diagnosis& d, std::vector<Message>& text)
{
    const bool rendezvous = f.facts.value("phase", std::string()) == "rendezvous";
    if (rendezvous)
        text.push_back(msg("diagnose.rendezvous_never_met"));
    act(d, ActionKind::CheckNetwork, std::nullopt, f.node, { f.rank },
        msg(rendezvous ? "diagnose.action_check_rendezvous" : "diagnose.action_nccl_debug"));
}

void explainSymptomsOnly(Diagnosis& d, const RunFacts& run, std::vector<Message>& text)
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
    std::string kinds;
    for (const auto& f : d.failures)
        if (kinds.find(std::string(failureKindId(f.kind))) == std::string::npos)
            kinds += (kinds.empty() ? "" : ", ") + std::string(failureKindId(f.kind));
    std::set<int> failing;
    for (const auto& f : d.failures)
        failing.insert(f.rank);
    text.push_back(msg("diagnose.symptoms_only", { A::name(kinds), A::name(rankList(failing)) }));
    text.push_back(msg("diagnose.symptoms_follow"));
    if (bySeq.size() > 1) {
        std::vector<Message> parts;
        for (const auto& [seq, ranks] : bySeq)
            parts.push_back(msg("diagnose.seq_on_ranks", { A::name(std::to_string(seq)), A::name(rankList(ranks)) }));
        text.push_back(msg("diagnose.out_of_step", { semicolonList(std::move(parts)) }));
    }
    if (!silent.empty()) {
        text.push_back(msg("diagnose.silent_ranks", { A::name(rankList(silent)) }));
        act(d, ActionKind::InspectSilentRanks, std::nullopt, "", { silent.begin(), silent.end() },
            msg("diagnose.action_inspect_silent_ranks", { A::name(rankList(silent)) }));
    }
    act(d, ActionKind::CollectMoreEvidence, std::nullopt, "", {}, msg("diagnose.action_collect_evidence"));
}

} // namespace

Message rankLabelMessage(const Failure& f)
{
    if (f.rank == kNoRank)
        return f.node.empty() ? msg("diagnose.the_launcher") : msg("diagnose.the_launcher_on", { A::name(f.node) });
    const A rank = A::name(std::to_string(f.rank));
    return f.node.empty() ? msg("diagnose.rank", { rank }) : msg("diagnose.rank_on", { rank, A::name(f.node) });
}

std::string rankLabel(const Failure& f)
{
    return renderEnglish(rankLabelMessage(f));
}

std::string bytesText(std::int64_t bytes)
{
    return renderEnglish(A::bytes(bytes));
}

void explainAndSuggest(Diagnosis& d, const RunFacts& run)
{
    std::vector<Message> text;
    if (d.verdict == Verdict::Clean) {
        text.push_back(msg("diagnose.clean", { A::integer(static_cast<long long>(run.recordCount)) }));
        const bool allZero = !run.exitCodes.empty()
            && std::all_of(run.exitCodes.begin(), run.exitCodes.end(), [](const auto& p) { return p.second == 0; });
        if (allZero)
            text.push_back(msg("diagnose.clean_exit_zero"));
        if (!run.completedRanks.empty())
            text.push_back(
                msg("diagnose.clean_summaries", { A::integer(static_cast<long long>(run.completedRanks.size())) }));
        if (run.exitCodes.empty() && run.completedRanks.empty())
            text.push_back(msg("diagnose.clean_unconfirmed"));
    } else if (d.verdict == Verdict::SymptomsOnly) {
        explainSymptomsOnly(d, run, text);
    } else {
        Failure& root = d.failures[*d.rootCause];
        text.push_back(msg("diagnose.first_failure",
                           { A::message(rankLabelMessage(root)), A::name(root.message), when(root, run) }));
        switch (root.kind) {
        case FailureKind::OutOfMemory:
            explainOutOfMemory(root, d, run, text);
            break;
        case FailureKind::LostRank:
            explainLost(root, d, text);
            break;
        case FailureKind::LauncherArguments:
            explainLauncher(root, d, text);
            break;
        case FailureKind::Communication:
            explainCommunication(root, d, text);
            break;
        case FailureKind::Config:
            act(d, ActionKind::FixConfig, std::nullopt, "", { root.rank },
                msg("diagnose.action_fix_config", { A::name(root.message) }));
            break;
        case FailureKind::Internal:
        case FailureKind::WatchdogTimeout: {
            const auto& ev = root.evidence.empty() ? EvidenceLine {} : root.evidence.front();
            const A who = A::message(rankLabelMessage(root));
            if (ev.source.empty())
                act(d, ActionKind::ReadLog, std::nullopt, root.node, { root.rank },
                    msg("diagnose.action_read_log", { who }));
            else
                act(d, ActionKind::ReadLog, std::nullopt, root.node, { root.rank },
                    msg("diagnose.action_read_log_at",
                        { who, A::name(ev.source + (ev.line ? ":" + std::to_string(ev.line) : std::string())) }));
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
            const A count = A::integer(static_cast<long long>(others + 1));
            if (symptoms.empty()) {
                text.push_back(msg("diagnose.first_of_failures", { count }));
            } else {
                std::vector<Message> parts;
                for (const auto& [kind, ranks] : symptoms)
                    parts.push_back(msg("diagnose.kind_on_ranks", { A::name(kind), A::name(rankList(ranks)) }));
                text.push_back(msg("diagnose.first_of_failures_symptoms", { count, semicolonList(std::move(parts)) }));
            }
        }
    }
    d.explanation.clear();
    for (const Message& m : text)
        d.explanation += (d.explanation.empty() ? "" : " ") + renderEnglish(m);
    d.explanationMessages = std::move(text);
}

} // namespace shardwise::diagnose::detail
