#include "shell/quit_guard.hpp"

#include "jobs/run_job.hpp"

#include <QCoreApplication>
#include <QStringList>

namespace shardwise::gui {

namespace {

struct QuitText {
    Q_DECLARE_TR_FUNCTIONS(QuitText)
};

} // namespace

QString quitConsequences(const RunJob& job)
{
    QStringList sentences;
    if (const std::optional<RunRequest> running = job.running()) {
        const qint64 runId = job.runningRunId();
        const bool onSshNode = running->reattachOf.has_value() || running->node != QLatin1String("local");
        if (onSshNode && runId != 0) {
            sentences << QuitText::tr(
                             "Run %1 on %2 goes on running there after Shardwise quits; re-attach it from the Runs "
                             "page when you start Shardwise again.")
                             .arg(runId)
                             .arg(running->node);
        } else if (onSshNode) {
            sentences << QuitText::tr("A run is starting on %1: quitting now may stop it before it is recorded.")
                             .arg(running->node);
        } else if (runId != 0) {
            sentences << QuitText::tr("Run %1 on this machine is stopped and kept as cancelled.").arg(runId);
        } else {
            sentences << QuitText::tr("A run is starting on this machine: quitting now stops it.");
        }
    }
    if (const qsizetype queued = job.queued().size(); queued > 0)
        sentences << QuitText::tr("Queued runs that will not start: %1.").arg(queued);
    return sentences.join(QLatin1Char(' '));
}

} // namespace shardwise::gui
