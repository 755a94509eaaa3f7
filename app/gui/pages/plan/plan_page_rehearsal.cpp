// The Plan page's check of a larger world's fit on this machine's GPU: a rehearsal of one rank as
// rank 0 of the plan's world N, built as the run matrix builds a run (core's plannedRun) with the
// rehearsal set, queued into the workspace's run queue (off the GUI thread, through the one launch
// builder) and shown on the Runs page.
#include "pages/plan/plan_page.hpp"

#include "jobs/run_job.hpp"
#include "models/display_format.hpp"
#include "models/run_backend.hpp"
#include "pages/plan/plan_form.hpp"
#include "workspace/workspace.hpp"

#include "shardwise/plan/plan.hpp"
#include "shardwise/session/node_facts_json.hpp"
#include "shardwise/session/probe_session.hpp"
#include "shardwise/store/nodes.hpp"

#include <QComboBox>
#include <QLabel>
#include <QPushButton>

namespace shardwise::gui {

QPushButton* PlanPage::createRehearsalButton()
{
    m_rehearse = new QPushButton;
    m_rehearse->setObjectName(QStringLiteral("rehearseButton"));
    m_rehearse->hide(); // until a plan's world exceeds this machine's GPUs
    connect(m_rehearse, &QPushButton::clicked, this, &PlanPage::rehearse);
    return m_rehearse;
}

int PlanPage::localGpuCount() const
{
    if (!m_workspace.database())
        return 0;
    try {
        for (const store::Node& node : store::listNodes(*m_workspace.database())) {
            if (node.kind != store::NodeKind::Local)
                continue;
            if (const int gpus = session::knownGpuCount(node.facts); gpus > 0)
                return gpus;
            // GPUs not listed, but a driver found: at least one CUDA GPU.
            return session::nodeFactsFromJson(node.facts).driver.empty() ? 0 : 1;
        }
    } catch (const std::exception&) {
        // An unreadable store knows no GPU here.
    }
    return 0;
}

PlanPage::RehearsalOffer PlanPage::rehearsalOffer() const
{
    RehearsalOffer offer;
    const PlanView& plan = currentPlan();
    if (m_formInvalid || plan.candidates.isEmpty())
        return offer;
    const int gpus = localGpuCount();
    offer.world = plan.gpus;
    offer.offered = offer.world > std::max(gpus, 1) && offer.world <= kMaxRehearsedWorld;
    if (!offer.offered)
        return offer;
    offer.strategy = exportStrategy();
    const auto backend = static_cast<RunBackend>(m_backend->currentData().toInt());
    if (gpus < 1) {
        offer.reason = tr("This machine has no CUDA GPU that Shardwise knows of: a rehearsal measures one GPU's "
                          "allocator peaks. Discover this machine's GPUs on the Nodes page.");
        return offer;
    }
    if (!offer.strategy) {
        offer.reason = tr("Nothing to rehearse: no candidate is selected and nothing fits.");
        return offer;
    }
    if (!backendRuns(backend, *offer.strategy)) {
        offer.reason = backendCannotRun(backend, *offer.strategy);
        return offer;
    }
    offer.enabled = true;
    offer.reason = tr("Run %1 on one GPU of this machine as rank 0 of world %2, with the plan's model, sequence, "
                      "micro-batch, precision, checkpointing and allocator settings, on %3. The communicator moves "
                      "no data: the run measures one rank's memory at world %2, not its speed. The Runs page "
                      "shows it.")
                       .arg(strategyLabel(*offer.strategy))
                       .arg(offer.world)
                       .arg(backendLabel(backend));
    return offer;
}

std::optional<RunRequest> PlanPage::rehearsalRequest(QString* why) const
{
    const RehearsalOffer offer = rehearsalOffer();
    if (!offer.enabled || !offer.strategy) {
        if (why)
            *why = offer.reason;
        return std::nullopt;
    }
    const PlanView& plan = currentPlan();
    const auto backend = static_cast<RunBackend>(m_backend->currentData().toInt());
    RunRequest run;
    try {
        // The run the plan's input describes for this strategy (what Validate's run matrix holds),
        // then one rank standing for world N: no CUDA graphs, which a rehearsal does not capture.
        run.config = plannedRun(m_form->input(), *offer.strategy, DeviceKind::Cuda);
    } catch (const std::exception& e) {
        if (why)
            *why = QString::fromUtf8(e.what());
        return std::nullopt;
    }
    run.config.worldSize = 1;
    run.config.rehearseWorld = offer.world;
    run.config.warmupSteps = m_warmupSteps;
    run.config.timedSteps = m_timedSteps;
    requestCudaGraphs(run.config, false);
    QString backendWhy;
    const std::optional<RunConfig> forBackend = configForBackend(run.config, backend, &backendWhy);
    if (!forBackend) {
        if (why)
            *why = backendWhy;
        return std::nullopt;
    }
    run.config = *forBackend;
    run.node = QStringLiteral("local");
    run.gpuId = plan.gpuId;
    run.interconnect = plan.interconnect;
    // The plan's peak for one rank of world N, where the plan predicts what this backend runs; a
    // rehearsal keeps no tokens/s, so none is predicted.
    const bool predictsBackend = (backend == RunBackend::Native && plan.framework == Framework::Native)
        || (backend == RunBackend::Torch && plan.framework == Framework::Fsdp2);
    if (predictsBackend) {
        for (const CandidateView& c : plan.candidates) {
            if (c.strategy == *offer.strategy) {
                store::RunPrediction prediction;
                prediction.peakBytes = static_cast<std::int64_t>(c.allocatedPeakGiB * 1024.0 * 1024.0 * 1024.0);
                run.predicted = prediction;
            }
        }
    }
    return run;
}

void PlanPage::updateRehearsalAction()
{
    if (!m_rehearse)
        return;
    const RehearsalOffer offer = rehearsalOffer();
    m_rehearse->setVisible(offer.offered);
    m_rehearse->setText(tr("Check the fit of world %1 on this GPU").arg(offer.world));
    m_rehearse->setEnabled(offer.enabled);
    m_rehearse->setToolTip(offer.reason);
}

void PlanPage::rehearse()
{
    QString why;
    const std::optional<RunRequest> request = rehearsalRequest(&why);
    if (!request) {
        m_validationStatus->setText(tr("Cannot check the fit: %1").arg(why));
        return;
    }
    m_queue->enqueue(*request);
    m_validationStatus->setText(tr("Queued a rehearsal of world %1 (%2) on this machine; the Runs page shows it.")
                                    .arg(request->config.rehearseWorld)
                                    .arg(strategyLabel(request->config.strategy)));
}

} // namespace shardwise::gui
