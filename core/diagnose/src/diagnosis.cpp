#include "shardwise/diagnose/diagnosis.hpp"

#include "diagnosis_internal.hpp"

#include <array>
#include <utility>

namespace shardwise::diagnose {

namespace {

constexpr std::array<std::pair<FailureKind, std::string_view>, 7> kFailureKindIds { {
    { FailureKind::OutOfMemory, "oom" },
    { FailureKind::LostRank, "lost_rank" },
    { FailureKind::WatchdogTimeout, "watchdog_timeout" },
    { FailureKind::LauncherArguments, "launcher_arguments" },
    { FailureKind::Communication, "communication" },
    { FailureKind::Config, "config" },
    { FailureKind::Internal, "internal" },
} };

} // namespace

std::string_view failureKindId(FailureKind k)
{
    for (const auto& [kind, id] : kFailureKindIds)
        if (kind == k)
            return id;
    return "internal";
}

std::optional<FailureKind> failureKindFromId(std::string_view id)
{
    for (const auto& [kind, kid] : kFailureKindIds)
        if (kid == id)
            return kind;
    return std::nullopt;
}

std::string_view timeSourceId(TimeSource s)
{
    switch (s) {
    case TimeSource::Logged:
        return "logged";
    case TimeSource::Inherited:
        return "inherited";
    case TimeSource::Event:
        return "event";
    case TimeSource::Meta:
        return "meta";
    case TimeSource::Unknown:
        return "unknown";
    }
    return "unknown";
}

std::string_view actionKindId(ActionKind k)
{
    switch (k) {
    case ActionKind::RerunWithExpandableSegments:
        return "rerun_with_expandable_segments";
    case ActionKind::DeeperSharding:
        return "deeper_sharding";
    case ActionKind::Offload:
        return "offload";
    case ActionKind::FixLauncherArgs:
        return "fix_launcher_args";
    case ActionKind::FixConfig:
        return "fix_config";
    case ActionKind::CheckNode:
        return "check_node";
    case ActionKind::CheckNetwork:
        return "check_network";
    case ActionKind::InspectSilentRanks:
        return "inspect_silent_ranks";
    case ActionKind::CollectMoreEvidence:
        return "collect_more_evidence";
    case ActionKind::ReadLog:
        return "read_log";
    }
    return "read_log";
}

std::string_view verdictId(Verdict v)
{
    switch (v) {
    case Verdict::Clean:
        return "clean";
    case Verdict::RootCause:
        return "root_cause";
    case Verdict::SymptomsOnly:
        return "symptoms_only";
    }
    return "clean";
}

namespace {

// Logs carry whatever bytes a process wrote (partial multi-byte characters at a cut, binary junk);
// the diagnosis is JSON, which must be UTF-8, so invalid sequences become U+FFFD here, once.
std::string validUtf8(const std::string& s)
{
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
        bool ok = len > 0 && i + len <= s.size();
        for (std::size_t k = 1; ok && k < len; ++k)
            ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 0x2;
        if (ok && len > 1) {
            // Reject overlong forms, surrogates and code points above U+10FFFF.
            unsigned cp = c & (0xFFu >> (len + 1));
            for (std::size_t k = 1; k < len; ++k)
                cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
            static constexpr unsigned kMin[5] = { 0, 0, 0x80, 0x800, 0x10000 };
            ok = cp >= kMin[len] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
        }
        if (ok) {
            out.append(s, i, len);
            i += len;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
        }
    }
    return out;
}

} // namespace

Diagnosis diagnose(const std::vector<RankRecord>& input, const DiagnoseOptions& options)
{
    std::vector<RankRecord> records = input;
    for (auto& r : records)
        for (auto& line : r.logLines)
            line = validUtf8(line);
    const detail::RunFacts run = detail::gatherRunFacts(records);
    Diagnosis d;
    d.failures = detail::collectFailures(records, run);
    detail::orderAndChooseRootCause(d, run, options);
    detail::explainAndSuggest(d, run);
    return d;
}

namespace {

nlohmann::json evidenceJson(const std::vector<EvidenceLine>& lines)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& l : lines)
        out.push_back({ { "source", l.source }, { "line", l.line }, { "text", l.text } });
    return out;
}

} // namespace

nlohmann::json toJson(const Failure& f)
{
    nlohmann::json j { { "kind", failureKindId(f.kind) },
                       { "rank", f.rank == kNoRank ? nlohmann::json(nullptr) : nlohmann::json(f.rank) },
                       { "node", f.node },
                       { "time", f.time ? nlohmann::json(*f.time) : nlohmann::json(nullptr) },
                       { "logged_time", f.loggedTime },
                       { "time_source", timeSourceId(f.timeSource) },
                       { "message", f.message },
                       { "symptom", f.isSymptom },
                       { "root_cause", f.isRootCause },
                       { "facts", f.facts },
                       { "evidence", evidenceJson(f.evidence) } };
    if (!f.lastLines.empty())
        j["last_lines"] = evidenceJson(f.lastLines);
    return j;
}

nlohmann::json toJson(const Action& a)
{
    nlohmann::json j { { "kind", actionKindId(a.kind) }, { "text", a.text } };
    if (!a.message.id.empty())
        j["message"] = toJson(a.message); // the text as a message id, for faces that translate
    if (a.strategy)
        j["strategy"] = strategyId(*a.strategy);
    if (!a.node.empty())
        j["node"] = a.node;
    if (!a.ranks.empty())
        j["ranks"] = a.ranks;
    return j;
}

nlohmann::json toJson(const Diagnosis& d)
{
    nlohmann::json failures = nlohmann::json::array();
    for (const auto& f : d.failures)
        failures.push_back(toJson(f));
    nlohmann::json actions = nlohmann::json::array();
    for (const auto& a : d.actions)
        actions.push_back(toJson(a));
    nlohmann::json explanationMessages = nlohmann::json::array();
    for (const Message& m : d.explanationMessages)
        explanationMessages.push_back(toJson(m));
    nlohmann::json noteMessages = nlohmann::json::array();
    for (const Message& m : d.noteMessages)
        noteMessages.push_back(toJson(m));
    return { { "verdict", verdictId(d.verdict) },
             { "root_cause", d.rootCause ? nlohmann::json(*d.rootCause) : nlohmann::json(nullptr) },
             { "ordering_certain", d.orderingCertain },
             { "explanation", d.explanation },
             { "explanation_messages", explanationMessages },
             { "failures", failures },
             { "actions", actions },
             { "notes", d.notes },
             { "note_messages", noteMessages } };
}

} // namespace shardwise::diagnose
