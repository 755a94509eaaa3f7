#pragma once
// Shared between the steps of diagnose(): collecting failures, ordering them, explaining them.

#include "shardwise/diagnose/diagnosis.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace shardwise::diagnose::detail {

// What the records say about the run as a whole.
struct RunFacts {
    std::optional<Strategy> strategy; // from a start event
    bool expandableSegments = false;  // already on, per a start event
    std::string launcher;
    int world = 0;
    std::set<int> ranks;          // every rank that left a record or an event
    std::set<int> completedRanks; // ranks with a summary event
    std::map<int, std::string> rankNodes;
    std::map<std::string, double> nodeOffsets;
    std::map<int, int> exitCodes;
    std::size_t recordCount = 0;
};

RunFacts gatherRunFacts(const std::vector<RankRecord>& records);

std::vector<Failure> collectFailures(const std::vector<RankRecord>& records, const RunFacts& run);

// Sorts failures, marks symptoms and the root cause; fills verdict, rootCause, orderingCertain, notes.
void orderAndChooseRootCause(Diagnosis& d, const RunFacts& run, const DiagnoseOptions& options);

void explainAndSuggest(Diagnosis& d, const RunFacts& run);

// Clock uncertainty between two failures' times, in seconds.
double clockUncertainty(const Failure& a, const Failure& b, const RunFacts& run, const DiagnoseOptions& options);

std::string rankLabel(const Failure& f);    // "rank 3 on node-b", "the launcher on node-b"
Message rankLabelMessage(const Failure& f); // the same as a message
std::string bytesText(std::int64_t bytes);  // "6.30 GiB"

} // namespace shardwise::diagnose::detail
