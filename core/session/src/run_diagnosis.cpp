#include "shardwise/session/run_session.hpp"

#include "shardwise/store/runs.hpp"

#include <fstream>

namespace shardwise::session {

namespace {

std::vector<std::string> readLines(const std::filesystem::path& file)
{
    std::vector<std::string> lines;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

} // namespace

std::vector<diagnose::RankRecord> rankRecordsOf(const dispatch::LaunchResult& launch, const std::string& node)
{
    std::vector<diagnose::RankRecord> records;
    records.reserve(launch.ranks.size());
    for (const dispatch::RankOutcome& r : launch.ranks) {
        diagnose::RankRecord record;
        record.rank = r.rank;
        record.node = node;
        record.logName = r.logFile.filename().string();
        record.logLines = readLines(r.logFile);
        record.events = r.events;
        record.eventsName = "rank" + std::to_string(r.rank) + " events";
        record.endedByLauncher = r.killedByLauncher;
        // A shell reports a signalled child as 128 + signal; the diagnosis reads both forms.
        if (r.signal != 0)
            record.signal = r.signal;
        else
            record.exitCode = r.exitCode;
        records.push_back(std::move(record));
    }
    return records;
}

std::int64_t storeRunDiagnosis(store::Database& db, std::int64_t runId, const diagnose::Diagnosis& diagnosis)
{
    store::Diagnosis stored;
    stored.runId = runId;
    stored.createdAt = store::currentUnixTime();
    stored.detail = diagnosis.explanation;
    if (diagnosis.rootCause && *diagnosis.rootCause < diagnosis.failures.size()) {
        const diagnose::Failure& root = diagnosis.failures[*diagnosis.rootCause];
        stored.code = std::string(diagnose::failureKindId(root.kind));
        stored.title = root.message;
        if (root.rank != diagnose::kNoRank)
            stored.firstFailureRank = root.rank;
    } else {
        stored.code = std::string(diagnose::verdictId(diagnosis.verdict));
        stored.title = diagnosis.failures.empty() ? diagnosis.explanation : diagnosis.failures.front().message;
    }
    stored.document = diagnose::toJson(diagnosis);
    store::removeDiagnoses(db, runId);
    return store::addDiagnosis(db, stored);
}

} // namespace shardwise::session
