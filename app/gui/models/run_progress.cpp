#include "models/run_progress.hpp"

#include "models/run_diagnosis_view.hpp"

#include <algorithm>

namespace shardwise::gui {

RankProgressTracker::RankProgressTracker(int world, int totalSteps)
{
    for (int r = 0; r < world; ++r) {
        RankProgress p;
        p.rank = r;
        p.totalSteps = totalSteps;
        m_ranks.append(p);
    }
    const auto ranks = static_cast<std::size_t>(std::max(world, 0));
    m_timedTokens.assign(ranks, 0.0);
    m_timedSeconds.assign(ranks, 0.0);
    m_sortedStepS.assign(ranks, {});
}

void RankProgressTracker::applyStep(const protocol::StepEvent& step)
{
    if (step.rank < 0 || step.rank >= m_ranks.size() || step.step < 0)
        return;
    RankProgress& p = m_ranks[step.rank];
    const auto r = static_cast<std::size_t>(step.rank);
    p.stepsDone = std::max(p.stepsDone, step.step + 1);
    p.lastStepS = step.stepTimeS;
    std::vector<double>& sorted = m_sortedStepS[r];
    sorted.insert(std::upper_bound(sorted.begin(), sorted.end(), step.stepTimeS), step.stepTimeS);
    const std::size_t mid = sorted.size() / 2;
    p.medianStepS = sorted.size() % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
    p.lastLoss = step.loss;
    p.deviceAllocated = step.memory.allocated;
    p.devicePeakAllocated = std::max(p.devicePeakAllocated, step.memory.peakAllocated);
    p.hostPeakRss = std::max(p.hostPeakRss, step.memory.hostPeakRss);
    if (step.timed) {
        // Tokens per second so far = this rank's timed tokens over its timed step time; the
        // warm-up steps (allocator growth, first-touch) would understate the steady rate.
        ++p.timedStepsDone;
        m_timedTokens[r] += static_cast<double>(step.tokens);
        m_timedSeconds[r] += step.stepTimeS;
        p.tokensPerS = m_timedSeconds[r] > 0 ? m_timedTokens[r] / m_timedSeconds[r] : 0.0;
    }
    m_changed = true;
}

void RankProgressTracker::fail(int rank, const std::string& message)
{
    RankProgress& p = m_ranks[rank];
    if (p.failed)
        return; // the first error is the one that counts
    p.failed = true;
    p.error = QString::fromStdString(message);
}

void RankProgressTracker::apply(const protocol::Event& event)
{
    if (const auto* step = std::get_if<protocol::StepEvent>(&event)) {
        applyStep(*step);
        return;
    }
    const int rank = protocol::eventRank(event);
    if (rank < 0 || rank >= m_ranks.size())
        return;
    RankProgress& p = m_ranks[rank];
    if (const auto* start = std::get_if<protocol::StartEvent>(&event)) {
        p.deviceName = QString::fromStdString(start->deviceName);
    } else if (const auto* summary = std::get_if<protocol::SummaryEvent>(&event)) {
        p.finished = true;
        p.devicePeakAllocated = std::max(p.devicePeakAllocated, summary->memory.peakAllocated);
        p.hostPeakRss = std::max(p.hostPeakRss, summary->memory.hostPeakRss);
    } else if (const auto* error = std::get_if<protocol::ErrorEvent>(&event)) {
        fail(rank, error->message);
    } else {
        return;
    }
    m_changed = true;
}

void RankProgressTracker::replayStored(const store::Database& db, const store::RunDetail& detail)
{
    for (const protocol::StepEvent& step : store::stepSeries(db, detail.summary.id))
        applyStep(step);
    for (const store::RankPlacement& placement : detail.ranks)
        if (placement.rank >= 0 && placement.rank < m_ranks.size() && !placement.deviceName.empty()) {
            m_ranks[placement.rank].deviceName = QString::fromStdString(placement.deviceName);
            m_changed = true;
        }
    for (const protocol::SummaryEvent& summary : detail.rankSummaries)
        apply(protocol::Event { summary });
    for (const protocol::ErrorEvent& error : detail.errors)
        apply(protocol::Event { error });
}

void RankProgressTracker::conclude(store::RunStatus status, const QList<QPair<int, QString>>& diagnosed)
{
    using store::RunStatus;
    if (status == RunStatus::Running || status == RunStatus::Detached || status == RunStatus::Interrupted
        || status == RunStatus::Completed)
        return;
    for (const auto& [rank, message] : diagnosed)
        if (rank >= 0 && rank < m_ranks.size() && !m_ranks[rank].finished)
            fail(rank, message.toStdString());
    for (RankProgress& p : m_ranks) {
        if (p.finished || p.failed)
            continue;
        if (status == RunStatus::Cancelled) {
            p.cancelled = true;
        } else {
            p.stopped = true;
            p.timedOut = status == RunStatus::Timeout;
        }
    }
    m_changed = true;
}

QList<RankProgress> RankProgressTracker::take()
{
    m_changed = false;
    return m_ranks;
}

QList<RankProgress> storedRankProgress(const store::Database& db, const store::RunDetail& detail)
{
    const store::RunSummary& s = detail.summary;
    RankProgressTracker tracker(s.worldSize, s.warmupSteps.value_or(0) + s.timedSteps.value_or(0));
    tracker.replayStored(db, detail);
    QList<QPair<int, QString>> diagnosed;
    if (!detail.diagnoses.empty()) {
        const store::Diagnosis& newest = *std::max_element(detail.diagnoses.begin(), detail.diagnoses.end(),
                                                           [](const auto& a, const auto& b) { return a.id < b.id; });
        try {
            // A rank the launcher ended after the run had failed is a symptom of kind lost_rank: it
            // was stopped, not failed.
            for (const DiagnosisFailure& f : diagnosisViewFromJson(newest.document).failures)
                if (f.rank && !(f.symptom && f.kind == QLatin1String("lost_rank")))
                    diagnosed.append({ *f.rank, QStringLiteral("%1: %2").arg(failureKindText(f.kind), f.message) });
        } catch (const std::exception&) {
            // An unreadable diagnosis costs the ranks their diagnosed state; the Diagnosis tab says why.
        }
    }
    tracker.conclude(s.status, diagnosed);
    return tracker.ranks();
}

QList<RunLogLine> storedLogLines(const store::Database& db, qint64 runId)
{
    QList<RunLogLine> lines;
    for (const store::RankLogLine& l : store::rankLogs(db, runId))
        lines.append({ l.rank, QString::fromStdString(l.text), l.stream == "event", l.level == "error" });
    return lines;
}

} // namespace shardwise::gui
