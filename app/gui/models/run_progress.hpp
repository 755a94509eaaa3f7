#pragma once
// What the GUI shows of a run's ranks while it runs and afterwards: per-rank progress accumulated
// from the runner's events, and the rank log lines. One tracker serves both the live run (events as
// they arrive) and a run read back from the store (its step series, summaries and errors), so a
// re-attached run continues from the steps recorded before its detach instead of starting at zero.

#include "shardwise/protocol/events.hpp"
#include "shardwise/store/database.hpp"
#include "shardwise/store/runs.hpp"

#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>

#include <cstdint>
#include <vector>

namespace shardwise::gui {

// One rank of a run, as far as its events tell.
struct RankProgress {
    int rank = 0;
    int stepsDone = 0; // warm-up included
    int totalSteps = 0;
    int timedStepsDone = 0;
    double tokensPerS = 0; // this rank's tokens over its timed steps so far; 0 until the first timed step
    double lastStepS = 0;
    double medianStepS = 0; // over every step so far, warm-up included; 0 before the first
    double lastLoss = 0;
    std::int64_t deviceAllocated = 0;     // bytes; 0 on CPU
    std::int64_t devicePeakAllocated = 0; // bytes; 0 on CPU
    std::int64_t hostPeakRss = 0;         // bytes
    QString deviceName;
    bool finished = false; // sent its summary
    bool failed = false;   // sent an error event, or the run's diagnosis names it (killed, lost)
    QString error;
    // How the run's end left a rank that neither finished nor failed: the run was cancelled, or it
    // ended (another rank failed, it timed out) and the launcher stopped this one.
    bool cancelled = false;
    bool stopped = false;
    bool timedOut = false; // stopped because the run timed out
};

struct RunLogLine {
    int rank = 0;
    QString text;
    bool fromEvent = false; // a protocol log or error event rather than a stderr line
    bool isError = false;
};

class RankProgressTracker {
public:
    RankProgressTracker(int world, int totalSteps);

    // Events of ranks outside 0..world-1 are ignored. Each step is reported once (the store keys
    // steps by run, rank and step; a re-attach follows on from the stored offsets).
    void apply(const protocol::Event& event);
    // Everything the store kept of run `detail`: its steps, device names, summaries and errors.
    void replayStored(const store::Database& db, const store::RunDetail& detail);
    // The run ended as `status`: ranks that neither finished nor failed become cancelled (a cancelled
    // run) or stopped (a run that failed or timed out); `diagnosed` are the failures its diagnosis
    // found by rank (a killed rank sends no error event of its own), which mark those ranks failed.
    // Nothing changes for a run that has not ended.
    void conclude(store::RunStatus status, const QList<QPair<int, QString>>& diagnosed);

    bool changed() const { return m_changed; }
    const QList<RankProgress>& ranks() const { return m_ranks; }
    // The ranks, and changed() is false until the next event.
    QList<RankProgress> take();

private:
    void applyStep(const protocol::StepEvent& step);
    void fail(int rank, const std::string& message);

    QList<RankProgress> m_ranks;
    std::vector<double> m_timedTokens;
    std::vector<double> m_timedSeconds;
    std::vector<std::vector<double>> m_sortedStepS; // per rank, ascending, for the median
    bool m_changed = false;
};

// Per-rank progress of a stored run, rebuilt from what the store kept, concluded by its final status
// and its newest diagnosis (a rank killed by a signal left no error event, only its exit).
QList<RankProgress> storedRankProgress(const store::Database& db, const store::RunDetail& detail);
// The rank log lines the store kept for run `runId`, oldest first.
QList<RunLogLine> storedLogLines(const store::Database& db, qint64 runId);

} // namespace shardwise::gui

Q_DECLARE_METATYPE(shardwise::gui::RankProgress)
Q_DECLARE_METATYPE(shardwise::gui::RunLogLine)
