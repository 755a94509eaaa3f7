#pragma once
// Failure diagnosis across the ranks of one run: classify each rank's log lines and protocol events,
// order the failures of all ranks and nodes on one clock, and name the FIRST primary failure as the
// root cause. Watchdog timeouts and "peer closed" errors are symptoms: they follow a failure elsewhere
// and are never named as the root cause while a primary failure could have caused them.

#include "shardwise/protocol/events.hpp"
#include "shardwise/spec/message.hpp"
#include "shardwise/spec/strategy.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardwise::diagnose {

// A record that is not one rank's own output (e.g. a torchrun agent or dispatcher log of a node).
inline constexpr int kNoRank = -1;

// What one rank (or one node's launcher) left behind.
struct RankRecord {
    int rank = kNoRank;
    std::string node;                  // host name; empty when unknown
    std::string logName;               // e.g. "rank3.log", used in evidence
    std::vector<std::string> logLines; // with or without timestamps, as written
    std::vector<protocol::Event> events;
    std::string eventsName;                    // e.g. "events.jsonl", used in evidence
    std::vector<std::size_t> eventLineNumbers; // 1-based, parallel to events when known
    std::optional<int> exitCode;               // as the launcher saw it (137 = 128 + SIGKILL from a shell)
    std::optional<int> signal;                 // terminating signal, when known
    // The launcher ended it (SIGTERM, then SIGKILL) because a peer had failed, the run timed out or it
    // was cancelled: its signal is the clean-up, not a failure of its own.
    bool endedByLauncher = false;
    bool lost = false; // the dispatcher lost the rank or its node (SSH connection lost)
    std::string lostReason;
    std::optional<double> lostTime; // unix seconds on the dispatcher's clock
    // This node's clock minus the reference clock, in seconds, when known (e.g. from chrony/ntp
    // offsets the dispatcher measured). Logged times are corrected by subtracting it.
    std::optional<double> clockOffsetS;
};

enum class FailureKind {
    OutOfMemory,       // CUDA out of memory on a rank
    LostRank,          // rank or node gone: SIGKILL, exit 137, SSH connection lost, preemption
    WatchdogTimeout,   // a collective timed out (always a symptom)
    LauncherArguments, // the launcher and the script disagree about arguments
    Communication,     // NCCL / gloo / store errors; a symptom when they report a vanished peer
    Config,            // the run's configuration was rejected
    Internal,          // any other failure: an unrecognised traceback or a non-zero exit
};

std::string_view failureKindId(FailureKind k); // "oom" "lost_rank" "watchdog_timeout" ...
std::optional<FailureKind> failureKindFromId(std::string_view id);

enum class TimeSource {
    Logged,    // a timestamp on the matching line
    Inherited, // the nearest timestamp on an earlier (or later) line of the same log
    Event,     // a protocol event's time
    Meta,      // recorded by the launcher or dispatcher
    Unknown,
};
std::string_view timeSourceId(TimeSource s);

struct EvidenceLine {
    std::string source;   // log or events file name
    std::size_t line = 0; // 1-based line number in that source; 0 for launcher metadata
    std::string text;
};

struct Failure {
    FailureKind kind = FailureKind::Internal;
    int rank = kNoRank;
    std::string node;
    std::optional<double> time; // unix seconds on the reference clock (clock offset removed)
    std::string loggedTime;     // the time as written in the log, for display
    TimeSource timeSource = TimeSource::Unknown;
    std::string clockNode;  // whose clock wrote the time (empty: the reference clock)
    std::string message;    // one line: what happened
    bool isSymptom = false; // follows a failure elsewhere (watchdog, peer closed, SIGTERM'd)
    bool isRootCause = false;
    nlohmann::json facts = nlohmann::json::object(); // key facts, e.g. reserved_unallocated_bytes
    std::vector<EvidenceLine> evidence;              // the matching lines
    std::vector<EvidenceLine> lastLines;             // for a lost rank: what it printed last
};

enum class ActionKind {
    RerunWithExpandableSegments, // a diagnostic rerun for fragmentation, not a cure
    DeeperSharding,
    Offload,
    FixLauncherArgs,
    FixConfig,
    CheckNode,
    CheckNetwork,
    InspectSilentRanks,  // ranks that never reported the hang are the ones to look at
    CollectMoreEvidence, // debug switches for a rerun
    ReadLog,
};
std::string_view actionKindId(ActionKind k);

struct Action {
    ActionKind kind = ActionKind::ReadLog;
    std::optional<Strategy> strategy; // DeeperSharding / Offload: the strategy to try
    std::string node;                 // CheckNode
    std::vector<int> ranks;           // InspectSilentRanks, ReadLog
    Message message;                  // the sentence as a message id with its arguments
    std::string text;                 // the same in English (renderEnglish(message))
};

enum class Verdict {
    Clean,        // no failure recognised
    RootCause,    // a primary failure was found and named
    SymptomsOnly, // only symptoms (watchdog, peer closed): the cause left no trace in these logs
};
std::string_view verdictId(Verdict v);

struct Diagnosis {
    Verdict verdict = Verdict::Clean;
    std::vector<Failure> failures;        // ordered by reference time; unknown times last
    std::optional<std::size_t> rootCause; // index into failures
    // False when another primary failure lies within the clock uncertainty of the root cause, so
    // the order between them cannot be told from the times alone.
    bool orderingCertain = true;
    std::vector<Message> explanationMessages; // the explanation's sentences as message ids
    std::string explanation;                  // the same in English, joined by spaces
    std::vector<Action> actions;              // suggested next steps, most useful first
    std::vector<Message> noteMessages;        // the notes as message ids
    std::vector<std::string> notes;           // e.g. records without a clock offset; the same in English
};

struct DiagnoseOptions {
    // How far apart two nodes' clocks may be when no offset is known for one of them. Ten minutes
    // is PyTorch's default NCCL timeout (2.x); skew beyond that is rare on hosts running NTP.
    double unknownSkewS = 600;
    // Residual error of a measured offset (and of log timestamps rounded to the second).
    double knownSkewToleranceS = 2;
};

Diagnosis diagnose(const std::vector<RankRecord>& records, const DiagnoseOptions& options = {});

nlohmann::json toJson(const Diagnosis& d);
nlohmann::json toJson(const Failure& f);
nlohmann::json toJson(const Action& a);

} // namespace shardwise::diagnose
